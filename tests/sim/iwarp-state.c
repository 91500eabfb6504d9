/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine state stream between two simulated rnics (issue 19, first
 * step: the connection-free state).  Device A is built up -- memory
 * registered with data, receives posted, a Send posted before its QP is
 * connected, a second QP flushed to ERROR with part of its completions
 * consumed -- then saved, destroyed and made again from the stream on the
 * same guest memory (the memory is the guest's: it stays).  The restored
 * A' connects to B and runs RDMA Writes, Reads and Sends both ways with
 * every byte checked; the Send posted before the snapshot arrives, B's
 * Sends land in the receives posted before it, the flushed QP's CQ goes on
 * with the right entries and phase, B's L2 frames reach A's L2 ring, and
 * B connects to the listener A made before the snapshot.
 * Save, load, save gives the same bytes, and A' saves with its
 * connection established (iwarp-migrate moves such connections).
 *
 * usage: iwarp-state [--seed N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmpair.h"
#include "state/state.h"

#define MR_LEN      (128u << 10)
#define RECV_LEN    (16u << 10)
#define NRECV       4
#define IOVA_A      0x10000000ull
#define IOVA_A_RX   0x20000000ull
#define IOVA_B      0x30000000ull
#define IOVA_B_RX   0x40000000ull
#define STAG_MR     RNIC_STAG(10, 0x21)
#define STAG_RX     RNIC_STAG(11, 0x42)
#define ACC_ALL     (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
                     RNIC_ACCESS_REMOTE_READ)

struct st {
    struct cmpair cp;
    struct sd_mr mr[2], rx[2];
    struct sd_cq fcq;               /* A: CQ of the QP flushed to ERROR */
    struct sd_qp fqp;
    struct sd_cq lcq[2];            /* the connection to A's listener */
    struct sd_qp lqp[2];
    uint8_t *pat[2];                /* what each side's MR held at first */
};

static void fill(uint8_t *b, size_t n, uint64_t seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(seed >> 56);
    }
}

static bool fail(struct st *t, const char *what, const char *detail)
{
    return cp_fail(&t->cp, what, detail);
}

/* Next CQE of cq on side, stepping the link up to 2 s. */
static bool wait_cqe(struct st *t, int side, struct sd_cq *cq,
                     struct rnic_cqe *cqe)
{
    uint64_t end = t->cp.sl.now + 2 * SL_SEC;

    while (!sd_poll_cq(t->cp.sd[side], cq, cqe)) {
        if (t->cp.sl.now > end || !sl_step(&t->cp.sl)) {
            return false;
        }
    }
    return true;
}

static bool want_cqe(struct st *t, int side, struct sd_cq *cq,
                     uint64_t wr_id, uint8_t status, uint32_t len)
{
    struct rnic_cqe c;
    char msg[160];

    if (!wait_cqe(t, side, cq, &c)) {
        snprintf(msg, sizeof(msg), "side %d wr_id %llu", side,
                 (unsigned long long)wr_id);
        return fail(t, "no completion", msg);
    }
    if (c.wr_id != wr_id || c.status != status ||
        (status == RNIC_WC_SUCCESS && c.byte_len != len)) {
        snprintf(msg, sizeof(msg), "side %d: wr_id %llu status %s len %u, "
                 "wanted %llu %s %u", side, (unsigned long long)c.wr_id,
                 sd_wc_status_name(c.status), c.byte_len,
                 (unsigned long long)wr_id, sd_wc_status_name(status), len);
        return fail(t, "wrong completion", msg);
    }
    return true;
}

static void post_recv(struct st *t, int side, struct sd_qp *qp,
                      uint64_t wr_id, uint64_t iova, uint32_t len,
                      uint32_t lkey)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    r.sge[0].addr = iova;
    r.sge[0].length = len;
    r.sge[0].lkey = lkey;
    sd_post_recv(t->cp.sd[side], qp, &r);
}

static void post_op(struct st *t, int side, uint8_t op, uint64_t wr_id,
                    uint64_t laddr, uint32_t len, uint64_t raddr,
                    uint32_t rkey)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = op;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = raddr;
    w.op.rdma.rkey = rkey;
    w.data.sge[0].addr = laddr;
    w.data.sge[0].length = len;
    w.data.sge[0].lkey = side ? t->mr[1].stag : t->mr[0].stag;
    sd_post_send(t->cp.sd[side], &t->cp.qp[side], &w);
}

/* MR bytes [off, off + len) of side equal want. */
static bool same(struct st *t, int side, const struct sd_mr *mr,
                 uint64_t off, const uint8_t *want, uint32_t len,
                 const char *what)
{
    uint8_t *got = malloc(len);
    bool ok;

    sd_mr_read(t->cp.sd[side], mr, off, got, len);
    ok = !memcmp(got, want, len);
    free(got);
    return ok ? true : fail(t, "data differs", what);
}

/* A before the snapshot: everything but a connection. */
static bool build_a(struct st *t)
{
    struct simdev *a = t->cp.sd[0];
    struct rnic_cqe c;
    int i;

    if (sd_reg_mr(a, &t->mr[0], STAG_MR, 1, ACC_ALL, IOVA_A, MR_LEN, 2) ||
        sd_reg_mr(a, &t->rx[0], STAG_RX, 1, RNIC_ACCESS_LOCAL_WRITE,
                  IOVA_A_RX, NRECV * RECV_LEN, 1) ||
        sd_modify_qp_access(a, t->cp.qp[0].qpn, ACC_ALL) ||
        sd_create_cq(a, &t->fcq, 2, 4) ||
        sd_create_qp(a, &t->fqp, 2, 1, &t->fcq, &t->fcq, NULL, 3, 3)) {
        return fail(t, a->err, NULL);
    }
    sd_mr_write(a, &t->mr[0], 0, t->pat[0], MR_LEN);
    for (i = 0; i < NRECV; i++) {
        post_recv(t, 0, &t->cp.qp[0], 100 + i, IOVA_A_RX + i * RECV_LEN,
                  RECV_LEN, STAG_RX);
    }
    /* A Send posted while the QP is not connected: it waits for RTS. */
    post_op(t, 0, RNIC_WR_SEND, 1, IOVA_A, 8192, 0, 0);
    /* The second QP: three receives flushed, one of them consumed. */
    for (i = 0; i < 3; i++) {
        post_recv(t, 0, &t->fqp, 300 + i, IOVA_A_RX, 64, STAG_RX);
    }
    if (sd_modify_qp_state(a, t->fqp.qpn, RNIC_QPS_ERROR)) {
        return fail(t, a->err, NULL);
    }
    /* A listener, and a QP with a receive posted for its connection. */
    if (sd_create_cq(a, &t->lcq[0], 4, 5) ||
        sd_create_qp(a, &t->lqp[0], 3, 1, &t->lcq[0], &t->lcq[0], NULL, 4,
                     4) ||
        sd_cm_listen(a, 7, 6000)) {
        return fail(t, a->err, NULL);
    }
    post_recv(t, 0, &t->lqp[0], 500, IOVA_A_RX + 3 * RECV_LEN, RECV_LEN,
              STAG_RX);
    sd_run(a);
    if (!sd_poll_cq(a, &t->fcq, &c) || c.wr_id != 300 ||
        c.status != RNIC_WC_WR_FLUSH_ERR) {
        return fail(t, "the flushed QP's first completion is missing", NULL);
    }
    return true;
}

/* Save A, destroy it, make A' from the stream on the same memory. */
static bool snapshot_restore(struct st *t, size_t *stream_len)
{
    struct simdev *a = t->cp.sd[0];
    const struct rne_host_ops *ops = a->dev.host.ops;
    struct rne_dev_config cfg = a->dev.cfg;
    char err[RNE_STATE_ERR_LEN];
    uint8_t *s1, *s2;
    size_t n1, n2;

    if (rne_state_save(&a->dev, &s1, &n1, err, sizeof(err))) {
        return fail(t, "save", err);
    }
    rne_dev_fini(&a->dev);
    /* The timer belongs to the old engine: the new one asks for its own. */
    a->timer_deadline = UINT64_MAX;
    if (rne_dev_init(&a->dev, &cfg, ops, a)) {
        free(s1);
        return fail(t, "rne_dev_init", NULL);
    }
    if (rne_state_load(&a->dev, s1, n1, err, sizeof(err))) {
        free(s1);
        return fail(t, "load", err);
    }
    if (rne_state_save(&a->dev, &s2, &n2, err, sizeof(err))) {
        free(s1);
        return fail(t, "save after load", err);
    }
    if (n1 != n2 || memcmp(s1, s2, n1)) {
        free(s1);
        free(s2);
        return fail(t, "save, load, save: the streams differ", NULL);
    }
    free(s1);
    free(s2);
    sd_run(a);
    *stream_len = n1;
    return true;
}

/* B connects to the listener A made before the snapshot, and Sends. */
static bool to_listener(struct st *t)
{
    struct simdev *a = t->cp.sd[0], *b = t->cp.sd[1];
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    struct rnic_sq_wqe w;
    uint32_t conn;

    if (sd_create_cq(b, &t->lcq[1], 4, 5) ||
        sd_create_qp(b, &t->lqp[1], 3, 1, &t->lcq[1], &t->lcq[1], NULL, 4,
                     4)) {
        return fail(t, b->err, NULL);
    }
    memset(&c, 0, sizeof(c));
    c.qpn = t->lqp[1].qpn;
    c.tuple.family = RNIC_AF_IPV4;
    memcpy(c.tuple.local_addr, cp_ip[1], 4);
    memcpy(c.tuple.remote_addr, cp_ip[0], 4);
    c.tuple.local_port = 41000;
    c.tuple.remote_port = 6000;
    memcpy(c.next_hop_mac, a->mac, 6);
    c.ird = c.ord = 4;
    c.mpa_rev = 2;
    c.mpa_flags = RNIC_MPA_CRC;
    if (sd_cm_connect(b, &c, NULL, &conn)) {
        return fail(t, b->err, NULL);
    }
    if (!cp_next_event(&t->cp, 0, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return fail(t, "the restored listener got no CONNECT_REQUEST", NULL);
    }
    if (sd_cm_accept(a, ev.conn_id, t->lqp[0].qpn, 4, 4, RNIC_MPA_CRC, NULL,
                     0)) {
        return fail(t, a->err, NULL);
    }
    if (!cp_next_event(&t->cp, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REPLY) {
        return fail(t, "no CONNECT_REPLY from the restored listener", NULL);
    }
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 600;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = IOVA_B + 4096;
    w.data.sge[0].length = 4096;
    w.data.sge[0].lkey = t->mr[1].stag;
    sd_post_send(b, &t->lqp[1], &w);
    return want_cqe(t, 1, &t->lcq[1], 600, RNIC_WC_SUCCESS, 4096) &&
           want_cqe(t, 0, &t->lcq[0], 500, RNIC_WC_SUCCESS, 4096) &&
           same(t, 0, &t->rx[0], 3 * RECV_LEN, t->pat[1] + 4096, 4096,
                "B's Send through the restored listener");
}

/* A' at work: everything made before the snapshot is used. */
static bool run_a_prime(struct st *t)
{
    struct simdev *a = t->cp.sd[0], *b = t->cp.sd[1];
    uint64_t l2_before = a->st.l2_rx_frames;
    char err[RNE_STATE_ERR_LEN];
    uint8_t *s;
    size_t n;
    int i;

    /* The flushed QP: the rest of its completions, then a new flush. */
    if (!want_cqe(t, 0, &t->fcq, 301, RNIC_WC_WR_FLUSH_ERR, 0) ||
        !want_cqe(t, 0, &t->fcq, 302, RNIC_WC_WR_FLUSH_ERR, 0)) {
        return false;
    }
    post_recv(t, 0, &t->fqp, 303, IOVA_A_RX, 64, STAG_RX);
    if (!want_cqe(t, 0, &t->fcq, 303, RNIC_WC_WR_FLUSH_ERR, 0)) {
        return false;
    }
    /* B's L2 frame (a gratuitous ARP) reaches A's restored L2 ring. */
    if (sd_announce(b, cp_ip[1])) {
        return fail(t, b->err, NULL);
    }
    cp_run_for(&t->cp, SL_SEC / 100);
    if (a->st.l2_rx_frames <= l2_before) {
        return fail(t, "no L2 frame reached the restored device", NULL);
    }
    /* B: memory and receives, then the connection from A'. */
    if (sd_reg_mr(b, &t->mr[1], STAG_MR, 1, ACC_ALL, IOVA_B, MR_LEN, 1) ||
        sd_reg_mr(b, &t->rx[1], STAG_RX, 1, RNIC_ACCESS_LOCAL_WRITE,
                  IOVA_B_RX, NRECV * RECV_LEN, 2) ||
        sd_modify_qp_access(b, t->cp.qp[1].qpn, ACC_ALL)) {
        return fail(t, b->err, NULL);
    }
    sd_mr_write(b, &t->mr[1], 0, t->pat[1], MR_LEN);
    for (i = 0; i < NRECV; i++) {
        post_recv(t, 1, &t->cp.qp[1], 200 + i, IOVA_B_RX + i * RECV_LEN,
                  RECV_LEN, STAG_RX);
    }
    if (!cp_establish(&t->cp, 40000, 5000)) {
        return false;
    }
    /* The Send posted before the snapshot arrives at B. */
    if (!want_cqe(t, 0, &t->cp.cq[0][0], 1, RNIC_WC_SUCCESS, 8192) ||
        !want_cqe(t, 1, &t->cp.cq[1][1], 200, RNIC_WC_SUCCESS, 8192) ||
        !same(t, 1, &t->rx[1], 0, t->pat[0], 8192, "the early Send")) {
        return false;
    }
    /* Established connections are in the stream (iwarp-migrate). */
    if (rne_state_save(&a->dev, &s, &n, err, sizeof(err))) {
        return fail(t, "a save with an established connection", err);
    }
    free(s);
    /* A' Writes its MR's first half into B's second, Reads B's first. */
    post_op(t, 0, RNIC_WR_WRITE, 2, IOVA_A, MR_LEN / 2,
            IOVA_B + MR_LEN / 2, STAG_MR);
    post_op(t, 0, RNIC_WR_READ, 3, IOVA_A + MR_LEN / 2, MR_LEN / 2, IOVA_B,
            STAG_MR);
    post_op(t, 0, RNIC_WR_SEND, 4, IOVA_A + 100, RECV_LEN, 0, 0);
    for (i = 0; i < 3; i++) {
        post_op(t, 1, RNIC_WR_SEND, 10 + i, IOVA_B + i * 1000,
                RECV_LEN - i, 0, 0);
    }
    if (!want_cqe(t, 0, &t->cp.cq[0][0], 2, RNIC_WC_SUCCESS, MR_LEN / 2) ||
        !want_cqe(t, 0, &t->cp.cq[0][0], 3, RNIC_WC_SUCCESS, MR_LEN / 2) ||
        !want_cqe(t, 0, &t->cp.cq[0][0], 4, RNIC_WC_SUCCESS, RECV_LEN) ||
        !want_cqe(t, 1, &t->cp.cq[1][1], 201, RNIC_WC_SUCCESS, RECV_LEN)) {
        return false;
    }
    for (i = 0; i < 3; i++) {
        if (!want_cqe(t, 1, &t->cp.cq[1][0], 10 + i, RNIC_WC_SUCCESS,
                      RECV_LEN - i) ||
            !want_cqe(t, 0, &t->cp.cq[0][1], 100 + i, RNIC_WC_SUCCESS,
                      RECV_LEN - i) ||
            !same(t, 0, &t->rx[0], (uint64_t)i * RECV_LEN,
                  t->pat[1] + i * 1000, RECV_LEN - i,
                  "B's Send into a receive posted before the snapshot")) {
            return false;
        }
    }
    return same(t, 1, &t->mr[1], MR_LEN / 2, t->pat[0], MR_LEN / 2,
                "A's Write") && to_listener(t) &&
           same(t, 0, &t->mr[0], MR_LEN / 2, t->pat[1], MR_LEN / 2,
                "A's Read") &&
           same(t, 1, &t->rx[1], RECV_LEN, t->pat[0] + 100, RECV_LEN,
                "A's Send after the snapshot");
}

int main(int argc, char **argv)
{
    struct st *t = calloc(1, sizeof(*t));
    uint64_t seed = 1, g;
    size_t slen = 0;
    bool ok;
    int i;

    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed")) {
            seed = strtoull(argv[i + 1], NULL, 0);
        }
    }
    t->pat[0] = malloc(MR_LEN);
    t->pat[1] = malloc(MR_LEN);
    fill(t->pat[0], MR_LEN, seed * 2 + 1);
    fill(t->pat[1], MR_LEN, seed * 2 + 2);
    ok = cp_up(&t->cp, seed, NULL, NULL, NULL) && build_a(t) &&
         snapshot_restore(t, &slen) && run_a_prime(t);
    if (ok) {
        for (i = 0; i < 2; i++) {
            g = sd_check_guards(t->cp.sd[i]);
            if (g || t->cp.sd[i]->st.dma_faults) {
                ok = fail(t, "guard bytes changed or DMA outside memory",
                          NULL);
            }
        }
    }
    if (ok) {
        printf("iwarp-state: stream %zu bytes; A' connected, Writes, Reads "
               "and Sends byte-exact: ok\n", slen);
    } else {
        printf("iwarp-state: FAILED: %s (rerun: iwarp-state --seed %llu)\n",
               t->cp.err, (unsigned long long)seed);
    }
    cp_down(&t->cp);
    free(t->pat[0]);
    free(t->pat[1]);
    free(t);
    return ok ? 0 : 1;
}
