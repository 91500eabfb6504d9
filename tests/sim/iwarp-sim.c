// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iWARP workloads between two simulated rnics (simpair) over a seeded,
 * possibly lossy link.  Each round, every QP runs a random mix of work
 * requests in both directions (Send, Send with SE / Invalidate / Immediate,
 * RDMA Write [with Immediate], RDMA Read, FetchAdd, CompareSwap), with up to
 * the device's SGE limits and sizes from 0 B up to --max-size, then a
 * barrier Send.  Checked:
 *   - every completion: wr_id, opcode, status, qpn, byte_len, IMM/INV/SE
 *     flags and ex, send-queue completions in posting order;
 *   - received data byte-exact through the posted scatter list, and the
 *     rest of each receive buffer untouched;
 *   - RDMA Write targets, Read sinks and atomic targets byte-exact against
 *     a model (shadow) of the memory after each round;
 *   - a solicited event for the CQ armed with ARM_SOLICITED;
 *   - guard bytes around every registered region and in every hole of
 *     guest memory unchanged; no device DMA outside guest memory.
 * Ops the device does not offer are left out with a note; ops named with
 * --need make the run exit 77 ("skipped: not negotiated") instead.
 *
 *   iwarp-sim [--seed N | --seeds A-B] [--qps N] [--rounds N] [--ops N]
 *             [--max-size BYTES] [--big] [--sge N] [--ops-set LIST]
 *             [--need LIST] [--rev 1|2] [--crc 0|1] [--markers 0|1]
 *             [--srq] [--mtu N] [--loss P] [--dup P] [--reorder P]
 *             [--delay-us N] [--rate-mbps N] [--pcap FILE] [-v]
 *             [--force-features MASK]  (use features FEATURES does not list)
 *             [--pcap-corrupt N]  (capture only: damage the Nth data frame)
 *             [--want-frame N]  (the largest frame on the link >= N bytes)
 *             [--fpdu-range LO-HI]  (the largest ULPDU on the link in LO..HI)
 *             [--ack-batch]  (stretch ACKs, the device default; else an ACK
 *                             every 2nd segment)
 *             [--loopback]  (one device whose QPs connect to its own
 *                            listener: no frame of theirs may reach the wire)
 *             [--vlan TCI_A[,TCI_B]]  (over an 802.1Q VLAN: each guest sends
 *                            from a VLAN interface, A connects with that VLAN;
 *                            every frame on the link must carry its side's
 *                            tag; B's default TCI is A's VID with PCP 0)
 *             [--vlan-listen]  (B listens on its VLAN address with
 *                            RNIC_LISTEN_F_VLAN and TCI_B instead of 0.0.0.0)
 *             [--vlan-stray N]  (every Nth TCP frame A sends with data is
 *                            re-tagged to another VID on the link: B's flow
 *                            must not take it, it goes to B's L2 ring and TCP
 *                            sends the data again)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "simpair.h"
#include "splitmix64.h"

enum op {
    OP_SEND, OP_SEND_SE, OP_SEND_INV, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM,
    OP_READ, OP_FADD, OP_CSWAP, OP__N
};
static const char *const op_names[OP__N] = {
    "send", "sendse", "sendinv", "sendimm", "write", "writeimm", "read",
    "fadd", "cswap",
};

#define ATOM_AREA   4096u
#define ATOM_SLOTS  16u
#define MAX_ROUND_OPS 48

struct opts {
    uint64_t seed_lo, seed_hi;
    unsigned qps, rounds, ops;
    uint64_t max_size, max_send;
    bool big, srq, ack_batch, loopback;
    unsigned sge;
    unsigned ops_set, need;
    uint8_t rev;
    bool crc, markers;
    uint16_t mtu;
    double loss, dup, reorder;
    uint64_t delay_us, rate_mbps;
    const char *pcap;
    uint32_t force_features;    /* try features the device does not list */
    uint64_t pcap_corrupt;      /* damage the Nth data frame in the capture */
    uint32_t want_frame;        /* the largest frame must reach this */
    uint32_t fpdu_lo, fpdu_hi;  /* the largest ULPDU seen must lie within */
    bool vlan;
    uint16_t vlan_tci[2];       /* each side's 802.1Q TCI */
    unsigned vlan_stray;        /* re-tag every Nth data frame A sends */
    bool vlan_listen;           /* B listens on its VLAN address */
    int verbose;
};

struct piece {
    uint64_t off;               /* in the sender's src MR */
    uint32_t len;
};

struct exp_send {
    uint64_t wr_id;
    uint8_t opcode;
    int64_t byte_len;           /* -1: not checked */
    const char *what;
};

struct qend;

struct exp_recv {
    uint8_t opcode, flags;
    uint32_t ex;
    int64_t byte_len;           /* -1: not checked */
    const struct qend *from;    /* data source: from->src at pieces */
    struct piece *pieces;
    unsigned npieces;
    const char *what;
};

struct fifo {
    void *v;
    size_t head, n, cap, esize;
};

/* One end of one connection as the workload sees it. */
struct qend {
    struct simdev *sd;
    struct sp_end *e;
    int side;
    unsigned q;
    struct sd_mr src, wt, sink, inv;
    bool inv_usable;
    uint8_t inv_key;
    uint8_t *wt_shadow, *sink_shadow;
    struct fifo sexp, rexp;
    uint64_t next_wrid;
    bool se_armed;
    uint32_t se_base;
};

/* Receive buffers of one device, handed to RQ/SRQ WQEs as slots. */
struct slot {
    struct rnic_sge sge[RNIC_RQ_MAX_SGE];
    unsigned nsge;
    uint32_t seq;
};

struct rpool {
    struct sd_mr mr;
    uint32_t slot_size, nslots;
    uint32_t *free;
    uint32_t nfree;
    struct slot *slots;
};

struct sim {
    struct opts o;
    struct rne_dev_config devcfg;       /* ack_batch from --ack-batch */
    struct simpair sp;
    struct qend qe[SP_MAX_QP][2];
    struct rpool pool[2];
    uint64_t S;                 /* per-QP region size */
    uint64_t rng;
    unsigned enabled;           /* ops usable */
    bool failed;
    char why[1024];
    uint64_t count[OP__N], bytes;
    uint32_t max_frame, max_ulpdu;      /* seen on the link (wire_tap) */
    /* --vlan: frames seen, tagged wrongly, re-tagged by --vlan-stray */
    uint64_t vlan_frames, vlan_bad, vlan_data_a, vlan_strays;
    bool vlan_armed;            /* connected: strays may go */
    char vlan_why[160];
};

static uint64_t rnd(struct sim *s)
{
    return splitmix64_next(&s->rng);
}

static uint64_t rnd_range(struct sim *s, uint64_t lo, uint64_t hi)
{
    return hi <= lo ? lo : lo + rnd(s) % (hi - lo + 1);
}

static bool failf(struct sim *s, const char *fmt, ...)
{
    va_list ap;

    if (s->failed) {
        return false;
    }
    s->failed = true;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof(s->why), fmt, ap);
    va_end(ap);
    return false;
}

static void *fifo_push(struct fifo *f)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->v = realloc(f->v, f->cap * f->esize);
        if (!f->v) {
            abort();
        }
    }
    return (char *)f->v + f->esize * f->n++;
}

static void *fifo_head(struct fifo *f)
{
    return f->head < f->n ? (char *)f->v + f->esize * f->head : NULL;
}

static void fifo_pop(struct fifo *f)
{
    if (++f->head == f->n) {
        f->head = f->n = 0;
    }
}

static uint8_t src_byte(int side, unsigned q, uint64_t i)
{
    return (uint8_t)((i * 0x9e37u) ^ (q * 131u) ^ ((i >> 9) * 7u) ^
                     (i >> 17) ^ (uint64_t)(side * 0x55));
}

/* ---- set-up ---- */

static unsigned parse_ops(const char *list)
{
    unsigned m = 0, i;
    char buf[256], *tok, *save = NULL;

    snprintf(buf, sizeof(buf), "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (i = 0; i < OP__N; i++) {
            if (!strcmp(tok, op_names[i])) {
                m |= 1u << i;
                break;
            }
        }
        if (!strcmp(tok, "all")) {
            m |= (1u << OP__N) - 1;
        } else if (i == OP__N) {
            fprintf(stderr, "iwarp-sim: unknown op '%s'\n", tok);
            exit(2);
        }
    }
    return m;
}

/* STag index of side's region idx: B's follow A's on a loopback device. */
static uint32_t six(const struct sim *s, int side, uint32_t idx)
{
    return s->o.loopback && side ? idx + 4 * s->o.qps + 16 : idx;
}

static bool reg(struct sim *s, struct simdev *sd, struct sd_mr *mr,
                uint32_t stag, uint32_t access, uint64_t iova, uint64_t len)
{
    int st = sd_reg_mr(sd, mr, stag, SP_PDN, access, iova, len,
                       (rnd(s) & 1) ? 2 : 0);

    return st ? failf(s, "%s: %s", sd->name, sd->err) : true;
}

static bool setup_memory(struct sim *s)
{
    unsigned q;
    int side;

    for (side = 0; side < 2; side++) {
        struct rpool *p = &s->pool[side];
        struct simdev *sd = s->sp.sd[side];
        uint32_t i;

        p->slot_size = (uint32_t)(s->o.max_send ? s->o.max_send : 1);
        if (!reg(s, sd, &p->mr, RNIC_STAG(six(s, side, 1), 0x11), RNIC_ACCESS_LOCAL_WRITE,
                 0x10000000ull, (uint64_t)p->slot_size * p->nslots)) {
            return false;
        }
        p->free = calloc(p->nslots, sizeof(*p->free));
        p->slots = calloc(p->nslots, sizeof(*p->slots));
        for (i = 0; i < p->nslots; i++) {
            p->free[i] = p->nslots - 1 - i;
        }
        p->nfree = p->nslots;
    }
    for (q = 0; q < s->o.qps; q++) {
        for (side = 0; side < 2; side++) {
            struct qend *qe = &s->qe[q][side];
            struct simdev *sd = s->sp.sd[side];
            /* regions start anywhere in a page (the first byte offset) */
            uint64_t base = 0x7f0000000000ull + (uint64_t)q * 0x100000000ull +
                            (rnd(s) % 2 ? (rnd(s) % RNIC_PAGE_SIZE) & ~7ull : 0);
            uint8_t *buf;
            uint64_t i;

            qe->sd = sd;
            qe->e = &s->sp.end[q][side];
            qe->side = side;
            qe->q = q;
            qe->sexp.esize = sizeof(struct exp_send);
            qe->rexp.esize = sizeof(struct exp_recv);
            qe->next_wrid = ((uint64_t)side << 56) | ((uint64_t)q << 40) | 1;
            if (!reg(s, sd, &qe->src, RNIC_STAG(six(s, side, 16 + 4 * q), 0x21 + q),
                     RNIC_ACCESS_REMOTE_READ, base, s->S) ||
                !reg(s, sd, &qe->wt, RNIC_STAG(six(s, side, 17 + 4 * q), 0x42),
                     RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
                     RNIC_ACCESS_REMOTE_ATOMIC, base + 0x40000000ull,
                     s->S + ATOM_AREA) ||
                !reg(s, sd, &qe->sink, RNIC_STAG(six(s, side, 18 + 4 * q), 0x63),
                     RNIC_ACCESS_LOCAL_WRITE, base + 0x80000000ull, s->S)) {
                return false;
            }
            buf = malloc(s->S);
            for (i = 0; i < s->S; i++) {
                buf[i] = src_byte(side, q, i);
            }
            sd_mr_write(sd, &qe->src, 0, buf, s->S);
            free(buf);
            qe->wt_shadow = calloc(1, s->S + ATOM_AREA);
            qe->sink_shadow = calloc(1, s->S);
            if (s->enabled & (1u << OP_SEND_INV)) {
                int st = sd_alloc_mr(sd, &qe->inv, RNIC_STAG(six(s, side, 19 + 4 * q), 1),
                                     SP_PDN, 2);

                if (st) {
                    return failf(s, "%s: %s", sd->name, sd->err);
                }
                qe->inv_key = 1;
            }
        }
    }
    return true;
}

/* ---- posting ---- */

static uint64_t pick_size(struct sim *s, uint64_t max)
{
    uint64_t r = rnd(s) % 100, n;

    if (r < 4) {
        n = 0;
    } else if (r < 30) {
        n = rnd_range(s, 1, 64);
    } else if (r < 60) {
        n = rnd_range(s, 65, 4096);
    } else if (r < 85) {
        n = rnd_range(s, 4097, 65536);
    } else {
        unsigned bits = (unsigned)rnd_range(s, 12, 24);

        n = rnd_range(s, 1, 1ull << bits);
    }
    return n > max ? max : n;
}

/* Split len bytes into 1..maxn pieces at random offsets of a region. */
static unsigned split(struct sim *s, uint64_t len, unsigned maxn,
                      uint64_t region, struct piece *out, uint64_t align)
{
    unsigned n, i;
    uint64_t left = len;

    if (!len) {
        return 0;
    }
    n = (unsigned)rnd_range(s, 1, maxn);
    if (n > len) {
        n = (unsigned)len;
    }
    for (i = 0; i < n; i++) {
        uint64_t l = i == n - 1 ? left :
                     rnd_range(s, 1, left - (n - 1 - i));

        out[i].len = (uint32_t)l;
        out[i].off = rnd_range(s, 0, region - l) & ~(align - 1);
        left -= l;
    }
    return n;
}

static void fill_sges(struct rnic_sq_wqe *w, const struct sd_mr *mr,
                      const struct piece *p, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        w->data.sge[i].addr = mr->iova + p[i].off;
        w->data.sge[i].length = p[i].len;
        w->data.sge[i].lkey = mr->stag;
    }
    w->hdr.count = (uint16_t)n;
}

static void expect_send(struct qend *qe, uint64_t wr_id, uint8_t opcode,
                        int64_t byte_len, const char *what)
{
    struct exp_send *x = fifo_push(&qe->sexp);

    x->wr_id = wr_id;
    x->opcode = opcode;
    x->byte_len = byte_len;
    x->what = what;
}

static void post_recv_slot(struct sim *s, struct qend *r)
{
    struct rpool *p = &s->pool[r->side];
    struct rnic_rq_wqe w;
    struct slot *sl;
    uint32_t idx, i, left = p->slot_size, n;
    uint64_t off;
    uint8_t *fill;

    if (!p->nfree) {
        failf(s, "receive pool of %s exhausted", r->sd->name);
        return;
    }
    idx = p->free[--p->nfree];
    sl = &p->slots[idx];
    sl->seq++;
    /* 1..7 SGEs covering the slot in a shuffled order of chunks */
    n = (uint32_t)rnd_range(s, 1, RNIC_RQ_MAX_SGE);
    if (n > p->slot_size) {
        n = p->slot_size ? p->slot_size : 1;
    }
    {
        uint32_t len[RNIC_RQ_MAX_SGE], offs[RNIC_RQ_MAX_SGE], perm[RNIC_RQ_MAX_SGE];
        uint32_t pos = 0;

        for (i = 0; i < n; i++) {
            len[i] = i == n - 1 ? left :
                     (uint32_t)rnd_range(s, left ? 1 : 0, left - (n - 1 - i));
            left -= len[i];
            perm[i] = i;
        }
        for (i = n; i > 1; i--) {
            uint32_t j = (uint32_t)(rnd(s) % i), t = perm[i - 1];

            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        for (i = 0; i < n; i++) {       /* chunk perm[i] placed i-th */
            offs[perm[i]] = pos;
            pos += len[perm[i]];
        }
        for (i = 0; i < n; i++) {
            sl->sge[i].addr = p->mr.iova + (uint64_t)idx * p->slot_size +
                              offs[i];
            sl->sge[i].length = len[i];
            sl->sge[i].lkey = p->mr.stag;
        }
    }
    sl->nsge = n;
    /* fill the slot with a filler the device must leave beyond the data */
    off = (uint64_t)idx * p->slot_size;
    fill = malloc(p->slot_size ? p->slot_size : 1);
    for (i = 0; i < p->slot_size; i++) {
        fill[i] = (uint8_t)(0xc3 ^ (i * 29) ^ sl->seq);
    }
    sd_mr_write(r->sd, &p->mr, off, fill, p->slot_size);
    free(fill);
    memset(&w, 0, sizeof(w));
    w.wr_id = ((uint64_t)sl->seq << 32) | idx;
    w.num_sge = (uint16_t)n;
    memcpy(w.sge, sl->sge, sizeof(sl->sge[0]) * n);
    if (s->o.srq) {
        sd_post_srq(r->sd, &s->sp.srq[r->side], &w);
    } else {
        sd_post_recv(r->sd, &r->e->qp, &w);
    }
}

struct plan {
    enum op op;
    uint64_t size;
    bool se, signaled;
};

static void post_op(struct sim *s, struct qend *a, struct qend *b,
                    const struct plan *pl)
{
    struct rnic_sq_wqe w;
    struct piece pc[RNIC_SQ_MAX_SGE];
    unsigned n = 0, i;
    uint64_t wr_id = a->next_wrid++, ro;
    uint8_t wc = RNIC_WC_SEND;
    int64_t blen = -1;
    bool recv = false;
    struct exp_recv *x = NULL;
    uint32_t imm = (uint32_t)rnd(s);

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.flags = (uint8_t)((pl->signaled ? RNIC_WQE_SIGNALED : 0) |
                            (pl->se ? RNIC_WQE_SOLICITED : 0));
    s->count[pl->op]++;
    s->bytes += pl->size;
    switch (pl->op) {
    case OP_SEND:
    case OP_SEND_SE:
    case OP_SEND_INV:
    case OP_SEND_IMM:
        w.hdr.opcode = pl->op == OP_SEND_INV ? RNIC_WR_SEND_INV :
                       pl->op == OP_SEND_IMM ? RNIC_WR_SEND_IMM : RNIC_WR_SEND;
        n = split(s, pl->size, s->o.sge, s->S, pc, 1);
        fill_sges(&w, &a->src, pc, n);
        recv = true;
        break;
    case OP_WRITE:
    case OP_WRITE_IMM:
        w.hdr.opcode = pl->op == OP_WRITE ? RNIC_WR_WRITE : RNIC_WR_WRITE_IMM;
        n = split(s, pl->size, s->o.sge, s->S, pc, 1);
        fill_sges(&w, &a->src, pc, n);
        ro = rnd_range(s, 0, s->S - pl->size);
        w.op.rdma.remote_addr = b->wt.iova + ro;
        w.op.rdma.rkey = b->wt.stag;
        for (i = 0; i < n; i++) {       /* the model of b's memory */
            uint64_t k;

            for (k = 0; k < pc[i].len; k++) {
                b->wt_shadow[ro + k] = src_byte(a->side, a->q, pc[i].off + k);
            }
            ro += pc[i].len;
        }
        wc = RNIC_WC_WRITE;
        recv = pl->op == OP_WRITE_IMM;
        break;
    case OP_READ:
        w.hdr.opcode = RNIC_WR_READ;
        n = split(s, pl->size, s->o.sge, s->S, pc, 1);
        fill_sges(&w, &a->sink, pc, n);
        ro = rnd_range(s, 0, s->S - pl->size);
        w.op.rdma.remote_addr = b->src.iova + ro;
        w.op.rdma.rkey = b->src.stag;
        for (i = 0; i < n; i++) {
            uint64_t k;

            for (k = 0; k < pc[i].len; k++) {
                a->sink_shadow[pc[i].off + k] = src_byte(b->side, b->q, ro + k);
            }
            ro += pc[i].len;
        }
        wc = RNIC_WC_READ;
        blen = (int64_t)pl->size;
        break;
    case OP_FADD:
    case OP_CSWAP: {
        uint64_t slot = rnd(s) % ATOM_SLOTS, orig, add = rnd(s), cmp, swp;
        uint8_t *t = b->wt_shadow + s->S + slot * 8;

        memcpy(&orig, t, 8);
        w.hdr.opcode = pl->op == OP_FADD ? RNIC_WR_ATOMIC_FADD :
                       RNIC_WR_ATOMIC_CSWAP;
        pc[0].len = 8;
        pc[0].off = rnd_range(s, 0, s->S / 8 - 1) * 8;
        n = 1;
        fill_sges(&w, &a->sink, pc, 1);
        w.op.atomic.remote_addr = b->wt.iova + s->S + slot * 8;
        w.op.atomic.rkey = b->wt.stag;
        if (pl->op == OP_FADD) {
            w.op.atomic.compare_add = add;
            orig += add;
            memcpy(t, &orig, 8);
            orig -= add;
            wc = RNIC_WC_ATOMIC_FADD;
        } else {
            cmp = (rnd(s) & 1) ? orig : rnd(s);
            swp = rnd(s);
            w.op.atomic.compare_add = cmp;
            w.op.atomic.swap = swp;
            if (orig == cmp) {
                memcpy(t, &swp, 8);
            }
            wc = RNIC_WC_ATOMIC_CSWAP;
        }
        memcpy(a->sink_shadow + pc[0].off, &orig, 8);
        break;
    }
    default:
        abort();
    }
    if (pl->op == OP_SEND_INV) {
        w.hdr.ex = b->inv.stag;
    } else if (pl->op == OP_SEND_IMM || pl->op == OP_WRITE_IMM) {
        w.hdr.ex = imm;
    }
    if (recv) {
        x = fifo_push(&b->rexp);
        memset(x, 0, sizeof(*x));
        x->what = op_names[pl->op];
        x->from = a;
        if (pl->op == OP_WRITE_IMM) {
            x->opcode = RNIC_WC_RECV_WRITE_IMM;
            x->byte_len = -1;   /* length of an RFC 7306 Write+ImmData: open */
        } else {
            x->opcode = RNIC_WC_RECV;
            x->byte_len = (int64_t)pl->size;
            x->npieces = n;
            x->pieces = malloc(sizeof(*pc) * (n ? n : 1));
            memcpy(x->pieces, pc, sizeof(*pc) * n);
        }
        if (pl->se) {
            x->flags |= RNIC_CQE_F_SOLICITED;
        }
        if (pl->op == OP_SEND_INV) {
            x->flags |= RNIC_CQE_F_INV;
            x->ex = b->inv.stag;
            b->inv_usable = false;
        } else if (pl->op == OP_SEND_IMM || pl->op == OP_WRITE_IMM) {
            x->flags |= RNIC_CQE_F_IMM;
            x->ex = imm;
        }
    }
    if (pl->signaled) {
        expect_send(a, wr_id, wc, blen, op_names[pl->op]);
    }
    if (s->o.verbose > 1) {
        printf("  q%u %c>%c %-8s %8" PRIu64 " B %u SGE%s%s wr 0x%" PRIx64 "\n",
               a->q, 'A' + a->side, 'A' + b->side, op_names[pl->op], pl->size,
               n, pl->se ? " SE" : "", pl->signaled ? "" : " unsignaled",
               wr_id);
    }
    sd_post_send(a->sd, &a->e->qp, &w);
}

/* ---- completions ---- */

static bool check_recv_data(struct sim *s, struct qend *r,
                            const struct exp_recv *x, uint32_t slot_idx,
                            uint32_t byte_len)
{
    struct rpool *p = &s->pool[r->side];
    struct slot *sl = &p->slots[slot_idx];
    uint64_t pos = 0;
    unsigned k;
    uint32_t pi = 0, po = 0;
    uint8_t *buf;

    for (k = 0; k < sl->nsge; k++) {
        uint64_t off = sl->sge[k].addr - p->mr.iova;
        uint32_t len = sl->sge[k].length, j;

        buf = malloc(len ? len : 1);
        sd_mr_read(r->sd, &p->mr, off, buf, len);
        for (j = 0; j < len; j++, pos++) {
            uint8_t want;

            if (pos < byte_len && x->pieces) {
                while (pi < x->npieces && po == x->pieces[pi].len) {
                    pi++;
                    po = 0;
                }
                want = src_byte(x->from->side, x->from->q,
                                x->pieces[pi].off + po);
                po++;
            } else if (pos < byte_len) {
                continue;
            } else {
                uint64_t in_slot = off + j - (uint64_t)slot_idx * p->slot_size;

                want = (uint8_t)(0xc3 ^ (in_slot * 29) ^ sl->seq);
            }
            if (buf[j] != want) {
                uint8_t got = buf[j];

                free(buf);
                return failf(s, "q%u %c: %s received data wrong at message "
                             "byte %" PRIu64 " of %u (SGE %u, 0x%02x != "
                             "0x%02x)%s", r->q, 'A' + r->side, x->what, pos,
                             byte_len, k, got, want, pos >= byte_len ?
                             ": written beyond the message" : "");
            }
        }
        free(buf);
    }
    return true;
}

static bool poll_send(struct sim *s, struct qend *qe)
{
    struct rnic_cqe c;

    while (sd_poll_cq(qe->sd, &qe->e->scq, &c)) {
        struct exp_send *x = fifo_head(&qe->sexp);

        if (!x) {
            return failf(s, "q%u %c: unexpected send CQE wr 0x%" PRIx64
                         " opcode %u status %s", qe->q, 'A' + qe->side,
                         (uint64_t)c.wr_id, c.opcode,
                         sd_wc_status_name(c.status));
        }
        if (c.status != RNIC_WC_SUCCESS || c.wr_id != x->wr_id ||
            c.opcode != x->opcode || c.qpn != qe->e->qp.qpn ||
            (x->byte_len >= 0 && c.byte_len != x->byte_len)) {
            return failf(s, "q%u %c: send CQE for %s wr 0x%" PRIx64 ": got wr "
                         "0x%" PRIx64 " opcode %u (want %u) status %s qpn %u "
                         "byte_len %u (want %" PRId64 ") vendor_err 0x%x",
                         qe->q, 'A' + qe->side, x->what, x->wr_id,
                         (uint64_t)c.wr_id, c.opcode, x->opcode,
                         sd_wc_status_name(c.status), c.qpn, c.byte_len,
                         x->byte_len, c.vendor_err);
        }
        fifo_pop(&qe->sexp);
    }
    return true;
}

static bool poll_recv(struct sim *s, struct qend *qe)
{
    struct rnic_cqe c;
    struct rpool *p = &s->pool[qe->side];

    while (sd_poll_cq(qe->sd, &qe->e->rcq, &c)) {
        struct exp_recv *x = fifo_head(&qe->rexp);
        uint32_t idx = (uint32_t)c.wr_id;
        bool ok;

        if (!x) {
            return failf(s, "q%u %c: unexpected receive CQE opcode %u status "
                         "%s", qe->q, 'A' + qe->side, c.opcode,
                         sd_wc_status_name(c.status));
        }
        if (c.status != RNIC_WC_SUCCESS || c.opcode != x->opcode ||
            c.qpn != qe->e->qp.qpn || idx >= p->nslots ||
            (uint32_t)(c.wr_id >> 32) != p->slots[idx].seq ||
            (x->byte_len >= 0 && c.byte_len != x->byte_len) ||
            (c.flags & 7) != x->flags ||
            ((x->flags & (RNIC_CQE_F_IMM | RNIC_CQE_F_INV)) && c.ex != x->ex)) {
            return failf(s, "q%u %c: receive CQE for %s: opcode %u (want %u) "
                         "status %s qpn %u wr 0x%" PRIx64 " byte_len %u (want "
                         "%" PRId64 ") flags 0x%x (want 0x%x) ex 0x%x (want "
                         "0x%x) vendor_err 0x%x", qe->q, 'A' + qe->side,
                         x->what, c.opcode, x->opcode,
                         sd_wc_status_name(c.status), c.qpn,
                         (uint64_t)c.wr_id, c.byte_len, x->byte_len, c.flags,
                         x->flags, c.ex, x->ex, c.vendor_err);
        }
        ok = x->opcode != RNIC_WC_RECV ||
             check_recv_data(s, qe, x, idx, c.byte_len);
        free(x->pieces);
        fifo_pop(&qe->rexp);
        p->free[p->nfree++] = idx;
        if (!ok) {
            return false;
        }
    }
    return true;
}

static bool check_async(struct sim *s)
{
    int side;

    for (side = 0; side < 2; side++) {
        struct simdev *sd = s->sp.sd[side];
        unsigned i;

        sd_poll_events(sd);
        for (i = 0; i < sd->async_n; i++) {
            if (sd->asyncq[i].code != RNIC_ASYNC_PORT_UP) {
                return failf(s, "%s: async event %u on object %u (info 0x%x)",
                             sd->name, sd->asyncq[i].code, sd->asyncq[i].obj,
                             sd->asyncq[i].info);
            }
        }
    }
    return true;
}

static bool all_done(void *ctx)
{
    struct sim *s = ctx;
    unsigned q;
    int side;
    bool done = true;

    for (q = 0; q < s->o.qps && !s->failed; q++) {
        for (side = 0; side < 2; side++) {
            struct qend *qe = &s->qe[q][side];

            if (!poll_send(s, qe) || !poll_recv(s, qe)) {
                return true;
            }
            done &= !fifo_head(&qe->sexp) && !fifo_head(&qe->rexp);
        }
    }
    if (!check_async(s)) {
        return true;
    }
    return done || s->failed;
}

static bool wait_all(struct sim *s, const char *phase, unsigned round)
{
    if (!sl_run(&s->sp.sl, all_done, s, 600 * SL_SEC) && !s->failed) {
        unsigned q;
        int side;
        char *w = s->why;

        s->failed = true;
        w += snprintf(w, 200, "round %u %s: completions missing after 600 s "
                      "simulated:", round, phase);
        for (q = 0; q < s->o.qps; q++) {
            for (side = 0; side < 2; side++) {
                struct qend *qe = &s->qe[q][side];
                struct exp_send *xs = fifo_head(&qe->sexp);
                struct exp_recv *xr = fifo_head(&qe->rexp);

                if ((xs || xr) && w < s->why + sizeof(s->why) - 120) {
                    w += snprintf(w, 120, " q%u %c: send %zu (next %s) recv "
                                  "%zu (next %s);", q, 'A' + side,
                                  qe->sexp.n - qe->sexp.head,
                                  xs ? xs->what : "-",
                                  qe->rexp.n - qe->rexp.head,
                                  xr ? xr->what : "-");
                }
            }
        }
    }
    return !s->failed;
}

/* ---- rounds ---- */

static bool verify_round(struct sim *s, unsigned round)
{
    unsigned q;
    int side;
    uint8_t *buf = malloc(s->S + ATOM_AREA);

    for (q = 0; q < s->o.qps && !s->failed; q++) {
        for (side = 0; side < 2 && !s->failed; side++) {
            struct qend *qe = &s->qe[q][side];
            uint64_t i;

            sd_mr_read(qe->sd, &qe->wt, 0, buf, s->S + ATOM_AREA);
            for (i = 0; i < s->S + ATOM_AREA; i++) {
                if (buf[i] != qe->wt_shadow[i]) {
                    failf(s, "round %u q%u %c: %s target byte %" PRIu64
                          " is 0x%02x, want 0x%02x", round, q, 'A' + side,
                          i < s->S ? "RDMA Write" : "atomic", i, buf[i],
                          qe->wt_shadow[i]);
                    break;
                }
            }
            sd_mr_read(qe->sd, &qe->sink, 0, buf, s->S);
            for (i = 0; i < s->S && !s->failed; i++) {
                if (buf[i] != qe->sink_shadow[i]) {
                    failf(s, "round %u q%u %c: Read/atomic sink byte %" PRIu64
                          " is 0x%02x, want 0x%02x", round, q, 'A' + side, i,
                          buf[i], qe->sink_shadow[i]);
                }
            }
            if (qe->se_armed &&
                s->sp.sd[side]->comp_events[qe->e->rcq.cqn % 64] ==
                qe->se_base) {
                failf(s, "round %u q%u %c: CQ %u armed for solicited events "
                      "got a solicited Send but raised no event", round, q,
                      'A' + side, qe->e->rcq.cqn);
            }
            qe->se_armed = false;
        }
    }
    free(buf);
    return !s->failed;
}

static enum op pick_op(struct sim *s)
{
    for (;;) {
        enum op op = (enum op)(rnd(s) % OP__N);

        if (s->enabled & (1u << op)) {
            return op;
        }
    }
}

static bool consumes_recv(enum op op)
{
    return op <= OP_SEND_IMM || op == OP_WRITE_IMM;
}

static bool run_round(struct sim *s, unsigned round)
{
    static struct plan plans[SP_MAX_QP][2][MAX_ROUND_OPS + 1];
    static unsigned nplan[SP_MAX_QP][2];
    unsigned q, i, rcap = s->pool[0].nslots / s->o.qps;
    int d;

    /* plan both directions of every QP */
    for (q = 0; q < s->o.qps; q++) {
        for (d = 0; d < 2; d++) {
            struct plan *p = plans[q][d];
            unsigned nrecv = 0, n = 0;
            bool inv_used = false;

            for (i = 0; i < s->o.ops; i++) {
                struct plan pl;

                memset(&pl, 0, sizeof(pl));
                pl.op = pick_op(s);
                if (s->o.big && round == 0 && d == 0 && i < 3) {
                    pl.op = i == 0 ? OP_WRITE : i == 1 ? OP_READ : OP_SEND;
                }
                if (consumes_recv(pl.op) && nrecv + 1 >= rcap) {
                    pl.op = (s->enabled & (1u << OP_WRITE)) ? OP_WRITE :
                            OP_READ;
                }
                if (pl.op == OP_SEND_INV && inv_used) {
                    pl.op = OP_SEND;
                }
                inv_used |= pl.op == OP_SEND_INV;
                nrecv += consumes_recv(pl.op);
                switch (pl.op) {
                case OP_FADD:
                case OP_CSWAP:
                    pl.size = 8;
                    break;
                case OP_WRITE:
                case OP_WRITE_IMM:
                case OP_READ:
                    pl.size = pick_size(s, s->S);
                    break;
                default:
                    pl.size = pick_size(s, s->pool[0].slot_size);
                }
                if (s->o.big && round == 0 && d == 0 && i < 3) {
                    pl.size = i == 2 ? s->pool[0].slot_size : s->S;
                }
                pl.se = pl.op == OP_SEND_SE ||
                        ((pl.op == OP_SEND_INV || pl.op == OP_SEND_IMM ||
                          pl.op == OP_WRITE_IMM) &&
                         rnd(s) % 2 == 0);
                pl.signaled = pl.op == OP_READ || pl.op == OP_FADD ||
                              pl.op == OP_CSWAP || rnd(s) % 5 != 0;
                p[n++] = pl;
            }
            /* barrier: a signaled Send after everything (placement order) */
            memset(&p[n], 0, sizeof(p[n]));
            p[n].op = OP_SEND;
            p[n].size = rnd_range(s, 0, 64);
            p[n].signaled = true;
            nplan[q][d] = ++n;
        }
    }
    /* receivers: post buffers, fast-register STags to be invalidated */
    for (q = 0; q < s->o.qps; q++) {
        for (d = 0; d < 2; d++) {
            struct qend *r = &s->qe[q][1 - d];
            bool inv = false, se = false;

            for (i = 0; i < nplan[q][d]; i++) {
                if (consumes_recv(plans[q][d][i].op)) {
                    post_recv_slot(s, r);
                }
                inv |= plans[q][d][i].op == OP_SEND_INV;
                se |= plans[q][d][i].se;
            }
            if (inv && !r->inv_usable) {
                struct rnic_sq_wqe w;

                r->inv_key++;
                sd_wqe_fastreg(r->sd, &r->inv, r->inv_key,
                               RNIC_ACCESS_LOCAL_WRITE |
                               RNIC_ACCESS_REMOTE_WRITE,
                               0x5000000000ull + ((uint64_t)q << 24), 8192,
                               &w);
                w.hdr.wr_id = r->next_wrid++;
                expect_send(r, w.hdr.wr_id, RNIC_WC_REG_MR, -1, "fast-reg");
                sd_post_send(r->sd, &r->e->qp, &w);
                r->inv_usable = true;
            }
            if (se) {
                r->se_armed = true;
                r->se_base = r->sd->comp_events[r->e->rcq.cqn % 64];
                sd_arm_cq(r->sd, &r->e->rcq, true);
            }
        }
    }
    if (s->failed || !wait_all(s, "fast-register", round)) {
        return false;
    }
    /* interleave the QPs' posting so that they run at once */
    for (i = 0; i <= MAX_ROUND_OPS; i++) {
        for (q = 0; q < s->o.qps; q++) {
            for (d = 0; d < 2; d++) {
                if (i < nplan[q][d]) {
                    post_op(s, &s->qe[q][d], &s->qe[q][1 - d],
                            &plans[q][d][i]);
                }
            }
        }
    }
    if (!wait_all(s, "work requests", round)) {
        return false;
    }
    return verify_round(s, round);
}

/*
 * On a link that loses, duplicates and reorders nothing, a retransmission is
 * spurious: QUERY_QP's TCP counters must stay at 0.
 */
static void check_retransmits(struct sim *s)
{
    unsigned q;
    int side;

    for (q = 0; q < s->o.qps && !s->failed; q++) {
        for (side = 0; side < 2; side++) {
            struct rnic_qp_attr at;
            int st = sd_query_qp(s->sp.sd[side], s->qe[q][side].e->qp.qpn, &at);

            if (st) {
                failf(s, "%s", s->sp.sd[side]->err);
                return;
            }
            if (s->o.verbose) {
                printf("  q%u %c: TCP retransmits %u, srtt %u us, snd_wnd %u\n",
                       q, 'A' + side, at.tcp.retransmits, at.tcp.srtt_us,
                       at.tcp.snd_wnd);
            }
            if (!s->o.loss && !s->o.dup && !s->o.reorder &&
                !s->o.vlan_stray && at.tcp.retransmits) {
                failf(s, "q%u %c: %u TCP retransmissions on a link that "
                      "loses, duplicates and reorders nothing", q, 'A' + side,
                      at.tcp.retransmits);
                return;
            }
        }
    }
}

static void free_sim(struct sim *s)
{
    unsigned q;
    int side;

    for (q = 0; q < SP_MAX_QP; q++) {
        for (side = 0; side < 2; side++) {
            struct qend *qe = &s->qe[q][side];

            while (fifo_head(&qe->rexp)) {
                free(((struct exp_recv *)fifo_head(&qe->rexp))->pieces);
                fifo_pop(&qe->rexp);
            }
            free(qe->sexp.v);
            free(qe->rexp.v);
            free(qe->wt_shadow);
            free(qe->sink_shadow);
        }
    }
    for (side = 0; side < 2; side++) {
        free(s->pool[side].free);
        free(s->pool[side].slots);
    }
}

/* Returns 0 pass, 1 fail, 77 skipped. */
/*
 * The largest frame and ULPDU on the link.  A TCP payload that is not an
 * MPA Request/Reply starts with an FPDU's ULPDU_Length (rnic aligns FPDUs
 * to segments; the runs that ask have no loss, so no resegmented
 * retransmission); the length counts only if the FPDU fits the payload.
 */
/*
 * --vlan: every frame either side sends carries one 802.1Q tag, its side's
 * TCI (VID and PCP); --vlan-stray re-tags some of A's data frames to VID + 1
 * after the check, for B's classifier to refuse.
 */
static void vlan_tap(struct sim *s, int from, uint8_t *f, size_t len,
                     size_t l3, bool data)
{
    uint16_t tci;

    s->vlan_frames++;
    if (l3 != 18) {
        if (!s->vlan_bad++) {
            snprintf(s->vlan_why, sizeof(s->vlan_why), "%c sent an untagged "
                     "frame (EtherType 0x%02x%02x, %zu bytes)", 'A' + from,
                     f[12], f[13], len);
        }
        return;
    }
    tci = (uint16_t)(f[14] << 8 | f[15]);
    if (tci != s->o.vlan_tci[from]) {
        if (!s->vlan_bad++) {
            snprintf(s->vlan_why, sizeof(s->vlan_why), "%c sent TCI 0x%04x, "
                     "want 0x%04x", 'A' + from, tci, s->o.vlan_tci[from]);
        }
        return;
    }
    if (from == 0 && data && s->o.vlan_stray && s->vlan_armed &&
        ++s->vlan_data_a % s->o.vlan_stray == 0) {
        tci = (uint16_t)((tci & 0xf000) | (((tci & 0xfff) + 1) & 0xfff));
        f[14] = (uint8_t)(tci >> 8);
        f[15] = (uint8_t)tci;
        s->vlan_strays++;
    }
}

static bool wire_tap(void *opaque, int from, uint8_t *f, size_t *lenp)
{
    struct sim *s = opaque;
    size_t len = *lenp, ihl, l3 = 14, l4, doff;
    uint32_t ulen;

    if (len > s->max_frame) {
        s->max_frame = (uint32_t)len;
    }
    if (len >= 18 && f[12] == 0x81 && f[13] == 0x00) {
        l3 = 18;
    }
    if (len < l3 + 20 + 20 || f[l3 - 2] != 0x08 || f[l3 - 1] != 0x00 ||
        f[l3 + 9] != 6) {
        if (s->o.vlan) {
            vlan_tap(s, from, f, len, l3, false);
        }
        return true;
    }
    ihl = (size_t)(f[l3] & 15) * 4;
    l4 = l3 + ihl;
    if (l4 + 20 > len) {
        return true;
    }
    doff = (size_t)(f[l4 + 12] >> 4) * 4;
    if (s->o.vlan) {
        vlan_tap(s, from, f, len, l3, l4 + doff < len);
    }
    if (l4 + doff + 2 > len || !memcmp(f + l4 + doff, "MPA ID Re", 9)) {
        return true;
    }
    ulen = (uint32_t)f[l4 + doff] << 8 | f[l4 + doff + 1];
    if (l4 + doff + 2 + ulen + 4 <= len && ulen > s->max_ulpdu) {
        s->max_ulpdu = ulen;
    }
    return true;
}

static int run_seed(const struct opts *o, uint64_t seed)
{
    static struct sim S;
    struct sim *s = &S;
    struct rnic_port_stats b_before, b_after;
    struct sp_opts po;
    uint32_t feat;
    unsigned q, r, rcap;
    int side, rc = 0;
    uint64_t guard_bad = 0;

    memset(s, 0, sizeof(*s));
    s->o = *o;
    s->rng = (seed + 1) * 0xd1342543de82ef95ull;   /* not a splitmix step */
    s->S = o->max_size < 4096 ? 4096 : o->max_size;
    rcap = o->ops + 2;
    memset(&po, 0, sizeof(po));
    po.nqp = o->qps;
    po.mpa_rev = o->rev;
    po.mpa_flags = (uint8_t)((o->crc ? RNIC_MPA_CRC : 0) |
                             (o->markers ? RNIC_MPA_MARKERS : 0));
    if (o->ops_set & ((1u << OP_FADD) | (1u << OP_CSWAP) |
                      (1u << OP_WRITE_IMM) | (1u << OP_SEND_IMM))) {
        po.mpa_flags |= RNIC_MPA_RFC7306;
    }
    po.ird = po.ord = 8;
    po.sq_log = 7;
    po.rq_log = 6;
    po.cq_log = 8;
    po.srq = o->srq;
    po.mtu = o->mtu;
    /* Stretch ACKs (the device's default) only with --ack-batch. */
    rne_dev_config_default(&s->devcfg);
    s->devcfg.ack_batch = o->ack_batch;
    if (o->mtu > s->devcfg.max_mtu) {
        s->devcfg.max_mtu = o->mtu;     /* a large-MTU device */
    }
    po.cfg = &s->devcfg;
    s->pool[0].nslots = s->pool[1].nslots = rcap * o->qps;
    po.mem_size = 16ull << 20;
    po.mem_size += (uint64_t)o->qps * (3 * s->S + ATOM_AREA + 64 * 1024) * 11 / 10;
    po.mem_size += (uint64_t)rcap * o->qps * (o->max_send + 4096) * 11 / 10;
    po.loopback = o->loopback;
    po.vlan = o->vlan;
    po.vlan_tci[0] = o->vlan_tci[0];
    po.vlan_tci[1] = o->vlan_tci[1];
    po.vlan_listen = o->vlan_listen;
    if (o->loopback) {
        po.mem_size *= 2;               /* both ends in one guest */
    }
    if (!sp_init(&s->sp, &po, seed)) {
        printf("seed %" PRIu64 ": FAIL: %s\n", seed, s->sp.err);
        sp_fini(&s->sp);
        return 1;
    }
    s->sp.sl.p[0].loss = s->sp.sl.p[1].loss = o->loss;
    s->sp.sl.p[0].dup = s->sp.sl.p[1].dup = o->dup;
    s->sp.sl.p[0].reorder = s->sp.sl.p[1].reorder = o->reorder;
    for (side = 0; side < 2; side++) {
        struct sl_params *p = &s->sp.sl.p[side];

        p->reorder_ns = 2 * SL_MS;
        p->delay_ns = o->delay_us * 1000;
        p->jitter_ns = o->delay_us * 200;
        p->rate_bps = o->rate_mbps * 1000000;
        p->qlimit_bytes = o->rate_mbps ? 4u << 20 : 0;
    }
    if (o->pcap && !sl_pcap(&s->sp.sl, o->pcap)) {
        printf("seed %" PRIu64 ": FAIL: cannot create %s\n", seed, o->pcap);
        sp_fini(&s->sp);
        return 1;
    }
    s->sp.sl.pcap_corrupt = o->pcap_corrupt;
    s->sp.sl.tap = wire_tap;
    s->sp.sl.tap_opaque = s;
    feat = s->sp.sd[0]->features | o->force_features;
    s->enabled = o->ops_set;
    if (!(feat & RNIC_FEAT_FRMR)) {
        s->enabled &= ~(1u << OP_SEND_INV);
    }
    if (!(feat & RNIC_FEAT_ATOMICS)) {
        s->enabled &= ~((1u << OP_FADD) | (1u << OP_CSWAP));
    }
    if (!(feat & RNIC_FEAT_IMM)) {
        s->enabled &= ~((1u << OP_WRITE_IMM) | (1u << OP_SEND_IMM));
    }
    if (!sp_connect(&s->sp)) {
        printf("seed %" PRIu64 ": FAIL: %s\n", seed, s->sp.err);
        if (s->vlan_bad) {
            printf("  and %s\n", s->vlan_why);
        }
        sp_fini(&s->sp);
        return 1;
    }
    /* from here on, B's L2 may see the re-tagged frames alone */
    if (sd_query_stats(s->sp.sd[1], &b_before)) {
        printf("seed %" PRIu64 ": FAIL: %s\n", seed, s->sp.sd[1]->err);
        sp_fini(&s->sp);
        return 1;
    }
    s->vlan_armed = true;
    if (!(s->sp.end[0][0].est.cm.mpa_flags & RNIC_MPA_RFC7306) ||
        !(s->sp.end[0][1].est.cm.mpa_flags & RNIC_MPA_RFC7306)) {
        s->enabled &= ~((1u << OP_FADD) | (1u << OP_CSWAP) |
                        (1u << OP_WRITE_IMM) | (1u << OP_SEND_IMM));
    }
    if (o->need & ~s->enabled) {
        printf("skipped: not negotiated:");
        for (r = 0; r < OP__N; r++) {
            if (o->need & ~s->enabled & (1u << r)) {
                printf(" %s", op_names[r]);
            }
        }
        printf(" (FEATURES 0x%x, negotiated MPA flags 0x%x)\n", feat,
               s->sp.end[0][0].est.cm.mpa_flags);
        sp_fini(&s->sp);
        return 77;
    }
    if (o->ops_set & ~s->enabled) {
        printf("note: not offered by the device, left out:");
        for (r = 0; r < OP__N; r++) {
            if (o->ops_set & ~s->enabled & (1u << r)) {
                printf(" %s", op_names[r]);
            }
        }
        printf("\n");
    }
    if (!(s->enabled & ((1u << OP_WRITE) | (1u << OP_READ)))) {
        s->enabled |= 1u << OP_SEND;
    }
    if (o->verbose) {
        printf("seed %" PRIu64 ": connected %u QPs, MPA rev %u flags A 0x%x B "
               "0x%x, IRD/ORD %u/%u\n", seed, o->qps,
               s->sp.end[0][0].est.cm.mpa_rev,
               s->sp.end[0][0].est.cm.mpa_flags,
               s->sp.end[0][1].est.cm.mpa_flags, s->sp.end[0][0].est.cm.ird,
               s->sp.end[0][0].est.cm.ord);
    }
    if (!setup_memory(s)) {
        goto out;
    }
    for (r = 0; r < o->rounds && !s->failed; r++) {
        if (o->verbose) {
            printf("round %u (t=%.3f s)\n", r,
                   (double)s->sp.sl.now / SL_SEC);
        }
        run_round(s, r);
    }
    if (!s->failed) {
        check_retransmits(s);
    }
    if (!s->failed && !sp_disconnect(&s->sp)) {
        failf(s, "%s", s->sp.err);
    }
    if (!s->failed && s->max_frame < o->want_frame) {
        failf(s, "largest frame %u bytes, want >= %u", s->max_frame,
              o->want_frame);
    }
    if (!s->failed && o->fpdu_hi &&
        (s->max_ulpdu < o->fpdu_lo || s->max_ulpdu > o->fpdu_hi)) {
        failf(s, "largest ULPDU %u bytes, want %u..%u", s->max_ulpdu,
              o->fpdu_lo, o->fpdu_hi);
    }
    if (!s->failed && o->vlan && s->vlan_bad) {
        failf(s, "vlan: %" PRIu64 " of %" PRIu64 " frames tagged wrongly; "
              "first: %s", s->vlan_bad, s->vlan_frames, s->vlan_why);
    }
    if (!s->failed && o->vlan_stray && !s->vlan_strays) {
        failf(s, "vlan-stray: no frame was re-tagged");
    }
    /* the re-tagged frames went to B's guest, none to its flows */
    if (!s->failed && o->vlan && sd_query_stats(s->sp.sd[1], &b_after)) {
        failf(s, "%s", s->sp.sd[1]->err);
    }
    if (!s->failed && o->vlan &&
        (b_after.rx_frames + b_after.rx_no_buffer) -
        (b_before.rx_frames + b_before.rx_no_buffer) != s->vlan_strays) {
        failf(s, "vlan: B's L2 received %" PRIu64 " frames since connecting, "
              "want the %" PRIu64 " re-tagged ones",
              (uint64_t)((b_after.rx_frames + b_after.rx_no_buffer) -
                         (b_before.rx_frames + b_before.rx_no_buffer)),
              s->vlan_strays);
    }
    if (!s->failed && o->loopback &&
        (s->sp.sl.st[0].sent != s->sp.wire_base ||
         !s->sp.sd[0]->dev.loop_frames || s->sp.sd[0]->dev.loop_dropped)) {
        failf(s, "loopback: %" PRIu64 " frames reached the wire, %" PRIu64
              " looped, %" PRIu64 " dropped (want 0, > 0, 0)",
              s->sp.sl.st[0].sent - s->sp.wire_base,
              s->sp.sd[0]->dev.loop_frames, s->sp.sd[0]->dev.loop_dropped);
    }
out:
    for (side = 0; side < 2; side++) {
        struct simdev *sd = s->sp.sd[side];

        guard_bad += sd_check_guards(sd);
        if (guard_bad && !s->failed) {
            failf(s, "%s: %" PRIu64 " guard bytes changed; first: %s",
                  sd->name, guard_bad, sd->err);
        }
        if (sd->st.dma_faults && !s->failed) {
            failf(s, "%s: %" PRIu64 " device DMA accesses outside guest memory",
                  sd->name, sd->st.dma_faults);
        }
    }
    rc = s->failed ? 1 : 0;
    if (s->failed || o->verbose) {
        const struct sl_stats *a = &s->sp.sl.st[0], *b = &s->sp.sl.st[1];

        printf("seed %" PRIu64 ": %s  %u QPs  %.3f s simulated  frames "
               "A>B %" PRIu64 " (lost %" PRIu64 " dup %" PRIu64 " reord %"
               PRIu64 ") B>A %" PRIu64 " (lost %" PRIu64 ")  guest errors %"
               PRIu64 "/%" PRIu64 "\n", seed, s->failed ? "FAIL" : "ok",
               o->qps, (double)s->sp.sl.now / SL_SEC, a->sent, a->lost,
               a->duplicated, a->reordered, b->sent, b->lost,
               s->sp.sd[0]->st.guest_errors, s->sp.sd[1]->st.guest_errors);
        printf("  ops:");
        for (q = 0; q < OP__N; q++) {
            printf(" %s=%" PRIu64, op_names[q], s->count[q]);
        }
        printf("  payload %" PRIu64 " bytes, largest frame %u, ULPDU %u\n",
               s->bytes, s->max_frame, s->max_ulpdu);
        if (o->vlan) {
            printf("  vlan: %" PRIu64 " frames checked, %" PRIu64
                   " tagged wrongly, %" PRIu64 " re-tagged\n", s->vlan_frames,
                   s->vlan_bad, s->vlan_strays);
        }
        if (s->failed) {
            printf("  FAILED: %s\n", s->why);
        }
    }
    free_sim(s);
    sp_fini(&s->sp);
    return rc;
}

static double num(const char *s)
{
    char *end;
    double v = strtod(s, &end);

    if (*end == 'K' || *end == 'k') {
        v *= 1024;
    } else if (*end == 'M') {
        v *= 1024 * 1024;
    }
    return v;
}

int main(int argc, char **argv)
{
    struct opts o;
    uint64_t seed;
    int i, fails = 0, skips = 0, n = 0;
    struct timespec t0, t1;

    memset(&o, 0, sizeof(o));
    o.seed_lo = o.seed_hi = 1;
    o.qps = 4;
    o.rounds = 3;
    o.ops = 12;
    o.max_size = 65536;
    o.sge = RNIC_SQ_MAX_SGE;
    o.ops_set = parse_ops("send,sendse,sendinv,write,read");
    o.rev = 2;
    o.crc = true;
    o.mtu = 1500;
    o.delay_us = 20;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "-v")) {
            o.verbose++;
            continue;
        }
        if (!strcmp(a, "--srq")) {
            o.srq = true;
            continue;
        }
        if (!strcmp(a, "--big")) {
            o.big = true;
            continue;
        }
        if (!strcmp(a, "--ack-batch")) {
            o.ack_batch = true;         /* stretch ACKs in both devices */
            continue;
        }
        if (!strcmp(a, "--loopback")) {
            o.loopback = true;
            continue;
        }
        if (!strcmp(a, "--vlan-listen")) {
            o.vlan_listen = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "iwarp-sim: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--seed")) {
            o.seed_lo = o.seed_hi = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--seeds")) {
            char *end;

            o.seed_lo = strtoull(v, &end, 0);
            o.seed_hi = *end == '-' ? strtoull(end + 1, NULL, 0) : o.seed_lo;
        } else if (!strcmp(a, "--qps")) {
            o.qps = (unsigned)num(v);
        } else if (!strcmp(a, "--rounds")) {
            o.rounds = (unsigned)num(v);
        } else if (!strcmp(a, "--ops")) {
            o.ops = (unsigned)num(v);
        } else if (!strcmp(a, "--max-size")) {
            o.max_size = (uint64_t)num(v);
        } else if (!strcmp(a, "--max-send")) {
            o.max_send = (uint64_t)num(v);
        } else if (!strcmp(a, "--sge")) {
            o.sge = (unsigned)num(v);
        } else if (!strcmp(a, "--ops-set")) {
            o.ops_set = parse_ops(v);
        } else if (!strcmp(a, "--need")) {
            o.need = parse_ops(v);
            o.ops_set |= o.need;
        } else if (!strcmp(a, "--rev")) {
            o.rev = (uint8_t)num(v);
        } else if (!strcmp(a, "--crc")) {
            o.crc = num(v) != 0;
        } else if (!strcmp(a, "--markers")) {
            o.markers = num(v) != 0;
        } else if (!strcmp(a, "--mtu")) {
            o.mtu = (uint16_t)num(v);
        } else if (!strcmp(a, "--loss")) {
            o.loss = num(v);
        } else if (!strcmp(a, "--dup")) {
            o.dup = num(v);
        } else if (!strcmp(a, "--reorder")) {
            o.reorder = num(v);
        } else if (!strcmp(a, "--delay-us")) {
            o.delay_us = (uint64_t)num(v);
        } else if (!strcmp(a, "--rate-mbps")) {
            o.rate_mbps = (uint64_t)num(v);
        } else if (!strcmp(a, "--force-features")) {
            o.force_features = (uint32_t)strtoul(v, NULL, 0);
        } else if (!strcmp(a, "--pcap-corrupt")) {
            o.pcap_corrupt = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--pcap")) {
            o.pcap = v;
        } else if (!strcmp(a, "--vlan")) {
            char *end;

            o.vlan = true;
            o.vlan_tci[0] = (uint16_t)strtoul(v, &end, 0);
            o.vlan_tci[1] = *end == ',' ? (uint16_t)strtoul(end + 1, NULL, 0)
                                        : (uint16_t)(o.vlan_tci[0] & 0xfff);
        } else if (!strcmp(a, "--vlan-stray")) {
            o.vlan_stray = (unsigned)num(v);
        } else if (!strcmp(a, "--want-frame")) {
            o.want_frame = (uint32_t)num(v);
        } else if (!strcmp(a, "--fpdu-range")) {
            char *end;

            o.fpdu_lo = (uint32_t)strtoul(v, &end, 0);
            o.fpdu_hi = *end == '-' ? (uint32_t)strtoul(end + 1, NULL, 0) : 0;
        } else {
            fprintf(stderr, "iwarp-sim: unknown option %s\n", a);
            return 2;
        }
    }
    if (!o.max_send || o.max_send > o.max_size) {
        o.max_send = o.max_size;
    }
    if (o.qps < 1 || o.qps > SP_MAX_QP || o.ops > MAX_ROUND_OPS ||
        o.sge < 1 || o.sge > RNIC_SQ_MAX_SGE || (o.rev != 1 && o.rev != 2)) {
        fprintf(stderr, "iwarp-sim: bad option value (qps 1..%d, ops <= %d, "
                "sge 1..%d, rev 1|2)\n", SP_MAX_QP, MAX_ROUND_OPS,
                RNIC_SQ_MAX_SGE);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (seed = o.seed_lo; seed <= o.seed_hi; seed++) {
        int rc = run_seed(&o, seed);

        n++;
        fails += rc == 1;
        skips += rc == 77;
        if (rc == 1) {
            printf("  rerun: iwarp-sim");
            for (i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--seeds") || !strcmp(argv[i], "--seed")) {
                    i++;
                    continue;
                }
                printf(" %s", argv[i]);
            }
            printf(" --seed %" PRIu64 " -v -v\n", seed);
        }
        if (rc == 77) {
            break;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("iwarp-sim: %d seed(s), %d failed%s, %.2f s wall\n", n, fails,
           skips ? ", skipped" : "",
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return fails ? 1 : skips ? 77 : 0;
}
