/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection slots: allocation, lookup by id, steering of a connection's
 * tuple, and the release deferred to the end of the device's dispatch.
 */
#include <stdlib.h>
#include "iw.h"

struct rnic_iw_conn *rnic_iw_conn_alloc(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    struct rnic_iw_conn *c;
    uint32_t i, id;

    for (i = 0; i < d->cfg.max_conn; i++) {
        id = (iw->next_conn + i) % d->cfg.max_conn;
        if (!iw->conn[id]) {
            break;
        }
    }
    if (i == d->cfg.max_conn) {
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->rxbuf = malloc(RNIC_IW_RX_ULPDU_MAX);
    c->txbuf = malloc(RNIC_IW_TX_BUF);
    c->pbuf = malloc(RNIC_IW_TX_BUF);
    if (!c->rxbuf || !c->txbuf || !c->pbuf) {
        free(c->rxbuf);
        free(c->txbuf);
        free(c->pbuf);
        free(c);
        return NULL;
    }
    c->id = id;
    c->qpn = RNIC_IW_NO_QP;
    c->listen_id = 0xffffffffu;
    c->deadline = UINT64_MAX;
    iw->conn[id] = c;
    c->live_idx = iw->nlive;
    iw->live[iw->nlive++] = c;
    iw->next_conn = id + 1;
    return c;
}

struct rnic_iw_conn *rnic_iw_conn_find(struct rnic_dev *d, uint32_t id)
{
    struct rnic_iw_conn *c;

    if (id >= d->cfg.max_conn) {
        return NULL;
    }
    c = d->iw->conn[id];
    return c && !c->zombie ? c : NULL;
}

void rnic_iw_conn_release(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    struct rnic_iw *iw = d->iw;

    iw->conn[c->id] = NULL;
    iw->live[c->live_idx] = iw->live[--iw->nlive];
    iw->live[c->live_idx]->live_idx = c->live_idx;
    if (c->zombie) {
        iw->nzombie--;
    }
    rnic_iw_qp_destroy(c->iq);
    free(c->rxbuf);
    free(c->txbuf);
    free(c->pbuf);
    free(c);
}

/*
 * Forget c.  Its memory lives until the device's dispatch ends: callers up
 * the stack may still hold it (they check c->zombie).
 */
void rnic_iw_conn_free(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    if (c->steered) {
        rnic_iw_steer_conn(d, c, false);
    }
    if (c->tc) {
        rnic_tcp_set_user(c->tc, NULL);
        c->tc = NULL;
    }
    c->deadline = UINT64_MAX;
    if (c->zombie) {
        return;
    }
    rnic_iw_trace_state(d, c, RNIC_TRACE_NONE);
    c->zombie = true;
    d->iw->nzombie++;
    if (!d->dispatching) {
        rnic_iw_conn_release(d, c);
    }
}

void rnic_iw_steer_conn(struct rnic_dev *d, struct rnic_iw_conn *c, bool add)
{
    if (add) {
        c->steered = !rnic_steer_add_conn(d->steer, &c->key, c->id);
    } else if (c->steered) {
        rnic_steer_del_conn(d->steer, &c->key);
        c->steered = false;
    }
}

void rnic_iw_dispatch_end(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    uint32_t i;

    if (!iw->neng && !iw->nlive) {
        return;
    }
    /* backwards: a release moves the last one into the hole */
    for (i = iw->nlive; iw->nzombie && i-- > 0;) {
        if (iw->live[i]->zombie) {
            rnic_iw_conn_release(d, iw->live[i]);
        }
    }
    rnic_iw_rearm(d);
}
