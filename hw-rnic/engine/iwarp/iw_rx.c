/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP receive side of a QP: one verified DDP segment at a time (the MPA
 * layer already checked framing and CRC).  Every check of RFC 5041/5040
 * runs before a byte of the segment is placed; a violation becomes a
 * Terminate naming the layer/type/code and carrying the offending header.
 */
#include <string.h>
#include "iw.h"
#include "wire/le.h"

static void post_recv(struct rne_dev *d, struct rne_qp *qp, uint64_t wr_id,
                      uint16_t wqe_idx, uint8_t opcode, uint8_t status,
                      uint32_t byte_len, uint8_t flags, uint32_t ex_raw)
{
    struct rnic_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = rne_cpu_to_le64(wr_id);
    cqe.byte_len = rne_cpu_to_le32(byte_len);
    cqe.ex = ex_raw;
    cqe.qpn = rne_cpu_to_le32(qp->qpn);
    cqe.wqe_idx = rne_cpu_to_le16(wqe_idx);
    cqe.opcode = opcode;
    cqe.status = status;
    cqe.flags = flags;
    rne_cq_post(d, qp->recv_cqn, &cqe);
}

void rne_iw_rx_abort(struct rne_dev *d, struct rne_qp *qp, uint8_t status,
                     uint8_t vendor)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rnic_cqe cqe;

    if (!iq || !iq->rx_active) {
        return;
    }
    iq->rx_active = false;
    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = rne_cpu_to_le64(iq->rx_wr_id);
    cqe.qpn = rne_cpu_to_le32(qp->qpn);
    cqe.wqe_idx = rne_cpu_to_le16(iq->rx_wqe_idx);
    cqe.opcode = RNIC_WC_RECV;
    cqe.status = status;
    cqe.vendor_err = vendor;
    rne_cq_post(d, qp->recv_cqn, &cqe);
}

static struct rne_term_cause untagged(uint8_t code, bool rdma)
{
    return rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, code,
                          true, rdma);
}

static struct rne_term_cause tagged(uint8_t code)
{
    return rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, code,
                          true, false);
}

static struct rne_term_cause local_ddp(void)
{
    return rne_term_cause(RNE_TERM_LAYER_DDP,
                          RNE_DDP_ETYPE_LOCAL_CATASTROPHIC,
                          RNE_DDP_EC_LOCAL_CATASTROPHIC, true, false);
}

static struct rne_term_cause rdmap(uint8_t etype, uint8_t code, bool rdma)
{
    return rne_term_cause(RNE_TERM_LAYER_RDMAP, etype, code, true, rdma);
}

/* Take the receive WQE for a new QN 0 message; false: Terminate sent. */
static bool rq_begin(struct rne_dev *d, struct rne_qp *qp,
                     const uint8_t *u, size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    unsigned status = 0;

    if (rne_rq_take(d, qp, &iq->rx_wr_id, &iq->rx_sgl, &iq->rx_wqe_idx,
                    &status)) {
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_NOBUF,
                                         false), u, len);
        return false;
    }
    iq->rx_active = true;
    iq->rx_got = 0;
    if (status) {
        rne_iw_rx_abort(d, qp, (uint8_t)status, 0);
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC,
                                      RNE_RDMAP_EC_LOCAL_CATASTROPHIC,
                                      false), u, len);
        return false;
    }
    return true;
}

static void rx_send(struct rne_dev *d, struct rne_qp *qp,
                    const struct rne_rdmap_msg *m, const uint8_t *u,
                    size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    uint8_t op = m->opcode, flags = 0;
    uint32_t ex = 0;
    enum rne_mr_err e;

    if (iq->rx_active) {
        if (m->ddp.msn != iq->rx_cur_msn) {
            rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_RANGE,
                                             false), u, len);
            return;
        }
    } else {
        if (m->ddp.msn != iq->rx_msn[RNE_RDMAP_QN_SEND]) {
            rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_RANGE,
                                             false), u, len);
            return;
        }
        if (m->ddp.mo != 0) {
            rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MO, false),
                             u, len);
            return;
        }
        if (!rq_begin(d, qp, u, len)) {
            return;
        }
        iq->rx_cur_msn = m->ddp.msn;
    }
    if (m->ddp.mo != iq->rx_got) {
        rne_iw_rx_abort(d, qp, RNIC_WC_REM_OP_ERR, 0x12);
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MO, false),
                         u, len);
        return;
    }
    if (iq->rx_got + m->payload_len > iq->rx_sgl.total) {
        rne_iw_rx_abort(d, qp, RNIC_WC_LOC_LEN_ERR, 0x12);
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_TOO_LONG, false),
                         u, len);
        return;
    }
    e = m->payload_len ? rne_sgl_write(d, qp->pdn, &iq->rx_sgl, iq->rx_got,
                                       m->payload, m->payload_len)
                       : RNE_MR_OK;
    if (e) {
        rne_iw_rx_abort(d, qp, RNIC_WC_LOC_PROT_ERR, 0x10);
        rne_iw_terminate(d, qp, local_ddp(), u, len);
        return;
    }
    iq->rx_got += m->payload_len;
    if (!m->ddp.last) {
        return;
    }
    if (op == RNE_RDMAP_SEND_INV || op == RNE_RDMAP_SEND_SE_INV) {
        if (rne_mr_invalidate(d, m->ddp.ulp_word, qp)) {
            rne_iw_rx_abort(d, qp, RNIC_WC_REM_INV_REQ_ERR, 0x01);
            rne_iw_terminate(d, qp,
                             rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                   RNE_RDMAP_EC_CANNOT_INVALIDATE, false),
                             u, len);
            return;
        }
        flags |= RNIC_CQE_F_INV;
        ex = rne_cpu_to_le32(m->ddp.ulp_word);
    }
    if (op == RNE_RDMAP_SEND_SE || op == RNE_RDMAP_SEND_SE_INV) {
        flags |= RNIC_CQE_F_SOLICITED;
    }
    if (iq->rx_imm_pending && !(flags & RNIC_CQE_F_INV)) {
        flags |= RNIC_CQE_F_IMM;
        ex = iq->rx_imm;
    }
    iq->rx_imm_pending = false;
    iq->rx_active = false;
    iq->rx_msn[RNE_RDMAP_QN_SEND]++;
    iq->rx_last_write = false;
    post_recv(d, qp, iq->rx_wr_id, iq->rx_wqe_idx, RNIC_WC_RECV, 0,
              (uint32_t)iq->rx_got, flags, ex);
}

/* RFC 7306 Immediate Data: after a Write it completes a Write-Imm. */
static void rx_imm(struct rne_dev *d, struct rne_qp *qp,
                   const struct rne_rdmap_msg *m, const uint8_t *u,
                   size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    uint8_t flags = RNIC_CQE_F_IMM;
    uint32_t ex;
    bool wr;

    if (iq->rx_active || m->ddp.msn != iq->rx_msn[RNE_RDMAP_QN_SEND]) {
        rne_iw_rx_abort(d, qp, RNIC_WC_WR_FLUSH_ERR, 0);
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_RANGE,
                                         false), u, len);
        return;
    }
    memcpy(&ex, m->payload, 4);
    if (m->payload[4] & 1) {
        /* Send-Imm: held for the Send that follows (no WQE of its own) */
        if (iq->rx_imm_pending) {
            rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                          RNE_RDMAP_EC_UNEXPECTED_OPCODE,
                                          false), u, len);
            return;
        }
        iq->rx_imm_pending = true;
        iq->rx_imm = ex;
        iq->rx_msn[RNE_RDMAP_QN_SEND]++;
        return;
    }
    if (!rq_begin(d, qp, u, len)) {
        return;
    }
    if (m->opcode == RNE_RDMAP_IMM_DATA_SE) {
        flags |= RNIC_CQE_F_SOLICITED;
    }
    wr = iq->rx_last_write;
    iq->rx_active = false;
    iq->rx_last_write = false;
    iq->rx_msn[RNE_RDMAP_QN_SEND]++;
    post_recv(d, qp, iq->rx_wr_id, iq->rx_wqe_idx,
              wr ? RNIC_WC_RECV_WRITE_IMM : RNIC_WC_RECV, 0,
              wr ? (uint32_t)iq->rx_write_len : 0, flags, ex);
}

static void rx_write(struct rne_dev *d, struct rne_qp *qp,
                     const struct rne_rdmap_msg *m, const uint8_t *u,
                     size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    enum rne_mr_err e;

    if (!iq->rx_write_open) {
        iq->rx_write_open = true;
        iq->rx_write_len = 0;
    }
    /* Zero-length Writes (the RTR among them) name no buffer. */
    if (m->payload_len) {
        if (!(qp->access & RNIC_ACCESS_REMOTE_WRITE)) {
            rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                          RNE_RDMAP_EC_ACCESS_RIGHTS, false),
                             u, len);
            return;
        }
        if (rne_ddp_to_wraps(m->ddp.to, m->payload_len)) {
            rne_iw_terminate(d, qp, tagged(RNE_DDP_EC_T_TO_WRAP), u, len);
            return;
        }
        e = rne_mr_remote_write(d, m->ddp.stag, qp, RNIC_ACCESS_REMOTE_WRITE,
                                m->ddp.to, m->payload, m->payload_len);
        if (e) {
            rne_iw_terminate(d, qp, rne_iw_mr_cause(e, false), u, len);
            return;
        }
    }
    iq->rx_write_len += m->payload_len;
    if (m->ddp.last) {
        iq->rx_write_open = false;
        iq->rx_last_write = true;
    }
}

static void orq_pop(struct rne_iw_qp *iq)
{
    iq->orq_head = (iq->orq_head + 1) % iq->orq_cap;
    iq->orq_cnt--;
}

static void rx_read_resp(struct rne_dev *d, struct rne_qp *qp,
                         const struct rne_rdmap_msg *m, const uint8_t *u,
                         size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_orq *o = iq->orq_cnt ? &iq->orq[iq->orq_head] : NULL;
    uint32_t idx;
    uint64_t got;

    if (!o || o->atomic) {
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                      RNE_RDMAP_EC_UNEXPECTED_OPCODE, false),
                         u, len);
        return;
    }
    if (m->payload_len) {
        if (o->rtr || m->ddp.stag != o->sink_stag) {
            rne_iw_terminate(d, qp, tagged(RNE_DDP_EC_T_INVALID_STAG), u,
                             len);
            return;
        }
        if (m->ddp.to != o->sink_to + o->got ||
            o->got + m->payload_len > o->sgl.total) {
            rne_iw_terminate(d, qp, tagged(RNE_DDP_EC_T_BASE_BOUNDS), u,
                             len);
            return;
        }
        if (rne_sgl_write(d, qp->pdn, &o->sgl, o->got, m->payload,
                          m->payload_len)) {
            rne_iw_terminate(d, qp, local_ddp(), u, len);
            return;
        }
        o->got += m->payload_len;
    }
    if (!m->ddp.last) {
        return;
    }
    if (o->rtr) {
        orq_pop(iq);
        return;
    }
    idx = o->sq_idx;
    got = o->got;
    if (got != o->sgl.total) {
        /* The response is shorter than what we asked for. */
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                      RNE_RDMAP_EC_CATASTROPHIC_STREAM,
                                      false), u, len);
        return;
    }
    orq_pop(iq);
    if (o->hdr.opcode == RNIC_WR_READ_INV) {
        enum rne_mr_err e = rne_mr_invalidate(d, rne_le32_to_cpu(o->hdr.ex),
                                              qp);

        if (e) {
            /* The data is placed, but the sink could not be invalidated. */
            rne_guest_error(&d->host, "READ_INV: sink STag not invalidated",
                            rne_le32_to_cpu(o->hdr.ex), e);
            rne_iw_wc_done(d, qp, idx, RNIC_WC_LOC_PROT_ERR, (uint32_t)got);
            return;
        }
    }
    rne_iw_wc_done(d, qp, idx, RNIC_WC_SUCCESS, (uint32_t)got);
}

static struct rne_iw_irq *irq_push(struct rne_iw_qp *iq)
{
    struct rne_iw_irq *r = &iq->irq[(iq->irq_head + iq->irq_cnt) %
                                     iq->irq_cap];

    memset(r, 0, sizeof(*r));
    iq->irq_cnt++;
    return r;
}

/* Common to Read and Atomic Requests (both on QN 1): MSN and IRD. */
static bool req_admit(struct rne_dev *d, struct rne_qp *qp,
                      const struct rne_rdmap_msg *m, const uint8_t *u,
                      size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    bool rr = m->opcode == RNE_RDMAP_READ_REQ;

    if (m->ddp.msn != iq->rx_msn[RNE_RDMAP_QN_READ_REQ]) {
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_RANGE,
                                         rr), u, len);
        return false;
    }
    /* One more than IRD while the RTR Read is answered. */
    if (iq->irq_cnt >= (iq->ird ? iq->ird : 1) || iq->irq_cnt >= iq->irq_cap ||
        !rne_iw_irq_get(d, iq)) {
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                      RNE_RDMAP_EC_CATASTROPHIC_STREAM, rr),
                         u, len);
        return false;
    }
    return true;
}

static void rx_read_req(struct rne_dev *d, struct rne_qp *qp,
                        const struct rne_rdmap_msg *m, const uint8_t *u,
                        size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    const struct rne_rdmap_read_req *rr = &m->u.rr;
    struct rne_iw_irq *r;
    enum rne_mr_err e;

    if (!req_admit(d, qp, m, u, len)) {
        return;
    }
    if (rr->size) {
        if (!(qp->access & RNIC_ACCESS_REMOTE_READ)) {
            rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                          RNE_RDMAP_EC_ACCESS_RIGHTS, true),
                             u, len);
            return;
        }
        if (rne_ddp_to_wraps(rr->src_to, rr->size) ||
            rne_ddp_to_wraps(rr->sink_to, rr->size)) {
            rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                          RNE_RDMAP_EC_TO_WRAP, true),
                             u, len);
            return;
        }
        e = rne_mr_remote_check(d, rr->src_stag, qp, RNIC_ACCESS_REMOTE_READ,
                                rr->src_to, rr->size);
        if (e) {
            rne_iw_terminate(d, qp, rne_iw_mr_cause(e, true), u, len);
            return;
        }
    }
    iq->rx_msn[RNE_RDMAP_QN_READ_REQ]++;
    r = irq_push(iq);
    r->src_stag = rr->src_stag;
    r->src_to = rr->src_to;
    r->sink_stag = rr->sink_stag;
    r->sink_to = rr->sink_to;
    r->size = rr->size;
}

/* RFC 7306 FetchAdd: a 1 in the mask stops the carry out of that bit. */
static uint64_t masked_add(uint64_t a, uint64_t b, uint64_t mask)
{
    uint64_t r = 0, carry = 0;
    int i;

    if (!mask) {
        return a + b;
    }
    for (i = 0; i < 64; i++) {
        uint64_t s = ((a >> i) & 1) + ((b >> i) & 1) + carry;

        r |= (s & 1) << i;
        carry = (mask >> i) & 1 ? 0 : s >> 1;
    }
    return r;
}

static void rx_atomic_req(struct rne_dev *d, struct rne_qp *qp,
                          const struct rne_rdmap_msg *m, const uint8_t *u,
                          size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    const struct rne_rdmap_atomic_req *a = &m->u.areq;
    uint64_t le, orig, val;
    struct rne_iw_irq *r;
    enum rne_mr_err e;

    if (!req_admit(d, qp, m, u, len)) {
        return;
    }
    if (!(qp->access & RNIC_ACCESS_REMOTE_ATOMIC)) {
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                      RNE_RDMAP_EC_ACCESS_RIGHTS, false),
                         u, len);
        return;
    }
    if (a->to & 7) {
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                                      RNE_RDMAP_EC_BASE_BOUNDS, false),
                         u, len);
        return;
    }
    e = rne_mr_remote_read(d, a->stag, qp, RNIC_ACCESS_REMOTE_ATOMIC, a->to,
                           &le, 8);
    if (e) {
        rne_iw_terminate(d, qp, rne_iw_mr_cause(e, true), u, len);
        return;
    }
    orig = rne_le64_to_cpu(le);
    switch (a->op) {
    case RNE_RDMAP_ATOMIC_FETCH_ADD:
        val = masked_add(orig, a->add_swap, a->add_swap_mask);
        break;
    case RNE_RDMAP_ATOMIC_SWAP:
        val = (orig & ~a->add_swap_mask) | (a->add_swap & a->add_swap_mask);
        break;
    default:
        val = ((orig ^ a->compare) & a->compare_mask) ? orig :
              (orig & ~a->add_swap_mask) | (a->add_swap & a->add_swap_mask);
        break;
    }
    le = rne_cpu_to_le64(val);
    e = rne_mr_remote_write(d, a->stag, qp, RNIC_ACCESS_REMOTE_ATOMIC, a->to,
                            &le, 8);
    if (e) {
        rne_iw_terminate(d, qp, rne_iw_mr_cause(e, true), u, len);
        return;
    }
    iq->rx_msn[RNE_RDMAP_QN_READ_REQ]++;
    r = irq_push(iq);
    r->atomic = true;
    r->req_id = a->req_id;
    r->orig = orig;
}

static void rx_atomic_resp(struct rne_dev *d, struct rne_qp *qp,
                           const struct rne_rdmap_msg *m, const uint8_t *u,
                           size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_orq *o = iq->orq_cnt ? &iq->orq[iq->orq_head] : NULL;
    uint64_t le = rne_cpu_to_le64(m->u.aresp.orig);
    uint32_t idx;

    if (m->ddp.msn != iq->rx_msn[RNE_RDMAP_QN_ATOMIC_RESP]) {
        rne_iw_terminate(d, qp, untagged(RNE_DDP_EC_U_INVALID_MSN_RANGE,
                                         false), u, len);
        return;
    }
    if (!o || !o->atomic) {
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                      RNE_RDMAP_EC_UNEXPECTED_OPCODE, false),
                         u, len);
        return;
    }
    iq->rx_msn[RNE_RDMAP_QN_ATOMIC_RESP]++;
    idx = o->sq_idx;
    if (rne_sgl_write(d, qp->pdn, &o->sgl, 0, &le, 8)) {
        orq_pop(iq);
        rne_iw_wc_done(d, qp, idx, RNIC_WC_LOC_PROT_ERR, 0);
        return;
    }
    orq_pop(iq);
    rne_iw_wc_done(d, qp, idx, RNIC_WC_SUCCESS, 8);
}

void rne_iw_rx_ulpdu(struct rne_dev *d, struct rne_qp *qp,
                     const uint8_t *u, size_t len)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_term_cause cause;
    struct rne_rdmap_msg m;

    if (rne_rdmap_decode(u, len, iq->rfc7306 ? RNE_RDMAP_F_RFC7306 : 0,
                         &m, &cause)) {
        /*
         * A Terminate is the stream's last message even when it does not
         * parse (Linux siw on x86 puts its M/D/R flags in reserved bits):
         * end the QP as for any Terminate, never answer it with one.
         */
        if (m.rv == RNE_RDMAP_VERSION && m.opcode == RNE_RDMAP_TERMINATE &&
            !m.ddp.tagged && m.ddp.qn == RNE_RDMAP_QN_TERMINATE) {
            rne_iw_term_received(d, qp, &m);
            return;
        }
        rne_iw_terminate(d, qp, cause, u, len);
        return;
    }
    switch (m.opcode) {
    case RNE_RDMAP_WRITE:
        rx_write(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_READ_RESP:
        rx_read_resp(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_SEND:
    case RNE_RDMAP_SEND_INV:
    case RNE_RDMAP_SEND_SE:
    case RNE_RDMAP_SEND_SE_INV:
        rx_send(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_IMM_DATA:
    case RNE_RDMAP_IMM_DATA_SE:
        rx_imm(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_READ_REQ:
        rx_read_req(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_ATOMIC_REQ:
        rx_atomic_req(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_ATOMIC_RESP:
        rx_atomic_resp(d, qp, &m, u, len);
        break;
    case RNE_RDMAP_TERMINATE:
        rne_iw_term_received(d, qp, &m);
        break;
    default:
        rne_iw_terminate(d, qp, rdmap(RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                      RNE_RDMAP_EC_UNEXPECTED_OPCODE, false),
                         u, len);
        break;
    }
}
