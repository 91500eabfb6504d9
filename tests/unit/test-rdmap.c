// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) headers: golden
 * bytes, round trips for every opcode, and the Terminate cause of every
 * malformed-segment path; Terminate build/parse.
 */
#include <stdio.h>
#include <string.h>
#include "wire/ddp.h"
#include "wire/rdmap.h"

#include "check.h"

static bool cause_is(const struct rne_term_cause *c, int layer, int etype, int code)
{
    return c->layer == layer && c->etype == etype && c->code == code;
}

static void init_msg(struct rne_rdmap_msg *m, uint8_t op)
{
    memset(m, 0, sizeof(*m));
    m->opcode = op;
    m->rv = RNE_RDMAP_VERSION;
    m->ddp.dv = RNE_DDP_VERSION;
    m->ddp.last = true;
    const struct rne_rdmap_op_info *oi = rne_rdmap_op_info(op);
    if (oi && !oi->tagged) {
        m->ddp.qn = oi->qn;
        m->ddp.msn = 1;
    }
}

static void test_golden(void)
{
    uint8_t b[128];
    struct rne_rdmap_msg m, d;
    struct rne_term_cause c;

    /* RDMA Write 4 octets to STag 0x12345678 TO 0x1000 (reference frame J) */
    init_msg(&m, RNE_RDMAP_WRITE);
    m.ddp.stag = 0x12345678;
    m.ddp.to = 0x1000;
    CHECK(rne_rdmap_hdr_encode(&m, b, sizeof(b)) == 14);
    CHECK(memcmp(b, "\xc1\x40\x12\x34\x56\x78\0\0\0\0\0\0\x10\x00", 14) == 0);
    memcpy(b + 14, "\xde\xad\xbe\xef", 4);
    CHECK(rne_rdmap_decode(b, 18, 0, &d, &c) == 0);
    CHECK(d.opcode == 0 && d.ddp.tagged && d.ddp.last && d.ddp.stag == 0x12345678 &&
          d.ddp.to == 0x1000 && d.payload == b + 14 && d.payload_len == 4);
    CHECK(rne_rdmap_hdr_encode(&m, b, 13) == 0);

    /* Send "hello", MSN 1 (frame H); Send with SE and Invalidate of 0xabcd0102 */
    init_msg(&m, RNE_RDMAP_SEND);
    CHECK(rne_rdmap_hdr_encode(&m, b, sizeof(b)) == 18);
    CHECK(memcmp(b, "\x41\x43\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18) == 0);
    init_msg(&m, RNE_RDMAP_SEND_SE_INV);
    m.ddp.ulp_word = 0xabcd0102;
    m.ddp.msn = 0x01020304;
    m.ddp.mo = 0x0a0b0c0d;
    m.ddp.last = false;
    CHECK(rne_rdmap_hdr_encode(&m, b, sizeof(b)) == 18);
    CHECK(memcmp(b, "\x01\x46\xab\xcd\x01\x02\0\0\0\0\x01\x02\x03\x04\x0a\x0b\x0c\x0d", 18) == 0);

    /* zero-length Read Request RTR: QN 1 MSN 1, sink 0/0, size 0, source STag 1 (frame F) */
    init_msg(&m, RNE_RDMAP_READ_REQ);
    m.u.rr.src_stag = 1;
    CHECK(rne_rdmap_hdr_encode(&m, b, sizeof(b)) == 46);
    static const uint8_t f[46] = { 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    CHECK(memcmp(b, f, 46) == 0);

    /* Terminate LLP/MPA/CRC error, no headers attached (frame I) */
    struct rne_term_cause crc = rne_term_cause(RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA,
                                               RNE_MPA_EC_CRC, false, false);
    CHECK(rne_rdmap_term_build(b, sizeof(b), 1, &crc, NULL, 0) == 22);
    CHECK(memcmp(b, "\x41\x47\0\0\0\0\0\0\0\x02\0\0\0\x01\0\0\0\0\x20\x02\x00\x00", 22) == 0);
    CHECK(rne_rdmap_decode(b, 22, 0, &d, &c) == 0);
    CHECK(d.u.term.layer == 2 && d.u.term.etype == 0 && d.u.term.code == 2 &&
          !d.u.term.m && !d.u.term.d && !d.u.term.r);
}

static void test_roundtrip_all(void)
{
    uint8_t b[256];
    int bad = 0;
    for (uint8_t op = 0; op < RNE_RDMAP_NOPS; op++) {
        for (int variant = 0; variant < 4; variant++) {
            struct rne_rdmap_msg m, d;
            struct rne_term_cause c;
            init_msg(&m, op);
            const struct rne_rdmap_op_info *oi = rne_rdmap_op_info(op);
            if (oi->tagged) {
                m.ddp.stag = 0x89abcdefu + variant;
                m.ddp.to = 0xfedcba9876543210ull - variant;
                m.ddp.last = variant & 1;
            } else {
                m.ddp.msn = 0xfffffffeu + (uint32_t)variant;    /* wraps */
                if (op == RNE_RDMAP_SEND || op == RNE_RDMAP_SEND_INV ||
                    op == RNE_RDMAP_SEND_SE || op == RNE_RDMAP_SEND_SE_INV) {
                    m.ddp.mo = 1442u * (uint32_t)variant;
                    m.ddp.last = variant & 1;
                }
                if (op == RNE_RDMAP_SEND_INV || op == RNE_RDMAP_SEND_SE_INV) {
                    m.ddp.ulp_word = 0x00112233u * (uint32_t)(variant + 1);
                }
            }
            switch (op) {
            case RNE_RDMAP_READ_REQ:
                m.u.rr = (struct rne_rdmap_read_req){ 0x11111111u * (variant + 1),
                    0x0102030405060708ull, 0x80000000u >> variant, 0xa5a5a5a5u, ~0ull - 7 };
                break;
            case RNE_RDMAP_TERMINATE:
                m.u.term.layer = 1;
                m.u.term.etype = 2;
                m.u.term.code = 5;
                m.u.term.m = m.u.term.d = variant & 1;
                m.u.term.r = variant & 2;
                m.u.term.rsvd = variant == 3 ? 0x1abc : 0;
                m.u.term.ddp_seg_len = 1442;
                m.u.term.ddp_hdr_len = variant == 3 ? 14 : 18;
                for (int i = 0; i < 18; i++) {
                    m.u.term.ddp_hdr[i] = (uint8_t)(i + 1);
                }
                m.u.term.ddp_hdr[0] = variant == 3 ? 0xc1 : 0x41;  /* T bit says 14 / 18 */
                for (int i = 0; i < 28; i++) {
                    m.u.term.rdma_hdr[i] = (uint8_t)(0x80 + i);
                }
                break;
            case RNE_RDMAP_ATOMIC_REQ:
                m.u.areq = (struct rne_rdmap_atomic_req){ (uint8_t)(variant % 3), 77u + variant,
                    0xdeadbeef, 0x1000u * variant, 5, ~0ull, 0x0123456789abcdefull, 0xffull };
                break;
            case RNE_RDMAP_ATOMIC_RESP:
                m.u.aresp.req_id = 77u + variant;
                m.u.aresp.orig = 0x8000000000000001ull;
                break;
            default:
                break;
            }
            size_t hl = rne_rdmap_hdr_encode(&m, b, sizeof(b));
            size_t plen = 0;
            if (op == RNE_RDMAP_IMM_DATA || op == RNE_RDMAP_IMM_DATA_SE) {
                plen = 8;
            } else if (op == RNE_RDMAP_WRITE || op == RNE_RDMAP_READ_RESP ||
                       (op >= RNE_RDMAP_SEND && op <= RNE_RDMAP_SEND_SE_INV)) {
                plen = (size_t)variant * 37;
            }
            memset(b + hl, 0x5a, plen);
            bad += hl != rne_rdmap_hdr_len(&m) || hl == 0;
            if (rne_rdmap_decode(b, hl + plen, RNE_RDMAP_F_RFC7306, &d, &c) != 0) {
                fprintf(stderr, "op %d variant %d: cause %d/%d/%d\n", op, variant, c.layer,
                        c.etype, c.code);
                bad++;
                continue;
            }
            /* compare what the encoder was given with what came back */
            struct rne_ddp_hdr e = m.ddp;
            e.tagged = oi->tagged;
            e.ulp_ctrl = (uint8_t)(0x40 | op);
            bad += memcmp(&e, &d.ddp, sizeof(e)) != 0;
            bad += d.opcode != op || d.rv != 1;
            bad += d.payload_len != plen || (plen && d.payload != b + hl);
            if (op == RNE_RDMAP_READ_REQ) {
                bad += memcmp(&d.u.rr, &m.u.rr, sizeof(m.u.rr)) != 0;
            } else if (op == RNE_RDMAP_TERMINATE) {
                const struct rne_rdmap_term *x = &m.u.term, *y = &d.u.term;
                bad += x->layer != y->layer || x->etype != y->etype || x->code != y->code ||
                       x->m != y->m || x->d != y->d || x->r != y->r || x->rsvd != y->rsvd;
                if (x->d) {
                    bad += y->ddp_seg_len != 1442 || y->ddp_hdr_len != x->ddp_hdr_len ||
                           memcmp(y->ddp_hdr, x->ddp_hdr, x->ddp_hdr_len) != 0;
                }
                if (x->r) {
                    bad += memcmp(y->rdma_hdr, x->rdma_hdr, 28) != 0;
                }
            } else if (op == RNE_RDMAP_ATOMIC_REQ) {
                bad += memcmp(&d.u.areq, &m.u.areq, sizeof(m.u.areq)) != 0;
            } else if (op == RNE_RDMAP_ATOMIC_RESP) {
                bad += memcmp(&d.u.aresp, &m.u.aresp, sizeof(m.u.aresp)) != 0;
            }
            /* RFC 7306 opcodes are refused unless enabled */
            if (oi->rfc7306) {
                bad += rne_rdmap_decode(b, hl + plen, 0, &d, &c) != -1 ||
                       !cause_is(&c, RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION,
                                 RNE_RDMAP_EC_UNEXPECTED_OPCODE);
            }
        }
    }
    CHECK(bad == 0);
    /* op table facts */
    CHECK(rne_rdmap_op_info(12) == NULL && rne_rdmap_op_info(15) == NULL);
    CHECK(rne_rdmap_op_info(RNE_RDMAP_ATOMIC_RESP)->qn == 3);
    CHECK(rne_rdmap_op_info(RNE_RDMAP_ATOMIC_REQ)->qn == 1);
    CHECK(rne_rdmap_op_info(RNE_RDMAP_IMM_DATA)->qn == 0);
}

/* Build a valid segment for op, let mutate() break it, expect the cause. */
static int expect(uint8_t op, void (*mut)(struct rne_rdmap_msg *), size_t extra, long trunc,
                  unsigned flags, int layer, int etype, int code)
{
    uint8_t b[256];
    struct rne_rdmap_msg m, d;
    struct rne_term_cause c;
    init_msg(&m, op);
    if (mut) {
        mut(&m);
    }
    size_t hl = rne_rdmap_hdr_encode(&m, b, sizeof(b));
    memset(b + hl, 0, extra);
    size_t len = hl + extra;
    if (trunc) {
        len = (size_t)((long)len + trunc);
    }
    int r = rne_rdmap_decode(b, len, flags, &d, &c);
    if (r != -1 || !cause_is(&c, layer, etype, code)) {
        fprintf(stderr, "op %d: got r=%d cause %d/%d/%d, want %d/%d/%d\n", op, r, c.layer,
                c.etype, c.code, layer, etype, code);
        return 1;
    }
    return 0;
}

static void mut_mo(struct rne_rdmap_msg *m) { m->ddp.mo = 4; }
static void mut_notlast(struct rne_rdmap_msg *m) { m->ddp.last = false; }
static void mut_qn1(struct rne_rdmap_msg *m) { m->ddp.qn = 1; }
static void mut_qn0(struct rne_rdmap_msg *m) { m->ddp.qn = 0; }
static void mut_qn7(struct rne_rdmap_msg *m) { m->ddp.qn = 7; }
static void mut_qn3(struct rne_rdmap_msg *m) { m->ddp.qn = 3; }
static void mut_rv0(struct rne_rdmap_msg *m) { m->rv = 0; }
static void mut_rv2(struct rne_rdmap_msg *m) { m->rv = 2; }
static void mut_atomic3(struct rne_rdmap_msg *m) { m->u.areq.op = 3; }
static void mut_term_d(struct rne_rdmap_msg *m)
{
    m->u.term.d = true;
    m->u.term.ddp_hdr_len = 18;
}
static void mut_term_r(struct rne_rdmap_msg *m) { m->u.term.r = true; }

enum { RDMAP = RNE_TERM_LAYER_RDMAP, DDP = RNE_TERM_LAYER_DDP };
enum { ROP = RNE_RDMAP_ETYPE_REMOTE_OPERATION, UT = RNE_DDP_ETYPE_UNTAGGED };

static void test_causes(void)
{
    uint8_t b[64];
    struct rne_rdmap_msg d;
    struct rne_term_cause c;
    int bad = 0;

    /* DDP version and truncated headers */
    memcpy(b, "\xc0\x40\x12\x34\x56\x78\0\0\0\0\0\0\x10\x00", 14);     /* DV 0, tagged */
    bad += rne_rdmap_decode(b, 14, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_VERSION);
    b[0] = 0xc2;                                                        /* DV 2 */
    bad += rne_rdmap_decode(b, 14, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_VERSION);
    memcpy(b, "\x43\x43\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18);        /* DV 3, untagged */
    bad += rne_rdmap_decode(b, 18, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, UT, RNE_DDP_EC_U_INVALID_VERSION);
    b[0] = 0x41;
    bad += rne_rdmap_decode(b, 17, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, 0);
    bad += rne_rdmap_decode(b, 0, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, 0);
    b[0] = 0xc1;                                                        /* tagged, 13 octets */
    bad += rne_rdmap_decode(b, 13, 0, &d, &c) != -1 ||
           !cause_is(&c, DDP, RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, 0);
    /* RDMAP version */
    bad += expect(RNE_RDMAP_SEND, mut_rv0, 0, 0, 0, RDMAP, ROP, RNE_RDMAP_EC_INVALID_VERSION);
    bad += expect(RNE_RDMAP_WRITE, mut_rv2, 0, 0, 0, RDMAP, ROP, RNE_RDMAP_EC_INVALID_VERSION);
    /* opcodes: reserved, RFC 7306 when off, wrong buffer model */
    for (uint8_t op = 12; op < 16; op++) {
        memcpy(b, "\x41\x40\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18);
        b[1] = (uint8_t)(0x40 | op);
        bad += rne_rdmap_decode(b, 18, RNE_RDMAP_F_RFC7306, &d, &c) != -1 ||
               !cause_is(&c, RDMAP, ROP, RNE_RDMAP_EC_UNEXPECTED_OPCODE) || !c.hdr_ddp;
    }
    memcpy(b, "\x41\x40\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18);        /* untagged Write */
    bad += rne_rdmap_decode(b, 18, 0, &d, &c) != -1 ||
           !cause_is(&c, RDMAP, ROP, RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    memcpy(b, "\xc1\x43\0\0\0\0\0\0\0\0\0\0\0\0", 14);                 /* tagged Send */
    bad += rne_rdmap_decode(b, 14, 0, &d, &c) != -1 ||
           !cause_is(&c, RDMAP, ROP, RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    memcpy(b, "\xc1\x41\0\0\0\0\0\0\0\0\0\0\0\0", 14);                 /* tagged Read Req */
    bad += rne_rdmap_decode(b, 14, 0, &d, &c) != -1 ||
           !cause_is(&c, RDMAP, ROP, RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    bad += expect(RNE_RDMAP_IMM_DATA, NULL, 8, 0, 0, RDMAP, ROP, RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    bad += expect(RNE_RDMAP_ATOMIC_REQ, mut_atomic3, 0, 0, RNE_RDMAP_F_RFC7306, RDMAP, ROP,
                  RNE_RDMAP_EC_UNEXPECTED_OPCODE);
    /* queue numbers */
    bad += expect(RNE_RDMAP_SEND, mut_qn1, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_QN);
    bad += expect(RNE_RDMAP_SEND_INV, mut_qn7, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_QN);
    bad += expect(RNE_RDMAP_READ_REQ, mut_qn0, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_QN);
    bad += expect(RNE_RDMAP_TERMINATE, mut_qn1, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_QN);
    bad += expect(RNE_RDMAP_ATOMIC_RESP, mut_qn0, 0, 0, RNE_RDMAP_F_RFC7306, DDP, UT,
                  RNE_DDP_EC_U_INVALID_QN);
    bad += expect(RNE_RDMAP_ATOMIC_REQ, mut_qn3, 0, 0, RNE_RDMAP_F_RFC7306, DDP, UT,
                  RNE_DDP_EC_U_INVALID_QN);
    /* single-segment messages */
    bad += expect(RNE_RDMAP_READ_REQ, NULL, 0, -1, 0, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_READ_REQ, NULL, 1, 0, 0, DDP, UT, RNE_DDP_EC_U_TOO_LONG);
    bad += expect(RNE_RDMAP_READ_REQ, mut_notlast, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_TOO_LONG);
    bad += expect(RNE_RDMAP_READ_REQ, mut_mo, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_MO);
    bad += expect(RNE_RDMAP_TERMINATE, NULL, 0, -1, 0, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_TERMINATE, mut_term_d, 0, -1, 0, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_TERMINATE, mut_term_r, 0, -28, 0, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_TERMINATE, NULL, 3, 0, 0, DDP, UT, RNE_DDP_EC_U_TOO_LONG);
    bad += expect(RNE_RDMAP_TERMINATE, mut_mo, 0, 0, 0, DDP, UT, RNE_DDP_EC_U_INVALID_MO);
    bad += expect(RNE_RDMAP_ATOMIC_REQ, NULL, 0, -8, RNE_RDMAP_F_RFC7306, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_ATOMIC_RESP, NULL, 4, 0, RNE_RDMAP_F_RFC7306, DDP, UT,
                  RNE_DDP_EC_U_TOO_LONG);
    bad += expect(RNE_RDMAP_IMM_DATA, NULL, 7, 0, RNE_RDMAP_F_RFC7306, RDMAP, ROP,
                  RNE_RDMAP_EC_CATASTROPHIC_STREAM);
    bad += expect(RNE_RDMAP_IMM_DATA_SE, NULL, 9, 0, RNE_RDMAP_F_RFC7306, DDP, UT,
                  RNE_DDP_EC_U_TOO_LONG);
    bad += expect(RNE_RDMAP_IMM_DATA, mut_notlast, 8, 0, RNE_RDMAP_F_RFC7306, DDP, UT,
                  RNE_DDP_EC_U_TOO_LONG);
    CHECK(bad == 0);
    /* things that are fine: reserved bits, zero-length messages, tagged/untagged interleave */
    memcpy(b, "\x7d\x70\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18);  /* Rsvd bits, Send, RDMAP rsvd */
    b[1] = 0x73;
    CHECK(rne_rdmap_decode(b, 18, 0, &d, &c) == 0 && d.opcode == 3 && d.payload_len == 0);
    CHECK(rne_ddp_to_wraps(~0ull, 1) == false && rne_ddp_to_wraps(~0ull, 2) == true &&
          rne_ddp_to_wraps(~0ull - 9, 10) == false && rne_ddp_to_wraps(5, 0) == false);
}

static void test_term_build(void)
{
    uint8_t bad[64], t[RNE_RDMAP_TERM_MAX + 8];
    struct rne_rdmap_msg m, d;
    struct rne_term_cause c;

    /* a Read Request whose source STag failed: RDMAP protection, D and R attached */
    init_msg(&m, RNE_RDMAP_READ_REQ);
    m.ddp.msn = 9;
    m.u.rr = (struct rne_rdmap_read_req){ 0x100, 0x2000, 4096, 0x300, 0x4000 };
    size_t bl = rne_rdmap_hdr_encode(&m, bad, sizeof(bad));
    c = rne_term_cause(RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                       RNE_RDMAP_EC_INVALID_STAG, true, true);
    size_t tl = rne_rdmap_term_build(t, sizeof(t), 1, &c, bad, bl);
    CHECK(tl == RNE_RDMAP_TERM_MAX);
    CHECK(t[18] == 0x01 && t[19] == 0x00 && t[20] == 0xe0 && t[21] == 0);   /* 0/1/0, M D R */
    CHECK(t[22] == 0 && t[23] == 46);                                       /* segment length */
    CHECK(memcmp(t + 24, bad, 18) == 0 && memcmp(t + 42, bad + 18, 28) == 0);
    CHECK(rne_rdmap_decode(t, tl, 0, &d, &c) == 0);
    CHECK(d.u.term.m && d.u.term.d && d.u.term.r && d.u.term.ddp_seg_len == 46 &&
          d.u.term.ddp_hdr_len == 18 && d.ddp.qn == 2 && d.ddp.msn == 1 && d.ddp.last);
    CHECK(rne_rdmap_term_build(t, RNE_RDMAP_TERM_MAX - 1, 1, &c, bad, bl) == 0);
    /* a tagged segment with a bad TO: DDP tagged 0x01, D (14-octet header) only */
    init_msg(&m, RNE_RDMAP_WRITE);
    m.ddp.stag = 0x77;
    m.ddp.to = 0x123;
    bl = rne_rdmap_hdr_encode(&m, bad, sizeof(bad)) + 20;
    c = rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_BASE_BOUNDS,
                       true, true);
    tl = rne_rdmap_term_build(t, sizeof(t), 1, &c, bad, bl);
    CHECK(tl == 18 + 4 + 2 + 14);
    CHECK(t[18] == 0x11 && t[19] == 0x01 && t[20] == 0xc0 && t[23] == 34);
    CHECK(rne_rdmap_decode(t, tl, 0, &d, &c) == 0 && d.u.term.ddp_hdr_len == 14 &&
          !d.u.term.r && memcmp(d.u.term.ddp_hdr, bad, 14) == 0);
    /* a segment too short for its own header: nothing can be attached */
    c = rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, 0, true, false);
    CHECK(rne_rdmap_term_build(t, sizeof(t), 1, &c, bad, 10) == 22);
    CHECK(t[20] == 0);
}

/* Every named cause, with its RFC value, through a Terminate and back. */
static void test_cause_table(void)
{
    static const struct { uint8_t layer, etype, code, want_l, want_e, want_c; } tab[] = {
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC,
          RNE_RDMAP_EC_LOCAL_CATASTROPHIC, 0, 0, 0x00 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_INVALID_STAG, 0, 1, 0x00 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_BASE_BOUNDS, 0, 1, 0x01 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_ACCESS_RIGHTS, 0, 1, 0x02 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_STAG_NOT_ASSOC, 0, 1, 0x03 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_TO_WRAP, 0, 1, 0x04 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_CANNOT_INVALIDATE, 0, 1, 0x09 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_UNSPECIFIED, 0, 1, 0xff },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_INVALID_VERSION, 0, 2, 0x05 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_UNEXPECTED_OPCODE, 0, 2, 0x06 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_CATASTROPHIC_STREAM, 0, 2, 0x07 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_CATASTROPHIC_GLOBAL, 0, 2, 0x08 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_CANNOT_INVALIDATE, 0, 2, 0x09 },
        { RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION, RNE_RDMAP_EC_UNSPECIFIED, 0, 2, 0xff },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, RNE_DDP_EC_LOCAL_CATASTROPHIC, 1, 0, 0x00 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_STAG, 1, 1, 0x00 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_BASE_BOUNDS, 1, 1, 0x01 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_STAG_NOT_ASSOC, 1, 1, 0x02 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_TO_WRAP, 1, 1, 0x03 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_VERSION, 1, 1, 0x04 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_QN, 1, 2, 0x01 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MSN_NOBUF, 1, 2, 0x02 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MSN_RANGE, 1, 2, 0x03 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MO, 1, 2, 0x04 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_TOO_LONG, 1, 2, 0x05 },
        { RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_VERSION, 1, 2, 0x06 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_TCP_LOST, 2, 0, 0x01 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_CRC, 2, 0, 0x02 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_MARKER_MISMATCH, 2, 0, 0x03 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_INVALID_REQ_REP, 2, 0, 0x04 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_LOCAL_CATASTROPHIC, 2, 0, 0x05 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_INSUFFICIENT_IRD, 2, 0, 0x06 },
        { RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_NO_MATCHING_RTR, 2, 0, 0x07 },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
        uint8_t t[RNE_RDMAP_TERM_MAX];
        struct rne_rdmap_msg d;
        struct rne_term_cause c = rne_term_cause(tab[i].layer, tab[i].etype, tab[i].code,
                                                 false, false), c2;
        bad += tab[i].layer != tab[i].want_l || tab[i].etype != tab[i].want_e ||
               tab[i].code != tab[i].want_c;
        size_t n = rne_rdmap_term_build(t, sizeof(t), 1, &c, NULL, 0);
        bad += n != 22 || t[18] != (tab[i].want_l << 4 | tab[i].want_e) || t[19] != tab[i].want_c;
        bad += rne_rdmap_decode(t, n, 0, &d, &c2) != 0 || d.u.term.layer != tab[i].want_l ||
               d.u.term.etype != tab[i].want_e || d.u.term.code != tab[i].want_c;
    }
    CHECK(bad == 0);
}

/*
 * The segment-header encoder the transmit path and the tests' raw peer use
 * writes what rne_rdmap_hdr_encode writes for the same fields, golden
 * frames included; fields go out as given (a raw peer's bad QN or DV).
 */
static void test_seg_headers(void)
{
    static const uint8_t ops[] = {
        RNE_RDMAP_WRITE, RNE_RDMAP_READ_RESP, RNE_RDMAP_SEND,
        RNE_RDMAP_SEND_INV, RNE_RDMAP_SEND_SE, RNE_RDMAP_SEND_SE_INV,
        RNE_RDMAP_IMM_DATA, RNE_RDMAP_IMM_DATA_SE,
    };
    uint8_t a[64], b[64];
    struct rne_rdmap_msg m, d;
    struct rne_term_cause c;
    uint32_t x = 0x9e3779b9;
    unsigned i, k;

    CHECK(rne_rdmap_seg_tagged(a, RNE_RDMAP_WRITE, 0x12345678, 0x1000, true) == 14);
    CHECK(memcmp(a, "\xc1\x40\x12\x34\x56\x78\0\0\0\0\0\0\x10\x00", 14) == 0);
    CHECK(rne_rdmap_seg_untagged(a, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND, 1, 0, true, 0) == 18);
    CHECK(memcmp(a, "\x41\x43\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0", 18) == 0);
    CHECK(rne_rdmap_seg_untagged(a, RNE_RDMAP_SEND_SE_INV, RNE_RDMAP_QN_SEND, 0x01020304,
                                 0x0a0b0c0d, false, 0xabcd0102) == 18);
    CHECK(memcmp(a, "\x01\x46\xab\xcd\x01\x02\0\0\0\0\x01\x02\x03\x04\x0a\x0b\x0c\x0d", 18) == 0);

    for (k = 0; k < 64; k++) {
        for (i = 0; i < sizeof(ops); i++) {
            size_t n;

            init_msg(&m, ops[i]);
            x = x * 1103515245 + 12345;
            m.ddp.last = x & 1;
            m.ddp.stag = x;
            m.ddp.to = (uint64_t)x << 29 | k;
            m.ddp.msn = x ^ 0x5a5a5a5a;
            m.ddp.mo = x >> 3;
            m.ddp.ulp_word = (ops[i] == RNE_RDMAP_SEND_INV ||
                              ops[i] == RNE_RDMAP_SEND_SE_INV) ? x * 7 : 0;
            n = rne_rdmap_hdr_encode(&m, b, sizeof(b));
            memset(a, 0xee, sizeof(a));
            if (rne_rdmap_op_info(ops[i])->tagged) {
                CHECK(rne_rdmap_seg_tagged(a, ops[i], m.ddp.stag, m.ddp.to,
                                           m.ddp.last) == n);
            } else {
                CHECK(rne_rdmap_seg_untagged(a, ops[i], m.ddp.qn, m.ddp.msn,
                                             m.ddp.mo, m.ddp.last,
                                             m.ddp.ulp_word) == n);
            }
            CHECK(memcmp(a, b, n) == 0);
            CHECK(a[n] == 0xee);
        }
    }

    /* As given: QN 7 goes out (the peer's check), DV 2 too (decode's). */
    rne_rdmap_seg_untagged(a, RNE_RDMAP_SEND, 7, 1, 0, true, 0);
    CHECK(rne_rdmap_decode(a, 18, 0, &d, &c) == -1);
    CHECK(cause_is(&c, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_QN));
    CHECK(rne_ddp_put_tagged(a, true, 2, 0x40, 1, 0) == 14);
    CHECK(a[0] == 0xc2);
    CHECK(rne_rdmap_decode(a, 14, 0, &d, &c) == -1);
    CHECK(cause_is(&c, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_VERSION));
}

int main(void)
{
    test_cause_table();
    test_golden();
    test_seg_headers();
    test_roundtrip_all();
    test_causes();
    test_term_build();
    return check_report("test-rdmap");
}
