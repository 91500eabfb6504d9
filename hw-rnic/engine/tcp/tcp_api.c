// SPDX-License-Identifier: GPL-2.0-or-later
/* Engine construction and the upper layer's requests (open, send, close). */
#include <stdlib.h>
#include <string.h>
#include "tcp_int.h"

void rne_tcp_config_default(struct rne_tcp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->mtu = 1500;
    cfg->max_conns = 1024;
    cfg->sndbuf = 256 * 1024;
    cfg->rcvbuf = 256 * 1024;
    cfg->rto_init_ms = 1000;
    cfg->rto_min_ms = 200;
    cfg->rto_max_ms = 60000;
    cfg->syn_retries = 6;
    cfg->data_retries = 15;
    cfg->delack_ms = 40;
    cfg->msl_ms = 30000;
    cfg->fin_wait2_ms = 60000;
    cfg->keep_idle_ms = 7200000;
    cfg->keep_intvl_ms = 75000;
    cfg->keep_probes = 9;
    cfg->challenge_ack_limit = 1000;
}

struct rne_tcp *rne_tcp_new(const struct rne_tcp_config *cfg,
                            const struct rne_tcp_ops *ops, void *opaque)
{
    if (!cfg || !ops || !ops->tx || cfg->addr.family != RNE_AF_INET ||
        cfg->mtu < 576 || cfg->max_conns == 0 || cfg->sndbuf < 4096 ||
        cfg->rcvbuf < 4096 || cfg->rto_min_ms == 0 ||
        cfg->rto_max_ms < cfg->rto_min_ms ||
        cfg->rcvbuf > (1u << 30) || cfg->sndbuf > (1u << 30)) {
        return NULL;
    }
    struct rne_tcp *t = calloc(1, sizeof(*t));
    if (!t) {
        return NULL;
    }
    t->cfg = *cfg;
    if (!t->cfg.max_records) {
        t->cfg.max_records = t->cfg.sndbuf / 64 + 16;
    }
    t->ops = ops;
    t->opaque = opaque;
    uint32_t hsize = 64;
    while (hsize < 2 * cfg->max_conns && hsize < (1u << 24)) {
        hsize <<= 1;
    }
    t->hmask = hsize - 1;
    uint64_t *eng = &t->st.mem_engine_bytes;
    t->hash = tcp_mem_alloc(t, eng, hsize * sizeof(*t->hash));
    t->pool = tcp_mem_alloc(t, eng, cfg->max_conns * sizeof(*t->pool));
    t->heap = tcp_mem_alloc(t, eng, cfg->max_conns * sizeof(*t->heap));
    t->scratch = tcp_mem_alloc(t, eng, tcp_l2_hlen(t) + cfg->mtu);
    if (!t->hash || !t->pool || !t->heap || !t->scratch) {
        rne_tcp_free(t);
        return NULL;
    }
    for (uint32_t i = cfg->max_conns; i-- > 0;) {
        t->pool[i].hnext = t->free;
        t->free = &t->pool[i];
    }
    /* Demux key derived from the ISN secret so two engines differ. */
    uint64_t k0[2] = { 0x726e69632d646d78ull, 0 };
    t->hash_key[0] = tcp_siphash(k0, cfg->isn_secret, 16);
    k0[1] = 1;
    t->hash_key[1] = tcp_siphash(k0, cfg->isn_secret, 16);
    t->reported_deadline = UINT64_MAX;
    return t;
}

void rne_tcp_free(struct rne_tcp *t)
{
    if (!t) {
        return;
    }
    if (t->pool) {
        for (uint32_t i = 0; i < t->cfg.max_conns; i++) {
            struct rne_tcp_conn *c = &t->pool[i];
            tcp_mem_free(t, &t->st.mem_conn_bytes, c->sb, c->sb_size);
            tcp_mem_free(t, &t->st.mem_conn_bytes, c->rec,
                         sizeof(uint32_t) * c->rec_cap);
            tcp_mem_free(t, &t->st.mem_conn_bytes, c->ob, c->rcv_buf);
        }
    }
    for (int i = 0; i < 64; i++) {
        while (t->lhash[i]) {
            struct rne_tcp_listener *l = t->lhash[i];
            t->lhash[i] = l->next;
            tcp_mem_free(t, &t->st.mem_engine_bytes, l, sizeof(*l));
        }
    }
    free(t->hash);
    free(t->pool);
    free(t->heap);
    free(t->scratch);
    free(t);
}

const struct rne_tcp_stats *rne_tcp_get_stats(const struct rne_tcp *t)
{
    return &t->st;
}

struct rne_tcp_listener *rne_tcp_listen(struct rne_tcp *t, uint16_t port,
                                        uint32_t backlog,
                                        void *user)
{
    if (port == 0 || tcp_listener_find(t, port)) {
        return NULL;
    }
    struct rne_tcp_listener *l = tcp_mem_alloc(t, &t->st.mem_engine_bytes,
                                               sizeof(*l));
    if (!l) {
        return NULL;
    }
    l->port = port;
    l->backlog = backlog ? backlog : 1;
    l->user = user;
    l->tci = t->cfg.vlan_tci;
    l->next = t->lhash[port & 63];
    t->lhash[port & 63] = l;
    return l;
}

void rne_tcp_listen_set_tci(struct rne_tcp_listener *l, uint16_t tci)
{
    l->tci = tci;
}

/*
 * Embryonic children are reset; established ones already belong to the upper
 * layer.
 */
void rne_tcp_unlisten(struct rne_tcp *t, struct rne_tcp_listener *l)
{
    tcp_begin(t, t->now);
    for (uint32_t i = 0; i < t->cfg.max_conns; i++) {
        struct rne_tcp_conn *c = &t->pool[i];
        if (c->live && c->lis == l) {
            if (c->state == RNE_TCP_SYN_RCVD) {
                tcp_send_rst_conn(c);
                tcp_conn_drop(c, RNE_TCP_ECONNRESET);
            } else {
                c->lis = NULL;
            }
        }
    }
    struct rne_tcp_listener **p = &t->lhash[l->port & 63];
    while (*p && *p != l) {
        p = &(*p)->next;
    }
    if (*p) {
        *p = l->next;
    }
    tcp_mem_free(t, &t->st.mem_engine_bytes, l, sizeof(*l));
    tcp_end(t);
}

/* RFC 6056-style: start at a keyed hash of the destination, walk the range. */
static uint16_t pick_port(struct rne_tcp *t, const struct rne_ipaddr *raddr,
                          uint16_t rport)
{
    const uint32_t lo = 32768, n = 61000 - 32768;
    uint32_t off = tcp_tuple_hash(t, raddr, 0, rport);
    for (uint32_t i = 0; i < n; i++) {
        uint16_t p = (uint16_t)(lo + (off + t->eph_next + i) % n);
        if (!tcp_lookup(t, raddr, p, rport) && !tcp_listener_find(t, p)) {
            t->eph_next += i + 1;
            return p;
        }
    }
    return 0;
}

struct rne_tcp_conn *rne_tcp_connect(struct rne_tcp *t,
                                     const struct rne_ipaddr *raddr,
                                     uint16_t rport, uint16_t lport,
                                     const uint8_t *peer_mac, void *user,
                                     uint64_t now_ns)
{
    return rne_tcp_connect_tci(t, raddr, rport, lport, peer_mac,
                               t->cfg.vlan_tci, user, now_ns);
}

struct rne_tcp_conn *rne_tcp_connect_tci(struct rne_tcp *t,
                                         const struct rne_ipaddr *raddr,
                                         uint16_t rport, uint16_t lport,
                                         const uint8_t *peer_mac,
                                         uint16_t tci, void *user,
                                         uint64_t now_ns)
{
    if (!raddr || raddr->family != RNE_AF_INET || rport == 0 || !peer_mac) {
        return NULL;
    }
    tcp_begin(t, now_ns);
    struct rne_tcp_conn *c = NULL;
    if (lport == 0) {
        lport = pick_port(t, raddr, rport);
    } else if (tcp_lookup(t, raddr, lport, rport)) {
        lport = 0;
    }
    if (lport) {
        c = tcp_conn_alloc(t);
    }
    if (c) {
        c->user = user;
        c->raddr = *raddr;
        c->lport = lport;
        c->rport = rport;
        memcpy(c->rmac, peer_mac, RNE_ETH_ALEN);
        /* the engine's VID, the connection's priority */
        c->tci = (uint16_t)((t->cfg.vlan_tci & 0x0fff) | (tci & 0xf000));
        c->iss = tcp_isn(t, lport, raddr, rport);
        c->snd_una = c->snd_nxt = c->snd_max = c->iss;
        c->sb_seq = c->iss + 1;
        c->ts_offset = (uint32_t)tcp_tuple_hash(t, raddr, lport ^ 0x5a5a,
                                                rport);
        tcp_conn_set_state(c, RNE_TCP_SYN_SENT);
        tcp_hash_insert(c);
        tcp_send_syn(c);
    }
    tcp_end(t);
    return c;
}

size_t rne_tcp_send_space(const struct rne_tcp_conn *c)
{
    if (c->rec_cnt >= c->rec_cap) {
        return 0;
    }
    return c->sb_size - c->sb_len;
}

int rne_tcp_reserve(struct rne_tcp_conn *c, size_t len,
                    struct rne_span span[2])
{
    if (c->fin_queued ||
        (c->state != RNE_TCP_ESTABLISHED && c->state != RNE_TCP_CLOSE_WAIT &&
         c->state != RNE_TCP_SYN_SENT && c->state != RNE_TCP_SYN_RCVD)) {
        return RNE_TCP_EPIPE;
    }
    if (len == 0) {
        return RNE_TCP_EINVAL;
    }
    if (len > c->sb_size) {
        return RNE_TCP_EMSGSIZE;
    }
    if (len > rne_tcp_send_space(c)) {
        return RNE_TCP_EAGAIN;
    }
    if (!tcp_sb_get(c)) {
        return RNE_TCP_EAGAIN;
    }
    uint32_t pos = (c->sb_head + c->sb_len) % c->sb_size;
    size_t k = c->sb_size - pos;
    if (k > len) {
        k = len;
    }
    span[0] = (struct rne_span){ c->sb + pos, k };
    span[1] = (struct rne_span){ c->sb, len - k };
    return RNE_TCP_OK;
}

void rne_tcp_commit(struct rne_tcp_conn *c, size_t len, uint64_t now_ns)
{
    uint32_t ri = (c->rec_head + c->rec_cnt) % c->rec_cap;
    c->sb_len += (uint32_t)len;
    c->rec[ri] = c->sb_seq + c->sb_len;
    c->rec_cnt++;
    struct rne_tcp *t = c->t;
    tcp_begin(t, now_ns);
    /*
     * Input owes c output that rne_tcp_pull sends next: what the upper
     * layer queues meanwhile leaves with it, packed into full segments.
     */
    if (c->state >= RNE_TCP_ESTABLISHED && !c->out_owed) {
        tcp_output(c);
    }
    tcp_end(t);
}

int rne_tcp_sendv(struct rne_tcp_conn *c, const struct rne_iov *iov,
                  int iovcnt,
                  uint64_t now_ns)
{
    struct rne_span sp[2];
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        len += iov[i].len;
    }
    int err = rne_tcp_reserve(c, len, sp);
    if (err) {
        return err;
    }
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        rne_span_put(sp, off, iov[i].base, iov[i].len);
        off += iov[i].len;
    }
    rne_tcp_commit(c, len, now_ns);
    return RNE_TCP_OK;
}

int rne_tcp_send(struct rne_tcp_conn *c, const void *rec, size_t len,
                 uint64_t now_ns)
{
    struct rne_iov v = { rec, len };
    return rne_tcp_sendv(c, &v, 1, now_ns);
}

void rne_tcp_recv_done(struct rne_tcp_conn *c, size_t len, uint64_t now_ns)
{
    struct rne_tcp *t = c->t;
    tcp_begin(t, now_ns);
    tcp_rcv_release(c, len);
    tcp_end(t);
}

/* len received octets are gone from the buffer: the window may reopen. */
void tcp_rcv_release(struct rne_tcp_conn *c, size_t len)
{
    uint32_t before = c->rcv_adv - c->rcv_nxt;
    c->rcv_unread -= len > c->rcv_unread ? c->rcv_unread : (uint32_t)len;
    /*
     * Window update only when it opens meaningfully (receiver SWS avoidance).
     */
    if (c->state >= RNE_TCP_ESTABLISHED && c->state != RNE_TCP_TIME_WAIT &&
        tcp_rcv_window(c) > before) {
        uint32_t after = c->rcv_buf - c->rcv_unread;
        /* ... or when the peer could not send one full segment so far */
        if (before < c->rcv_buf / 4 || before < c->emss ||
            after - before >= c->rcv_buf / 2) {
            c->ack_now = true;
            tcp_output(c);
        }
    }
}

int rne_tcp_close(struct rne_tcp_conn *c, uint64_t now_ns)
{
    if (c->dead || c->fin_queued) {
        return RNE_TCP_ENOTCONN;
    }
    struct rne_tcp *t = c->t;
    tcp_begin(t, now_ns);
    switch (c->state) {
    case RNE_TCP_SYN_SENT:
        tcp_conn_drop(c, RNE_TCP_OK);
        break;
    case RNE_TCP_SYN_RCVD:
        /*
         * RFC 9293: queue the FIN until ESTABLISHED (simultaneous open only:
         * passive children are not visible before accept)
         */
        c->fin_queued = true;
        c->fin_seq = c->sb_seq + c->sb_len;
        break;
    case RNE_TCP_ESTABLISHED:
    case RNE_TCP_CLOSE_WAIT:
        c->fin_queued = true;
        c->fin_seq = c->sb_seq + c->sb_len;
        tcp_conn_set_state(c, c->state == RNE_TCP_CLOSE_WAIT ?
                              RNE_TCP_LAST_ACK : RNE_TCP_FIN_WAIT_1);
        tcp_output(c);
        break;
    default:
        break;
    }
    tcp_end(t);
    return RNE_TCP_OK;
}

void rne_tcp_abort(struct rne_tcp_conn *c, uint64_t now_ns)
{
    /* an event not taken yet goes too: the handle is the caller's no more */
    c->user = NULL;
    if (c->dead) {
        return;
    }
    struct rne_tcp *t = c->t;
    tcp_begin(t, now_ns);
    if (c->state != RNE_TCP_SYN_SENT && c->state != RNE_TCP_TIME_WAIT) {
        tcp_send_rst_conn(c);
    }
    tcp_conn_drop(c, RNE_TCP_ECONNRESET);
    tcp_end(t);
}

uint32_t rne_tcp_reset_all(struct rne_tcp *t, uint64_t now_ns)
{
    uint32_t n = 0;

    tcp_begin(t, now_ns);
    for (uint32_t i = 0; i < t->cfg.max_conns; i++) {
        struct rne_tcp_conn *c = &t->pool[i];

        /* SYN_SENT: the peer's sequence is unknown; TIME_WAIT: done. */
        if (c->live && c->state >= RNE_TCP_SYN_RCVD &&
            c->state != RNE_TCP_TIME_WAIT) {
            tcp_send_rst_conn(c);
            n++;
        }
    }
    tcp_end(t);
    return n;
}

void rne_tcp_set_mtu(struct rne_tcp_conn *c, uint16_t mtu)
{
    if (mtu < 576) {
        return;
    }
    c->mtu = mtu > c->t->cfg.mtu ? c->t->cfg.mtu : mtu;
    tcp_conn_update_emss(c);
}

bool rne_tcp_icmp_mtu(struct rne_tcp_conn *c, uint32_t seq, uint16_t mtu)
{
    /* RFC 5927 §4.1: only for a sequence number we have in flight */
    if (c->state < RNE_TCP_ESTABLISHED ||
        seq - c->snd_una >= c->snd_max - c->snd_una) {
        return false;
    }
    if (mtu < RNE_TCP_MIN_PMTU) {
        mtu = RNE_TCP_MIN_PMTU;
    }
    if (mtu >= c->mtu) {
        return false;           /* only ever lowered */
    }
    c->mtu = mtu;
    tcp_conn_update_emss(c);
    return true;
}

void rne_tcp_set_mac(struct rne_tcp *t, const uint8_t *mac)
{
    memcpy(t->cfg.mac, mac, RNE_ETH_ALEN);
}

void rne_tcp_set_user(struct rne_tcp_conn *c, void *user)
{
    c->user = user;
    if (!user) {
        /* nobody reads it any more */
        tcp_begin(c->t, c->t->now);
        tcp_rd_drop(c);
        tcp_end(c->t);
    }
}

void rne_tcp_get_info(const struct rne_tcp_conn *c,
                      struct rne_tcp_info *info)
{
    memset(info, 0, sizeof(*info));
    info->state = c->state;
    info->emss = c->emss;
    info->snd_wscale = c->snd_ws;
    info->rcv_wscale = c->ws_ok ? c->rcv_ws : 0;
    info->sack = c->sack_ok;
    info->timestamps = c->ts_ok;
    info->cwnd = c->cwnd;
    info->ssthresh = c->ssthresh;
    info->snd_wnd = c->snd_wnd;
    info->rcv_wnd = c->rcv_adv - c->rcv_nxt;
    info->srtt_us = (uint32_t)(c->srtt / 1000);
    info->rto_ms = (uint32_t)(c->rto / NS_PER_MS);
    info->snd_una = c->snd_una;
    info->snd_nxt = c->snd_nxt;
    info->rcv_nxt = c->rcv_nxt;
    info->unacked = c->snd_max - c->snd_una;
    uint32_t end = c->sb_seq + c->sb_len;
    info->unsent = SEQ_GT(end, c->snd_nxt) ? end - c->snd_nxt : 0;
    info->rexmits = c->rexmits;
}

void rne_tcp_get_tuple(const struct rne_tcp_conn *c,
                       struct rne_ipaddr *laddr,
                       uint16_t *lport, struct rne_ipaddr *raddr,
                       uint16_t *rport)
{
    if (laddr) {
        *laddr = c->t->cfg.addr;
    }
    if (lport) {
        *lport = c->lport;
    }
    if (raddr) {
        *raddr = c->raddr;
    }
    if (rport) {
        *rport = c->rport;
    }
}
