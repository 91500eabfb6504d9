/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection slots: allocation, lookup by id, steering of a connection's
 * tuple, and the release deferred to the end of the device's dispatch.
 */
#include "iw.h"
#include "wire/net.h"

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
    c = rnic_mem_alloc(&d->mem, RNIC_MEM_CONN, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->hs = rnic_mem_alloc(&d->mem, RNIC_MEM_MPA, sizeof(*c->hs));
    if (!c->hs) {
        rnic_mem_free(&d->mem, RNIC_MEM_CONN, c, sizeof(*c));
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
    rnic_iw_qp_destroy(d, c->iq);
    rnic_iw_mpa_done(d, c);
    rnic_mem_free(&d->mem, RNIC_MEM_RX_FPDU, c->rxbuf, RNIC_IW_RX_ULPDU_MAX);
    rnic_mem_free(&d->mem, RNIC_MEM_MARKERS, c->txbuf, RNIC_IW_TX_BUF);
    rnic_mem_free(&d->mem, RNIC_MEM_MARKERS, c->pbuf, RNIC_IW_TX_BUF);
    rnic_mem_free(&d->mem, RNIC_MEM_CONN, c, sizeof(*c));
}

void rnic_iw_mpa_done(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    rnic_mem_free(&d->mem, RNIC_MEM_MPA, c->hs, sizeof(*c->hs));
    c->hs = NULL;
    c->req.pd = NULL;
}

bool rnic_iw_rx_buf_get(struct rnic_dev *d, struct rnic_iw_conn *c,
                        const uint8_t *data, size_t len)
{
    if (c->rxbuf) {
        return true;
    }
    /* the deframer's fast path: one whole FPDU at the head, no marker */
    if (!c->rx.markers && !c->rx.in_fpdu && len >= 2 &&
        rnic_mpa_fpdu_len(rnic_ld_be16(data)) <= len) {
        return true;
    }
    c->rxbuf = rnic_mem_alloc(&d->mem, RNIC_MEM_RX_FPDU, RNIC_IW_RX_ULPDU_MAX);
    c->rx.buf = c->rxbuf;
    return c->rxbuf != NULL;
}

void rnic_iw_rx_buf_put(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    if (!c->rxbuf || c->rx.markers || c->rx.in_fpdu) {
        return;
    }
    rnic_mem_free(&d->mem, RNIC_MEM_RX_FPDU, c->rxbuf, RNIC_IW_RX_ULPDU_MAX);
    c->rxbuf = NULL;
    c->rx.buf = NULL;
}

bool rnic_iw_tx_bufs(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    if (!c->txbuf) {
        c->txbuf = rnic_mem_alloc(&d->mem, RNIC_MEM_MARKERS, RNIC_IW_TX_BUF);
    }
    if (!c->pbuf) {
        c->pbuf = rnic_mem_alloc(&d->mem, RNIC_MEM_MARKERS, RNIC_IW_TX_BUF);
    }
    return c->txbuf && c->pbuf;
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
    rnic_iw_pull(d);
    /* backwards: a release moves the last one into the hole */
    for (i = iw->nlive; iw->nzombie && i-- > 0;) {
        if (iw->live[i]->zombie) {
            rnic_iw_conn_release(d, iw->live[i]);
        }
    }
    rnic_iw_rearm(d);
}
