// SPDX-License-Identifier: GPL-2.0-or-later
/* DDP (RFC 5041) segment header codec. See ddp.h. */
#include <string.h>
#include "net.h"
#include "ddp.h"

size_t rnic_ddp_encode(const struct rnic_ddp_hdr *h, uint8_t *buf, size_t cap)
{
    size_t hlen = rnic_ddp_hlen(h->tagged);
    if (cap < hlen) {
        return 0;
    }
    buf[0] = (uint8_t)((h->tagged ? RNIC_DDP_F_TAGGED : 0) |
                       (h->last ? RNIC_DDP_F_LAST : 0) |
                       (h->dv & RNIC_DDP_DV_MASK));
    buf[1] = h->ulp_ctrl;
    if (h->tagged) {
        rnic_put32(buf + 2, h->stag);
        rnic_put64(buf + 6, h->to);
    } else {
        rnic_put32(buf + 2, h->ulp_word);
        rnic_put32(buf + 6, h->qn);
        rnic_put32(buf + 10, h->msn);
        rnic_put32(buf + 14, h->mo);
    }
    return hlen;
}

size_t rnic_ddp_decode(const uint8_t *buf, size_t len, struct rnic_ddp_hdr *h,
                       struct rnic_term_cause *cause)
{
    memset(h, 0, sizeof(*h));
    if (len < 1) {
        *cause = rnic_term_cause(RNIC_TERM_LAYER_DDP,
                                 RNIC_DDP_ETYPE_LOCAL_CATASTROPHIC,
                                 RNIC_DDP_EC_LOCAL_CATASTROPHIC, false, false);
        return 0;
    }
    h->tagged = buf[0] & RNIC_DDP_F_TAGGED;
    h->last = buf[0] & RNIC_DDP_F_LAST;
    h->dv = buf[0] & RNIC_DDP_DV_MASK;
    if (h->dv != RNIC_DDP_VERSION) {
        *cause = h->tagged ?
            rnic_term_cause(RNIC_TERM_LAYER_DDP, RNIC_DDP_ETYPE_TAGGED,
                            RNIC_DDP_EC_T_INVALID_VERSION, false, false) :
            rnic_term_cause(RNIC_TERM_LAYER_DDP, RNIC_DDP_ETYPE_UNTAGGED,
                            RNIC_DDP_EC_U_INVALID_VERSION, false, false);
        return 0;
    }
    size_t hlen = rnic_ddp_hlen(h->tagged);
    if (len < hlen) {
        /*
         * No RFC 5041 code names a truncated header; the segment cannot be
         * interpreted at all, so it is reported as a DDP catastrophic error.
         */
        *cause = rnic_term_cause(RNIC_TERM_LAYER_DDP,
                                 RNIC_DDP_ETYPE_LOCAL_CATASTROPHIC,
                                 RNIC_DDP_EC_LOCAL_CATASTROPHIC, false, false);
        return 0;
    }
    h->ulp_ctrl = buf[1];
    if (h->tagged) {
        h->stag = rnic_get32(buf + 2);
        h->to = rnic_get64(buf + 6);
    } else {
        h->ulp_word = rnic_get32(buf + 2);
        h->qn = rnic_get32(buf + 6);
        h->msn = rnic_get32(buf + 10);
        h->mo = rnic_get32(buf + 14);
    }
    return hlen;
}
