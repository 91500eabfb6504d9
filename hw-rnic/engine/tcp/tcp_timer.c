// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Timers. Each connection keeps one deadline per timer kind; the engine keeps
 * connections in a binary min-heap by earliest deadline, so finding due work
 * is O(1) and rearming O(log n) with thousands of connections. Time comes
 * only from the caller (now_ns); the embedder learns the next deadline from
 * ops->timer or rne_tcp_next_deadline().
 */
#include "tcp_int.h"

static void heap_swap(struct rne_tcp *t, uint32_t a, uint32_t b)
{
    struct rne_tcp_conn *x = t->heap[a];
    t->heap[a] = t->heap[b];
    t->heap[b] = x;
    t->heap[a]->heap_idx = a;
    t->heap[b]->heap_idx = b;
}

static void heap_up(struct rne_tcp *t, uint32_t i)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (t->heap[p]->deadline <= t->heap[i]->deadline) {
            break;
        }
        heap_swap(t, i, p);
        i = p;
    }
}

static void heap_down(struct rne_tcp *t, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->heap_n && t->heap[l]->deadline < t->heap[m]->deadline) {
            m = l;
        }
        if (r < t->heap_n && t->heap[r]->deadline < t->heap[m]->deadline) {
            m = r;
        }
        if (m == i) {
            break;
        }
        heap_swap(t, i, m);
        i = m;
    }
}

static void heap_remove(struct rne_tcp *t, struct rne_tcp_conn *c)
{
    uint32_t i = c->heap_idx;
    if (i == UINT32_MAX) {
        return;
    }
    t->heap_n--;
    if (i != t->heap_n) {
        t->heap[i] = t->heap[t->heap_n];
        t->heap[i]->heap_idx = i;
        heap_down(t, i);
        heap_up(t, i);
    }
    c->heap_idx = UINT32_MAX;
}

static void conn_resched(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    uint64_t d = 0;
    for (int i = 0; i < T_NTIMERS; i++) {
        if (c->tm[i] && (!d || c->tm[i] < d)) {
            d = c->tm[i];
        }
    }
    if (!d) {
        heap_remove(t, c);
        c->deadline = 0;
        return;
    }
    c->deadline = d;
    if (c->heap_idx == UINT32_MAX) {
        c->heap_idx = t->heap_n;
        t->heap[t->heap_n++] = c;
    }
    heap_down(t, c->heap_idx);
    heap_up(t, c->heap_idx);
}

void tcp_timer_set(struct rne_tcp_conn *c, enum tcp_timer which, uint64_t when)
{
    c->tm[which] = when ? when : 1;
    conn_resched(c);
}

void tcp_timer_clear(struct rne_tcp_conn *c, enum tcp_timer which)
{
    if (c->tm[which]) {
        c->tm[which] = 0;
        conn_resched(c);
    }
}

void tcp_timer_clear_all(struct rne_tcp_conn *c)
{
    for (int i = 0; i < T_NTIMERS; i++) {
        c->tm[i] = 0;
    }
    heap_remove(c->t, c);
    c->deadline = 0;
}

uint64_t rne_tcp_next_deadline(const struct rne_tcp *t)
{
    return t->heap_n ? t->heap[0]->deadline : UINT64_MAX;
}

void tcp_report_deadline(struct rne_tcp *t)
{
    uint64_t d = rne_tcp_next_deadline(t);
    if (d != t->reported_deadline) {
        t->reported_deadline = d;
        if (t->ops->timer && d != UINT64_MAX) {
            t->ops->timer(t->opaque, d);
        }
    }
}

void tcp_rexmt_arm(struct rne_tcp_conn *c)
{
    if (c->snd_max != c->snd_una && !c->tm[T_REXMT]) {
        tcp_timer_set(c, T_REXMT, c->t->now + c->rto);
    }
}

static uint64_t clamp_rto(const struct rne_tcp *t, uint64_t rto)
{
    uint64_t lo = (uint64_t)t->cfg.rto_min_ms * NS_PER_MS;
    uint64_t hi = (uint64_t)t->cfg.rto_max_ms * NS_PER_MS;
    return rto < lo ? lo : rto > hi ? hi : rto;
}

/* RFC 6298 §2 with a 1 ms clock granularity G (our timestamp tick). */
void tcp_rtt_sample(struct rne_tcp_conn *c, uint64_t r)
{
    if (!c->srtt) {
        c->srtt = r ? r : 1;
        c->rttvar = r / 2;
    } else {
        uint64_t d = c->srtt > r ? c->srtt - r : r - c->srtt;
        c->rttvar = (3 * c->rttvar + d) / 4;
        c->srtt = (7 * c->srtt + r) / 8;
        if (!c->srtt) {
            c->srtt = 1;
        }
    }
    uint64_t k = 4 * c->rttvar;
    c->rto = clamp_rto(c->t, c->srtt + (k > NS_PER_MS ? k : NS_PER_MS));
    c->nrexmit = 0;
}

static void rexmt_fire(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    t->st.rto_fired++;
    c->rto = clamp_rto(t, c->rto * 2);      /* RFC 6298 5.5: back off */
    if (c->state == RNE_TCP_SYN_SENT || c->state == RNE_TCP_SYN_RCVD) {
        if (++c->nrexmit > t->cfg.syn_retries) {
            tcp_trace_rexmit(c, RNE_TCP_REXMIT_GIVEUP);
            tcp_conn_drop(c, RNE_TCP_ETIMEDOUT);
            return;
        }
        tcp_trace_rexmit(c, RNE_TCP_REXMIT_SYN);
        c->rexmits++;
        c->syn_rexmit = true;
        tcp_send_syn(c);
        return;
    }
    if (c->snd_max == c->snd_una) {
        return;
    }
    /*
     * A zero window is the peer's flow control, not loss: probe without giving
     * up.
     */
    if (c->snd_wnd != 0 && ++c->nrexmit > t->cfg.data_retries) {
        tcp_trace_rexmit(c, RNE_TCP_REXMIT_GIVEUP);
        tcp_send_rst_conn(c);
        tcp_conn_drop(c, RNE_TCP_ETIMEDOUT);
        return;
    }
    tcp_trace_rexmit(c, RNE_TCP_REXMIT_RTO);
    tcp_cc_rto(c);
    c->rtt_timing = false;
    c->snd_nxt = c->snd_una;
    /*
     * Resend the first segment if the peer's window takes all of it; otherwise
     * probe: a receiver trimming the segment to its window would ACK inside a
     * record, and every later segment would start mid-record.
     */
    uint32_t len = tcp_rexmit_len(c, c->snd_una);
    bool fin = c->fin_queued && c->snd_una + len == c->fin_seq &&
        SEQ_GT(c->snd_max, c->fin_seq);
    uint32_t right = c->snd_wl2 + c->snd_wnd;
    if (len && SEQ_GT(c->snd_una + len, right)) {
        t->st.persist_probes++;
        tcp_send_probe(c);
    } else if (len || fin) {
        tcp_xmit(c, c->snd_una, len, fin ? TH_FIN : 0);
        c->snd_nxt = c->snd_una + len + fin;
        t->st.tx_rexmit_segs++;
        c->rexmits++;
    }
    tcp_rexmt_arm(c);
    tcp_output(c);
}

static void persist_fire(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    if (c->snd_max != c->snd_una) {
        return;                         /* data in flight: the RTO covers it */
    }
    uint32_t len = tcp_seg_len_at(c, c->snd_nxt);
    if (!len && !c->fin_queued) {
        return;
    }
    t->st.persist_probes++;
    tcp_send_probe(c);
    if (c->persist_backoff < 16) {
        c->persist_backoff++;
    }
    uint64_t d = clamp_rto(t, c->rto << c->persist_backoff);
    tcp_timer_set(c, T_PERSIST, t->now + d);
}

static void keep_fire(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    uint64_t idle = (uint64_t)t->cfg.keep_idle_ms * NS_PER_MS;
    uint64_t intvl = (uint64_t)t->cfg.keep_intvl_ms * NS_PER_MS;
    if (c->state < RNE_TCP_ESTABLISHED || c->state == RNE_TCP_TIME_WAIT) {
        return;
    }
    if (t->now - c->last_rx < idle) {
        tcp_timer_set(c, T_KEEP, c->last_rx + idle);
        return;
    }
    if (c->keep_probes >= t->cfg.keep_probes) {
        tcp_send_rst_conn(c);
        tcp_conn_drop(c, RNE_TCP_ETIMEDOUT);
        return;
    }
    c->keep_probes++;
    tcp_send_probe(c);
    tcp_timer_set(c, T_KEEP, t->now + intvl);
}

static void fire(struct rne_tcp_conn *c, int which)
{
    switch (which) {
    case T_REXMT:
        rexmt_fire(c);
        break;
    case T_DELACK:
        c->ack_now = true;
        tcp_output(c);
        break;
    case T_PERSIST:
        persist_fire(c);
        break;
    case T_KEEP:
        keep_fire(c);
        break;
    case T_2MSL:
        /*
         * TIME_WAIT over, or FIN_WAIT_2 heard nothing from the peer for
         * fin_wait2_ms.
         */
        if (c->state == RNE_TCP_FIN_WAIT_2) {
            uint64_t lim = (uint64_t)c->t->cfg.fin_wait2_ms * NS_PER_MS;
            if (c->t->now - c->last_rx < lim) {
                tcp_timer_set(c, T_2MSL, c->last_rx + lim);
                break;
            }
        }
        tcp_conn_drop(c, c->state == RNE_TCP_TIME_WAIT ? RNE_TCP_OK
                                                        : RNE_TCP_ETIMEDOUT);
        break;
    }
}

void tcp_timers_run(struct rne_tcp *t, uint64_t now)
{
    while (t->heap_n && t->heap[0]->deadline <= now) {
        struct rne_tcp_conn *c = t->heap[0];
        for (int i = 0; i < T_NTIMERS && !c->dead; i++) {
            if (c->tm[i] && c->tm[i] <= now) {
                c->tm[i] = 0;
                conn_resched(c);
                fire(c, i);
            }
        }
    }
}

void rne_tcp_tick(struct rne_tcp *t, uint64_t now_ns)
{
    tcp_begin(t, now_ns);
    tcp_timers_run(t, t->now);
    tcp_end(t);
}
