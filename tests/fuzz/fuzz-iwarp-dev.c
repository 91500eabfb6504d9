// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over a whole simulated rnic's iWARP path: a device
 * (tests/sim/simdev) listening with registered memory meets a raw peer
 * (tests/sim/rawpeer) whose side of the connection -- the MPA Request and
 * everything after it -- is the fuzzer's bytes, framed as FPDUs (valid CRC
 * and markers, so the input reaches DDP/RDMAP, placement and Terminate) or
 * raw, while the guest posts work, deregisters, destroys and resets.
 *
 * Input: cfg octet, then records [flags][len hi][len lo][len octets]:
 *   cfg bit 0 MPA CRC, bit 1 the device asks for markers, bit 2 the peer
 *   asks for markers, bit 3 MPA rev 1 (else 2), bit 4 the first record is
 *   the MPA Request itself (raw, with any bytes after it: the handshake is
 *   fuzzed, the guest accepts whatever arrives), bit 5 the guest rejects
 *   the connection instead, bits 6-7 with bit 4 clear: 0, 3, 7 or 11 more
 *   connections (own QPs, accepted) before the records -- up to 12 live;
 *   flags bit 0 raw stream bytes (else one FPDU around them), bit 1 let the
 *   device run before the next record, bits 2-4 a guest action before the
 *   record's bytes: 1 post a Send, 2 post an RDMA Read (sink in the receive
 *   MR: the peer may answer, or spoof, the Read Response), 3 post an atomic
 *   Fetch-Add (same sink), 4 deregister the remotely writable MR, 5
 *   destroy the QP, 6 reset the device, 7 abort the connection.
 *
 * Besides sanitizer reports it aborts when the device DMAs outside guest
 * memory, changes a guard byte, or changes any byte of guest memory other
 * than the remotely writable MR, the receive buffers and the queues it
 * writes by design: what a remote peer can reach, whatever it sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../sim/rawpeer.h"

#define VPORT 6000
#define T_IOVA 0x100000000ull   /* STag 0x00000a31, 64 KiB, remote R/W */
#define R_IOVA 0x600000000ull   /* STag 0x00000f36, receive buffers */
#define RO_IOVA 0x200000000ull  /* STag 0x00000b32, remote read only */
#define OP_IOVA 0x400000000ull  /* STag 0x00000d34, PD 2 */
#define MAX_QP 13               /* the first connection's, 12 more */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t p_ip[4] = { 10, 0, 0, 1 }, v_ip[4] = { 10, 0, 0, 2 };
static const uint8_t p_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

struct fz {
    struct simlink sl;
    struct rawpeer p;
    struct simdev *sd;
    struct sd_cq scq, rcq;
    struct sd_qp qp[MAX_QP];
    unsigned nqp, next_qp;      /* QPs created, QPs given to connections */
    struct sd_mr t, r, ro, op;
    bool established, rejected, dead, reject;
    uint32_t conn_id;           /* the first connection */
    unsigned extra_up;          /* more connections established */
    uint8_t mpa_flags;
};

static bool setup(struct fz *f, unsigned nqp)
{
    struct simdev *sd = f->sd;
    unsigned i;
    int s;

    s = sd_enable(sd, 1500);
    s = s ? s : sd_announce(sd, v_ip);
    s = s ? s : sd_create_pd(sd, 1);
    s = s ? s : sd_create_pd(sd, 2);
    s = s ? s : sd_create_cq(sd, &f->scq, 0, 6);
    s = s ? s : sd_create_cq(sd, &f->rcq, 1, 6);
    for (i = 0; i < nqp && !s; i++) {
        s = sd_create_qp(sd, &f->qp[i], 1 + i, 1, &f->scq, &f->rcq, NULL,
                         i ? 2 : 5, i ? 2 : 5);
        s = s ? s : sd_modify_qp_access(sd, 1 + i, RNIC_ACCESS_REMOTE_READ |
                                        RNIC_ACCESS_REMOTE_WRITE |
                                        RNIC_ACCESS_REMOTE_ATOMIC);
    }
    f->nqp = nqp;
    s = s ? s : sd_reg_mr(sd, &f->t, RNIC_STAG(10, 0x31), 1,
                          RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
                          RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC,
                          T_IOVA, 65536, 1);
    s = s ? s : sd_reg_mr(sd, &f->ro, RNIC_STAG(11, 0x32), 1,
                          RNIC_ACCESS_REMOTE_READ, RO_IOVA, 8192, 1);
    s = s ? s : sd_reg_mr(sd, &f->op, RNIC_STAG(13, 0x34), 2,
                          RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE,
                          OP_IOVA, 8192, 1);
    s = s ? s : sd_reg_mr(sd, &f->r, RNIC_STAG(15, 0x36), 1,
                          RNIC_ACCESS_LOCAL_WRITE, R_IOVA, 4 * 4096, 1);
    s = s ? s : sd_cm_listen(sd, 0, VPORT);
    if (s) {
        return false;
    }
    for (i = 0; i < 4; i++) {
        struct rnic_rq_wqe w;

        memset(&w, 0, sizeof(w));
        w.wr_id = i;
        w.num_sge = 1;
        w.sge[0].addr = R_IOVA + i * 4096;
        w.sge[0].length = 4096;
        w.sge[0].lkey = f->r.stag;
        sd_post_recv(sd, &f->qp[0], &w);
    }
    return true;
}

/* The guest's CM: each request gets the next QP (or a reject). */
static void cm_events(struct fz *f)
{
    struct sd_cm_event ev;

    if (f->dead) {
        return;
    }
    while (sd_cm_next(f->sd, &ev)) {
        if (ev.code == RNIC_CM_CONNECT_REQUEST) {
            if (f->next_qp == 0) {
                f->conn_id = ev.conn_id;
            }
            if ((f->next_qp == 0 && f->reject) || f->next_qp >= f->nqp) {
                sd_cm_reject(f->sd, ev.conn_id, "no", 2);
                f->rejected = true;
            } else {
                sd_cm_accept(f->sd, ev.conn_id, f->qp[f->next_qp].qpn, 4, 4,
                             f->mpa_flags, NULL, 0);
            }
            f->next_qp++;
        } else if (ev.code == RNIC_CM_ESTABLISHED) {
            if (ev.conn_id == f->conn_id) {
                f->established = true;
            } else {
                f->extra_up++;
            }
        }
    }
}

static bool established(void *ctx)
{
    struct fz *f = ctx;

    cm_events(f);
    return (f->established && f->p.have_reply) || f->p.err[0];
}

/* A fuzzed handshake ends in a Reply, a reject or a closed connection. */
static bool handshake_over(void *ctx)
{
    struct fz *f = ctx;

    cm_events(f);
    return f->p.have_reply || f->p.err[0] || f->p.closed || !f->p.c;
}

static bool extras_up(void *ctx)
{
    struct fz *f = ctx;

    cm_events(f);
    return f->extra_up == f->p.nextra;
}

static bool idle(void *ctx)
{
    struct fz *f = ctx;
    struct rnic_cqe c;

    /* keep the CQs drained like a driver; stop once the link is quiet */
    cm_events(f);
    while (!f->dead && (sd_poll_cq(f->sd, &f->rcq, &c) ||
                        sd_poll_cq(f->sd, &f->scq, &c))) {
    }
    return sl_in_flight(&f->sl) == 0;
}

/* A guest action in the middle of the traffic (flags bits 2-4). */
static void guest_action(struct fz *f, unsigned what)
{
    struct simdev *sd = f->sd;
    struct rnic_sq_wqe w;

    if (f->dead || !what) {
        return;
    }
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = what;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    switch (what) {
    case 1:
        w.hdr.opcode = RNIC_WR_SEND;
        w.data.sge[0].addr = T_IOVA;
        w.data.sge[0].length = 64;
        w.data.sge[0].lkey = f->t.stag;
        sd_post_send(sd, &f->qp[0], &w);
        break;
    case 2:
        w.hdr.opcode = RNIC_WR_READ;
        w.op.rdma.remote_addr = 0x5000;
        w.op.rdma.rkey = 0x1234;
        w.data.sge[0].addr = R_IOVA + 4096;
        w.data.sge[0].length = 256;
        w.data.sge[0].lkey = f->r.stag;
        sd_post_send(sd, &f->qp[0], &w);
        break;
    case 3:
        w.hdr.opcode = RNIC_WR_ATOMIC_FADD;
        w.op.atomic.remote_addr = 0x5000;
        w.op.atomic.rkey = 0x1234;
        w.op.atomic.compare_add = 1;
        w.data.sge[0].addr = R_IOVA + 8192;
        w.data.sge[0].length = 8;
        w.data.sge[0].lkey = f->r.stag;
        sd_post_send(sd, &f->qp[0], &w);
        break;
    case 4:
        sd_destroy(sd, RNIC_CMD_DEREG_MR, f->t.stag);
        break;
    case 5:
        sd_destroy(sd, RNIC_CMD_DESTROY_QP, f->qp[0].qpn);
        break;
    case 6:
        rne_dev_reset(&sd->dev);
        f->dead = true;         /* the "driver" does not come back */
        break;
    case 7:
        sd_cm_simple(sd, RNIC_CMD_CM_ABORT, f->conn_id);
        break;
    }
}

/*
 * Pages the device may write: its queues, the R/W MR, receive buffers; and
 * pages the "driver" writes: work queues, pages it allocated since `used`.
 */
static uint8_t *writable_pages(const struct fz *f, const uint8_t *used)
{
    uint64_t n = f->sd->mem_size / RNIC_PAGE_SIZE;
    uint8_t *w = malloc(n);
    uint32_t i, q;

    memcpy(w, f->sd->page_dev, n);
    for (i = 0; i < n; i++) {
        w[i] |= f->sd->page_used[i] && !used[i];
    }
    for (q = 0; q < f->nqp; q++) {
        const struct sd_ring *r[2] = { &f->qp[q].sq.ring, &f->qp[q].rq.ring };
        unsigned k;

        for (k = 0; k < 2; k++) {
            for (i = 0; i < r[k]->npages; i++) {
                w[r[k]->pages[i] / RNIC_PAGE_SIZE] = 1;
            }
        }
    }
    for (i = 0; i < f->t.npages; i++) {
        w[f->t.pages[i] / RNIC_PAGE_SIZE] = 1;
    }
    for (i = 0; i < f->r.npages; i++) {
        w[f->r.pages[i] / RNIC_PAGE_SIZE] = 1;
    }
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz F;
    struct fz *f = &F;
    struct rne_dev_config cfg;
    struct sd_env env;
    uint8_t *snap, *used, *wp;
    static const unsigned extras[4] = { 0, 3, 7, 11 };
    uint64_t p;
    size_t off = 1;
    unsigned i, nextra;
    uint8_t c;

    if (size < 1) {
        return 0;
    }
    c = data[0];
    memset(f, 0, sizeof(*f));
    f->mpa_flags = (uint8_t)(((c & 1) ? RNIC_MPA_CRC : 0) |
                             ((c & 2) ? RNIC_MPA_MARKERS : 0) |
                             RNIC_MPA_RFC7306);
    sl_init(&f->sl, 1);
    f->sl.p[0].delay_ns = f->sl.p[1].delay_ns = 10000;
    env = sl_env(&f->sl);
    rne_dev_config_default(&cfg);
    cfg.mac[0] = 0x02;
    cfg.mac[5] = 0x02;
    cfg.max_qp = cfg.max_cq = 16;
    cfg.max_mr = 64;
    cfg.max_conn = 16;
    f->reject = c & 0x20;
    nextra = (c & 0x10) ? 0 : extras[c >> 6];
    f->sd = sd_new(&cfg, 2u << 20, 1, 1, &env);
    sl_port_simdev(&f->sl, 1, f->sd);
    if (!f->sd || !setup(f, 1 + nextra) ||
        !rp_init(&f->p, &f->sl, 0, p_mac, p_ip, 0)) {
        abort();        /* the set-up itself must always work */
    }
    snap = malloc(f->sd->mem_size);
    memcpy(snap, f->sd->mem, f->sd->mem_size);
    used = malloc(f->sd->mem_size / RNIC_PAGE_SIZE);
    memcpy(used, f->sd->page_used, f->sd->mem_size / RNIC_PAGE_SIZE);
    if (c & 0x10) {
        /* The first record is the Request and what follows it. */
        size_t len = 0;

        if (off + 3 <= size) {
            len = (size_t)data[off + 1] << 8 | data[off + 2];
            off += 3;
            len = len > size - off ? size - off : len;
        }
        if (!rp_connect_raw(&f->p, v_ip, VPORT, f->sd->mac, 41000,
                            data + off, len)) {
            abort();
        }
        off += len;
        sl_run(&f->sl, handshake_over, f, 2 * SL_SEC);
    } else if (!rp_connect(&f->p, v_ip, VPORT, f->sd->mac, 41000,
                           (c & 8) ? 1 : 2, c & 1, c & 4) ||
               !sl_run(&f->sl, f->reject ? handshake_over : established, f,
                       10 * SL_SEC) || (!f->reject && f->p.err[0])) {
        abort();
    }
    for (i = 0; i < nextra && f->established; i++) {
        if (!rp_open_extra(&f->p, v_ip, VPORT, f->sd->mac, 42000 + i)) {
            abort();
        }
    }
    if (nextra && f->established &&
        !sl_run(&f->sl, extras_up, f, 10 * SL_SEC)) {
        abort();        /* 12 connections fit the device's limits */
    }
    while (off + 3 <= size) {
        uint8_t fl = data[off];
        size_t len = (size_t)data[off + 1] << 8 | data[off + 2];

        off += 3;
        if (len > size - off) {
            len = size - off;
        }
        guest_action(f, (fl >> 2) & 7);
        if ((fl & 1) || !f->p.have_reply) {
            rp_send(&f->p, data + off, len);
        } else if (len >= 2) {
            rp_fpdu(&f->p, data + off, len, NULL, 0, 0);
        }
        off += len;
        if (fl & 2) {
            sl_run(&f->sl, idle, f, SL_SEC);
        }
    }
    sl_run(&f->sl, idle, f, 5 * SL_SEC);
    if (f->sd->st.dma_faults || sd_check_guards(f->sd)) {
        abort();
    }
    wp = writable_pages(f, used);
    for (p = 0; p < f->sd->mem_size / RNIC_PAGE_SIZE; p++) {
        uint64_t a = p * RNIC_PAGE_SIZE;

        if (!wp[p] && memcmp(snap + a, f->sd->mem + a, RNIC_PAGE_SIZE)) {
            fprintf(stderr, "guest page 0x%llx changed\n",
                    (unsigned long long)a);
            abort();    /* a byte the peer must not be able to reach */
        }
    }
    free(wp);
    free(used);
    free(snap);
    rp_fini(&f->p);
    sl_fini(&f->sl);
    sd_free(f->sd);
    return 0;
}
