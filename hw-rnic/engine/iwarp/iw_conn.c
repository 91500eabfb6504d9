/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection slots: allocation, lookup by id, steering of a connection's
 * tuple, and the release deferred to the end of the device's dispatch.
 */
#include "iw.h"
#include "wire/net.h"

struct rne_iw_conn *rne_iw_conn_alloc(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    struct rne_iw_conn *c;
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
    c = rne_mem_alloc(&d->mem, RNE_MEM_CONN, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->hs = rne_mem_alloc(&d->mem, RNE_MEM_MPA, sizeof(*c->hs));
    if (!c->hs) {
        rne_mem_free(&d->mem, RNE_MEM_CONN, c, sizeof(*c));
        return NULL;
    }
    c->id = id;
    c->qpn = RNE_IW_NO_QP;
    c->listen_id = 0xffffffffu;
    c->deadline = UINT64_MAX;
    iw->conn[id] = c;
    c->live_idx = iw->nlive;
    iw->live[iw->nlive++] = c;
    iw->next_conn = id + 1;
    return c;
}

struct rne_iw_conn *rne_iw_conn_find(struct rne_dev *d, uint32_t id)
{
    struct rne_iw_conn *c;

    if (id >= d->cfg.max_conn) {
        return NULL;
    }
    c = d->iw->conn[id];
    return c && !c->zombie ? c : NULL;
}

void rne_iw_conn_release(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_iw *iw = d->iw;

    iw->conn[c->id] = NULL;
    iw->live[c->live_idx] = iw->live[--iw->nlive];
    iw->live[c->live_idx]->live_idx = c->live_idx;
    if (c->zombie) {
        iw->nzombie--;
    }
    rne_iw_qp_destroy(d, c->iq);
    rne_iw_mpa_done(d, c);
    rne_mem_free(&d->mem, RNE_MEM_RX_FPDU, c->rxbuf, RNE_IW_RX_ULPDU_MAX);
    rne_mem_free(&d->mem, RNE_MEM_MARKERS, c->txbuf, RNE_IW_TX_BUF);
    rne_mem_free(&d->mem, RNE_MEM_MARKERS, c->pbuf, RNE_IW_TX_BUF);
    rne_mem_free(&d->mem, RNE_MEM_CONN, c, sizeof(*c));
}

void rne_iw_mpa_done(struct rne_dev *d, struct rne_iw_conn *c)
{
    rne_mem_free(&d->mem, RNE_MEM_MPA, c->hs, sizeof(*c->hs));
    c->hs = NULL;
    c->req.pd = NULL;
}

bool rne_iw_rx_buf_get(struct rne_dev *d, struct rne_iw_conn *c,
                       const uint8_t *data, size_t len)
{
    if (c->rxbuf) {
        return true;
    }
    /* the deframer's fast path: one whole FPDU at the head, no marker */
    if (!c->rx.markers && !c->rx.in_fpdu && len >= 2 &&
        rne_mpa_fpdu_len(rne_ld_be16(data)) <= len) {
        return true;
    }
    c->rxbuf = rne_mem_alloc(&d->mem, RNE_MEM_RX_FPDU, RNE_IW_RX_ULPDU_MAX);
    c->rx.buf = c->rxbuf;
    return c->rxbuf != NULL;
}

void rne_iw_rx_buf_put(struct rne_dev *d, struct rne_iw_conn *c)
{
    if (!c->rxbuf || c->rx.markers || c->rx.in_fpdu) {
        return;
    }
    rne_mem_free(&d->mem, RNE_MEM_RX_FPDU, c->rxbuf, RNE_IW_RX_ULPDU_MAX);
    c->rxbuf = NULL;
    c->rx.buf = NULL;
}

bool rne_iw_tx_bufs(struct rne_dev *d, struct rne_iw_conn *c)
{
    if (!c->txbuf) {
        c->txbuf = rne_mem_alloc(&d->mem, RNE_MEM_MARKERS, RNE_IW_TX_BUF);
    }
    if (!c->pbuf) {
        c->pbuf = rne_mem_alloc(&d->mem, RNE_MEM_MARKERS, RNE_IW_TX_BUF);
    }
    return c->txbuf && c->pbuf;
}

/*
 * Forget c.  Its memory lives until the device's dispatch ends: callers up
 * the stack may still hold it (they check c->zombie).
 */
void rne_iw_conn_free(struct rne_dev *d, struct rne_iw_conn *c)
{
    if (c->steered) {
        rne_iw_steer_conn(d, c, false);
    }
    if (c->tc) {
        rne_tcp_set_user(c->tc, NULL);
        c->tc = NULL;
    }
    c->deadline = UINT64_MAX;
    if (c->zombie) {
        return;
    }
    rne_iw_trace_state(d, c, RNE_TRACE_NONE);
    c->zombie = true;
    d->iw->nzombie++;
    if (!d->dispatching) {
        rne_iw_conn_release(d, c);
    }
}

void rne_iw_steer_conn(struct rne_dev *d, struct rne_iw_conn *c, bool add)
{
    if (add) {
        c->steered = !rne_steer_add_conn(d->steer, &c->key, c->id);
    } else if (c->steered) {
        rne_steer_del_conn(d->steer, &c->key);
        c->steered = false;
    }
}

void rne_iw_dispatch_end(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint32_t i;

    if (!iw->neng && !iw->nlive) {
        return;
    }
    rne_iw_pull(d);
    /* backwards: a release moves the last one into the hole */
    for (i = iw->nlive; iw->nzombie && i-- > 0;) {
        if (iw->live[i]->zombie) {
            rne_iw_conn_release(d, iw->live[i]);
        }
    }
    rne_iw_rearm(d);
}
