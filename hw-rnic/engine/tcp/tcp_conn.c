// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Connection lifecycle: allocation from the engine's pool, state changes,
 * teardown, and the free at the end of the call that dropped a connection
 * (the call may still be walking it) or when its CLOSED event is taken.
 */
#include <stdlib.h>
#include <string.h>
#include "tcp_int.h"

static const char *const state_names[] = {
    "CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED", "FIN_WAIT_1",
    "FIN_WAIT_2", "CLOSE_WAIT", "CLOSING", "LAST_ACK", "TIME_WAIT",
};

const char *rne_tcp_state_name(int state)
{
    if (state < 0 || state > RNE_TCP_TIME_WAIT) {
        return "?";
    }
    return state_names[state];
}

void *tcp_mem_alloc(struct rne_tcp *t, uint64_t *count, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    (void)t;
    if (p) {
        *count += n;
    }
    return p;
}

void tcp_mem_free(struct rne_tcp *t, uint64_t *count, void *p, size_t n)
{
    (void)t;
    if (p) {
        *count -= n <= *count ? n : *count;
        free(p);
    }
}

/*
 * An idle connection holds no buffer: the send ring and its record ends are
 * taken when the first record is queued and given back when the last byte
 * is acknowledged (tcp_sb_ack); out-of-order storage likewise (tcp_reass.c).
 */
bool tcp_sb_get(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    if (c->sb) {
        return true;
    }
    c->sb = tcp_mem_alloc(t, &t->st.mem_conn_bytes, c->sb_size);
    c->rec = tcp_mem_alloc(t, &t->st.mem_conn_bytes,
                           sizeof(uint32_t) * c->rec_cap);
    if (!c->sb || !c->rec) {
        tcp_mem_free(t, &t->st.mem_conn_bytes, c->sb, c->sb_size);
        tcp_mem_free(t, &t->st.mem_conn_bytes, c->rec,
                     sizeof(uint32_t) * c->rec_cap);
        c->sb = NULL;
        c->rec = NULL;
        return false;
    }
    return true;
}

void tcp_sb_put_if_empty(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    if (!c->sb || c->sb_len || c->rec_cnt) {
        return;
    }
    tcp_mem_free(t, &t->st.mem_conn_bytes, c->sb, c->sb_size);
    tcp_mem_free(t, &t->st.mem_conn_bytes, c->rec,
                 sizeof(uint32_t) * c->rec_cap);
    /* the heads stay: the next ring is used from the same offsets */
    c->sb = NULL;
    c->rec = NULL;
}

/* Buffers come on demand (tcp_sb_get), never per segment. */
struct rne_tcp_conn *tcp_conn_alloc(struct rne_tcp *t)
{
    struct rne_tcp_conn *c = t->free;
    if (!c) {
        return NULL;
    }
    t->free = c->hnext;
    memset(c, 0, sizeof(*c));
    c->t = t;
    c->live = true;
    c->sb_size = t->cfg.sndbuf;
    c->rec_cap = t->cfg.max_records;
    c->heap_idx = UINT32_MAX;
    c->mtu = t->cfg.mtu;
    c->tci = t->cfg.vlan_tci;
    c->rcv_buf = t->cfg.rcvbuf;
    /* the peer's slow start needs the ACK clock (RFC 3465 counts per ACK) */
    c->quick_left = 2 * t->cfg.rcvbuf;
    c->rto = (uint64_t)t->cfg.rto_init_ms * NS_PER_MS;
    c->peer_mss = 536;          /* RFC 9293 default when no MSS option */
    if (!t->cfg.no_wscale) {
        while (c->rcv_ws < TCP_MAX_WSCALE &&
               (c->rcv_buf >> c->rcv_ws) > 65535) {
            c->rcv_ws++;
        }
    }
    c->last_rx = t->now;
    t->st.conns_open++;
    t->st.conns_now++;
    return c;
}

static void conn_free(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    tcp_mem_free(t, &t->st.mem_conn_bytes, c->sb, c->sb_size);
    tcp_mem_free(t, &t->st.mem_conn_bytes, c->rec,
                 sizeof(uint32_t) * c->rec_cap);
    tcp_mem_free(t, &t->st.mem_conn_bytes, c->ob, c->rcv_buf);
    c->live = false;
    c->sb = NULL;
    c->rec = NULL;
    c->ob = NULL;
    c->ack_queued = false;              /* a stale t->ackq entry skips it */
    c->out_owed = false;
    if (t->out_next == c) {
        t->out_next = NULL;
    }
    if (t->rd_conn == c) {
        t->rd_conn = NULL;
    }
    c->hnext = t->free;
    t->free = c;
    t->st.conns_now--;
}

void tcp_conn_set_state(struct rne_tcp_conn *c, int state)
{
    c->state = (uint8_t)state;
}

/*
 * The upper layer's last event: it takes it with rne_tcp_pull. Told once:
 * on entering TIME_WAIT, or when the connection is dropped.
 */
void tcp_conn_notify_closed(struct rne_tcp_conn *c, int err)
{
    if (!tcp_has_user(c)) {
        return;
    }
    c->ev_err = err;
    c->ev_time_wait = c->state == RNE_TCP_TIME_WAIT;
    tcp_conn_event(c, RNE_TCP_EV_CLOSED);
}

/*
 * Remove from every table now; the memory goes back to the pool at the end
 * of the call (tcp_end), or once its CLOSED event is taken.
 */
void tcp_conn_drop(struct rne_tcp_conn *c, int err)
{
    if (c->dead) {
        return;
    }
    c->dead = true;
    tcp_timer_clear_all(c);
    tcp_hash_remove(c);
    if (c->lis && c->state == RNE_TCP_SYN_RCVD) {
        c->lis->pending--;
    }
    c->lis = NULL;
    if (c->state != RNE_TCP_TIME_WAIT) {
        /* TIME_WAIT told it already */
        tcp_conn_notify_closed(c, err);
    }
    c->state = RNE_TCP_CLOSED;
    c->dnext = c->t->dead;
    c->t->dead = c;
}

void tcp_conn_enter_time_wait(struct rne_tcp_conn *c)
{
    tcp_conn_set_state(c, RNE_TCP_TIME_WAIT);
    tcp_timer_clear_all(c);
    tcp_timer_set(c, T_2MSL, c->t->now + 2ull * c->t->cfg.msl_ms * NS_PER_MS);
    tcp_conn_notify_closed(c, RNE_TCP_OK);
}

/*
 * EMSS = min(peer MSS, MTU - IP - TCP) minus the options every segment carries.
 */
void tcp_conn_update_emss(struct rne_tcp_conn *c)
{
    uint32_t m = c->mtu > 40 ? c->mtu - 40u : 1;
    if (c->peer_mss < m) {
        m = c->peer_mss;
    }
    if (c->ts_ok && m > 12 + 64) {
        m -= 12;
    }
    if (m < 64) {
        /* floor: a hostile tiny MSS must not make us spin */
        m = 64;
    }
    c->emss = m;
    if (c->emss != c->emss_reported && tcp_has_reader(c) &&
        c->state >= RNE_TCP_ESTABLISHED) {
        c->emss_reported = c->emss;
        tcp_conn_event(c, RNE_TCP_EV_EMSS);
    }
}

/*
 * Every entry point (input, tick, an API call) begins with the clock and
 * ends with tcp_end; none calls another: the ops never call the engine.
 */
void tcp_begin(struct rne_tcp *t, uint64_t now)
{
    if (now > t->now) {
        t->now = now;
        t->now_ms = (uint32_t)(now / NS_PER_MS);
    }
}

/* Connections dropped during the call go back to the pool. */
void tcp_end(struct rne_tcp *t)
{
    while (t->dead) {
        struct rne_tcp_conn *c = t->dead;
        t->dead = c->dnext;
        /*
         * rne_tcp_pull frees it with its last event, or at its next call
         * when the upper layer holds it
         */
        if (!c->in_ready && c != t->held) {
            conn_free(c);
        }
    }
    tcp_report_deadline(t);
}
