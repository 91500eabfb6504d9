// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Receive reassembly. In-order payload never comes here (the upper layer
 * reads it in the frame, tcp_read.c); only out-of-order data is copied into
 * a ring indexed relative to rcv_nxt, with a short sorted list of held
 * ranges that also feeds the SACK blocks we advertise.
 */
#include <stdlib.h>
#include <string.h>
#include "tcp_int.h"

void tcp_rcv_advance(struct rne_tcp_conn *c, uint32_t n)
{
    c->rcv_nxt += n;
    c->ob_head = (uint32_t)(((uint64_t)c->ob_head + n) % c->rcv_buf);
}

void tcp_ooo_insert(struct rne_tcp_conn *c, uint32_t seq, const uint8_t *data,
                    uint32_t len)
{
    /*
     * Only hold what fits the ring beside the octets not read yet: never more
     * than rcv_buf - rd_len beyond rcv_nxt.
     */
    uint32_t room = c->rcv_buf - c->rd_len;
    uint32_t off = seq - c->rcv_nxt;
    if (off >= room) {
        return;
    }
    if (len > room - off) {
        len = room - off;
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
    if (!tcp_ob_get(c)) {
        return;
    }
    tcp_ob_write(c, (uint32_t)(((uint64_t)c->ob_head + off) % c->rcv_buf),
                 data, len);
    memmove(&r[i + 1], &r[j], sizeof(*r) * (size_t)(n - j));
    r[i].s = ms;
    r[i].e = me;
    c->n_ooo = n - (j - i) + 1;
    c->last_ooo_seq = seq;
}

/* rcv_nxt moved: drop ranges now below it, hand up what became contiguous. */
void tcp_ooo_deliver(struct rne_tcp_conn *c)
{
    while (c->n_ooo && SEQ_LEQ(c->ooo[0].s, c->rcv_nxt)) {
        uint32_t e = c->ooo[0].e;
        memmove(&c->ooo[0], &c->ooo[1],
                sizeof(c->ooo[0]) * (size_t)(c->n_ooo - 1));
        c->n_ooo--;
        if (!SEQ_GT(e, c->rcv_nxt)) {
            continue;
        }
        /* readable where it lies, in the ring */
        tcp_rd_add(c, NULL, e - c->rcv_nxt);
        tcp_rcv_advance(c, e - c->rcv_nxt);
    }
    /* nothing held or unread: the ring goes back until the next hole */
    tcp_ob_put_if_idle(c);
    if (c->fin_rcvd_ooo && c->rcv_nxt == c->fin_rcv_seq) {
        c->fin_rcvd_ooo = false;
        tcp_fin_arrived(c);
    }
}

/* RFC 2018 §4: the block with the latest segment first, then the others. */
int tcp_ooo_sack_blocks(const struct rne_tcp_conn *c, struct tcp_range *out,
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
