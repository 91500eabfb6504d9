// SPDX-License-Identifier: GPL-2.0-or-later
/* RDMAP (RFC 5040, RFC 7306) message codec and validation. See rdmap.h. */
#include <string.h>
#include "net.h"
#include "rdmap.h"

static const struct rne_rdmap_op_info op_table[RNE_RDMAP_NOPS] = {
    [RNE_RDMAP_WRITE] = { "Write", true, false, 0, 0 },
    [RNE_RDMAP_READ_REQ] = { "ReadReq", false, false, RNE_RDMAP_QN_READ_REQ,
                              RNE_RDMAP_READ_REQ_LEN },
    [RNE_RDMAP_READ_RESP] = { "ReadResp", true, false, 0, 0 },
    [RNE_RDMAP_SEND] = { "Send", false, false, RNE_RDMAP_QN_SEND, 0 },
    [RNE_RDMAP_SEND_INV] = { "SendInv", false, false, RNE_RDMAP_QN_SEND, 0 },
    [RNE_RDMAP_SEND_SE] = { "SendSE", false, false, RNE_RDMAP_QN_SEND, 0 },
    [RNE_RDMAP_SEND_SE_INV] = { "SendSEInv", false, false, RNE_RDMAP_QN_SEND,
                                 0 },
    [RNE_RDMAP_TERMINATE] = { "Terminate", false, false,
                               RNE_RDMAP_QN_TERMINATE,
                               RNE_RDMAP_TERM_CTRL_LEN },
    [RNE_RDMAP_IMM_DATA] = { "ImmData", false, true, RNE_RDMAP_QN_SEND, 0 },
    [RNE_RDMAP_IMM_DATA_SE] = { "ImmDataSE", false, true, RNE_RDMAP_QN_SEND,
                                 0 },
    [RNE_RDMAP_ATOMIC_REQ] = { "AtomicReq", false, true,
                                RNE_RDMAP_QN_READ_REQ,
                                RNE_RDMAP_ATOMIC_REQ_LEN },
    [RNE_RDMAP_ATOMIC_RESP] = { "AtomicResp", false, true,
                                 RNE_RDMAP_QN_ATOMIC_RESP,
                                 RNE_RDMAP_ATOMIC_RESP_LEN },
};

const struct rne_rdmap_op_info *rne_rdmap_op_info(uint8_t opcode)
{
    return opcode < RNE_RDMAP_NOPS ? &op_table[opcode] : NULL;
}

static size_t rdmap_len(const struct rne_rdmap_msg *m)
{
    if (m->opcode == RNE_RDMAP_TERMINATE) {
        const struct rne_rdmap_term *t = &m->u.term;
        return RNE_RDMAP_TERM_CTRL_LEN + (t->d ? 2u + t->ddp_hdr_len : 0) +
               (t->r ? RNE_RDMAP_READ_REQ_LEN : 0);
    }
    return op_table[m->opcode].hdr_len;
}

size_t rne_rdmap_hdr_len(const struct rne_rdmap_msg *m)
{
    const struct rne_rdmap_op_info *oi = rne_rdmap_op_info(m->opcode);
    if (!oi) {
        return 0;
    }
    if (m->opcode == RNE_RDMAP_TERMINATE && m->u.term.d &&
        m->u.term.ddp_hdr_len != RNE_DDP_TAGGED_HLEN &&
        m->u.term.ddp_hdr_len != RNE_DDP_UNTAGGED_HLEN) {
        return 0;
    }
    return rne_ddp_hlen(oi->tagged) + rdmap_len(m);
}

size_t rne_rdmap_seg_tagged(uint8_t *buf, uint8_t op, uint32_t stag,
                            uint64_t to, bool last)
{
    return rne_ddp_put_tagged(buf, last, RNE_DDP_VERSION,
                              rne_rdmap_ctrl(RNE_RDMAP_VERSION, op),
                              stag, to);
}

size_t rne_rdmap_seg_untagged(uint8_t *buf, uint8_t op, uint32_t qn,
                              uint32_t msn, uint32_t mo, bool last,
                              uint32_t inv_stag)
{
    return rne_ddp_put_untagged(buf, last, RNE_DDP_VERSION,
                                rne_rdmap_ctrl(RNE_RDMAP_VERSION, op),
                                inv_stag, qn, msn, mo);
}

size_t rne_rdmap_hdr_encode(const struct rne_rdmap_msg *m, uint8_t *buf,
                            size_t cap)
{
    size_t total = rne_rdmap_hdr_len(m);
    if (!total || cap < total) {
        return 0;
    }
    struct rne_ddp_hdr d = m->ddp;
    d.tagged = op_table[m->opcode].tagged;
    d.ulp_ctrl = rne_rdmap_ctrl(m->rv, m->opcode);
    size_t off = rne_ddp_encode(&d, buf, cap);
    uint8_t *p = buf + off;

    switch (m->opcode) {
    case RNE_RDMAP_READ_REQ: {
        const struct rne_rdmap_read_req *r = &m->u.rr;
        rne_st_be32(p, r->sink_stag);
        rne_st_be64(p + 4, r->sink_to);
        rne_st_be32(p + 12, r->size);
        rne_st_be32(p + 16, r->src_stag);
        rne_st_be64(p + 20, r->src_to);
        break;
    }
    case RNE_RDMAP_TERMINATE: {
        const struct rne_rdmap_term *t = &m->u.term;
        p[0] = (uint8_t)((t->layer & 0xf) << 4 | (t->etype & 0xf));
        p[1] = t->code;
        p[2] = (uint8_t)((t->m ? RNE_RDMAP_TERM_M : 0) |
                         (t->d ? RNE_RDMAP_TERM_D : 0) |
                         (t->r ? RNE_RDMAP_TERM_R : 0) |
                         ((t->rsvd >> 8) & 0x1f));
        p[3] = (uint8_t)t->rsvd;
        p += RNE_RDMAP_TERM_CTRL_LEN;
        if (t->d) {
            rne_st_be16(p, t->ddp_seg_len);
            memcpy(p + 2, t->ddp_hdr, t->ddp_hdr_len);
            p += 2 + t->ddp_hdr_len;
        }
        if (t->r) {
            memcpy(p, t->rdma_hdr, RNE_RDMAP_READ_REQ_LEN);
        }
        break;
    }
    case RNE_RDMAP_ATOMIC_REQ: {
        const struct rne_rdmap_atomic_req *a = &m->u.areq;
        /* Reserved(28) | AtomicOpCode(4) */
        rne_st_be32(p, a->op & 0xfu);
        rne_st_be32(p + 4, a->req_id);
        rne_st_be32(p + 8, a->stag);
        rne_st_be64(p + 12, a->to);
        rne_st_be64(p + 20, a->add_swap);
        rne_st_be64(p + 28, a->add_swap_mask);
        rne_st_be64(p + 36, a->compare);
        rne_st_be64(p + 44, a->compare_mask);
        break;
    }
    case RNE_RDMAP_ATOMIC_RESP:
        rne_st_be32(p, m->u.aresp.req_id);
        rne_st_be64(p + 4, m->u.aresp.orig);
        break;
    default:
        break;
    }
    return total;
}

static int fail(struct rne_term_cause *cause, uint8_t layer, uint8_t etype,
                uint8_t code,
                bool hdr_ddp, bool hdr_rdma)
{
    *cause = rne_term_cause(layer, etype, code, hdr_ddp, hdr_rdma);
    return -1;
}

#define FAIL_RDMAP(code) \
    fail(cause, RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, \
         (code), true, false)
#define FAIL_UNTAGGED(code) \
    fail(cause, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, (code), true, \
         false)

/*
 * Untagged single-segment messages with a fixed RDMAP header and no payload
 * beyond `extra` octets: Read Request, Terminate (extra = its tail), Atomic
 * Request/Response, Immediate Data.
 */
static int check_single(const struct rne_rdmap_msg *m, size_t body,
                        size_t need,
                        bool exact, struct rne_term_cause *cause)
{
    if (m->ddp.mo != 0) {
        return FAIL_UNTAGGED(RNE_DDP_EC_U_INVALID_MO);
    }
    if (!m->ddp.last || (exact && body > need)) {
        /* more than the one-header message the queue's buffers hold */
        return FAIL_UNTAGGED(RNE_DDP_EC_U_TOO_LONG);
    }
    if (body < need) {
        return FAIL_RDMAP(RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    }
    return 0;
}

static int decode_term(struct rne_rdmap_msg *m, const uint8_t *p, size_t body,
                       struct rne_term_cause *cause)
{
    struct rne_rdmap_term *t = &m->u.term;
    if (check_single(m, body, RNE_RDMAP_TERM_CTRL_LEN, false, cause)) {
        return -1;
    }
    t->layer = p[0] >> 4;
    t->etype = p[0] & 0xf;
    t->code = p[1];
    t->m = p[2] & RNE_RDMAP_TERM_M;
    t->d = p[2] & RNE_RDMAP_TERM_D;
    t->r = p[2] & RNE_RDMAP_TERM_R;
    t->rsvd = (uint16_t)((p[2] & 0x1f) << 8 | p[3]);
    size_t off = RNE_RDMAP_TERM_CTRL_LEN;
    if (t->d) {
        /* the attached header says by its own T bit how long it is */
        if (body < off + 3) {
            return FAIL_RDMAP(RNE_RDMAP_EC_CATASTROPHIC_STREAM);
        }
        t->ddp_seg_len = rne_ld_be16(p + off);
        t->ddp_hdr_len = (uint8_t)rne_ddp_hlen(p[off + 2] & RNE_DDP_F_TAGGED);
        if (body < off + 2 + t->ddp_hdr_len) {
            return FAIL_RDMAP(RNE_RDMAP_EC_CATASTROPHIC_STREAM);
        }
        memcpy(t->ddp_hdr, p + off + 2, t->ddp_hdr_len);
        off += 2u + t->ddp_hdr_len;
    }
    if (t->r) {
        if (body < off + RNE_RDMAP_READ_REQ_LEN) {
            return FAIL_RDMAP(RNE_RDMAP_EC_CATASTROPHIC_STREAM);
        }
        memcpy(t->rdma_hdr, p + off, RNE_RDMAP_READ_REQ_LEN);
        off += RNE_RDMAP_READ_REQ_LEN;
    }
    if (body > off) {
        return FAIL_UNTAGGED(RNE_DDP_EC_U_TOO_LONG);
    }
    return 0;
}

int rne_rdmap_decode(const uint8_t *ulpdu, size_t len, unsigned flags,
                     struct rne_rdmap_msg *m, struct rne_term_cause *cause)
{
    memset(m, 0, sizeof(*m));
    size_t hl = rne_ddp_decode(ulpdu, len, &m->ddp, cause);
    if (!hl) {
        return -1;
    }
    m->rv = m->ddp.ulp_ctrl >> RNE_RDMAP_RV_SHIFT;
    m->opcode = m->ddp.ulp_ctrl & RNE_RDMAP_OP_MASK;
    if (m->rv != RNE_RDMAP_VERSION) {
        return fail(cause, RNE_TERM_LAYER_RDMAP,
                    RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                    RNE_RDMAP_EC_INVALID_VERSION, false, false);
    }
    const struct rne_rdmap_op_info *oi = rne_rdmap_op_info(m->opcode);
    if (!oi || (oi->rfc7306 && !(flags & RNE_RDMAP_F_RFC7306)) ||
        oi->tagged != m->ddp.tagged) {
        return FAIL_RDMAP(RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    }
    if (!oi->tagged && m->ddp.qn != oi->qn) {
        return FAIL_UNTAGGED(RNE_DDP_EC_U_INVALID_QN);
    }
    const uint8_t *p = ulpdu + hl;
    size_t body = len - hl;
    switch (m->opcode) {
    case RNE_RDMAP_READ_REQ: {
        struct rne_rdmap_read_req *r = &m->u.rr;
        if (check_single(m, body, RNE_RDMAP_READ_REQ_LEN, true, cause)) {
            return -1;
        }
        r->sink_stag = rne_ld_be32(p);
        r->sink_to = rne_ld_be64(p + 4);
        r->size = rne_ld_be32(p + 12);
        r->src_stag = rne_ld_be32(p + 16);
        r->src_to = rne_ld_be64(p + 20);
        break;
    }
    case RNE_RDMAP_TERMINATE:
        if (decode_term(m, p, body, cause)) {
            return -1;
        }
        break;
    case RNE_RDMAP_ATOMIC_REQ: {
        struct rne_rdmap_atomic_req *a = &m->u.areq;
        if (check_single(m, body, RNE_RDMAP_ATOMIC_REQ_LEN, true, cause)) {
            return -1;
        }
        a->op = p[3] & 0xf;
        a->req_id = rne_ld_be32(p + 4);
        a->stag = rne_ld_be32(p + 8);
        a->to = rne_ld_be64(p + 12);
        a->add_swap = rne_ld_be64(p + 20);
        a->add_swap_mask = rne_ld_be64(p + 28);
        a->compare = rne_ld_be64(p + 36);
        a->compare_mask = rne_ld_be64(p + 44);
        if (a->op > RNE_RDMAP_ATOMIC_CMP_SWAP) {
            return FAIL_RDMAP(RNE_RDMAP_EC_UNEXPECTED_OPCODE);
        }
        break;
    }
    case RNE_RDMAP_ATOMIC_RESP:
        if (check_single(m, body, RNE_RDMAP_ATOMIC_RESP_LEN, true, cause)) {
            return -1;
        }
        m->u.aresp.req_id = rne_ld_be32(p);
        m->u.aresp.orig = rne_ld_be64(p + 4);
        break;
    case RNE_RDMAP_IMM_DATA:
    case RNE_RDMAP_IMM_DATA_SE:
        if (check_single(m, body, RNE_RDMAP_IMM_LEN, true, cause)) {
            return -1;
        }
        m->payload = p;
        m->payload_len = RNE_RDMAP_IMM_LEN;
        break;
    default:            /* Write, Read Response, Send family: header + data */
        m->payload = p;
        m->payload_len = (uint32_t)body;
        break;
    }
    return 0;
}

size_t rne_rdmap_term_build(uint8_t *out, size_t cap, uint32_t msn,
                            const struct rne_term_cause *cause,
                            const uint8_t *bad, size_t bad_len)
{
    struct rne_rdmap_msg t;
    memset(&t, 0, sizeof(t));
    t.opcode = RNE_RDMAP_TERMINATE;
    t.rv = RNE_RDMAP_VERSION;
    t.ddp.dv = RNE_DDP_VERSION;
    t.ddp.last = true;
    t.ddp.qn = RNE_RDMAP_QN_TERMINATE;
    t.ddp.msn = msn;
    t.u.term.layer = cause->layer;
    t.u.term.etype = cause->etype;
    t.u.term.code = cause->code;
    if (!bad) {
        bad_len = 0;
    }
    if (cause->hdr_ddp && bad_len >= 1) {
        size_t hl = rne_ddp_hlen(bad[0] & RNE_DDP_F_TAGGED);
        if (bad_len >= hl) {
            t.u.term.d = true;
            t.u.term.m = true;
            t.u.term.ddp_seg_len = bad_len > 0xffff ? 0xffff
                                                    : (uint16_t)bad_len;
            t.u.term.ddp_hdr_len = (uint8_t)hl;
            memcpy(t.u.term.ddp_hdr, bad, hl);
        }
    }
    if (cause->hdr_rdma &&
        bad_len >= RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_READ_REQ_LEN &&
        !(bad[0] & RNE_DDP_F_TAGGED) &&
        (bad[1] & RNE_RDMAP_OP_MASK) == RNE_RDMAP_READ_REQ) {
        t.u.term.r = true;
        memcpy(t.u.term.rdma_hdr, bad + RNE_DDP_UNTAGGED_HLEN,
               RNE_RDMAP_READ_REQ_LEN);
    }
    return rne_rdmap_hdr_encode(&t, out, cap);
}
