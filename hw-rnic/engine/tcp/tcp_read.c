/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The upper layer's read side: in-order payload is not handed up while a
 * segment is processed; TCP queues RNE_TCP_EV_READABLE and the upper layer
 * reads it afterwards with rne_tcp_peek / rne_tcp_consume.
 *
 * The readable octets are [rd_pos, rd_pos + rd_len) of the receive ring
 * (positions relative to ob_head, as out-of-order data is stored), except
 * that the first rd_frame_len of them may still lie in the received frame
 * (no copy: the frame lives until the embedder's pull ends) and their ring
 * positions are not written.  Data a gap filled is in the ring already.
 */
#include <string.h>
#include "tcp_int.h"

/* Ring-held readable octets keep the ring; nothing held gives it back. */
void tcp_ob_put_if_idle(struct rne_tcp_conn *c)
{
    if (c->ob && !c->n_ooo && c->rd_len == c->rd_frame_len) {
        tcp_mem_free(c->t, &c->t->st.mem_conn_bytes, c->ob, c->rcv_buf);
        c->ob = NULL;
    }
}

/* The out-of-order/read ring, taken on first need; false: no memory. */
bool tcp_ob_get(struct rne_tcp_conn *c)
{
    if (!c->ob) {
        c->ob = tcp_mem_alloc(c->t, &c->t->st.mem_conn_bytes, c->rcv_buf);
    }
    return c->ob != NULL;
}

/* n octets into the ring at pos, wrapping at its end. */
void tcp_ob_write(struct rne_tcp_conn *c, uint32_t pos, const uint8_t *p,
                  uint32_t n)
{
    uint32_t k = c->rcv_buf - pos;

    if (k >= n) {
        memcpy(c->ob + pos, p, n);
    } else {
        memcpy(c->ob + pos, p, k);
        memcpy(c->ob, p + k, n - k);
    }
}

/* The frame's octets move into the ring: the frame is about to go. */
static bool rd_stash(struct rne_tcp_conn *c)
{
    if (!c->rd_frame_len) {
        return true;
    }
    if (!tcp_ob_get(c)) {
        return false;
    }
    tcp_ob_write(c, c->rd_pos, c->rd_frame, c->rd_frame_len);
    c->rd_frame = NULL;
    c->rd_frame_len = 0;
    return true;
}

/*
 * n in-order octets at rcv_nxt (before it advances) for the upper layer; p is
 * in the frame being processed, or NULL when they are in the ring already.
 */
void tcp_rd_add(struct rne_tcp_conn *c, const uint8_t *p, uint32_t n)
{
    if (!tcp_has_reader(c) || !n) {
        return;                 /* nobody reads: dropped, the window stays */
    }
    c->rcv_unread += n;
    if (!c->rd_len) {
        c->rd_pos = c->ob_head;
        if (p) {
            c->rd_frame = p;
            c->rd_frame_len = n;
            c->t->rd_conn = c;
        }
    } else if (p) {
        /* octets before it were left unread: keep the order in the ring */
        if (!rd_stash(c)) {
            c->rcv_unread -= n;
            return;
        }
        tcp_ob_write(c, c->ob_head, p, n);
    }
    c->rd_len += n;
    tcp_conn_event(c, RNE_TCP_EV_READABLE);
}

/*
 * Nobody will read c's data (its user is gone or it died): it counts as
 * consumed, the window reopens by it.
 */
void tcp_rd_drop(struct rne_tcp_conn *c)
{
    uint32_t n = c->rd_len;

    c->rd_frame = NULL;
    c->rd_frame_len = 0;
    c->rd_len = 0;
    if (c->t->rd_conn == c) {
        c->t->rd_conn = NULL;
    }
    tcp_ob_put_if_idle(c);
    if (n) {
        tcp_rcv_release(c, n);
    }
}

/*
 * The embedder's pull ended, or a new frame comes: what the upper layer left
 * unread in the last frame is copied into the ring.  No memory for it: the
 * connection is reset (nothing may be lost).
 */
void tcp_rd_frame_end(struct rne_tcp *t)
{
    struct rne_tcp_conn *c = t->rd_conn;

    if (!c) {
        return;
    }
    t->rd_conn = NULL;
    tcp_begin(t, t->now);
    if (!c->user) {
        tcp_rd_drop(c);
    } else if (!rd_stash(c)) {
        tcp_send_rst_conn(c);
        tcp_conn_drop(c, RNE_TCP_ECONNRESET);
        tcp_rd_drop(c);
    }
    tcp_end(t);
}

int rne_tcp_peek(const struct rne_tcp_conn *c, struct rne_iov *span,
                 int max)
{
    uint32_t ring = c->rd_len - c->rd_frame_len;
    uint32_t pos = (uint32_t)(((uint64_t)c->rd_pos + c->rd_frame_len) %
                              c->rcv_buf);
    int n = 0;

    if (c->rd_frame_len && n < max) {
        span[n++] = (struct rne_iov){ c->rd_frame, c->rd_frame_len };
    }
    if (ring && n < max) {
        uint32_t k = c->rcv_buf - pos < ring ? c->rcv_buf - pos : ring;

        span[n++] = (struct rne_iov){ c->ob + pos, k };
        if (ring > k && n < max) {
            span[n++] = (struct rne_iov){ c->ob, ring - k };
        }
    }
    return n;
}

/* len readable octets are taken, the window stays until recv_done. */
void tcp_rd_take(struct rne_tcp_conn *c, uint32_t len)
{
    if (len > c->rd_len) {
        len = c->rd_len;
    }
    if (len >= c->rd_frame_len) {
        c->rd_frame = NULL;
        c->rd_frame_len = 0;
    } else {
        c->rd_frame += len;
        c->rd_frame_len -= len;
    }
    c->rd_pos = (uint32_t)(((uint64_t)c->rd_pos + len) % c->rcv_buf);
    c->rd_len -= len;
    if (!c->rd_frame_len && c->t->rd_conn == c) {
        c->t->rd_conn = NULL;
    }
    tcp_ob_put_if_idle(c);
}

void rne_tcp_consume(struct rne_tcp_conn *c, size_t len, uint64_t now_ns)
{
    if (len > c->rd_len) {
        len = c->rd_len;
    }
    tcp_rd_take(c, (uint32_t)len);
    rne_tcp_recv_done(c, len, now_ns);
}
