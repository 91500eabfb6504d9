/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connections in the state stream (section CONN, docs/migration.md): per
 * established connection its CM identity (id, tuple, listener, VLAN), the
 * MPA outcome (revision, CRC, markers, RFC 7306, IRD/ORD, RTR) and both
 * deframers' positions with a partly received FPDU, the bound QP's iWARP
 * state (the SQ WQE being segmented, completions waiting in order, the
 * ORD and IRD queues, the message being received) and the offload TCP
 * connection (state_tcp.c).
 *
 * The WQE being segmented is not in the stream: the loader fetches it
 * again from the SQ ring with the checks any fetch makes, so an SGE or
 * key that would fail now fails the load.  SGLs in the queues are checked
 * where they are used, against the MRs, as the device always does.
 */
#include <stdio.h>
#include <string.h>
#include "state_int.h"
#include "iwarp/iw.h"
#include "rdma/rdma_int.h"
#include "wire/le.h"

/* enum rx states of wire/mpa.c's deframer */
#define ST_MPA_RX_LEN   0
#define ST_MPA_RX_ULPDU 1
#define ST_MPA_RX_PAD   2
#define ST_MPA_RX_CRC   3

const char *rne_st_conn_unsaved(struct rne_dev *d, char *buf, size_t n)
{
    struct rne_iw *iw = d->iw;
    char why[96];
    uint32_t i;

    if (iw->gone) {
        snprintf(buf, n, "connections are being released (mid-dispatch)");
        return buf;
    }
    for (i = 0; i < iw->nlive; i++) {
        const struct rne_iw_conn *c = iw->live[i];

        if (c->state != IWC_RTS || !c->tc || !c->iq || c->fin_sent ||
            c->iq->close_wanted) {
            snprintf(buf, n, "connection %u is in CM state %u: only "
                     "established connections are in the state stream",
                     c->id, c->state);
            return buf;
        }
        if (rne_st_tcp_unsaved(c->tc, why, sizeof(why))) {
            snprintf(buf, n, "connection %u: %s", c->id, why);
            return buf;
        }
    }
    return NULL;
}

static void save_sgl(struct rne_sw *w, const struct rne_sgl *s)
{
    uint32_t i;

    rne_sw_u32(w, s->n);
    for (i = 0; i < s->n; i++) {
        rne_sw_u64(w, s->sge[i].addr);
        rne_sw_u32(w, s->sge[i].length);
        rne_sw_u32(w, s->sge[i].lkey);
    }
}

static bool load_sgl(struct rne_st_ld *ld, struct rne_sgl *s, uint32_t max,
                     const char *who)
{
    uint32_t i;

    memset(s, 0, sizeof(*s));
    if (!rne_sr_u32(ld->r, &s->n)) {
        return false;
    }
    if (s->n > max || s->n > RNIC_SQ_MAX_SGE) {
        return rne_sr_fail(ld->r, "%s: %u SGEs (at most %u)", who, s->n,
                           max);
    }
    for (i = 0; i < s->n; i++) {
        uint64_t addr;
        uint32_t len, lkey;

        rne_sr_u64(ld->r, &addr);
        rne_sr_u32(ld->r, &len);
        rne_sr_u32(ld->r, &lkey);
        s->sge[i].addr = addr;
        s->sge[i].length = len;
        s->sge[i].lkey = lkey;
        s->total += len;
    }
    return !ld->r->failed;
}

/* The WQE header is the guest's bytes: little-endian fields one by one. */
static void save_hdr(struct rne_sw *w, const struct rnic_wqe_hdr *h)
{
    rne_sw_u64(w, rne_le64_to_cpu(h->wr_id));
    rne_sw_u8(w, h->opcode);
    rne_sw_u8(w, h->flags);
    rne_sw_u16(w, rne_le16_to_cpu(h->count));
    rne_sw_u32(w, rne_le32_to_cpu(h->ex));
}

static bool load_hdr(struct rne_sr *r, struct rnic_wqe_hdr *h)
{
    uint64_t wr_id;
    uint16_t count;
    uint32_t ex;

    rne_sr_u64(r, &wr_id);
    rne_sr_u8(r, &h->opcode);
    rne_sr_u8(r, &h->flags);
    rne_sr_u16(r, &count);
    if (!rne_sr_u32(r, &ex)) {
        return false;
    }
    h->wr_id = rne_cpu_to_le64(wr_id);
    h->count = rne_cpu_to_le16(count);
    h->ex = rne_cpu_to_le32(ex);
    return true;
}

static void save_iq(struct rne_dev *d, struct rne_sw *w,
                    const struct rne_qp *qp, const struct rne_iw_qp *iq)
{
    uint32_t i, k;

    rne_sw_u8(w, iq->rfc7306);
    rne_sw_u32(w, iq->sq_next);
    rne_sw_u8(w, iq->cur_active);
    rne_sw_u32(w, iq->cur_idx);
    rne_sw_u8(w, iq->cur_phase);
    rne_sw_u64(w, iq->cur_off);
    rne_sw_u32(w, iq->cur_msn);
    for (i = 0; i < 4; i++) {
        rne_sw_u32(w, iq->tx_msn[i]);
    }
    rne_sw_u8(w, iq->tx_turn);
    rne_sw_u8(w, iq->stopped);
    /* completions waiting in order: SQ WQEs sq_done .. sq_next */
    for (i = qp->sq_done; i != iq->sq_next; i++) {
        const struct rne_iw_wc *c = &iq->wc[i & (iq->wc_cap - 1)];

        rne_sw_u8(w, c->done);
        rne_sw_u8(w, c->status);
        rne_sw_u32(w, c->byte_len);
        save_hdr(w, &c->hdr);
    }
    rne_sw_u32(w, iq->ord);
    rne_sw_u32(w, iq->orq_cnt);
    for (k = 0; k < iq->orq_cnt; k++) {
        const struct rne_iw_orq *o = &iq->orq[(iq->orq_head + k) %
                                              iq->orq_cap];

        rne_sw_u8(w, o->rtr);
        rne_sw_u8(w, o->atomic);
        rne_sw_u32(w, o->sq_idx);
        save_hdr(w, &o->hdr);
        save_sgl(w, &o->sgl);
        rne_sw_u32(w, o->sink_stag);
        rne_sw_u64(w, o->sink_to);
        rne_sw_u64(w, o->got);
    }
    rne_sw_u32(w, iq->ird);
    rne_sw_u32(w, iq->irq_cnt);
    for (k = 0; k < iq->irq_cnt; k++) {
        const struct rne_iw_irq *q = &iq->irq[(iq->irq_head + k) %
                                              iq->irq_cap];

        rne_sw_u8(w, q->atomic);
        rne_sw_u32(w, q->src_stag);
        rne_sw_u32(w, q->sink_stag);
        rne_sw_u32(w, q->size);
        rne_sw_u64(w, q->src_to);
        rne_sw_u64(w, q->sink_to);
        rne_sw_u64(w, q->sent);
        rne_sw_u32(w, q->req_id);
        rne_sw_u64(w, q->orig);
    }
    rne_sw_u32(w, iq->atomic_req_id);
    for (i = 0; i < 4; i++) {
        rne_sw_u32(w, iq->rx_msn[i]);
    }
    rne_sw_u8(w, iq->rx_active);
    rne_sw_u32(w, iq->rx_cur_msn);
    rne_sw_u64(w, iq->rx_wr_id);
    rne_sw_u16(w, iq->rx_wqe_idx);
    save_sgl(w, &iq->rx_sgl);
    rne_sw_u64(w, iq->rx_got);
    rne_sw_u8(w, iq->rx_write_open);
    rne_sw_u8(w, iq->rx_last_write);
    rne_sw_u8(w, iq->rx_imm_pending);
    rne_sw_u32(w, iq->rx_imm);
    rne_sw_u64(w, iq->rx_write_len);
    (void)d;
}

/* Octets of the ULPDU the deframer holds in its buffer. */
static uint32_t rx_held(const struct rne_mpa_rx *rx)
{
    switch (rx->state) {
    case ST_MPA_RX_ULPDU:
        return rx->got;
    case ST_MPA_RX_PAD:
    case ST_MPA_RX_CRC:
        return rx->ulpdu_len;
    default:
        return 0;
    }
}

static void save_conn(struct rne_dev *d, struct rne_sw *w,
                      const struct rne_iw_conn *c, uint64_t now)
{
    const struct rne_qp *qp = &d->rdma->qp[c->qpn];
    uint32_t held = rx_held(&c->rx);

    rne_sw_begin(w, RNE_SEC_CONN, RNE_SEC_VERSION);
    rne_sw_u32(w, c->id);
    rne_sw_u32(w, c->qpn);
    rne_sw_u8(w, c->active);
    rne_sw_u32(w, c->listen_id);
    rne_sw_u16(w, c->eng->vlan);
    rne_sw_bytes(w, c->tuple.local_addr, 4);
    rne_sw_bytes(w, c->tuple.remote_addr, 4);
    rne_sw_u16(w, rne_le16_to_cpu(c->tuple.local_port));
    rne_sw_u16(w, rne_le16_to_cpu(c->tuple.remote_port));
    rne_st_save_time(w, c->deadline, UINT64_MAX, now);
    rne_st_save_time(w, c->nudge_end, 0, now);
    rne_sw_u64(w, c->nudge_gap);
    rne_sw_u32(w, c->nudge_seq);
    /* MPA: what we asked, the peer's frame, the outcome */
    rne_sw_u8(w, c->loc.rev);
    rne_sw_u8(w, c->loc.crc);
    rne_sw_u8(w, c->loc.markers);
    rne_sw_u8(w, c->loc.p2p);
    rne_sw_u8(w, c->loc.rtr_caps);
    rne_sw_u16(w, c->loc.ird);
    rne_sw_u16(w, c->loc.ord);
    rne_sw_u8(w, c->loc.rfc7306);
    rne_sw_u8(w, c->req.rev);
    rne_sw_u16(w, c->req.pd_len);
    rne_sw_u16(w, c->pdata_len);
    rne_sw_u8(w, c->neg.rev);
    rne_sw_u8(w, c->neg.crc);
    rne_sw_u8(w, c->neg.markers_tx);
    rne_sw_u8(w, c->neg.markers_rx);
    rne_sw_u8(w, c->neg.ird_ord_known);
    rne_sw_u16(w, c->neg.ird);
    rne_sw_u16(w, c->neg.ord);
    rne_sw_u8(w, c->neg.rtr);
    rne_sw_u8(w, c->neg.rfc7306);
    rne_sw_u32(w, c->emss);
    /* the deframers: where each stands, a partly received FPDU */
    rne_sw_u32(w, c->tx.pos);
    rne_sw_u8(w, c->rx.state);
    rne_sw_u8(w, c->rx.err);
    rne_sw_u8(w, c->rx.in_fpdu);
    rne_sw_u16(w, c->rx.ulpdu_len);
    rne_sw_u32(w, c->rx.got);
    rne_sw_u32(w, c->rx.pos);
    rne_sw_u32(w, c->rx.hdr_pos);
    rne_sw_u32(w, c->rx.crc_run);
    rne_sw_bytes(w, c->rx.lenb, sizeof(c->rx.lenb));
    rne_sw_bytes(w, c->rx.crcb, sizeof(c->rx.crcb));
    rne_sw_bytes(w, c->rx.mk, sizeof(c->rx.mk));
    rne_sw_u64(w, c->rx.fpdus);
    rne_sw_bytes(w, c->rxbuf, held);
    save_iq(d, w, qp, c->iq);
    rne_st_save_tcp(w, c->tc, now);
    rne_sw_end(w);
}

void rne_st_save_conns(struct rne_dev *d, struct rne_sw *w)
{
    uint64_t now = rne_iw_now(d);
    uint32_t i;

    for (i = 0; i < d->cfg.max_conn; i++) {
        if (d->iw->conn[i]) {
            save_conn(d, w, d->iw->conn[i], now);
        }
    }
}

/* ---------------------------------------------------------------- */

static bool load_iq(struct rne_st_ld *ld, struct rne_qp *qp,
                    struct rne_iw_qp *iq, const char *who)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    uint32_t i, k, n, ord, ird;
    unsigned sts;

    rne_sr_bool(r, &iq->rfc7306);
    rne_sr_u32(r, &iq->sq_next);
    rne_sr_bool(r, &iq->cur_active);
    rne_sr_u32(r, &iq->cur_idx);
    rne_sr_u8(r, &iq->cur_phase);
    rne_sr_u64(r, &iq->cur_off);
    rne_sr_u32(r, &iq->cur_msn);
    for (i = 0; i < 4; i++) {
        rne_sr_u32(r, &iq->tx_msn[i]);
    }
    rne_sr_bool(r, &iq->tx_turn);
    if (!rne_sr_bool(r, &iq->stopped)) {
        return false;
    }
    /* sq_done <= sq_next <= sq.cidx: fetched WQEs wait for completion */
    if (iq->sq_next - qp->sq_done > qp->sq.cidx - qp->sq_done) {
        return rne_sr_fail(r, "%s: SQ next %u outside %u..%u", who,
                           iq->sq_next, qp->sq_done, qp->sq.cidx);
    }
    if (iq->cur_phase > 1 ||
        (iq->cur_active && iq->cur_idx - qp->sq_done >=
         iq->sq_next - qp->sq_done)) {
        return rne_sr_fail(r, "%s: the WQE in progress (%u) is not one "
                           "fetched", who, iq->cur_idx);
    }
    n = iq->sq_next - qp->sq_done;
    if (n) {
        iq->wc = rne_mem_alloc(&d->mem, RNE_MEM_IW_QP,
                               iq->wc_cap * sizeof(*iq->wc));
        if (!iq->wc) {
            return rne_sr_fail(r, "%s: no memory", who);
        }
    }
    for (i = qp->sq_done; i != iq->sq_next; i++) {
        struct rne_iw_wc *c = &iq->wc[i & (iq->wc_cap - 1)];

        rne_sr_bool(r, &c->done);
        rne_sr_u8(r, &c->status);
        rne_sr_u32(r, &c->byte_len);
        if (!load_hdr(r, &c->hdr)) {
            return false;
        }
    }
    if (iq->cur_active) {
        /* fetched again from the guest's ring, checked as any fetch */
        sts = rne_sq_fetch(d, qp, iq->cur_idx, &iq->cur, &iq->cur_sgl);
        if (sts) {
            return rne_sr_fail(r, "%s: SQ WQE %u in progress fails its "
                               "checks now (status %u)", who, iq->cur_idx,
                               sts);
        }
        if (iq->cur_off > iq->cur_sgl.total &&
            !(iq->cur.hdr.flags & RNIC_WQE_INLINE)) {
            return rne_sr_fail(r, "%s: %llu of the WQE in progress sent, "
                               "it has %llu", who,
                               (unsigned long long)iq->cur_off,
                               (unsigned long long)iq->cur_sgl.total);
        }
    }
    rne_sr_u32(r, &ord);
    if (!rne_sr_u32(r, &n)) {
        return false;
    }
    if (ord >= iq->orq_cap || n > ord + 1) {
        return rne_sr_fail(r, "%s: ORD %u with %u outstanding (limit %u)",
                           who, ord, n, iq->orq_cap - 1);
    }
    iq->ord = ord;
    if (n && !rne_iw_orq_get(d, iq)) {
        return rne_sr_fail(r, "%s: no memory", who);
    }
    iq->orq_cnt = n;
    for (k = 0; k < n; k++) {
        struct rne_iw_orq *o = &iq->orq[k];

        rne_sr_bool(r, &o->rtr);
        rne_sr_bool(r, &o->atomic);
        rne_sr_u32(r, &o->sq_idx);
        if (!load_hdr(r, &o->hdr) ||
            !load_sgl(ld, &o->sgl, qp->max_send_sge, who)) {
            return false;
        }
        rne_sr_u32(r, &o->sink_stag);
        rne_sr_u64(r, &o->sink_to);
        if (!rne_sr_u64(r, &o->got)) {
            return false;
        }
        if (!o->rtr && o->sq_idx - qp->sq_done >=
            iq->sq_next - qp->sq_done) {
            return rne_sr_fail(r, "%s: a Read of SQ WQE %u not fetched",
                               who, o->sq_idx);
        }
        if (o->got > o->sgl.total) {
            return rne_sr_fail(r, "%s: Read got %llu of %llu", who,
                               (unsigned long long)o->got,
                               (unsigned long long)o->sgl.total);
        }
    }
    rne_sr_u32(r, &ird);
    if (!rne_sr_u32(r, &n)) {
        return false;
    }
    if (ird >= iq->irq_cap || n > ird + 1) {
        return rne_sr_fail(r, "%s: IRD %u with %u inbound (limit %u)", who,
                           ird, n, iq->irq_cap - 1);
    }
    iq->ird = ird;
    if (n && !rne_iw_irq_get(d, iq)) {
        return rne_sr_fail(r, "%s: no memory", who);
    }
    iq->irq_cnt = n;
    for (k = 0; k < n; k++) {
        struct rne_iw_irq *q = &iq->irq[k];

        rne_sr_bool(r, &q->atomic);
        rne_sr_u32(r, &q->src_stag);
        rne_sr_u32(r, &q->sink_stag);
        rne_sr_u32(r, &q->size);
        rne_sr_u64(r, &q->src_to);
        rne_sr_u64(r, &q->sink_to);
        rne_sr_u64(r, &q->sent);
        rne_sr_u32(r, &q->req_id);
        if (!rne_sr_u64(r, &q->orig)) {
            return false;
        }
        if (q->sent > q->size) {
            return rne_sr_fail(r, "%s: Read Response sent %llu of %u", who,
                               (unsigned long long)q->sent, q->size);
        }
    }
    rne_sr_u32(r, &iq->atomic_req_id);
    for (i = 0; i < 4; i++) {
        rne_sr_u32(r, &iq->rx_msn[i]);
    }
    rne_sr_bool(r, &iq->rx_active);
    rne_sr_u32(r, &iq->rx_cur_msn);
    rne_sr_u64(r, &iq->rx_wr_id);
    rne_sr_u16(r, &iq->rx_wqe_idx);
    if (!load_sgl(ld, &iq->rx_sgl, qp->max_recv_sge, who)) {
        return false;
    }
    rne_sr_u64(r, &iq->rx_got);
    rne_sr_bool(r, &iq->rx_write_open);
    rne_sr_bool(r, &iq->rx_last_write);
    rne_sr_bool(r, &iq->rx_imm_pending);
    rne_sr_u32(r, &iq->rx_imm);
    if (!rne_sr_u64(r, &iq->rx_write_len)) {
        return false;
    }
    if (iq->rx_active && iq->rx_got > iq->rx_sgl.total) {
        return rne_sr_fail(r, "%s: received %llu into a %llu-octet WQE",
                           who, (unsigned long long)iq->rx_got,
                           (unsigned long long)iq->rx_sgl.total);
    }
    return true;
}

static bool load_mpa(struct rne_st_ld *ld, struct rne_iw_conn *c,
                     const char *who)
{
    struct rne_sr *r = ld->r;
    uint32_t held;

    rne_sr_u8(r, &c->loc.rev);
    rne_sr_bool(r, &c->loc.crc);
    rne_sr_bool(r, &c->loc.markers);
    rne_sr_bool(r, &c->loc.p2p);
    rne_sr_u8(r, &c->loc.rtr_caps);
    rne_sr_u16(r, &c->loc.ird);
    rne_sr_u16(r, &c->loc.ord);
    rne_sr_bool(r, &c->loc.rfc7306);
    rne_sr_u8(r, &c->req.rev);
    rne_sr_u16(r, &c->req.pd_len);
    rne_sr_u16(r, &c->pdata_len);
    rne_sr_u8(r, &c->neg.rev);
    rne_sr_bool(r, &c->neg.crc);
    rne_sr_bool(r, &c->neg.markers_tx);
    rne_sr_bool(r, &c->neg.markers_rx);
    rne_sr_bool(r, &c->neg.ird_ord_known);
    rne_sr_u16(r, &c->neg.ird);
    rne_sr_u16(r, &c->neg.ord);
    rne_sr_u8(r, &c->neg.rtr);
    rne_sr_bool(r, &c->neg.rfc7306);
    if (!rne_sr_u32(r, &c->emss)) {
        return false;
    }
    if (c->loc.rev < 1 || c->loc.rev > 2 || c->neg.rev < 1 ||
        c->neg.rev > c->loc.rev || c->req.rev < 1 || c->req.rev > 2 ||
        (c->neg.rev == 1 && c->neg.ird_ord_known) ||
        c->req.pd_len > RNE_MPA_PD_MAX || c->pdata_len > RNE_MPA_PD_MAX ||
        c->neg.rtr > RNE_MPA_RTR_READ || c->loc.rtr_caps > 7 ||
        (c->neg.rfc7306 && !c->loc.rfc7306)) {
        return rne_sr_fail(r, "%s: MPA negotiation (rev %u of %u) this rnic "
                           "would not make", who, c->neg.rev, c->loc.rev);
    }
    if (c->emss < 64 || c->emss > ld->d->cfg.max_mtu - 40) {
        return rne_sr_fail(r, "%s: EMSS %u", who, c->emss);
    }
    rne_mpa_tx_init(&c->tx, c->neg.crc, c->neg.markers_tx);
    rne_mpa_rx_init(&c->rx, c->neg.crc, c->neg.markers_rx, NULL,
                    RNE_IW_RX_ULPDU_MAX);
    c->mulpdu = rne_mpa_mulpdu(c->emss, c->tx.markers);
    rne_sr_u32(r, &c->tx.pos);
    rne_sr_u8(r, &c->rx.state);
    rne_sr_u8(r, &c->rx.err);
    rne_sr_bool(r, &c->rx.in_fpdu);
    rne_sr_u16(r, &c->rx.ulpdu_len);
    rne_sr_u32(r, &c->rx.got);
    rne_sr_u32(r, &c->rx.pos);
    rne_sr_u32(r, &c->rx.hdr_pos);
    rne_sr_u32(r, &c->rx.crc_run);
    rne_sr_bytes(r, c->rx.lenb, sizeof(c->rx.lenb));
    rne_sr_bytes(r, c->rx.crcb, sizeof(c->rx.crcb));
    rne_sr_bytes(r, c->rx.mk, sizeof(c->rx.mk));
    if (!rne_sr_u64(r, &c->rx.fpdus)) {
        return false;
    }
    /* a field is never complete in the saved state: it moves on at once */
    if (c->rx.state > ST_MPA_RX_CRC || c->rx.err ||
        (c->rx.state == ST_MPA_RX_LEN && c->rx.got >= 2) ||
        (c->rx.state == ST_MPA_RX_ULPDU &&
         (!c->rx.ulpdu_len || c->rx.got >= c->rx.ulpdu_len)) ||
        (c->rx.state == ST_MPA_RX_PAD &&
         c->rx.got >= rne_mpa_pad(c->rx.ulpdu_len)) ||
        (c->rx.state == ST_MPA_RX_CRC && c->rx.got >= RNE_MPA_CRC_LEN) ||
        (c->rx.state != ST_MPA_RX_LEN && !c->rx.in_fpdu)) {
        return rne_sr_fail(r, "%s: MPA receive state %u at %u of %u", who,
                           c->rx.state, c->rx.got, c->rx.ulpdu_len);
    }
    held = rx_held(&c->rx);
    if (held || c->rx.markers || c->rx.in_fpdu) {
        c->rxbuf = rne_mem_alloc(&ld->d->mem, RNE_MEM_RX_FPDU,
                                 RNE_IW_RX_ULPDU_MAX);
        if (!c->rxbuf) {
            return rne_sr_fail(r, "%s: no memory", who);
        }
        c->rx.buf = c->rxbuf;
    }
    if (held && !rne_sr_bytes(r, c->rxbuf, held)) {
        return false;
    }
    if (c->tx.markers && !rne_iw_tx_bufs(ld->d, c)) {
        return rne_sr_fail(r, "%s: no memory", who);
    }
    return true;
}

bool rne_st_load_conn(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_iw *iw = d->iw;
    struct rne_sr *r = ld->r;
    uint64_t now = rne_iw_now(d), dl;
    struct rne_iw_conn *c;
    struct rne_iw_eng *e;
    struct rne_qp *qp;
    struct rne_ipaddr ra;
    uint32_t id, qpn, listen_id;
    uint16_t vlan, lport, rport;
    uint8_t la[4], rad[4];
    bool active;
    char who[32];

    if (!rne_sr_u32(r, &id)) {
        return false;
    }
    snprintf(who, sizeof(who), "connection %u", id);
    if (id >= d->cfg.max_conn || (int64_t)id <= ld->last_obj) {
        return rne_sr_fail(r, "%s: out of order or beyond max-conn", who);
    }
    ld->last_obj = id;
    rne_sr_u32(r, &qpn);
    rne_sr_bool(r, &active);
    rne_sr_u32(r, &listen_id);
    rne_sr_u16(r, &vlan);
    rne_sr_bytes(r, la, 4);
    rne_sr_bytes(r, rad, 4);
    rne_sr_u16(r, &lport);
    if (!rne_sr_u16(r, &rport)) {
        return false;
    }
    qp = rne_qp_get(d, qpn);
    if (!qp || qp->state != RNIC_QPS_RTS || qp->iw) {
        return rne_sr_fail(r, "%s: QP %u is not an RTS QP without a "
                           "connection", who, qpn);
    }
    if (active ? listen_id != 0xffffffffu :
        listen_id >= d->cfg.max_listen) {
        return rne_sr_fail(r, "%s: listener %u", who, listen_id);
    }
    if (vlan > 4094 || !lport || !rport || !(la[0] | la[1] | la[2] | la[3]) ||
        !(rad[0] | rad[1] | rad[2] | rad[3]) || la[0] >= 224 ||
        rad[0] >= 224) {
        return rne_sr_fail(r, "%s: tuple or VLAN %u", who, vlan);
    }
    e = rne_iw_eng_get(d, la, vlan ? vlan : RNE_NO_VLAN, true);
    if (!e) {
        return rne_sr_fail(r, "%s: no TCP engine for its address", who);
    }
    /* the slot itself: rne_iw_conn_alloc takes the next free id */
    iw->next_conn = id;
    c = rne_iw_conn_alloc(d);
    if (!c || c->id != id) {
        return rne_sr_fail(r, "%s: no connection slot", who);
    }
    rne_iw_mpa_done(d, c);
    c->state = IWC_RTS;
    c->active = active;
    c->listen_id = listen_id;
    c->eng = e;
    memset(&c->tuple, 0, sizeof(c->tuple));
    c->tuple.family = RNIC_AF_IPV4;
    memcpy(c->tuple.local_addr, la, 4);
    memcpy(c->tuple.remote_addr, rad, 4);
    c->tuple.local_port = rne_cpu_to_le16(lport);
    c->tuple.remote_port = rne_cpu_to_le16(rport);
    c->key.family = RNIC_AF_IPV4;
    c->key.vlan = e->vlan;
    memcpy(c->key.laddr, la, 4);
    memcpy(c->key.raddr, rad, 4);
    c->key.lport = lport;
    c->key.rport = rport;
    if (!rne_st_load_time(ld, &dl, UINT64_MAX, now, who) ||
        !rne_st_load_time(ld, &c->nudge_end, 0, now, who)) {
        return false;
    }
    rne_iw_set_deadline(iw, c, dl);
    rne_sr_u64(r, &c->nudge_gap);
    if (!rne_sr_u32(r, &c->nudge_seq) || !load_mpa(ld, c, who)) {
        return false;
    }
    if (c->nudge_gap > RNE_IW_NUDGE_SPAN_NS ||
        (c->deadline != UINT64_MAX && !c->nudge_end)) {
        return rne_sr_fail(r, "%s: a timer an established connection does "
                           "not run", who);
    }
    if (!rne_iw_qp_new(d, qp, c)) {
        return rne_sr_fail(r, "%s: no memory", who);
    }
    if (!load_iq(ld, qp, c->iq, who)) {
        return false;
    }
    rne_ipaddr_v4(&ra, rad[0], rad[1], rad[2], rad[3]);
    c->tc = rne_st_load_tcp(ld, e->tcp, &ra, lport, rport, now, who);
    if (!c->tc) {
        return false;
    }
    rne_tcp_set_user(c->tc, c);
    rne_iw_steer_conn(d, c, true);
    if (!c->steered) {
        return rne_sr_fail(r, "%s: its tuple is steered elsewhere", who);
    }
    return true;
}

bool rne_st_check_conns(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        const struct rne_qp *qp = &d->rdma->qp[i];

        if (qp->live && qp->state == RNIC_QPS_RTS && !qp->iw) {
            return rne_sr_fail(ld->r, "QP %u is in RTS without a "
                               "connection", i);
        }
    }
    rne_iw_rearm(d);
    return true;
}
