/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows between two simulated rnics over a lossy link (loss,
 * duplication, reordering): on every QP, B binds a type 2 window over a
 * random sub-range of its MR, A Writes a random stretch of it and Reads
 * the whole window back, then the window is revoked, alternately by B's
 * LOCAL_INV and by A's Send with Invalidate, and bound again under a new
 * key and range.  Each round checks that the Write landed exactly where
 * the window put it, that the Read returned the window's bytes and that
 * nothing of B's MR outside the window changed, against a shadow copy.
 *
 * Usage: iwarp-mw [--seed N] [--qps N] [--rounds N] [--loss P]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simpair.h"
#include "splitmix64.h"

#define MR_LEN      (64 * 1024)
#define A_SRC       0x100
#define A_DST       0x200
#define A_MSG       0x300
#define B_MR        0x400
#define B_RECV      0x500
#define B_MW_INDEX  0x600

struct mwq {
    struct sd_mr src, dst, msg, bmr, brecv;
    uint8_t *shadow;                    /* B's MR as it must be */
    uint32_t mw;                        /* the window's current STag */
    uint64_t win_off, win_len;
};

struct mwsim {
    struct simpair sp;
    struct mwq *q;
    unsigned nq;
    uint64_t rng;
    unsigned want[2];                   /* CQEs still to come, per side */
    bool failed;
    char why[512];
};

static uint64_t rnd(struct mwsim *s, uint64_t n)
{
    return splitmix64_next(&s->rng) % n;
}

static bool fail(struct mwsim *s, const char *what, unsigned q,
                 const struct rnic_cqe *c)
{
    if (!s->failed) {
        snprintf(s->why, sizeof(s->why), "q%u: %s (wr_id %" PRIu64
                 " opcode %u status %s vendor_err 0x%x)", q, what,
                 c ? (uint64_t)c->wr_id : 0, c ? c->opcode : 0,
                 c ? sd_wc_status_name(c->status) : "-",
                 c ? c->vendor_err : 0);
    }
    s->failed = true;
    return false;
}

static void wqe(struct rnic_sq_wqe *w, uint8_t op, uint64_t wr_id)
{
    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = wr_id;
    w->hdr.opcode = op;
    w->hdr.flags = RNIC_WQE_SIGNALED;
}

/* Take every CQE both sides have; all must be successes. */
static bool drained(void *ctx)
{
    struct mwsim *s = ctx;
    struct rnic_cqe c;
    unsigned q;
    int side;

    for (q = 0; q < s->nq; q++) {
        for (side = 0; side < 2; side++) {
            struct sp_end *e = &s->sp.end[q][side];
            struct simdev *sd = s->sp.sd[side];

            while (sd_poll_cq(sd, &e->scq, &c) || sd_poll_cq(sd, &e->rcq, &c)) {
                if (c.status != RNIC_WC_SUCCESS) {
                    fail(s, "a work request failed", q, &c);
                    return true;
                }
                s->want[side]--;
            }
        }
    }
    return s->failed || (!s->want[0] && !s->want[1]);
}

static bool settle(struct mwsim *s, const char *phase, unsigned round)
{
    if (!sl_run(&s->sp.sl, drained, s, 120 * SL_SEC) && !s->failed) {
        snprintf(s->why, sizeof(s->why), "round %u %s: %u/%u completions "
                 "missing after 120 s simulated", round, phase, s->want[0],
                 s->want[1]);
        s->failed = true;
    }
    return !s->failed;
}

static bool setup(struct mwsim *s)
{
    struct rnic_admin_cmd c;
    unsigned q;

    for (q = 0; q < s->nq; q++) {
        struct mwq *m = &s->q[q];
        struct simdev *a = s->sp.sd[0], *b = s->sp.sd[1];
        uint8_t *init = malloc(MR_LEN);
        uint64_t base = 0x10000000ull * (q + 1);

        m->shadow = malloc(MR_LEN);
        if (!init || !m->shadow ||
            sd_reg_mr(a, &m->src, A_SRC + (q << 12), SP_PDN,
                      RNIC_ACCESS_LOCAL_WRITE, base, MR_LEN, 0) ||
            sd_reg_mr(a, &m->dst, A_DST + (q << 12), SP_PDN,
                      RNIC_ACCESS_LOCAL_WRITE, base + MR_LEN, MR_LEN, 0) ||
            sd_reg_mr(a, &m->msg, A_MSG + (q << 12), SP_PDN,
                      RNIC_ACCESS_LOCAL_WRITE, base + 2 * MR_LEN, 4096, 0) ||
            sd_reg_mr(b, &m->bmr, B_MR + (q << 12), SP_PDN,
                      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND,
                      base + 0x123, MR_LEN, 0) ||
            sd_reg_mr(b, &m->brecv, B_RECV + (q << 12), SP_PDN,
                      RNIC_ACCESS_LOCAL_WRITE, base + 3 * MR_LEN, 4096, 0)) {
            free(init);
            snprintf(s->why, sizeof(s->why), "q%u: REG_MR: %.200s / %.200s", q,
                     a->err, b->err);
            return false;
        }
        splitmix64_fill(&s->rng, init, MR_LEN);
        sd_mr_write(b, &m->bmr, 0, init, MR_LEN);
        memcpy(m->shadow, init, MR_LEN);
        free(init);
        memset(&c, 0, sizeof(c));
        c.hdr.opcode = RNIC_CMD_ALLOC_MW;
        c.u.alloc_mw.stag = RNIC_STAG(B_MW_INDEX + q, 0);
        c.u.alloc_mw.pdn = SP_PDN;
        c.u.alloc_mw.type = RNIC_MW_TYPE_2;
        if (sd_cmd(b, &c)) {
            snprintf(s->why, sizeof(s->why), "q%u: ALLOC_MW: %s", q, b->err);
            return false;
        }
    }
    return true;
}

static bool round_run(struct mwsim *s, unsigned r)
{
    struct simdev *a = s->sp.sd[0], *b = s->sp.sd[1];
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe rw;
    unsigned q;

    /* B binds each window: a new key, a random range of its MR. */
    for (q = 0; q < s->nq; q++) {
        struct mwq *m = &s->q[q];

        m->win_len = 1 + rnd(s, MR_LEN / 2);
        m->win_off = rnd(s, MR_LEN - m->win_len + 1);
        m->mw = RNIC_STAG(B_MW_INDEX + q, r + 1);
        wqe(&w, RNIC_WR_BIND_MW, 1);
        w.op.bind_mw.mw_stag = m->mw;
        w.op.bind_mw.mr_stag = m->bmr.stag;
        w.op.bind_mw.va = m->bmr.iova + m->win_off;
        w.op.bind_mw.length = m->win_len;
        w.op.bind_mw.access = RNIC_ACCESS_REMOTE_READ |
                              RNIC_ACCESS_REMOTE_WRITE;
        sd_post_send(b, &s->sp.end[q][1].qp, &w);
        s->want[1]++;
    }
    if (!settle(s, "bind", r)) {
        return false;
    }
    /* A bound window holds its MR: DEREG_MR is refused, nothing changes. */
    if (!r && sd_destroy(b, RNIC_CMD_DEREG_MR, s->q[0].bmr.stag) !=
              RNIC_STS_BUSY) {
        return fail(s, "DEREG_MR of an MR with a window bound not BUSY", 0,
                    NULL);
    }
    /* A writes a stretch of the window, then reads the whole of it. */
    for (q = 0; q < s->nq; q++) {
        struct mwq *m = &s->q[q];
        uint64_t len = 1 + rnd(s, m->win_len), at = rnd(s,
                                                         m->win_len - len + 1);
        uint8_t *data = malloc(len);

        if (!data) {
            return fail(s, "no memory", q, NULL);
        }
        splitmix64_fill(&s->rng, data, len);
        sd_mr_write(a, &m->src, 0, data, len);
        memcpy(m->shadow + m->win_off + at, data, len);
        free(data);
        wqe(&w, RNIC_WR_WRITE, 2);
        w.hdr.count = 1;
        w.op.rdma.remote_addr = m->bmr.iova + m->win_off + at;
        w.op.rdma.rkey = m->mw;
        w.data.sge[0].addr = m->src.iova;
        w.data.sge[0].length = (uint32_t)len;
        w.data.sge[0].lkey = m->src.stag;
        sd_post_send(a, &s->sp.end[q][0].qp, &w);
        wqe(&w, RNIC_WR_READ, 3);
        w.hdr.count = 1;
        w.op.rdma.remote_addr = m->bmr.iova + m->win_off;
        w.op.rdma.rkey = m->mw;
        w.data.sge[0].addr = m->dst.iova;
        w.data.sge[0].length = (uint32_t)m->win_len;
        w.data.sge[0].lkey = m->dst.stag;
        sd_post_send(a, &s->sp.end[q][0].qp, &w);
        s->want[0] += 2;
    }
    if (!settle(s, "write/read", r)) {
        return false;
    }
    for (q = 0; q < s->nq; q++) {
        struct mwq *m = &s->q[q];
        uint8_t *got = malloc(MR_LEN);

        if (!got) {
            return fail(s, "no memory", q, NULL);
        }
        sd_mr_read(b, &m->bmr, 0, got, MR_LEN);
        if (memcmp(got, m->shadow, MR_LEN)) {
            free(got);
            return fail(s, "B's MR differs from its shadow", q, NULL);
        }
        sd_mr_read(a, &m->dst, 0, got, m->win_len);
        if (memcmp(got, m->shadow + m->win_off, m->win_len)) {
            free(got);
            return fail(s, "the Read did not return the window", q, NULL);
        }
        free(got);
    }
    /* Revoked: by B (LOCAL_INV) or by A (Send with Invalidate). */
    for (q = 0; q < s->nq; q++) {
        struct mwq *m = &s->q[q];

        if ((r + q) & 1) {
            memset(&rw, 0, sizeof(rw));
            rw.wr_id = 4;
            rw.num_sge = 1;
            rw.sge[0].addr = m->brecv.iova;
            rw.sge[0].length = 4096;
            rw.sge[0].lkey = m->brecv.stag;
            sd_post_recv(b, &s->sp.end[q][1].qp, &rw);
            wqe(&w, RNIC_WR_SEND_INV, 5);
            w.hdr.count = 1;
            w.hdr.ex = m->mw;
            w.data.sge[0].addr = m->msg.iova;
            w.data.sge[0].length = 16;
            w.data.sge[0].lkey = m->msg.stag;
            sd_post_send(a, &s->sp.end[q][0].qp, &w);
            s->want[0]++;
            s->want[1]++;
        } else {
            wqe(&w, RNIC_WR_LOCAL_INV, 6);
            w.hdr.ex = m->mw;
            sd_post_send(b, &s->sp.end[q][1].qp, &w);
            s->want[1]++;
        }
    }
    if (!settle(s, "invalidate", r)) {
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    static struct mwsim S;
    struct mwsim *s = &S;
    struct sp_opts po;
    uint64_t seed = 1;
    unsigned rounds = 6, r, q;
    double loss = 0.02;
    int i, side, rc = 0;

    s->nq = 4;
    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed")) {
            seed = strtoull(argv[i + 1], NULL, 0);
        } else if (!strcmp(argv[i], "--qps")) {
            s->nq = (unsigned)atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--rounds")) {
            rounds = (unsigned)atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--loss")) {
            loss = atof(argv[i + 1]);
        } else {
            fprintf(stderr, "usage: iwarp-mw [--seed N] [--qps N] "
                    "[--rounds N] [--loss P]\n");
            return 2;
        }
    }
    if (s->nq < 1 || s->nq > SP_MAX_QP || rounds > 250) {
        fprintf(stderr, "iwarp-mw: 1..%u QPs, at most 250 rounds\n",
                SP_MAX_QP);
        return 2;
    }
    s->rng = seed * 0x9e3779b97f4a7c15ull + 7;
    memset(&po, 0, sizeof(po));
    po.nqp = s->nq;
    po.mpa_rev = 2;
    po.mpa_flags = RNIC_MPA_CRC;
    po.ird = po.ord = 8;
    po.sq_log = 6;
    po.rq_log = 4;
    po.cq_log = 7;
    po.mtu = 1500;
    po.mem_size = (16ull << 20) + (uint64_t)s->nq * 6 * MR_LEN;
    s->q = calloc(s->nq, sizeof(*s->q));
    if (!s->q || !sp_init(&s->sp, &po, seed)) {
        printf("seed %" PRIu64 ": FAIL: %s\n", seed, s->sp.err);
        sp_fini(&s->sp);
        return 1;
    }
    for (side = 0; side < 2; side++) {
        s->sp.sl.p[side].loss = loss;
        s->sp.sl.p[side].dup = loss / 2;
        s->sp.sl.p[side].reorder = loss / 2;
        s->sp.sl.p[side].reorder_ns = 2 * SL_MS;
    }
    if (!sp_connect(&s->sp) || !setup(s)) {
        printf("seed %" PRIu64 ": FAIL: %s%s\n", seed, s->sp.err, s->why);
        rc = 1;
        goto out;
    }
    for (r = 0; r < rounds && !s->failed; r++) {
        round_run(s, r);
    }
    /* Every window was revoked: the MRs go, and the windows. */
    for (q = 0; q < s->nq && !s->failed; q++) {
        if (sd_destroy(s->sp.sd[1], RNIC_CMD_DEREG_MR, s->q[q].bmr.stag) ||
            sd_destroy(s->sp.sd[1], RNIC_CMD_DEALLOC_MW, s->q[q].mw)) {
            snprintf(s->why, sizeof(s->why), "q%u: %s", q,
                     s->sp.sd[1]->err);
            s->failed = true;
        }
    }
    if (!s->failed && !sp_disconnect(&s->sp)) {
        snprintf(s->why, sizeof(s->why), "%.400s", s->sp.err);
        s->failed = true;
    }
    for (side = 0; side < 2 && !s->failed; side++) {
        if (sd_check_guards(s->sp.sd[side]) || s->sp.sd[side]->st.dma_faults) {
            snprintf(s->why, sizeof(s->why), "side %c wrote outside its "
                     "buffers", 'A' + side);
            s->failed = true;
        }
    }
    if (s->failed) {
        printf("seed %" PRIu64 ": FAIL: %s\n", seed, s->why);
        printf("rerun: iwarp-mw --seed %" PRIu64 " --qps %u --rounds %u "
               "--loss %g\n", seed, s->nq, rounds, loss);
        rc = 1;
    } else {
        printf("seed %" PRIu64 ": ok: %u QPs x %u rounds of bind, Write, "
               "Read, revoke; %" PRIu64 " frames lost, %" PRIu64
               " duplicated, %" PRIu64 " reordered\n", seed, s->nq, rounds,
               s->sp.sl.st[0].lost + s->sp.sl.st[1].lost,
               s->sp.sl.st[0].duplicated + s->sp.sl.st[1].duplicated,
               s->sp.sl.st[0].reordered + s->sp.sl.st[1].reordered);
    }
out:
    for (q = 0; q < s->nq; q++) {
        free(s->q[q].shadow);
    }
    free(s->q);
    sp_fini(&s->sp);
    return rc;
}
