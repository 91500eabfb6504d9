// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rdma-core provider's ring logic (provider/rnic_ring.h) on plain memory:
 * WQE bytes against the hw.h layout (decoded by offset, not through the
 * structs), bad work requests, queue full and free-running index wrap, CQE
 * polling across phase wraps, CQE -> ibv_wc translation, doorbell values.
 * The device side is played by this file writing CQEs byte by byte.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_ring.h"
#include "check.h"

/* ---- little-endian field access by byte offset (the datasheet view) ---- */

static uint64_t get_le(const uint8_t *p, unsigned int off, unsigned int n)
{
    uint64_t v = 0;

    for (unsigned int i = 0; i < n; i++) {
        v |= (uint64_t)p[off + i] << (8 * i);
    }
    return v;
}

static void put_le(uint8_t *p, unsigned int off, unsigned int n, uint64_t v)
{
    for (unsigned int i = 0; i < n; i++) {
        p[off + i] = (uint8_t)(v >> (8 * i));
    }
}

static int all_zero(const uint8_t *p, unsigned int from, unsigned int to)
{
    for (unsigned int i = from; i < to; i++) {
        if (p[i]) {
            return 0;
        }
    }
    return 1;
}

/* SQ WQE: header 0..15, operation 16..63, data 64..255. */
enum {
    SQ_WR_ID = 0, SQ_OPCODE = 8, SQ_FLAGS = 9, SQ_COUNT = 10, SQ_EX = 12,
    SQ_OP = 16, SQ_DATA = 64,
    RQ_WR_ID = 0, RQ_NUM_SGE = 8, RQ_SGE = 16,
    CQE_WR_ID = 0, CQE_BYTE_LEN = 8, CQE_EX = 12, CQE_QPN = 16,
    CQE_WQE_IDX = 20, CQE_OPCODE = 22, CQE_STATUS = 23, CQE_FLAGS = 24,
    CQE_VENDOR_ERR = 25, CQE_OWNER = 27,
};

static void check_layout_offsets(void)
{
    CHECK(offsetof(struct rnic_sq_wqe, hdr.opcode) == SQ_OPCODE);
    CHECK(offsetof(struct rnic_sq_wqe, hdr.flags) == SQ_FLAGS);
    CHECK(offsetof(struct rnic_sq_wqe, hdr.count) == SQ_COUNT);
    CHECK(offsetof(struct rnic_sq_wqe, hdr.ex) == SQ_EX);
    CHECK(offsetof(struct rnic_sq_wqe, op) == SQ_OP);
    CHECK(offsetof(struct rnic_sq_wqe, data) == SQ_DATA);
    CHECK(offsetof(struct rnic_rq_wqe, num_sge) == RQ_NUM_SGE);
    CHECK(offsetof(struct rnic_rq_wqe, sge) == RQ_SGE);
    CHECK(offsetof(struct rnic_cqe, wqe_idx) == CQE_WQE_IDX);
    CHECK(offsetof(struct rnic_cqe, opcode) == CQE_OPCODE);
    CHECK(offsetof(struct rnic_cqe, status) == CQE_STATUS);
    CHECK(offsetof(struct rnic_cqe, flags) == CQE_FLAGS);
    CHECK(offsetof(struct rnic_cqe, owner) == CQE_OWNER);
}

/* ---- queues on heap memory ---- */

static struct rnic_work_queue make_wq(uint32_t depth, uint32_t wqe_size, uint32_t max_sge,
                              uint32_t max_inline)
{
    /* Whole pages, as the provider allocates them. */
    size_t len = ((size_t)depth * wqe_size + RNIC_PAGE_SIZE - 1) & ~(size_t)(RNIC_PAGE_SIZE - 1);
    struct rnic_work_queue wq = {
        .buf = aligned_alloc(RNIC_PAGE_SIZE, len),
        .depth = depth,
        .wqe_shift = (uint32_t)__builtin_ctz(wqe_size),
        .max_sge = max_sge,
        .max_inline = max_inline,
    };

    memset(wq.buf, 0xa5, len);  /* stale garbage: reserved bytes must be cleared */
    return wq;
}

static const uint8_t *slot(const struct rnic_work_queue *wq, uint32_t idx)
{
    return rnic_wq_slot(wq, idx);
}

static const struct rnic_sq_policy all_features = {
    .features = RNIC_FEAT_IMM | RNIC_FEAT_ATOMICS | RNIC_FEAT_FRMR,
};

static const struct rnic_sq_policy with_mw = {
    .features = RNIC_FEAT_IMM | RNIC_FEAT_ATOMICS | RNIC_FEAT_FRMR | RNIC_FEAT_MW,
};

static void check_sge_bytes(const uint8_t *p, unsigned int off, const struct ibv_sge *s)
{
    CHECK(get_le(p, off, 8) == s->addr);
    CHECK(get_le(p, off + 8, 4) == s->length);
    CHECK(get_le(p, off + 12, 4) == s->lkey);
}

/* SEND with two SGEs, signaled + solicited: the whole 256 bytes. */
static void test_send_layout(void)
{
    struct rnic_work_queue sq = make_wq(8, RNIC_SQ_WQE_SIZE, RNIC_SQ_MAX_SGE, 64);
    struct ibv_sge sge[2] = {
        { .addr = 0x1000200030004000ull, .length = 4096, .lkey = 0x00012345 },
        { .addr = 0x7fff0000, .length = 17, .lkey = 0xabcdef01 },
    };
    struct ibv_send_wr wr = {
        .wr_id = 0x1122334455667788ull, .sg_list = sge, .num_sge = 2,
        .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
    };
    struct ibv_send_wr *bad = NULL;
    const uint8_t *p;

    CHECK(rnic_sq_post(&sq, &all_features, &wr, &bad) == 0);
    CHECK(bad == NULL);
    CHECK(sq.prod == 1);
    p = slot(&sq, 0);
    CHECK(get_le(p, SQ_WR_ID, 8) == 0x1122334455667788ull);
    CHECK(p[SQ_OPCODE] == 0x00);
    CHECK(p[SQ_FLAGS] == (RNIC_WQE_SIGNALED | RNIC_WQE_SOLICITED));
    CHECK(get_le(p, SQ_COUNT, 2) == 2);
    CHECK(get_le(p, SQ_EX, 4) == 0);
    CHECK(all_zero(p, SQ_OP, SQ_DATA));
    check_sge_bytes(p, SQ_DATA, &sge[0]);
    check_sge_bytes(p, SQ_DATA + 16, &sge[1]);
    CHECK(all_zero(p, SQ_DATA + 32, RNIC_SQ_WQE_SIZE));
    free(sq.buf);
}

/* Every opcode's header/operation bytes. */
static void test_opcodes(void)
{
    struct rnic_work_queue sq = make_wq(16, RNIC_SQ_WQE_SIZE, RNIC_SQ_MAX_SGE, 64);
    struct ibv_sge sge = { .addr = 0x5000, .length = 8, .lkey = 7 };
    struct ibv_send_wr wr[6];
    struct ibv_send_wr *bad = NULL;
    const uint8_t *p;

    memset(wr, 0, sizeof(wr));
    for (int i = 0; i < 6; i++) {
        wr[i].wr_id = 100 + i;
        wr[i].sg_list = &sge;
        wr[i].num_sge = 1;
        wr[i].next = i < 5 ? &wr[i + 1] : NULL;
    }
    wr[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr[0].imm_data = htobe32(0xdeadbeef);
    wr[0].send_flags = IBV_SEND_SOLICITED;
    wr[0].wr.rdma.remote_addr = 0x0102030405060708ull;
    wr[0].wr.rdma.rkey = 0x99aabbcc;
    wr[1].opcode = IBV_WR_RDMA_READ;
    wr[1].send_flags = IBV_SEND_SOLICITED | IBV_SEND_FENCE;  /* SE ignored */
    wr[1].wr.rdma.remote_addr = 0xffffffff00000000ull;
    wr[1].wr.rdma.rkey = 0x100;
    wr[2].opcode = IBV_WR_SEND_WITH_INV;
    wr[2].invalidate_rkey = 0x4242;
    wr[3].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr[3].wr.atomic.remote_addr = 0x8000;
    wr[3].wr.atomic.rkey = 0x77;
    wr[3].wr.atomic.compare_add = 5;
    wr[4].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr[4].wr.atomic.remote_addr = 0x8008;
    wr[4].wr.atomic.rkey = 0x78;
    wr[4].wr.atomic.compare_add = 0x1111111111111111ull;
    wr[4].wr.atomic.swap = 0x2222222222222222ull;
    wr[5].opcode = IBV_WR_SEND_WITH_IMM;
    wr[5].imm_data = htobe32(0x01020304);

    CHECK(rnic_sq_post(&sq, &all_features, wr, &bad) == 0);
    CHECK(sq.prod == 6);

    p = slot(&sq, 0);
    CHECK(p[SQ_OPCODE] == RNIC_WR_WRITE_IMM && p[SQ_FLAGS] == RNIC_WQE_SOLICITED);
    CHECK(memcmp(p + SQ_EX, "\xde\xad\xbe\xef", 4) == 0);  /* wire order */
    CHECK(get_le(p, SQ_OP, 8) == 0x0102030405060708ull);
    CHECK(get_le(p, SQ_OP + 8, 4) == 0x99aabbcc);
    CHECK(get_le(p, SQ_COUNT, 2) == 1);
    check_sge_bytes(p, SQ_DATA, &sge);

    p = slot(&sq, 1);
    CHECK(p[SQ_OPCODE] == RNIC_WR_READ && p[SQ_FLAGS] == RNIC_WQE_FENCE);
    CHECK(get_le(p, SQ_OP, 8) == 0xffffffff00000000ull);
    CHECK(get_le(p, SQ_OP + 8, 4) == 0x100);

    p = slot(&sq, 2);
    CHECK(p[SQ_OPCODE] == RNIC_WR_SEND_INV && get_le(p, SQ_EX, 4) == 0x4242);
    CHECK(all_zero(p, SQ_OP, SQ_DATA));

    p = slot(&sq, 3);
    CHECK(p[SQ_OPCODE] == RNIC_WR_ATOMIC_FADD);
    CHECK(get_le(p, SQ_OP, 8) == 0x8000 && get_le(p, SQ_OP + 8, 4) == 0x77);
    CHECK(get_le(p, SQ_OP + 16, 8) == 5 && get_le(p, SQ_OP + 24, 8) == 0);
    check_sge_bytes(p, SQ_DATA, &sge);

    p = slot(&sq, 4);
    CHECK(p[SQ_OPCODE] == RNIC_WR_ATOMIC_CSWAP);
    CHECK(get_le(p, SQ_OP + 16, 8) == 0x1111111111111111ull);
    CHECK(get_le(p, SQ_OP + 24, 8) == 0x2222222222222222ull);

    p = slot(&sq, 5);
    CHECK(p[SQ_OPCODE] == RNIC_WR_SEND_IMM && memcmp(p + SQ_EX, "\x01\x02\x03\x04", 4) == 0);
    CHECK(get_le(p, SQ_WR_ID, 8) == 105);
    free(sq.buf);
}

/* Inline data: the bytes of all SGEs, count = bytes; sq_sig_all signals. */
static void test_inline(void)
{
    struct rnic_work_queue sq = make_wq(4, RNIC_SQ_WQE_SIZE, 2, RNIC_SQ_MAX_INLINE);
    struct rnic_sq_policy sig_all = { .sig_all = true };
    char a[] = "hello ", b[] = "world";
    uint8_t big[RNIC_SQ_MAX_INLINE];
    struct ibv_sge sge[2] = {
        { .addr = (uintptr_t)a, .length = 6 },
        { .addr = (uintptr_t)b, .length = 5 },
    };
    struct ibv_send_wr wr = {
        .wr_id = 1, .sg_list = sge, .num_sge = 2, .opcode = IBV_WR_SEND,
        .send_flags = IBV_SEND_INLINE,
    };
    struct ibv_send_wr *bad = NULL;
    const uint8_t *p;

    CHECK(rnic_sq_post(&sq, &sig_all, &wr, &bad) == 0);
    p = slot(&sq, 0);
    CHECK(p[SQ_FLAGS] == (RNIC_WQE_INLINE | RNIC_WQE_SIGNALED));
    CHECK(get_le(p, SQ_COUNT, 2) == 11);
    CHECK(memcmp(p + SQ_DATA, "hello world", 11) == 0);
    CHECK(all_zero(p, SQ_DATA + 11, RNIC_SQ_WQE_SIZE));

    /* Exactly the maximum fits, one byte more does not. */
    memset(big, 0x5a, sizeof(big));
    sge[0].addr = (uintptr_t)big;
    sge[0].length = RNIC_SQ_MAX_INLINE;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    CHECK(rnic_sq_post(&sq, &sig_all, &wr, &bad) == 0);
    p = slot(&sq, 1);
    CHECK(get_le(p, SQ_COUNT, 2) == RNIC_SQ_MAX_INLINE);
    CHECK(p[SQ_DATA] == 0x5a && p[RNIC_SQ_WQE_SIZE - 1] == 0x5a);
    sge[0].length = RNIC_SQ_MAX_INLINE - 3;
    sge[1].length = 4;
    wr.num_sge = 2;
    CHECK(rnic_sq_post(&sq, &sig_all, &wr, &bad) == EINVAL);
    CHECK(bad == &wr && sq.prod == 2);
    free(sq.buf);
}

/* Bad requests: EINVAL, *bad_wr at the culprit, nothing posted from it on. */
static void test_bad_wrs(void)
{
    struct rnic_work_queue sq = make_wq(8, RNIC_SQ_WQE_SIZE, 2, 32);
    struct rnic_sq_policy plain = { .features = 0 };
    struct ibv_sge sge[3] = { { .addr = 0x1000, .length = 8 }, { 0 }, { 0 } };
    struct ibv_send_wr good = { .sg_list = sge, .num_sge = 1, .opcode = IBV_WR_SEND };
    struct ibv_send_wr wr, good2;
    struct ibv_send_wr *bad;

    /* (opcode, sges, flags, policy) -> EINVAL */
    struct {
        enum ibv_wr_opcode op;
        int num_sge;
        unsigned int flags;
        const struct rnic_sq_policy *pol;
        uint64_t remote;
        uint32_t len0;
    } cases[] = {
        { IBV_WR_SEND, 3, 0, &all_features, 0, 8 },                 /* > max_sge */
        { IBV_WR_SEND, -1, 0, &all_features, 0, 8 },                /* negative */
        { IBV_WR_BIND_MW, 0, 0, &all_features, 0, 8 },              /* no MWs */
        { IBV_WR_BIND_MW, 0, 0, &with_mw, 0, 8 },                   /* no window */
        { IBV_WR_TSO, 1, 0, &all_features, 0, 8 },
        { (enum ibv_wr_opcode)77, 1, 0, &all_features, 0, 8 },      /* unknown */
        { IBV_WR_SEND, 1, IBV_SEND_IP_CSUM, &all_features, 0, 8 },  /* unknown flag */
        { IBV_WR_SEND_WITH_IMM, 1, 0, &plain, 0, 8 },               /* no IMM */
        { IBV_WR_RDMA_WRITE_WITH_IMM, 1, 0, &plain, 0, 8 },
        { IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, &plain, 0, 8 },        /* no atomics */
        { IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0, &plain, 0, 8 },
        { IBV_WR_LOCAL_INV, 0, 0, &plain, 0, 8 },                   /* no FRMR */
        { IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, &all_features, 4, 8 }, /* misaligned */
        { IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0, &all_features, 0, 8 }, /* two SGEs */
        { IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0, &all_features, 0, 4 },   /* short sink */
        { IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0, &all_features, 0, 16 },  /* not 8 bytes */
        { IBV_WR_RDMA_READ, 1, IBV_SEND_INLINE, &all_features, 0, 8 },
        { IBV_WR_SEND, 1, IBV_SEND_INLINE, &all_features, 0, 33 },  /* > max_inline */
    };

    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t prod = sq.prod;

        memset(&wr, 0, sizeof(wr));
        wr.sg_list = sge;
        wr.num_sge = cases[i].num_sge;
        wr.opcode = cases[i].op;
        wr.send_flags = cases[i].flags;
        wr.wr.atomic.remote_addr = cases[i].remote;
        sge[0].length = cases[i].len0;
        bad = NULL;
        if (rnic_sq_post(&sq, cases[i].pol, &wr, &bad) != EINVAL || bad != &wr ||
            sq.prod != prod) {
            fprintf(stderr, "bad-WR case %u accepted\n", i);
            CHECK(0);
        } else {
            CHECK(1);
        }
    }
    sge[0].length = 8;

    /* A message longer than the CQE's 32-bit byte_len can say. */
    memset(&wr, 0, sizeof(wr));
    sge[0].length = 0x80000000u;
    sge[1].length = 0x80000000u;
    wr.sg_list = sge;
    wr.num_sge = 2;
    wr.opcode = IBV_WR_RDMA_WRITE;
    CHECK(rnic_sq_post(&sq, &all_features, &wr, &bad) == EINVAL && sq.prod == 0);
    sge[1].length = 0x7fffffffu;
    CHECK(rnic_sq_post(&sq, &all_features, &wr, &bad) == 0 && sq.prod == 1);
    sq.prod = 0;
    sge[0].length = 8;
    sge[1].length = 0;

    /* A chain: the good ones before the bad one are posted. */
    good2 = good;
    good.next = &good2;
    good2.next = &wr;
    memset(&wr, 0, sizeof(wr));
    wr.opcode = (enum ibv_wr_opcode)200;
    bad = NULL;
    CHECK(rnic_sq_post(&sq, &plain, &good, &bad) == EINVAL);
    CHECK(bad == &wr && sq.prod == 2);

    /* Receive side: too many SGEs. */
    {
        struct rnic_work_queue rq = make_wq(4, RNIC_RQ_WQE_SIZE, 3, 0);
        struct ibv_recv_wr rwr = { .sg_list = sge, .num_sge = 4 };
        struct ibv_recv_wr *rbad = NULL;

        CHECK(rnic_rq_post(&rq, &rwr, &rbad) == EINVAL && rbad == &rwr && rq.prod == 0);
        rwr.num_sge = -2;
        CHECK(rnic_rq_post(&rq, &rwr, &rbad) == EINVAL && rq.prod == 0);
        free(rq.buf);
    }
    free(sq.buf);
}

/* Full SQ -> ENOMEM; completions free slots; indices wrap at 2^32. */
static void test_sq_full_and_retire(void)
{
    struct rnic_work_queue sq = make_wq(8, RNIC_SQ_WQE_SIZE, 1, 0);
    struct ibv_sge sge = { .addr = 0x1000, .length = 1 };
    struct ibv_send_wr wr[10];
    struct ibv_send_wr *bad = NULL;

    memset(wr, 0, sizeof(wr));
    for (int i = 0; i < 10; i++) {
        wr[i].wr_id = i;
        wr[i].sg_list = &sge;
        wr[i].num_sge = 1;
        wr[i].opcode = IBV_WR_SEND;
        wr[i].next = i < 9 ? &wr[i + 1] : NULL;
    }
    CHECK(rnic_sq_post(&sq, &all_features, wr, &bad) == ENOMEM);
    CHECK(bad == &wr[8] && sq.prod == 8 && rnic_wq_full(&sq));

    /* The CQE of slot 3 retires slots 0..3 (0..2 were unsignaled). */
    CHECK(rnic_sq_retire(&sq, 3));
    CHECK(sq.cons == 4 && !rnic_wq_full(&sq));
    /* A slot with nothing outstanding up to it (device bug) changes nothing:
     * 0..3 are free, so "slot 3" now means 8 WQEs ahead. */
    CHECK(!rnic_sq_retire(&sq, 3));
    CHECK(sq.cons == 4);
    CHECK(rnic_sq_post(&sq, &all_features, &wr[8], &bad) == 0);
    CHECK(sq.prod == 10 && get_le(slot(&sq, 8), SQ_WR_ID, 8) == 8);
    CHECK(get_le(slot(&sq, 9), SQ_WR_ID, 8) == 9);

    /* Free-running indices across 2^32. */
    sq.prod = sq.cons = 0xfffffffeu;
    wr[3].next = NULL;
    CHECK(rnic_sq_post(&sq, &all_features, &wr[0], &bad) == 0);
    CHECK(sq.prod == 2);
    CHECK(get_le(slot(&sq, 6), SQ_WR_ID, 8) == 0);  /* 0xfffffffe & 7 */
    CHECK(get_le(slot(&sq, 1), SQ_WR_ID, 8) == 3);
    CHECK(rnic_wq_outstanding(&sq) == 4);
    CHECK(rnic_sq_retire(&sq, 1));
    CHECK(sq.cons == 2 && rnic_wq_outstanding(&sq) == 0);
    free(sq.buf);
}

/* RQ WQE bytes, RQ full, retire by count. */
static void test_rq(void)
{
    struct rnic_work_queue rq = make_wq(4, RNIC_RQ_WQE_SIZE, RNIC_RQ_MAX_SGE, 0);
    struct ibv_sge sge[RNIC_RQ_MAX_SGE];
    struct ibv_recv_wr wr[5];
    struct ibv_recv_wr *bad = NULL;
    const uint8_t *p;

    for (int i = 0; i < RNIC_RQ_MAX_SGE; i++) {
        sge[i].addr = 0x100000ull * (i + 1);
        sge[i].length = 1000 + i;
        sge[i].lkey = 0x300 + i;
    }
    memset(wr, 0, sizeof(wr));
    for (int i = 0; i < 5; i++) {
        wr[i].wr_id = 0xfeed0000 + i;
        wr[i].sg_list = sge;
        wr[i].num_sge = i == 0 ? RNIC_RQ_MAX_SGE : 1;
        wr[i].next = i < 4 ? &wr[i + 1] : NULL;
    }
    CHECK(rnic_rq_post(&rq, wr, &bad) == ENOMEM);
    CHECK(bad == &wr[4] && rq.prod == 4);
    p = slot(&rq, 0);
    CHECK(get_le(p, RQ_WR_ID, 8) == 0xfeed0000);
    CHECK(get_le(p, RQ_NUM_SGE, 2) == RNIC_RQ_MAX_SGE);
    CHECK(all_zero(p, RQ_NUM_SGE + 2, RQ_SGE));
    for (int i = 0; i < RNIC_RQ_MAX_SGE; i++) {
        check_sge_bytes(p, RQ_SGE + 16 * i, &sge[i]);
    }
    p = slot(&rq, 3);
    CHECK(get_le(p, RQ_NUM_SGE, 2) == 1);
    CHECK(all_zero(p, RQ_SGE + 16, RNIC_RQ_WQE_SIZE));

    CHECK(rnic_rq_retire(&rq) && rq.cons == 1);
    CHECK(rnic_rq_post(&rq, &wr[4], &bad) == 0 && rq.prod == 5);
    CHECK(get_le(slot(&rq, 0), RQ_WR_ID, 8) == 0xfeed0004);
    for (int i = 0; i < 4; i++) {
        CHECK(rnic_rq_retire(&rq));
    }
    CHECK(!rnic_rq_retire(&rq));    /* nothing outstanding */
    CHECK(rq.cons == 5);
    free(rq.buf);
}

/* ---- completion queue ---- */

struct fake_cq {
    struct rnic_cq_ring ring;
    uint8_t *mem;
    uint32_t dev_prod;          /* the "device's" producer index */
};

static void cq_init(struct fake_cq *f, uint32_t depth)
{
    f->mem = aligned_alloc(RNIC_PAGE_SIZE, RNIC_PAGE_SIZE * 2);
    memset(f->mem, 0, RNIC_PAGE_SIZE * 2);
    f->ring.cqe = (struct rnic_cqe *)f->mem;
    f->ring.depth = depth;
    f->ring.log_depth = (uint32_t)__builtin_ctz(depth);
    f->ring.cons = 0;
    f->ring.dbrec = (__le32 *)(f->mem + RNIC_PAGE_SIZE);
    f->dev_prod = 0;
}

/* What the device does: the entry, then the owner byte with the phase. */
static void dev_cqe(struct fake_cq *f, uint64_t wr_id, uint8_t opcode, uint8_t status,
                    uint8_t flags, uint32_t ex, uint32_t qpn, uint16_t wqe_idx,
                    uint32_t byte_len)
{
    uint32_t idx = f->dev_prod++;
    uint8_t *p = f->mem + (size_t)(idx & (f->ring.depth - 1)) * RNIC_CQE_SIZE;

    memset(p, 0, RNIC_CQE_SIZE - 5);
    put_le(p, CQE_WR_ID, 8, wr_id);
    put_le(p, CQE_BYTE_LEN, 4, byte_len);
    put_le(p, CQE_EX, 4, ex);
    put_le(p, CQE_QPN, 4, qpn);
    put_le(p, CQE_WQE_IDX, 2, wqe_idx);
    p[CQE_OPCODE] = opcode;
    p[CQE_STATUS] = status;
    p[CQE_FLAGS] = flags;
    p[CQE_VENDOR_ERR] = 0x3c;
    p[CQE_OWNER] = ((idx / f->ring.depth) & 1) ? 0 : RNIC_CQE_PHASE;
}

/* cq.c's loop without the QP lookup. */
static int poll(struct fake_cq *f, struct ibv_wc *wc, int n)
{
    const struct rnic_cqe *cqe;
    int i;

    for (i = 0; i < n; i++) {
        cqe = rnic_cq_peek(&f->ring);
        if (!cqe) {
            break;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        rnic_cqe_to_wc(cqe, &wc[i]);
        rnic_cq_advance(&f->ring);
    }
    if (i) {
        rnic_cq_update_dbrec(&f->ring);
    }
    return i;
}

static uint32_t dbrec(const struct fake_cq *f)
{
    return (uint32_t)get_le(f->mem + RNIC_PAGE_SIZE, 0, 4);
}

static void test_cq_translate(void)
{
    struct fake_cq f;
    struct ibv_wc wc[4];

    cq_init(&f, 4);
    CHECK(poll(&f, wc, 4) == 0);
    CHECK(dbrec(&f) == 0);

    /* Immediate bytes de ad be ef as they came off the wire. */
    dev_cqe(&f, 42, RNIC_WC_RECV, RNIC_WC_SUCCESS, RNIC_CQE_F_IMM | RNIC_CQE_F_SOLICITED,
            0xefbeadde, 7, 2, 100);
    dev_cqe(&f, 43, RNIC_WC_RECV, RNIC_WC_SUCCESS, RNIC_CQE_F_INV, 0x12345600, 7, 3, 64);
    dev_cqe(&f, 44, RNIC_WC_RECV_WRITE_IMM, RNIC_WC_SUCCESS, RNIC_CQE_F_IMM, 0x01000000, 8, 0,
            4096);
    dev_cqe(&f, 45, RNIC_WC_READ, RNIC_WC_REM_ACCESS_ERR, 0, 0, 9, 17, 0);
    CHECK(poll(&f, wc, 4) == 4);
    CHECK(dbrec(&f) == 4);

    CHECK(wc[0].wr_id == 42 && wc[0].status == IBV_WC_SUCCESS);
    CHECK(wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == 100 && wc[0].qp_num == 7);
    CHECK(wc[0].wc_flags == IBV_WC_WITH_IMM && wc[0].imm_data == htobe32(0xdeadbeef));
    CHECK(wc[0].vendor_err == 0x3c);
    CHECK(wc[1].wc_flags == IBV_WC_WITH_INV && wc[1].invalidated_rkey == 0x12345600);
    CHECK(wc[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc[2].imm_data == htobe32(1));
    CHECK(wc[2].byte_len == 4096);
    CHECK(wc[3].status == IBV_WC_REM_ACCESS_ERR && wc[3].opcode == IBV_WC_RDMA_READ);
    CHECK(wc[3].wc_flags == 0 && wc[3].qp_num == 9);
    free(f.mem);
}

static void test_cq_maps(void)
{
    static const struct { uint8_t hw; enum ibv_wc_status verbs; } st[] = {
        { RNIC_WC_SUCCESS, IBV_WC_SUCCESS },
        { RNIC_WC_LOC_LEN_ERR, IBV_WC_LOC_LEN_ERR },
        { RNIC_WC_LOC_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR },
        { RNIC_WC_LOC_PROT_ERR, IBV_WC_LOC_PROT_ERR },
        { RNIC_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR },
        { RNIC_WC_BAD_RESP_ERR, IBV_WC_BAD_RESP_ERR },
        { RNIC_WC_LOC_ACCESS_ERR, IBV_WC_LOC_ACCESS_ERR },
        { RNIC_WC_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR },
        { RNIC_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR },
        { RNIC_WC_REM_OP_ERR, IBV_WC_REM_OP_ERR },
        { RNIC_WC_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR },
        { RNIC_WC_FATAL_ERR, IBV_WC_FATAL_ERR },
        { RNIC_WC_GENERAL_ERR, IBV_WC_GENERAL_ERR },
        { RNIC_WC_MW_BIND_ERR, IBV_WC_MW_BIND_ERR },
        { 0x55, IBV_WC_GENERAL_ERR },
    };
    static const struct { uint8_t hw; enum ibv_wc_opcode verbs; } op[] = {
        { RNIC_WC_SEND, IBV_WC_SEND },
        { RNIC_WC_WRITE, IBV_WC_RDMA_WRITE },
        { RNIC_WC_READ, IBV_WC_RDMA_READ },
        { RNIC_WC_ATOMIC_FADD, IBV_WC_FETCH_ADD },
        { RNIC_WC_ATOMIC_CSWAP, IBV_WC_COMP_SWAP },
        { RNIC_WC_LOCAL_INV, IBV_WC_LOCAL_INV },
        { RNIC_WC_BIND_MW, IBV_WC_BIND_MW },
        { RNIC_WC_RECV, IBV_WC_RECV },
        { RNIC_WC_RECV_WRITE_IMM, IBV_WC_RECV_RDMA_WITH_IMM },
    };
    struct rnic_cqe cqe;
    struct ibv_wc wc;

    for (unsigned int i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
        memset(&cqe, 0, sizeof(cqe));
        cqe.status = st[i].hw;
        rnic_cqe_to_wc(&cqe, &wc);
        CHECK(wc.status == st[i].verbs);
    }
    for (unsigned int i = 0; i < sizeof(op) / sizeof(op[0]); i++) {
        memset(&cqe, 0, sizeof(cqe));
        cqe.opcode = op[i].hw;
        rnic_cqe_to_wc(&cqe, &wc);
        CHECK(wc.opcode == op[i].verbs && wc.status == IBV_WC_SUCCESS);
    }
    /* An opcode the provider does not know never passes as success. */
    memset(&cqe, 0, sizeof(cqe));
    cqe.opcode = RNIC_WC_REG_MR + 0x20;
    rnic_cqe_to_wc(&cqe, &wc);
    CHECK(wc.status == IBV_WC_GENERAL_ERR);
    CHECK(rnic_cqe_is_recv(&(struct rnic_cqe){ .opcode = RNIC_WC_RECV }));
    CHECK(!rnic_cqe_is_recv(&(struct rnic_cqe){ .opcode = RNIC_WC_READ }));
}

/* Many passes through a small ring: stale entries of the previous pass are
 * never taken for new ones, and order and dbrec follow the consumer. */
static void test_cq_phase_wrap(void)
{
    struct fake_cq f;
    struct ibv_wc wc[8];
    uint64_t next_dev = 0, next_seen = 0;

    cq_init(&f, 4);
    for (int round = 0; round < 40; round++) {
        int produce = 1 + round % 4;    /* 1..4 entries, never beyond depth */
        int got;

        for (int i = 0; i < produce; i++) {
            dev_cqe(&f, next_dev++, RNIC_WC_SEND, 0, 0, 0, 1, 0, 0);
        }
        got = poll(&f, wc, round % 2 ? 8 : 2);
        for (int i = 0; i < got; i++) {
            CHECK(wc[i].wr_id == next_seen++);
        }
        got = poll(&f, wc, 8);
        for (int i = 0; i < got; i++) {
            CHECK(wc[i].wr_id == next_seen++);
        }
        CHECK(next_seen == next_dev);
        CHECK(f.ring.cons == next_dev && dbrec(&f) == next_dev);
        CHECK(rnic_cq_peek(&f.ring) == NULL);
    }
    CHECK(next_dev == 100);

    /* The phase of the slot flips at every wrap, with free-running indices
     * that cross 2^32 too. */
    CHECK(rnic_cq_phase(&f.ring, 0) == RNIC_CQE_PHASE);
    CHECK(rnic_cq_phase(&f.ring, 4) == 0);
    CHECK(rnic_cq_phase(&f.ring, 8) == RNIC_CQE_PHASE);
    CHECK(rnic_cq_phase(&f.ring, 0xffffffffu) == 0);
    free(f.mem);
}

/* A signaled WQE after unsignaled ones: its CQE frees them all. */
static void test_send_completion_frees_sq(void)
{
    struct rnic_work_queue sq = make_wq(4, RNIC_SQ_WQE_SIZE, 1, 0);
    struct ibv_send_wr wr[3];
    struct ibv_send_wr *bad = NULL;
    struct fake_cq f;
    struct ibv_wc wc;
    const struct rnic_cqe *cqe;

    memset(wr, 0, sizeof(wr));
    for (int i = 0; i < 3; i++) {
        wr[i].wr_id = i;
        wr[i].opcode = IBV_WR_RDMA_WRITE;
        wr[i].next = i < 2 ? &wr[i + 1] : NULL;
    }
    wr[2].send_flags = IBV_SEND_SIGNALED;
    CHECK(rnic_sq_post(&sq, &all_features, wr, &bad) == 0);
    CHECK(slot(&sq, 0)[SQ_FLAGS] == 0 && slot(&sq, 2)[SQ_FLAGS] == RNIC_WQE_SIGNALED);

    cq_init(&f, 8);
    dev_cqe(&f, 2, RNIC_WC_WRITE, 0, 0, 0, 5, 2, 0);
    cqe = rnic_cq_peek(&f.ring);
    CHECK(cqe != NULL);
    if (cqe) {
        rnic_cqe_to_wc(cqe, &wc);
        CHECK(!rnic_cqe_is_recv(cqe) && wc.wr_id == 2 && wc.opcode == IBV_WC_RDMA_WRITE);
        CHECK(rnic_sq_retire(&sq, le16toh(cqe->wqe_idx)));
    }
    CHECK(sq.cons == 3 && rnic_wq_outstanding(&sq) == 0);
    free(f.mem);
    free(sq.buf);
}

static void test_doorbells(void)
{
    CHECK(rnic_db_cq_arm(5, 0x12345678, false) == 0x1234567801000005ull);
    CHECK(rnic_db_cq_arm(5, 0x12345678, true) == 0x1234567802000005ull);
    CHECK(rnic_db_producer(0x00abcdef, 9) == 0x0000000900abcdefull);
    CHECK(rnic_db_producer(0x01000001, 0xffffffffu) == 0xffffffff00000001ull);
}

/*
 * Three threads as in a real process: a poster (post_send, retrying on
 * ENOMEM), the device (reads WQEs up to the published producer, writes a CQE
 * for each signaled one, never more than the dbrec says fit) and the poller
 * (poll + retire + dbrec).  Small rings so every index wraps thousands of
 * times; any ordering mistake shows up as a wrong wr_id or a stale WQE.
 */
#define MT_WRS      200000u
#define MT_SIGNALED(i) ((i) % 3 == 2 || (i) == MT_WRS - 1)

struct mt {
    struct rnic_work_queue sq;
    struct fake_cq cq;
    unsigned bad_wqe, bad_post;
    uint32_t done;          /* the device is finished */
};

static void *mt_poster(void *arg)
{
    struct mt *m = arg;
    struct ibv_send_wr wr;
    struct ibv_send_wr *bad;
    int ret;

    memset(&wr, 0, sizeof(wr));
    wr.opcode = IBV_WR_RDMA_WRITE;
    for (uint32_t i = 0; i < MT_WRS; i++) {
        wr.wr_id = i;
        wr.wr.rdma.remote_addr = (uint64_t)i << 12;
        wr.send_flags = MT_SIGNALED(i) ? IBV_SEND_SIGNALED : 0;
        while ((ret = rnic_sq_post(&m->sq, &all_features, &wr, &bad)) == ENOMEM) {
            sched_yield();
        }
        if (ret) {
            m->bad_post++;
        }
    }
    return NULL;
}

static void *mt_device(void *arg)
{
    struct mt *m = arg;
    struct rnic_sq_wqe w;
    uint32_t cons = 0;

    while (cons < MT_WRS) {
        uint32_t prod = __atomic_load_n(&m->sq.prod, __ATOMIC_ACQUIRE);

        if (prod == cons) {
            sched_yield();
            continue;
        }
        memcpy(&w, rnic_wq_slot(&m->sq, cons), sizeof(w));
        if (le64toh(w.hdr.wr_id) != cons || le64toh(w.op.rdma.remote_addr) != (uint64_t)cons << 12) {
            m->bad_wqe++;
        }
        if (w.hdr.flags & RNIC_WQE_SIGNALED) {
            struct rnic_cqe *e;
            uint32_t idx = m->cq.dev_prod;

            /* no room until the consumer's dbrec says so */
            while (idx - le32toh(__atomic_load_n(m->cq.ring.dbrec, __ATOMIC_ACQUIRE)) >=
                   m->cq.ring.depth) {
                sched_yield();
            }
            e = &m->cq.ring.cqe[idx & (m->cq.ring.depth - 1)];
            e->wr_id = w.hdr.wr_id;
            e->wqe_idx = htole16((uint16_t)(cons & (m->sq.depth - 1)));
            e->opcode = RNIC_WC_WRITE;
            e->status = RNIC_WC_SUCCESS;
            __atomic_store_n(&e->owner, ((idx / m->cq.ring.depth) & 1) ? 0 : RNIC_CQE_PHASE,
                             __ATOMIC_RELEASE);
            m->cq.dev_prod++;
        }
        cons++;
    }
    __atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_threads(void)
{
    struct mt m;
    pthread_t poster, device;
    struct ibv_wc wc[8];
    uint64_t expect = 2, seen = 0, wrong = 0;

    memset(&m, 0, sizeof(m));
    m.sq = make_wq(16, RNIC_SQ_WQE_SIZE, 1, 0);
    cq_init(&m.cq, 8);
    pthread_create(&device, NULL, mt_device, &m);
    pthread_create(&poster, NULL, mt_poster, &m);
    while (expect < MT_WRS) {
        const struct rnic_cqe *cqe;
        int n = 0;

        while (n < 8 && (cqe = rnic_cq_peek(&m.cq.ring))) {
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            rnic_cqe_to_wc(cqe, &wc[n]);
            if (!rnic_sq_retire(&m.sq, le16toh(cqe->wqe_idx))) {
                wrong++;
            }
            rnic_cq_advance(&m.cq.ring);
            n++;
        }
        if (!n) {
            sched_yield();
            continue;
        }
        __atomic_thread_fence(__ATOMIC_RELEASE);
        rnic_cq_update_dbrec(&m.cq.ring);
        for (int i = 0; i < n; i++) {
            wrong += wc[i].wr_id != expect;
            seen++;
            expect = expect + 3 < MT_WRS ? expect + 3 : MT_WRS - 1;
            if (wc[i].wr_id == MT_WRS - 1) {
                expect = MT_WRS;
            }
        }
    }
    pthread_join(poster, NULL);
    pthread_join(device, NULL);
    CHECK(m.bad_post == 0 && m.bad_wqe == 0 && wrong == 0);
    CHECK(seen == MT_WRS / 3 + 1);
    CHECK(rnic_wq_outstanding(&m.sq) == 0 && m.sq.prod == MT_WRS);
    CHECK(__atomic_load_n(&m.done, __ATOMIC_ACQUIRE) == 1);
    printf("threads: %u WRs, %llu CQEs through a 16-deep SQ and an 8-deep CQ\n", MT_WRS,
           (unsigned long long)seen);
    free(m.cq.mem);
    free(m.sq.buf);
}

int main(void)
{
    check_layout_offsets();
    test_send_layout();
    test_opcodes();
    test_inline();
    test_bad_wrs();
    test_sq_full_and_retire();
    test_rq();
    test_cq_translate();
    test_cq_maps();
    test_cq_phase_wrap();
    test_send_completion_frees_sq();
    test_doorbells();
    test_threads();
    return check_report("test-provider-ring");
}
