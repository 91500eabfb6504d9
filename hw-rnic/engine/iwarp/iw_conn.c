/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection slots: allocation, lookup by id, steering of a connection's
 * tuple, and the release deferred to the end of the device's dispatch.
 *
 * A connection is freed in two steps.  rne_iw_conn_free takes it out of
 * every table at once (the slot by id, the live list, steering, TCP's
 * user), so no lookup, timer walk or event reaches it again, and puts it on
 * the gone list.  Its memory goes at one point, the end of the dispatch
 * (rne_iw_dispatch_end), when no handler is on the stack: the one that
 * ended it mid-pass (an abort or a QP error inside its own stream) may
 * still read it, and finds it no longer holds its TCP connection.
 */
#include <assert.h>
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
    c->dl_idx = RNE_IW_NO_DL;
    iw->conn[id] = c;
    c->live_idx = iw->nlive;
    iw->live[iw->nlive++] = c;
    iw->next_conn = id + 1;
    return c;
}

struct rne_iw_conn *rne_iw_conn_find(struct rne_dev *d, uint32_t id)
{
    if (id >= d->cfg.max_conn) {
        return NULL;
    }
    return d->iw->conn[id];
}

/* Out of the slot table, the live list and the deadline heap. */
static void conn_unlist(struct rne_iw *iw, struct rne_iw_conn *c)
{
    assert(iw->conn[c->id] == c && iw->live[c->live_idx] == c);
    rne_iw_set_deadline(iw, c, UINT64_MAX);
    iw->conn[c->id] = NULL;
    iw->live[c->live_idx] = iw->live[--iw->nlive];
    iw->live[c->live_idx]->live_idx = c->live_idx;
}

static void conn_mem_free(struct rne_dev *d, struct rne_iw_conn *c)
{
    rne_iw_qp_destroy(d, c->iq);
    rne_iw_mpa_done(d, c);
    rne_mem_free(&d->mem, RNE_MEM_RX_FPDU, c->rxbuf, RNE_IW_RX_ULPDU_MAX);
    rne_mem_free(&d->mem, RNE_MEM_MARKERS, c->txbuf, RNE_IW_TX_BUF);
    rne_mem_free(&d->mem, RNE_MEM_MARKERS, c->pbuf, RNE_IW_TX_BUF);
    rne_mem_free(&d->mem, RNE_MEM_CONN, c, sizeof(*c));
}

void rne_iw_conn_release(struct rne_dev *d, struct rne_iw_conn *c)
{
    conn_unlist(d->iw, c);
    conn_mem_free(d, c);
}

void rne_iw_conn_reap(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;

    while (iw->gone) {
        struct rne_iw_conn *c = iw->gone;

        iw->gone = c->gone_next;
        conn_mem_free(d, c);
    }
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
 * Forget c: out of every table now (a connection is freed once: only a
 * listed one can be found to be freed), its memory at the dispatch's end.
 */
void rne_iw_conn_free(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_iw *iw = d->iw;

    if (c->steered) {
        rne_iw_steer_conn(d, c, false);
    }
    if (c->tc) {
        rne_tcp_set_user(c->tc, NULL);
        c->tc = NULL;
    }
    rne_iw_trace_state(d, c, RNE_TRACE_NONE);
    conn_unlist(iw, c);
    c->gone_next = iw->gone;
    iw->gone = c;
    if (!d->dispatching) {
        rne_iw_conn_reap(d);
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

    if (!iw->neng && !iw->nlive && !iw->gone) {
        return;
    }
    rne_iw_pull(d);
    /* the one point where freed connections' memory goes */
    rne_iw_conn_reap(d);
    rne_iw_rearm(d);
}
