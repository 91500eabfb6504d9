/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP transmit side of a QP: SQ WQEs become RDMAP messages cut into DDP
 * segments, one per MPA FPDU and TCP segment (MULPDU from the EMSS); Read
 * Responses and Atomic Responses to the peer's requests are interleaved
 * segment by segment with the SQ.  Send and Write WQEs complete when their
 * last FPDU is handed to TCP (as siw does), Reads and Atomics when the
 * response has been placed; completions are written in SQ order.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "iw.h"
#include "wire/le.h"

struct rne_iw_qp *rne_iw_qp_new(struct rne_dev *d, struct rne_qp *qp,
                                struct rne_iw_conn *c)
{
    struct rne_iw_qp *iq = rne_mem_alloc(&d->mem, RNE_MEM_IW_QP,
                                         sizeof(*iq));
    uint32_t i;

    if (!iq) {
        return NULL;
    }
    /* The rings come on first use (rne_iw_*_get), not here. */
    iq->wc_cap = qp->sq.ring.depth ? qp->sq.ring.depth : 1;
    /* One more of each for the RTR Read of RFC 6581. */
    iq->orq_cap = d->cfg.max_ord + 1;
    iq->irq_cap = d->cfg.max_ird + 1;
    iq->conn = c;
    iq->sq_next = qp->sq_done;
    for (i = 0; i < 4; i++) {
        iq->rx_msn[i] = 1;
    }
    c->iq = iq;
    c->qpn = qp->qpn;
    qp->iw = iq;
    return iq;
}

bool rne_iw_orq_get(struct rne_dev *d, struct rne_iw_qp *iq)
{
    if (!iq->orq) {
        iq->orq = rne_mem_alloc(&d->mem, RNE_MEM_IW_QP,
                                iq->orq_cap * sizeof(*iq->orq));
    }
    return iq->orq != NULL;
}

bool rne_iw_irq_get(struct rne_dev *d, struct rne_iw_qp *iq)
{
    if (!iq->irq) {
        iq->irq = rne_mem_alloc(&d->mem, RNE_MEM_IW_QP,
                                iq->irq_cap * sizeof(*iq->irq));
    }
    return iq->irq != NULL;
}

static bool wc_get(struct rne_dev *d, struct rne_iw_qp *iq)
{
    if (!iq->wc) {
        iq->wc = rne_mem_alloc(&d->mem, RNE_MEM_IW_QP,
                               iq->wc_cap * sizeof(*iq->wc));
    }
    return iq->wc != NULL;
}

/*
 * At the start of a pump no entry of these rings is referenced: the empty
 * ones go back, so an idle QP holds none of them.
 */
static void rings_trim(struct rne_dev *d, struct rne_qp *qp,
                       struct rne_iw_qp *iq)
{
    if (iq->wc && qp->sq_done == iq->sq_next) {
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->wc,
                     iq->wc_cap * sizeof(*iq->wc));
        iq->wc = NULL;
    }
    if (iq->orq && !iq->orq_cnt) {
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->orq,
                     iq->orq_cap * sizeof(*iq->orq));
        iq->orq = NULL;
        iq->orq_head = 0;
    }
    if (iq->irq && !iq->irq_cnt) {
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->irq,
                     iq->irq_cap * sizeof(*iq->irq));
        iq->irq = NULL;
        iq->irq_head = 0;
    }
}

void rne_iw_qp_destroy(struct rne_dev *d, struct rne_iw_qp *iq)
{
    if (iq) {
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->wc,
                     iq->wc_cap * sizeof(*iq->wc));
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->orq,
                     iq->orq_cap * sizeof(*iq->orq));
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq->irq,
                     iq->irq_cap * sizeof(*iq->irq));
        rne_mem_free(&d->mem, RNE_MEM_IW_QP, iq, sizeof(*iq));
    }
}

/*
 * Largest FPDU on the wire: with markers one built whole in txbuf; without,
 * TCP gathers it (an MPA ULPDU is at most 65535 octets, seg_room keeps it to
 * the MULPDU of the EMSS).
 */
static uint32_t fpdu_max(const struct rne_iw_conn *c)
{
    return c->tx.markers ? RNE_IW_TX_BUF :
           rne_mpa_tx_size(&c->tx, RNE_MPA_ULPDU_MAX);
}

bool rne_iw_send_fpdu(struct rne_dev *d, struct rne_iw_conn *c,
                      const uint8_t *hdr, size_t hlen,
                      const uint8_t *payload, size_t plen)
{
    uint32_t size, n;

    if (!c->tc || c->fin_sent) {
        return false;
    }
    size = rne_mpa_tx_size(&c->tx, (uint32_t)(hlen + plen));
    if (size > fpdu_max(c) || rne_tcp_send_space(c->tc) < size) {
        return false;
    }
    if (!c->tx.markers) {
        /* no markers: TCP gathers the pieces, no FPDU copy */
        struct rne_mpa_piece pc[2] = { { hdr, hlen }, { payload, plen } };
        uint8_t prefix[2], trailer[7];
        struct rne_iov v[4];

        n = rne_mpa_fpdu_frame(&c->tx, pc, 2, prefix, trailer);
        v[0] = (struct rne_iov){ prefix, 2 };
        v[1] = (struct rne_iov){ hdr, hlen };
        v[2] = (struct rne_iov){ payload, plen };
        v[3] = (struct rne_iov){ trailer, n };
        return rne_iw_count_fpdu_tx(d, n && rne_tcp_sendv(c->tc, v, 4,
                                     rne_iw_now(d)) == RNE_TCP_OK);
    }
    if (!rne_iw_tx_bufs(d, c)) {
        return false;
    }
    n = rne_mpa_fpdu_build(&c->tx, c->txbuf, RNE_IW_TX_BUF, hdr, hlen,
                           payload, plen);
    return rne_iw_count_fpdu_tx(d, n && rne_tcp_send(c->tc, c->txbuf, n,
                                 rne_iw_now(d)) == RNE_TCP_OK);
}

/*
 * Where a segment's payload comes from: gather(ctx, off, buf, n) reads n
 * octets, off past what earlier segments sent, as an rne_span_fill_fn
 * returning an enum rne_mr_err.
 */
struct gather_ctx {
    struct rne_dev *d;
    struct rne_qp *qp;
};

/*
 * One FPDU of hdr + plen payload octets that gather() reads from guest
 * memory: without markers straight into TCP's send ring, the CRC32c taken
 * over the ring while the bytes are hot (the copy through pbuf is gone; the
 * TCP checksum is summed when the segment is copied into its frame).
 * 1 when queued, 0 when TCP has no room now, -1 when the gather failed
 * (*err; nothing was queued).
 */
static int send_fpdu_gather(struct rne_dev *d, struct rne_qp *qp,
                            const uint8_t *hdr, size_t hlen, uint32_t plen,
                            rne_span_fill_fn gather, enum rne_mr_err *err)
{
    struct rne_iw_conn *c = qp->iw->conn;
    struct gather_ctx gc = { d, qp };
    uint32_t ulen = (uint32_t)hlen + plen, size;
    struct rne_span sp[2];

    if (!c->tc || c->fin_sent) {
        return 0;
    }
    size = rne_mpa_tx_size(&c->tx, ulen);
    if (size > fpdu_max(c) || rne_tcp_send_space(c->tc) < size) {
        return 0;
    }
    if (c->tx.markers) {
        if (!rne_iw_tx_bufs(d, c)) {
            return 0;
        }
        *err = (enum rne_mr_err)gather(&gc, 0, c->pbuf, plen);
        if (*err) {
            return -1;
        }
        return rne_iw_send_fpdu(d, c, hdr, hlen, c->pbuf, plen);
    }
    if (rne_tcp_reserve(c->tc, size, sp)) {
        return 0;
    }
    rne_span_put(sp, 2, hdr, hlen);
    *err = (enum rne_mr_err)rne_span_gather(sp, 2 + hlen, plen, gather, &gc);
    if (*err) {
        return -1;
    }
    if (!rne_mpa_fpdu_seal(&c->tx, sp, ulen)) {
        return 0;
    }
    rne_tcp_commit(c->tc, size, rne_iw_now(d));
    d->iw->st.fpdu_tx++;
    return 1;
}

/* Largest payload after a header of hlen in one FPDU. */
static uint32_t seg_room(const struct rne_iw_conn *c, size_t hlen)
{
    uint32_t mul = c->mulpdu ? c->mulpdu : 512;

    /*
     * With markers an FPDU is built whole in txbuf, markers included: the
     * ULPDU that fits RNE_IW_TX_BUF as if it were the EMSS.
     */
    if (c->tx.markers && mul > rne_mpa_mulpdu(RNE_IW_TX_BUF, true)) {
        mul = rne_mpa_mulpdu(RNE_IW_TX_BUF, true);
    }
    return mul > hlen + 1 ? mul - (uint32_t)hlen : 1;
}

bool rne_iw_sq_drained(const struct rne_qp *qp)
{
    const struct rne_iw_qp *iq = qp->iw;

    return iq->sq_next == qp->sq.pidx && !iq->cur_active &&
           !iq->orq_cnt && !iq->irq_cnt && qp->sq_done == iq->sq_next;
}

void rne_iw_wc_done(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                    unsigned status, uint32_t byte_len)
{
    struct rne_iw_qp *iq = qp->iw;
    uint32_t mask = qp->sq.ring.depth - 1;
    struct rne_iw_wc *w = &iq->wc[idx & mask];
    struct rnic_sq_wqe wqe;

    w->done = true;
    w->status = (uint8_t)status;
    w->byte_len = byte_len;
    while (qp->iw == iq && qp->sq_done != iq->sq_next) {
        uint32_t i = qp->sq_done;

        w = &iq->wc[i & mask];
        if (!w->done) {
            break;
        }
        w->done = false;
        memset(&wqe, 0, sizeof(wqe));
        wqe.hdr = w->hdr;
        status = w->status;
        rne_sq_complete(d, qp, i, &wqe, status, w->byte_len);
        if (status != RNIC_WC_SUCCESS) {
            /* opcode << 8 | status: -d guest_errors shows why a QP died */
            rne_guest_error(&d->host, "SQ WQE failed", qp->qpn,
                            (uint64_t)wqe.hdr.opcode << 8 | status);
        }
        if (status != RNIC_WC_SUCCESS && qp->iw == iq) {
            /* A local error ends the stream: tell the peer, flush. */
            struct rne_term_cause lc = {
                .layer = RNE_TERM_LAYER_RDMAP,
                .etype = RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC,
                .code = RNE_RDMAP_EC_LOCAL_CATASTROPHIC,
            };

            rne_iw_terminate(d, qp, lc, NULL, 0);
            return;
        }
        if (qp->sq_done == i) {
            break;      /* the resources refused: do not spin */
        }
    }
}

/* Copy n payload bytes of the current WQE, off past its offset, to buf. */
static int cur_payload(void *ctx, size_t off, uint8_t *buf, size_t n)
{
    struct gather_ctx *gc = ctx;
    struct rne_iw_qp *iq = gc->qp->iw;
    uint64_t at = iq->cur_off + off;

    if (!n) {
        return RNE_MR_OK;
    }
    if (iq->cur.hdr.flags & RNIC_WQE_INLINE) {
        if (at + n > RNIC_SQ_MAX_INLINE) {
            return RNE_MR_E_BOUNDS;
        }
        memcpy(buf, iq->cur.data.inline_data + at, n);
        return RNE_MR_OK;
    }
    return rne_sgl_read(gc->d, gc->qp->pdn, &iq->cur_sgl, at, buf, n);
}

static uint64_t cur_total(const struct rne_iw_qp *iq)
{
    if (iq->cur.hdr.flags & RNIC_WQE_INLINE) {
        uint16_t n = rne_le16_to_cpu(iq->cur.hdr.count);

        return n > RNIC_SQ_MAX_INLINE ? RNIC_SQ_MAX_INLINE : n;
    }
    return iq->cur_sgl.total;
}

static void cur_finish(struct rne_dev *d, struct rne_qp *qp,
                       unsigned status)
{
    struct rne_iw_qp *iq = qp->iw;

    iq->cur_active = false;
    rne_iw_wc_done(d, qp, iq->cur_idx, status,
                   status ? 0 : (uint32_t)cur_total(iq));
}

static int fail_local(struct rne_dev *d, struct rne_qp *qp,
                      enum rne_mr_err e)
{
    qp->iw->stopped = true;     /* nothing may follow a half message */
    cur_finish(d, qp, e == RNE_MR_E_BOUNDS ? RNIC_WC_LOC_LEN_ERR :
                      RNIC_WC_LOC_PROT_ERR);
    return -1;
}

static uint8_t send_op(const struct rnic_sq_wqe *w)
{
    bool se = w->hdr.flags & RNIC_WQE_SOLICITED;

    if (w->hdr.opcode == RNIC_WR_SEND_INV) {
        return se ? RNE_RDMAP_SEND_SE_INV : RNE_RDMAP_SEND_INV;
    }
    return se ? RNE_RDMAP_SEND_SE : RNE_RDMAP_SEND;
}

/*
 * RFC 7306 Immediate Data of Write-Imm (after the Write) or Send-Imm
 * (before the Send; octet 4 = 1 tells the receiver to attach it to the
 * next Send: RFC 7306 has no Send with Immediate, see docs).
 */
static int tx_imm(struct rne_dev *d, struct rne_qp *qp, bool prefix)
{
    struct rne_iw_qp *iq = qp->iw;
    uint8_t hdr[RNE_DDP_UNTAGGED_HLEN], imm[RNE_RDMAP_IMM_LEN];
    bool se = !prefix && (iq->cur.hdr.flags & RNIC_WQE_SOLICITED);
    size_t hl;

    hl = rne_rdmap_seg_untagged(hdr, se ? RNE_RDMAP_IMM_DATA_SE :
                                           RNE_RDMAP_IMM_DATA,
                                RNE_RDMAP_QN_SEND, iq->cur_msn, 0, true, 0);
    memset(imm, 0, sizeof(imm));
    /* The 32-bit immediate travels as the driver wrote it. */
    memcpy(imm, &iq->cur.hdr.ex, 4);
    imm[4] = prefix;
    if (!rne_iw_send_fpdu(d, iq->conn, hdr, hl, imm, sizeof(imm))) {
        return 0;
    }
    if (prefix) {
        iq->cur_phase = 1;
        iq->cur_msn = ++iq->tx_msn[RNE_RDMAP_QN_SEND];
    } else {
        cur_finish(d, qp, RNIC_WC_SUCCESS);
    }
    return 1;
}

/* One segment of the current Send or Write. */
static int tx_data_seg(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_conn *c = iq->conn;
    const struct rnic_sq_wqe *w = &iq->cur;
    bool tagged = w->hdr.opcode == RNIC_WR_WRITE ||
                  w->hdr.opcode == RNIC_WR_WRITE_IMM;
    uint8_t hdr[RNE_DDP_UNTAGGED_HLEN];
    uint64_t total = cur_total(iq);
    uint32_t n = seg_room(c, rne_ddp_hlen(tagged));
    enum rne_mr_err e;
    bool last;
    size_t hl;

    if (w->hdr.opcode == RNIC_WR_WRITE_IMM && iq->cur_phase) {
        return tx_imm(d, qp, false);
    }
    if (w->hdr.opcode == RNIC_WR_SEND_IMM && !iq->cur_phase) {
        return tx_imm(d, qp, true);
    }
    if (total - iq->cur_off < n) {
        n = (uint32_t)(total - iq->cur_off);
    }
    last = iq->cur_off + n == total;
    if (tagged) {
        hl = rne_rdmap_seg_tagged(hdr, RNE_RDMAP_WRITE,
                                  rne_le32_to_cpu(w->op.rdma.rkey),
                                  rne_le64_to_cpu(w->op.rdma.remote_addr) +
                                  iq->cur_off, last);
    } else {
        hl = rne_rdmap_seg_untagged(hdr, send_op(w), RNE_RDMAP_QN_SEND,
                                    iq->cur_msn, (uint32_t)iq->cur_off, last,
                                    w->hdr.opcode == RNIC_WR_SEND_INV ?
                                    rne_le32_to_cpu(w->hdr.ex) : 0);
    }
    switch (send_fpdu_gather(d, qp, hdr, hl, n, cur_payload, &e)) {
    case 0:
        return 0;
    case -1:
        /* Part of the message may be out: the stream cannot go on. */
        return fail_local(d, qp, e);
    }
    iq->cur_off += n;
    if (!last) {
        return 1;
    }
    if (w->hdr.opcode == RNIC_WR_WRITE_IMM) {
        iq->cur_phase = 1;
        iq->cur_msn = ++iq->tx_msn[RNE_RDMAP_QN_SEND];
        return 1;
    }
    cur_finish(d, qp, RNIC_WC_SUCCESS);
    return 1;
}

static struct rne_iw_orq *orq_push(struct rne_iw_qp *iq)
{
    struct rne_iw_orq *o = &iq->orq[(iq->orq_head + iq->orq_cnt) %
                                     iq->orq_cap];

    memset(o, 0, sizeof(*o));
    iq->orq_cnt++;
    return o;
}

/* Read Request or Atomic Request for the current WQE: one FPDU. */
static int tx_request(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    const struct rnic_sq_wqe *w = &iq->cur;
    const struct rne_sgl *sgl = &iq->cur_sgl;
    uint8_t hdr[RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_ATOMIC_REQ_LEN];
    struct rne_rdmap_msg m;
    struct rne_iw_orq *o;
    size_t hl;

    memset(&m, 0, sizeof(m));
    m.rv = RNE_RDMAP_VERSION;
    m.ddp.dv = RNE_DDP_VERSION;
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = iq->tx_msn[RNE_RDMAP_QN_READ_REQ] + 1;
    if (w->hdr.opcode == RNIC_WR_READ || w->hdr.opcode == RNIC_WR_READ_INV) {
        m.opcode = RNE_RDMAP_READ_REQ;
        m.u.rr.sink_stag = sgl->n ? sgl->sge[0].lkey : 0;
        m.u.rr.sink_to = sgl->n ? sgl->sge[0].addr : 0;
        m.u.rr.size = (uint32_t)sgl->total;
        m.u.rr.src_stag = rne_le32_to_cpu(w->op.rdma.rkey);
        m.u.rr.src_to = rne_le64_to_cpu(w->op.rdma.remote_addr);
    } else {
        bool cs = w->hdr.opcode == RNIC_WR_ATOMIC_CSWAP;

        m.opcode = RNE_RDMAP_ATOMIC_REQ;
        m.u.areq.op = cs ? RNE_RDMAP_ATOMIC_CMP_SWAP :
                           RNE_RDMAP_ATOMIC_FETCH_ADD;
        m.u.areq.req_id = iq->atomic_req_id + 1;
        m.u.areq.stag = rne_le32_to_cpu(w->op.atomic.rkey);
        m.u.areq.to = rne_le64_to_cpu(w->op.atomic.remote_addr);
        if (cs) {
            m.u.areq.compare = rne_le64_to_cpu(w->op.atomic.compare_add);
            m.u.areq.compare_mask = UINT64_MAX;
            m.u.areq.add_swap = rne_le64_to_cpu(w->op.atomic.swap);
            m.u.areq.add_swap_mask = UINT64_MAX;
        } else {
            m.u.areq.add_swap = rne_le64_to_cpu(w->op.atomic.compare_add);
        }
    }
    hl = rne_rdmap_hdr_encode(&m, hdr, sizeof(hdr));
    /* the ORQ entry must exist before the request leaves */
    if (!rne_iw_orq_get(d, iq) ||
        !rne_iw_send_fpdu(d, iq->conn, hdr, hl, NULL, 0)) {
        return 0;
    }
    iq->tx_msn[RNE_RDMAP_QN_READ_REQ]++;
    o = orq_push(iq);
    o->atomic = m.opcode == RNE_RDMAP_ATOMIC_REQ;
    if (o->atomic) {
        iq->atomic_req_id++;
    }
    o->sq_idx = iq->cur_idx;
    o->hdr = w->hdr;
    o->sgl = *sgl;
    o->sink_stag = m.u.rr.sink_stag;
    o->sink_to = m.u.rr.sink_to;
    iq->cur_active = false;
    return 1;
}

void rne_iw_send_rtr(struct rne_dev *d, struct rne_qp *qp, uint8_t rtr)
{
    struct rne_iw_qp *iq = qp->iw;
    uint8_t hdr[RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_READ_REQ_LEN];
    struct rne_rdmap_msg m;
    size_t hl;

    if (rtr == RNE_MPA_RTR_WRITE) {
        /* siw: STag 1, some hardware treats STag 0 specially */
        hl = rne_rdmap_seg_tagged(hdr, RNE_RDMAP_WRITE, 1, 0, true);
        rne_iw_send_fpdu(d, iq->conn, hdr, hl, NULL, 0);
    } else if (rtr == RNE_MPA_RTR_SEND) {
        hl = rne_rdmap_seg_untagged(hdr, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND,
                                    ++iq->tx_msn[RNE_RDMAP_QN_SEND], 0, true,
                                    0);
        rne_iw_send_fpdu(d, iq->conn, hdr, hl, NULL, 0);
    } else {
        memset(&m, 0, sizeof(m));
        m.opcode = RNE_RDMAP_READ_REQ;
        m.rv = RNE_RDMAP_VERSION;
        m.ddp.dv = RNE_DDP_VERSION;
        m.ddp.last = true;
        m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
        m.ddp.msn = ++iq->tx_msn[RNE_RDMAP_QN_READ_REQ];
        m.u.rr.src_stag = 1;
        hl = rne_rdmap_hdr_encode(&m, hdr, sizeof(hdr));
        if (rne_iw_orq_get(d, iq) &&
            rne_iw_send_fpdu(d, iq->conn, hdr, hl, NULL, 0)) {
            orq_push(iq)->rtr = true;
        }
    }
}

/* Start the next SQ WQE; 1 progress, 0 blocked, -1 the QP went away. */
static int sq_start(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    uint32_t idx = iq->sq_next;
    struct rnic_sq_wqe *w = &iq->cur;
    unsigned sts;
    uint8_t op;

    if (iq->stopped || idx == qp->sq.pidx) {
        return 0;
    }
    sts = rne_sq_fetch(d, qp, idx, w, &iq->cur_sgl);
    op = w->hdr.opcode;
    if (!sts && (w->hdr.flags & RNIC_WQE_FENCE) && iq->orq_cnt) {
        return 0;       /* wait for prior Reads */
    }
    if (!sts && (op == RNIC_WR_READ || op == RNIC_WR_READ_INV ||
                 op == RNIC_WR_ATOMIC_FADD || op == RNIC_WR_ATOMIC_CSWAP)) {
        if (iq->ord == 0) {
            sts = RNIC_WC_LOC_QP_OP_ERR;
        } else if (iq->orq_cnt >= iq->ord) {
            return 0;   /* ORD: wait for a response */
        }
    }
    if (!sts && !iq->rfc7306 &&
        (op == RNIC_WR_WRITE_IMM || op == RNIC_WR_SEND_IMM ||
         op == RNIC_WR_ATOMIC_FADD || op == RNIC_WR_ATOMIC_CSWAP)) {
        sts = RNIC_WC_LOC_QP_OP_ERR;    /* RFC 7306 not agreed */
    }
    if (!sts && (op == RNIC_WR_ATOMIC_FADD || op == RNIC_WR_ATOMIC_CSWAP) &&
        iq->cur_sgl.total != 8) {
        sts = RNIC_WC_LOC_LEN_ERR;
    }
    if (!sts && !(w->hdr.flags & RNIC_WQE_INLINE) &&
        iq->cur_sgl.total > UINT32_MAX) {
        sts = RNIC_WC_LOC_LEN_ERR;
    }
    if (!wc_get(d, iq)) {
        return 0;
    }
    iq->wc[idx & (qp->sq.ring.depth - 1)].hdr = w->hdr;
    iq->wc[idx & (qp->sq.ring.depth - 1)].done = false;
    iq->sq_next = idx + 1;
    qp->sq.cidx = iq->sq_next;
    if (sts) {
        iq->stopped = true;
        rne_iw_wc_done(d, qp, idx, sts, 0);
        return qp->iw == iq ? 1 : -1;
    }
    if (op == RNIC_WR_LOCAL_INV || op == RNIC_WR_REG_MR ||
        op == RNIC_WR_BIND_MW) {
        sts = rne_sq_local_wr(d, qp, w);
        if (sts) {
            iq->stopped = true;
        }
        rne_iw_wc_done(d, qp, idx, sts, 0);
        return qp->iw == iq ? 1 : -1;
    }
    iq->cur_active = true;
    iq->cur_idx = idx;
    iq->cur_off = 0;
    iq->cur_phase = 0;
    if (op == RNIC_WR_SEND || op == RNIC_WR_SEND_INV ||
        op == RNIC_WR_SEND_IMM) {
        iq->cur_msn = ++iq->tx_msn[RNE_RDMAP_QN_SEND];
    }
    return 1;
}

static int tx_sq(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    int r;

    if (!iq->cur_active) {
        r = sq_start(d, qp);
        if (r <= 0 || !qp->iw || !iq->cur_active) {
            return r;
        }
    }
    switch (iq->cur.hdr.opcode) {
    case RNIC_WR_READ:
    case RNIC_WR_READ_INV:
    case RNIC_WR_ATOMIC_FADD:
    case RNIC_WR_ATOMIC_CSWAP:
        return tx_request(d, qp);
    default:
        r = tx_data_seg(d, qp);
        return qp->iw == iq ? r : -1;
    }
}

/* n octets of the oldest Read Response's source, off past what was sent */
static int resp_payload(void *ctx, size_t off, uint8_t *buf, size_t n)
{
    struct gather_ctx *gc = ctx;
    const struct rne_iw_irq *r = &gc->qp->iw->irq[gc->qp->iw->irq_head];

    return rne_mr_remote_read(gc->d, r->src_stag, gc->qp,
                              RNIC_ACCESS_REMOTE_READ,
                              r->src_to + r->sent + off, buf, n);
}

/* One segment of the oldest Read Response or the Atomic Response. */
static int tx_response(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_conn *c = iq->conn;
    struct rne_iw_irq *r = &iq->irq[iq->irq_head];
    uint8_t hdr[RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_ATOMIC_RESP_LEN];
    enum rne_mr_err e = RNE_MR_OK;
    uint32_t n = 0;
    bool last = true;
    size_t hl;

    if (r->atomic) {
        struct rne_rdmap_msg m;

        memset(&m, 0, sizeof(m));
        m.opcode = RNE_RDMAP_ATOMIC_RESP;
        m.rv = RNE_RDMAP_VERSION;
        m.ddp.dv = RNE_DDP_VERSION;
        m.ddp.last = true;
        m.ddp.qn = RNE_RDMAP_QN_ATOMIC_RESP;
        m.ddp.msn = iq->tx_msn[RNE_RDMAP_QN_ATOMIC_RESP] + 1;
        m.u.aresp.req_id = r->req_id;
        m.u.aresp.orig = r->orig;
        hl = rne_rdmap_hdr_encode(&m, hdr, sizeof(hdr));
        if (!rne_iw_send_fpdu(d, c, hdr, hl, NULL, 0)) {
            return 0;
        }
        iq->tx_msn[RNE_RDMAP_QN_ATOMIC_RESP]++;
    } else {
        n = seg_room(c, RNE_DDP_TAGGED_HLEN);
        if (r->size - r->sent < n) {
            n = (uint32_t)(r->size - r->sent);
        }
        last = r->sent + n == r->size;
        hl = rne_rdmap_seg_tagged(hdr, RNE_RDMAP_READ_RESP, r->sink_stag,
                                  r->sink_to + r->sent, last);
        switch (send_fpdu_gather(d, qp, hdr, hl, n, resp_payload, &e)) {
        case 0:
            return 0;
        case -1:
            /* The MR changed since the request was checked. */
            rne_iw_terminate(d, qp, rne_iw_mr_cause(e, false), NULL, 0);
            return -1;
        }
        r->sent += n;
    }
    if (last) {
        iq->irq_head = (iq->irq_head + 1) % iq->irq_cap;
        iq->irq_cnt--;
    }
    return 1;
}

void rne_iw_tx_pump(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_conn *c;
    unsigned budget = 4096;

    if (!iq) {
        return;
    }
    c = iq->conn;
    /* a bound QP's connection is listed: freeing one unbinds its QP first */
    assert(d->iw->conn[c->id] == c);
    rings_trim(d, qp, iq);
    while (budget-- && qp->iw == iq &&
           (c->state == IWC_RTS || c->state == IWC_CLOSING)) {
        bool resp = iq->irq_cnt > 0;
        bool sq = (qp->state == RNIC_QPS_RTS ||
                   qp->state == RNIC_QPS_CLOSING) &&
                  (iq->cur_active ||
                   (!iq->stopped && iq->sq_next != qp->sq.pidx));
        bool first_resp = resp && (!sq || iq->tx_turn);
        int r;

        if (!resp && !sq) {
            break;
        }
        r = first_resp ? tx_response(d, qp) : tx_sq(d, qp);
        if (r < 0 || qp->iw != iq) {
            return;
        }
        if (r == 0 && resp && sq) {
            r = first_resp ? tx_sq(d, qp) : tx_response(d, qp);
            if (r < 0 || qp->iw != iq) {
                return;
            }
            first_resp = !first_resp;
        }
        if (r == 0) {
            break;
        }
        iq->tx_turn = !first_resp;
    }
}
