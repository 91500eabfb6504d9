// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Receive reassembly. In-order payload never comes here (it goes straight
 * from the frame to the upper layer); only out-of-order data is copied into
 * a ring indexed relative to rcv_nxt, with a short sorted list of held
 * ranges that also feeds the SACK blocks we advertise.
 */
#include <stdlib.h>
#include <string.h>
#include "tcp_int.h"

void tcp_rcv_advance(struct rnic_tcp_conn *c, uint32_t n)
{
    c->rcv_nxt += n;
    c->ob_head = (uint32_t)(((uint64_t)c->ob_head + n) % c->rcv_buf);
}

void tcp_ooo_insert(struct rnic_tcp_conn *c, uint32_t seq, const uint8_t *data,
                    uint32_t len)
{
    /* Only hold what fits the ring: never more than rcv_buf beyond rcv_nxt. */
    uint32_t off = seq - c->rcv_nxt;
    if (off >= c->rcv_buf) {
        return;
    }
    if (len > c->rcv_buf - off) {
        len = c->rcv_buf - off;
    }
    if (!len) {
        return;
    }
    uint32_t s = seq, e = seq + len;
    struct tcp_range *r = c->ooo;
    int n = c->n_ooo, i = 0;
    while (i < n && SEQ_LT(r[i].e, s)) {
        i++;
    }
    int j = i;
    uint32_t ms = s, me = e;
    while (j < n && SEQ_LEQ(r[j].s, e)) {
        ms = SEQ_MIN(ms, r[j].s);
        me = SEQ_MAX(me, r[j].e);
        j++;
    }
    if (j == i && n == TCP_OOO_MAX) {
        /* no slot: drop, the sender will resend */
        return;
    }
    if (!c->ob) {
        /* first reordering on this connection */
        c->ob = tcp_mem_alloc(c->t, &c->t->st.mem_conn_bytes, c->rcv_buf);
        if (!c->ob) {
            return;
        }
    }
    uint32_t pos = (uint32_t)(((uint64_t)c->ob_head + off) % c->rcv_buf);
    uint32_t k = c->rcv_buf - pos;
    if (k >= len) {
        memcpy(c->ob + pos, data, len);
    } else {
        memcpy(c->ob + pos, data, k);
        memcpy(c->ob, data + k, len - k);
    }
    memmove(&r[i + 1], &r[j], sizeof(*r) * (size_t)(n - j));
    r[i].s = ms;
    r[i].e = me;
    c->n_ooo = n - (j - i) + 1;
    c->last_ooo_seq = seq;
}

static void deliver(struct rnic_tcp_conn *c, const uint8_t *p, uint32_t n)
{
    c->rcv_unread += n;
    if (!c->user_gone && c->t->ops->recv) {
        c->t->ops->recv(c->t->opaque, c, c->user, p, n);
    }
}

/* rcv_nxt moved: drop ranges now below it, hand up what became contiguous. */
void tcp_ooo_deliver(struct rnic_tcp_conn *c)
{
    while (c->n_ooo && !c->dead && SEQ_LEQ(c->ooo[0].s, c->rcv_nxt)) {
        uint32_t e = c->ooo[0].e;
        memmove(&c->ooo[0], &c->ooo[1],
                sizeof(c->ooo[0]) * (size_t)(c->n_ooo - 1));
        c->n_ooo--;
        if (!SEQ_GT(e, c->rcv_nxt)) {
            continue;
        }
        uint32_t n = e - c->rcv_nxt;
        uint32_t pos = c->ob_head;
        uint32_t k = c->rcv_buf - pos;
        tcp_rcv_advance(c, n);
        if (k >= n) {
            deliver(c, c->ob + pos, n);
        } else {
            deliver(c, c->ob + pos, k);
            if (!c->dead) {
                deliver(c, c->ob, n - k);
            }
        }
    }
    if (!c->n_ooo && c->ob) {
        /* nothing held any more: give the ring back until the next hole */
        tcp_mem_free(c->t, &c->t->st.mem_conn_bytes, c->ob, c->rcv_buf);
        c->ob = NULL;
    }
    if (c->fin_rcvd_ooo && !c->dead && c->rcv_nxt == c->fin_rcv_seq) {
        c->fin_rcvd_ooo = false;
        tcp_fin_arrived(c);
    }
}

/* RFC 2018 §4: the block with the latest segment first, then the others. */
int tcp_ooo_sack_blocks(const struct rnic_tcp_conn *c, struct tcp_range *out,
                        int max)
{
    int n = 0, first = -1;
    for (int i = 0; i < c->n_ooo; i++) {
        if (SEQ_GEQ(c->last_ooo_seq, c->ooo[i].s) &&
            SEQ_LT(c->last_ooo_seq, c->ooo[i].e)) {
            first = i;
        }
    }
    if (first >= 0 && n < max) {
        out[n++] = c->ooo[first];
    }
    for (int i = 0; i < c->n_ooo && n < max; i++) {
        if (i != first) {
            out[n++] = c->ooo[i];
        }
    }
    return n;
}
