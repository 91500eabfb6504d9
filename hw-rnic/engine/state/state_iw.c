/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iWARP layer's sections of the state stream.  Version 1 carries no
 * connection (docs/migration.md says what is missing): saving is refused
 * while one exists, half-open ones included.  What an engine without
 * connections keeps is carried: the RFC 6528 ISN secret, so that
 * connections made after a load continue the sequence numbers the peers
 * saw, and the CM listeners, made again on load by the CM_LISTEN command
 * itself, which checks them as it checks the driver's.
 */
#include <stdio.h>
#include <string.h>
#include "state_int.h"
#include "iwarp/iw.h"
#include "wire/le.h"

const char *rne_st_iw_unsaved(struct rne_dev *d, char *buf, size_t n)
{
    return rne_st_conn_unsaved(d, buf, n);
}

void rne_st_save_iw(struct rne_dev *d, struct rne_sw *w)
{
    rne_sw_begin(w, RNE_SEC_IW, RNE_SEC_VERSION);
    rne_sw_bytes(w, d->iw->isn_key, sizeof(d->iw->isn_key));
    rne_sw_end(w);
}

bool rne_st_load_iw(struct rne_st_ld *ld)
{
    struct rne_iw *iw = ld->d->iw;
    uint8_t key[sizeof(iw->isn_key)];

    if (!rne_sr_bytes(ld->r, key, sizeof(key))) {
        return false;
    }
    /* The engines copy the key when they are made: none exists yet. */
    if (iw->neng) {
        return rne_sr_fail(ld->r, "the target already made TCP engines");
    }
    memcpy(iw->isn_key, key, sizeof(key));
    return true;
}

void rne_st_save_listeners(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_listen; i++) {
        const struct rne_iw_listener *l = &d->iw->lis[i];

        if (!l->live) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_LISTEN, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_bytes(w, l->addr, sizeof(l->addr));
        rne_sw_u16(w, l->port);
        rne_sw_u32(w, l->backlog);
        rne_sw_end(w);
    }
}

bool rne_st_load_listener(struct rne_st_ld *ld)
{
    struct rne_sr *r = ld->r;
    struct rnic_admin_cmd cmd;
    struct rnic_admin_cqe cqe;
    struct rnic_cmd_cm_listen *c = &cmd.u.cm_listen;
    uint32_t id, backlog;
    uint16_t port;
    unsigned sts;

    memset(&cmd, 0, sizeof(cmd));
    memset(&cqe, 0, sizeof(cqe));
    if (!rne_sr_u32(r, &id)) {
        return false;
    }
    if ((int64_t)id <= ld->last_obj) {
        return rne_sr_fail(r, "listener %u: out of order", id);
    }
    ld->last_obj = id;
    rne_sr_bytes(r, c->addr, 4);
    rne_sr_u16(r, &port);
    if (!rne_sr_u32(r, &backlog)) {
        return false;
    }
    /* CM_LISTEN keeps 1..1024; anything else was not saved by an rnic. */
    if (backlog == 0 || backlog > 1024) {
        return rne_sr_fail(r, "listener %u: backlog %u (1..1024)", id,
                           backlog);
    }
    cmd.hdr.opcode = RNIC_CMD_CM_LISTEN;
    c->listen_id = rne_cpu_to_le32(id);
    c->backlog = rne_cpu_to_le32(backlog);
    c->family = RNIC_AF_IPV4;
    c->port = rne_cpu_to_le16(port);
    sts = rne_iw_admin(ld->d, &cmd, &cqe);
    if (sts) {
        return rne_sr_fail(r, "listener %u: CM_LISTEN refuses it (status "
                           "%u)", id, sts);
    }
    return true;
}
