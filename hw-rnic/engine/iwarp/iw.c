/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iWARP layer's life and clock: init, fini and reset from the device,
 * the host timer (one deadline: the TCP engines' and the connections' heap
 * tops), and the routing of CM_* commands.
 */
#include <stdlib.h>
#include <string.h>
#include "iw.h"

uint64_t rne_iw_now(struct rne_dev *d)
{
    return d->host.ops->now_ns ? d->host.ops->now_ns(d->host.opaque) : 0;
}

void rne_iw_rearm(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint64_t dl = UINT64_MAX;
    uint32_t i;

    if (!d->host.ops->timer_mod) {
        return;
    }
    for (i = 0; i < iw->neng; i++) {
        uint64_t t = rne_tcp_next_deadline(iw->eng[i].tcp);
        dl = t < dl ? t : dl;
    }
    if (rne_iw_next_deadline(iw) < dl) {
        dl = rne_iw_next_deadline(iw);
    }
    /* QEMU's timer_mod takes a lock and may wake the main loop */
    if (iw->armed_ok && iw->armed == dl) {
        return;
    }
    iw->armed = dl;
    iw->armed_ok = true;
    d->host.ops->timer_mod(d->host.opaque, dl);
}

void rne_iw_timer_fired(struct rne_dev *d)
{
    if (d->iw) {
        d->iw->armed_ok = false;
    }
}

int rne_iw_init(struct rne_dev *d)
{
    struct rne_iw *iw = calloc(1, sizeof(*iw));

    if (!iw) {
        return -1;
    }
    d->iw = iw;
    iw->lis = calloc(d->cfg.max_listen, sizeof(*iw->lis));
    iw->conn = calloc(d->cfg.max_conn, sizeof(*iw->conn));
    iw->live = calloc(d->cfg.max_conn, sizeof(*iw->live));
    iw->dl_heap = calloc(d->cfg.max_conn, sizeof(*iw->dl_heap));
    iw->dl_due = calloc(d->cfg.max_conn, sizeof(*iw->dl_due));
    if (!iw->lis || !iw->conn || !iw->live || !iw->dl_heap || !iw->dl_due ||
        !d->host.ops->random) {
        return -1;
    }
    d->host.ops->random(d->host.opaque, iw->isn_key, sizeof(iw->isn_key));
    rne_iw_eng_ops(&iw->ops);
    return 0;
}

void rne_iw_mem_usage(struct rne_dev *d, uint64_t *conn, uint64_t *engine)
{
    uint32_t i;

    *conn = 0;
    *engine = 0;
    for (i = 0; d->iw && i < d->iw->neng; i++) {
        const struct rne_tcp_stats *st = rne_tcp_get_stats(d->iw->eng[i].tcp);

        *conn += st->mem_conn_bytes;
        *engine += st->mem_engine_bytes;
    }
}

void rne_iw_fini(struct rne_dev *d)
{
    if (!d->iw) {
        return;
    }
    if (d->iw->conn && d->iw->lis && d->iw->live && d->iw->dl_heap &&
        d->iw->dl_due) {
        rne_iw_reset(d);
    }
    free(d->iw->lis);
    free(d->iw->conn);
    free(d->iw->live);
    free(d->iw->dl_heap);
    free(d->iw->dl_due);
    free(d->iw);
    d->iw = NULL;
}

/*
 * A device reset aborts the offloaded connections as an adapter reset does
 * on real RNICs: each peer that believes itself connected gets one RST
 * through the egress queue (bounded by the engines' connection pools and
 * the queue), so an idle peer learns now, not at its next send.
 */
void rne_iw_reset_peers(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint64_t now = rne_iw_now(d);
    uint32_t i;

    for (i = 0; iw && i < iw->neng; i++) {
        rne_tcp_reset_all(iw->eng[i].tcp, now);
    }
}

void rne_iw_reset(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint32_t i;

    for (i = 0; i < d->cfg.max_conn; i++) {
        struct rne_iw_conn *c = iw->conn[i];

        if (!c) {
            continue;
        }
        if (c->qpn != RNE_IW_NO_QP) {
            struct rne_qp *qp = rne_qp_get(d, c->qpn);

            if (qp && qp->iw) {
                qp->iw = NULL;
            }
        }
        rne_iw_conn_release(d, c);
    }
    rne_iw_conn_reap(d);
    for (i = 0; i < iw->neng; i++) {
        rne_tcp_free(iw->eng[i].tcp);
    }
    memset(iw->eng, 0, sizeof(iw->eng));
    iw->neng = 0;
    memset(&iw->st, 0, sizeof(iw->st));
    memset(iw->lis, 0, d->cfg.max_listen * sizeof(*iw->lis));
    iw->armed_ok = false;
    if (d->host.ops->timer_mod) {
        d->host.ops->timer_mod(d->host.opaque, UINT64_MAX);
    }
}

unsigned rne_iw_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                      struct rnic_admin_cqe *cqe)
{
    return rne_iw_cm_admin(d, cmd, cqe);
}

void rne_iw_timer(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint64_t now = rne_iw_now(d);
    uint32_t i;

    for (i = 0; i < iw->neng; i++) {
        rne_tcp_tick(iw->eng[i].tcp, now);
    }
    rne_iw_pull(d);
    rne_iw_deadlines_run(d, now);
}
