/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iWARP layer's section of the state stream.  Version 1 carries no
 * listener or connection (docs/migration.md says what is missing): saving
 * is refused while one exists, and the section holds what an engine
 * without connections keeps, the RFC 6528 ISN secret, so that connections
 * made after a load continue the sequence numbers the peers saw.
 */
#include <stdio.h>
#include <string.h>
#include "state_int.h"
#include "iwarp/iw.h"

const char *rnic_st_iw_unsaved(struct rnic_dev *d, char *buf, size_t n)
{
    struct rnic_iw *iw = d->iw;
    uint64_t conn = 0, eng = 0;
    uint32_t i;

    for (i = 0; i < d->cfg.max_listen; i++) {
        if (iw->lis[i].live) {
            snprintf(buf, n, "listener %u is live: listeners are not in "
                     "the state stream yet", i);
            return buf;
        }
    }
    rnic_iw_mem_usage(d, &conn, &eng);
    if (iw->nlive || iw->nzombie || conn) {
        snprintf(buf, n, "%u connections are open (TCP holds %llu bytes): "
                 "connections are not in the state stream yet",
                 iw->nlive + iw->nzombie, (unsigned long long)conn);
        return buf;
    }
    return NULL;
}

void rnic_st_save_iw(struct rnic_dev *d, struct rnic_sw *w)
{
    rnic_sw_begin(w, RNIC_SEC_IW, RNIC_SEC_VERSION);
    rnic_sw_bytes(w, d->iw->isn_key, sizeof(d->iw->isn_key));
    rnic_sw_end(w);
}

bool rnic_st_load_iw(struct rnic_st_ld *ld)
{
    struct rnic_iw *iw = ld->d->iw;
    uint8_t key[sizeof(iw->isn_key)];

    if (!rnic_sr_bytes(ld->r, key, sizeof(key))) {
        return false;
    }
    /* The engines copy the key when they are made: none exists yet. */
    if (iw->neng) {
        return rnic_sr_fail(ld->r, "the target already made TCP engines");
    }
    memcpy(iw->isn_key, key, sizeof(key));
    return true;
}
