/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of the values in trace events (host.h struct rne_trace), for the
 * embedder's trace output: kept beside the engine's own enums.
 */
#include "iw.h"

static const char *name_of(const char *const *names, size_t n, uint32_t v)
{
    if (v == RNE_TRACE_NONE) {
        return "NONE";
    }
    return v < n && names[v] ? names[v] : "?";
}

#define NAME_OF(names, v) name_of(names, sizeof(names) / sizeof(names[0]), v)

const char *rne_trace_conn_state_name(uint32_t state)
{
    static const char *const names[] = {
        [IWC_SYN_SENT] = "SYN_SENT",
        [IWC_REP_WAIT] = "REP_WAIT",
        [IWC_REQ_WAIT] = "REQ_WAIT",
        [IWC_ACCEPT_WAIT] = "ACCEPT_WAIT",
        [IWC_RTR_WAIT] = "RTR_WAIT",
        [IWC_RTS] = "RTS",
        [IWC_CLOSING] = "CLOSING",
        [IWC_LINGER] = "LINGER",
    };

    return NAME_OF(names, state);
}

const char *rne_trace_qp_state_name(uint32_t state)
{
    static const char *const names[] = {
        [RNIC_QPS_IDLE] = "IDLE",
        [RNIC_QPS_RTS] = "RTS",
        [RNIC_QPS_CLOSING] = "CLOSING",
        [RNIC_QPS_TERMINATE] = "TERMINATE",
        [RNIC_QPS_ERROR] = "ERROR",
    };

    return NAME_OF(names, state);
}

const char *rne_trace_cm_name(unsigned code)
{
    static const char *const names[] = {
        [RNIC_CM_CONNECT_REQUEST] = "CONNECT_REQUEST",
        [RNIC_CM_CONNECT_REPLY] = "CONNECT_REPLY",
        [RNIC_CM_ESTABLISHED] = "ESTABLISHED",
        [RNIC_CM_REJECTED] = "REJECTED",
        [RNIC_CM_CLOSED] = "CLOSED",
        [RNIC_CM_RESET] = "RESET",
        [RNIC_CM_TIMEOUT] = "TIMEOUT",
        [RNIC_CM_MPA_ERROR] = "MPA_ERROR",
    };

    return NAME_OF(names, code);
}

const char *rne_trace_layer_name(unsigned layer)
{
    static const char *const names[] = {
        [RNE_TERM_LAYER_RDMAP] = "RDMAP",
        [RNE_TERM_LAYER_DDP] = "DDP",
        [RNE_TERM_LAYER_LLP] = "MPA",
    };

    return NAME_OF(names, layer);
}

const char *rne_trace_rexmit_name(unsigned kind)
{
    static const char *const names[] = {
        [RNE_TRACE_REXMIT_RTO] = "RTO",
        [RNE_TRACE_REXMIT_SYN] = "SYN",
        [RNE_TRACE_REXMIT_FAST] = "FAST",
        [RNE_TRACE_REXMIT_GIVEUP] = "GIVEUP",
    };

    return NAME_OF(names, kind);
}
