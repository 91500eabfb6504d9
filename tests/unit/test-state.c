/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine state stream (hw-rnic/engine/state/): a device with every
 * connection-free object kind is saved, loaded into a fresh engine on the
 * same guest memory and saved again (identical bytes); every truncation
 * and every single-byte corruption of the stream is either refused with an
 * error sentence, leaving the target as fresh as rne_dev_init made it, or
 * loads a state that saves and loads again; targeted corruptions get the
 * sentence naming what is wrong.
 */
#include <string.h>
#include "test-rdma-helpers.h"
#include "state/state.h"
#include "state/state_int.h"
#include "iwarp/iw.h"

static void reinit(struct harness *h)
{
    struct rne_dev_config cfg = h->dev.cfg;
    const struct rne_host_ops *ops = h->dev.host.ops;
    void *opaque = h->dev.host.opaque;

    rne_dev_fini(&h->dev);
    if (rne_dev_init(&h->dev, &cfg, ops, opaque)) {
        abort();
    }
}

/* What rne_dev_init leaves: nothing of any stream. */
static bool is_fresh(struct rne_dev *d)
{
    struct rne_mem_usage u;
    uint32_t i;

    rne_dev_mem_usage(d, &u);
    if (u.conn_total || u.mismatch || d->ctrl || d->admq.live ||
        d->rdma->pbl_pages || d->rdma->db_count || d->egress.count ||
        d->loop.count || d->backlog.count || d->async_eqn || d->cm_eqn ||
        !d->port.link_up || !(d->status & RNIC_STATUS_LINK_UP)) {
        return false;
    }
    for (i = 0; i <= RNE_ENG_MAX_EQ; i++) {
        if (d->eq[i].live || d->eq[i].users) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        if (d->rdma->mr[i].state) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_qp; i++) {
        if (d->rdma->qp[i].live) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_pd; i++) {
        if (d->pd_owner[i] || d->rdma->pd_users[i]) {
            return false;
        }
    }
    for (i = 0; i <= d->cfg.max_uctx; i++) {
        if (d->uctx_live[i] || d->rdma->uctx_users[i]) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_listen; i++) {
        if (d->iw->lis[i].live) {
            return false;
        }
    }
    return !d->iw->neng && !d->steer->nconn;
}

static unsigned create_srq(struct harness *h, uint32_t srqn, uint32_t pdn)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CREATE_SRQ);
    uint64_t ring = h_alloc(h, 2);

    c.u.create_srq.srqn = srqn;
    c.u.create_srq.pdn = pdn;
    c.u.create_srq.log_depth = 5;
    c.u.create_srq.max_sge = 2;
    c.u.create_srq.limit = 3;
    h_pbl(h, &c.u.create_srq.ring, ring, 1);
    return h_cmd(h, &c);
}

static unsigned alloc_mr(struct harness *h, uint32_t stag, uint32_t pdn,
                         uint32_t max_pages)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_MR);

    c.u.alloc_mr.stag = stag;
    c.u.alloc_mr.pdn = pdn;
    c.u.alloc_mr.max_pages = max_pages;
    return h_cmd(h, &c);
}

static unsigned create_l2q(struct harness *h, uint8_t op, uint32_t qid)
{
    struct rnic_admin_cmd c = t_mk(op);
    uint64_t ring = h_alloc(h, 1);

    c.u.create_l2q.qid = qid;
    c.u.create_l2q.eqn = T_COMP_EQ;
    c.u.create_l2q.log_depth = 4;
    h_pbl(h, &c.u.create_l2q.ring, ring, 1);
    return h_cmd(h, &c);
}

static unsigned listen(struct harness *h, uint32_t id, const uint8_t *addr,
                       uint16_t port)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_LISTEN);

    c.u.cm_listen.listen_id = id;
    c.u.cm_listen.backlog = 16;
    c.u.cm_listen.family = RNIC_AF_IPV4;
    c.u.cm_listen.port = port;
    memcpy(c.u.cm_listen.addr, addr, 4);
    return h_cmd(h, &c);
}

static unsigned qp_to_error(struct harness *h, uint32_t qpn)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_MODIFY_QP);

    c.u.modify_qp.qpn = qpn;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_ERROR;
    return h_cmd(h, &c);
}

/* A device with one of everything that lives without a connection. */
static struct harness *build(void)
{
    struct t_eq async, comp;
    struct harness *h = t_setup(&async, &comp);
    struct t_cq cq0, cq1, ucq;
    struct t_qp qp0, qp1, uqp;
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe sw;
    struct rnic_rq_wqe rw;
    uint64_t data = h_alloc(h, 4);
    int i;

    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 1, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 7, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq0, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq1, 1, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &ucq, 5, 1, 4), RNIC_STS_OK);
    CHECK_EQ(create_srq(h, 2, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(h, &qp0, 0, 0, 0, 1, 5, 5), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(h, &qp1, 3, 1, 0, 1, 4, 4), RNIC_STS_OK);
    t_qp_cmd(h, &c, &uqp, 9, 7, 1, 5, 5, RNIC_NO_SRQ, 3, 3);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    t_qp_cmd(h, &c, &qp1, 4, 0, 0, 0, 1, 2, 3, 0);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    /*
     * QP access as drivers set it: remote rights without local write (an
     * MR's rule, not a QP's), which MODIFY_QP takes and a load must too.
     */
    memset(&c, 0, sizeof(c));
    c.hdr.opcode = RNIC_CMD_MODIFY_QP;
    c.u.modify_qp.qpn = 0;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(h, 0x100 | 0x5a, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ,
                      0x10000123, 3 * 4096, data), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(h, 0x200 | 0x11, 7, RNIC_ACCESS_LOCAL_WRITE,
                      0x7000, 4096, data + 4096), RNIC_STS_OK);
    CHECK_EQ(alloc_mr(h, 0x300 | 0x22, 1, 16), RNIC_STS_OK);
    /* Windows: type 1 and type 2 (bound to QP 0) in an MR, one unbound. */
    CHECK_EQ(t_reg_mr(h, 0x400 | 0x33, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_MW_BIND, 0x20000, 4096, data + 8192),
             RNIC_STS_OK);
    for (i = 5; i <= 7; i++) {
        c = t_mk(RNIC_CMD_ALLOC_MW);
        c.u.alloc_mw.stag = RNIC_STAG(i, 0);
        c.u.alloc_mw.type = i == 5 ? RNIC_MW_TYPE_1 : RNIC_MW_TYPE_2;
        CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    }
    for (i = 5; i <= 6; i++) {
        struct rnic_wqe_bind_mw b = {
            .va = 0x20010, .length = 0x100, .mw_stag = RNIC_STAG(i, i),
            .mr_stag = 0x400 | 0x33,
            .access = RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE,
        };

        CHECK_EQ(rne_mw_bind(&h->dev, rne_qp_get(&h->dev, 0), &b),
                 RNIC_WC_SUCCESS);
    }
    CHECK_EQ(create_l2q(h, RNIC_CMD_CREATE_TXQ, 0), RNIC_STS_OK);
    CHECK_EQ(create_l2q(h, RNIC_CMD_CREATE_RXQ, 0), RNIC_STS_OK);
    /* A CM EQ, and listeners on any address and on one (a TCP engine). */
    memset(&c, 0, sizeof(c));
    c.hdr.opcode = RNIC_CMD_CREATE_EQ;
    c.u.create_eq.eqn = 3;
    c.u.create_eq.log_depth = 3;
    c.u.create_eq.flags = RNIC_EQ_F_CM;
    h_pbl(h, &c.u.create_eq.ring, h_alloc(h, 1), 1);
    h_pbl(h, &c.u.create_eq.pdata, h_alloc(h, 1), 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(listen(h, 3, (const uint8_t[4]){ 0 }, 4791), RNIC_STS_OK);
    CHECK_EQ(listen(h, 5, (const uint8_t[4]){ 10, 0, 0, 9 }, 80),
             RNIC_STS_OK);
    CHECK_EQ(h->dev.iw->neng, 1);
    /* Receives posted and rung; sends posted on an IDLE QP. */
    memset(&rw, 0, sizeof(rw));
    memset(&sw, 0, sizeof(sw));
    for (i = 0; i < 3; i++) {
        rw.wr_id = 100 + i;
        rw.num_sge = 1;
        t_sge(&rw.sge[0], 0x10000123 + i * 64, 64, 0x100 | 0x5a);
        t_post_recv(h, &qp0, &rw);
        sw.hdr.wr_id = 200 + i;
        sw.hdr.opcode = RNIC_WR_SEND;
        t_post_send(h, &qp0, &sw);
    }
    h_doorbell(h, RNIC_DB_RQ, 0, 0, qp0.rq_prod);
    h_doorbell(h, RNIC_DB_SQ, 0, 0, qp0.sq_prod);
    h_run(h);
    /* A QP flushed to ERROR, and doorbells latched but not yet run. */
    CHECK_EQ(qp_to_error(h, 3), RNIC_STS_OK);
    h_run(h);
    rne_dev_doorbell(&h->dev, 0, RNIC_DB_CQ, RNIC_DB_VAL(1, RNIC_DB_ARM, 0));
    rne_dev_doorbell(&h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(0, 0, qp0.sq_prod));
    rne_dev_doorbell(&h->dev, 0, RNIC_DB_EQ,
                     RNIC_DB_VAL(T_COMP_EQ, RNIC_DB_ARM, comp.cons));
    CHECK_EQ(h->dev.rdma->db_count, 2);
    CHECK(h->dev.eq_db_pending);
    return h;
}

static int load(struct harness *h, const uint8_t *b, size_t n, char *err)
{
    return rne_state_load(&h->dev, b, n, err, RNE_STATE_ERR_LEN);
}

static void test_round_trip(struct harness *h, uint8_t **out, size_t *outn)
{
    char err[RNE_STATE_ERR_LEN];
    uint8_t *a, *b;
    size_t na, nb;

    CHECK_EQ(rne_state_save(&h->dev, &a, &na, err, sizeof(err)), 0);
    reinit(h);
    CHECK(is_fresh(&h->dev));
    if (load(h, a, na, err)) {
        fprintf(stderr, "load: %s\n", err);
        CHECK(0);
    }
    CHECK_EQ(rne_state_save(&h->dev, &b, &nb, err, sizeof(err)), 0);
    CHECK_EQ(na, nb);
    CHECK(na == nb && !memcmp(a, b, na));
    /* The loaded device works: the latched doorbells run, admin answers. */
    h_run(h);
    CHECK_EQ(h->dev.rdma->db_count, 0);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 4), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 0), RNIC_STS_BUSY);
    free(b);
    printf("round trip: %zu bytes, identical\n", na);
    *out = a;
    *outn = na;
}

/* Every prefix is refused and leaves the target fresh. */
static void test_truncation(struct harness *h, const uint8_t *s, size_t n)
{
    char err[RNE_STATE_ERR_LEN];
    size_t len;

    reinit(h);
    for (len = 0; len < n; len++) {
        err[0] = 0;
        if (!load(h, s, len, err)) {
            fprintf(stderr, "a stream cut at %zu of %zu loaded\n", len, n);
            CHECK(0);
            reinit(h);
            continue;
        }
        CHECK(err[0]);
        if (!is_fresh(&h->dev)) {
            fprintf(stderr, "cut at %zu: target not clean (%s)\n", len, err);
            CHECK(0);
            reinit(h);
        }
    }
    CHECK_EQ(load(h, s, n, err), 0);
    printf("truncation: %zu prefixes refused, target clean each time\n", n);
}

/* Back to fresh after a load that worked (cheaper than a new engine). */
static void refresh(struct harness *h)
{
    rne_dev_reset(&h->dev);
    rne_dev_set_link(&h->dev, true);
    h->dev.pending = 0;
}

/*
 * Each byte flipped (by 0xff, 0x01 or 0x80 in turn): refused cleanly, or a
 * state that saves, loads and runs.
 */
static void test_flips(struct harness *h, const uint8_t *s, size_t n)
{
    char err[RNE_STATE_ERR_LEN];
    uint8_t *m = malloc(n), *b;
    static const uint8_t pat[] = { 0xff, 0x01, 0x80 };
    unsigned refused = 0, loaded = 0;
    size_t i, nb;

    reinit(h);
    for (i = 0; i < n; i++) {
        memcpy(m, s, n);
        m[i] ^= pat[i % sizeof(pat)];
        if (load(h, m, n, err)) {
            refused++;
            CHECK(err[0]);
            if (!is_fresh(&h->dev)) {
                fprintf(stderr, "flip %zu: not clean (%s)\n", i, err);
                CHECK(0);
                reinit(h);
            }
            continue;
        }
        loaded++;
        CHECK_EQ(rne_state_save(&h->dev, &b, &nb, err, sizeof(err)), 0);
        refresh(h);
        CHECK_EQ(load(h, b, nb, err), 0);
        free(b);
        h_run(h);
        refresh(h);
        CHECK(is_fresh(&h->dev));
    }
    free(m);
    printf("corruption: %u refused, %u loaded (values any state may hold)\n",
           refused, loaded);
}

/* Offset of the payload of the nth section with this id, or 0. */
static size_t find_sec(const uint8_t *s, size_t n, uint16_t id, int nth)
{
    size_t at = RNE_ST_HDR_BYTES;

    while (at + RNE_ST_SEC_BYTES <= n) {
        uint16_t sid = s[at] | s[at + 1] << 8;
        uint32_t len = s[at + 4] | s[at + 5] << 8 | s[at + 6] << 16 |
                       (uint32_t)s[at + 7] << 24;

        if (sid == id && !nth--) {
            return at + RNE_ST_SEC_BYTES;
        }
        at += RNE_ST_SEC_BYTES + len;
    }
    return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

static void expect(struct harness *h, const uint8_t *m, size_t n,
                   const char *what, const char *want)
{
    char err[RNE_STATE_ERR_LEN] = "";

    if (!load(h, m, n, err)) {
        fprintf(stderr, "%s: loaded\n", what);
        CHECK(0);
        reinit(h);
        return;
    }
    if (!strstr(err, want)) {
        fprintf(stderr, "%s: error \"%s\" lacks \"%s\"\n", what, err, want);
        CHECK(0);
    }
    CHECK(is_fresh(&h->dev));
    printf("%s: refused: %s\n", what, err);
}

static void test_targeted(struct harness *h, const uint8_t *s, size_t n)
{
    uint8_t *m = malloc(n + 64);
    size_t at;

    reinit(h);
#define FRESH() memcpy(m, s, n)
    FRESH();
    m[0] ^= 1;
    expect(h, m, n, "magic", "not an rnic state stream");
    FRESH();
    at = find_sec(m, n, RNE_SEC_DEV, 0);
    m[at + 4] |= RNIC_STATUS_RESETTING; /* no reset latched to end it */
    expect(h, m, n, "RESETTING without a reset", "RESETTING");
    FRESH();
    at = find_sec(m, n, RNE_SEC_EQ, 0);
    put32(m + at + 10, 12345);  /* cidx far behind pidx */
    expect(h, m, n, "EQ indices", "entries pending");
    FRESH();
    at = find_sec(m, n, RNE_SEC_CQ, 0);
    put32(m + at + 4, 9);       /* eqn */
    expect(h, m, n, "CQ on a missing EQ", "EQ 9 is not live");
    FRESH();
    at = find_sec(m, n, RNE_SEC_MR, 0);
    m[at + 48 + 1] ^= 0x08;     /* first page address, bit 11 */
    expect(h, m, n, "MR page misaligned", "not an aligned page");
    FRESH();
    at = find_sec(m, n, RNE_SEC_QP, 0);
    put32(m + at + 9, 6);       /* uctx 6: never allocated */
    expect(h, m, n, "QP context", "context 6 not allocated");
    FRESH();
    at = find_sec(m, n, RNE_SEC_QP, 0);
    m[at + 4] = RNIC_QPS_RTS;
    expect(h, m, n, "QP in RTS", "in RTS without a connection");
    FRESH();
    at = find_sec(m, n, RNE_SEC_QP, 0);
    m[at + 4] = RNIC_QPS_CLOSING;
    expect(h, m, n, "QP closing", "IDLE, RTS and ERROR QPs");
    FRESH();
    at = find_sec(m, n, RNE_SEC_MW, 0);
    put32(m + at + 35, 2);      /* bound into MR 2, of another PD */
    expect(h, m, n, "MW in another PD's MR", "not a valid MR of its PD");
    FRESH();
    at = find_sec(m, n, RNE_SEC_MW, 1);
    put32(m + at + 39, 3);      /* type 2 bound to QP 3, of PD 1 */
    expect(h, m, n, "MW on another PD's QP", "not a live QP of its PD");
    FRESH();
    at = find_sec(m, n, RNE_SEC_MW, 0);
    put32(m + at, 4);           /* an index the MR section took */
    expect(h, m, n, "MW on an MR's index", "the index is an MR's");
    FRESH();
    at = find_sec(m, n, RNE_SEC_QP, 1);
    m[at - 6] = 9;              /* version 9 of a section */
    expect(h, m, n, "future version", "version 9");
    FRESH();
    at = find_sec(m, n, RNE_SEC_MR, 1);
    m[at - 8] = 0x40;           /* id 0x40: unknown, mandatory */
    expect(h, m, n, "unknown section", "section 64 unknown");
    FRESH();
    m[n] = 0;
    expect(h, m, n + 1, "trailing byte", "after the END section");
    FRESH();
    at = find_sec(m, n, RNE_SEC_LISTEN, 0);
    m[at + 8] = 0;              /* port 4791 -> 0: CM_LISTEN refuses it */
    m[at + 9] = 0;
    expect(h, m, n, "listener port 0", "CM_LISTEN refuses it");
    /* An unknown optional section is skipped; the rest loads. */
    FRESH();
    at = find_sec(m, n, RNE_SEC_END, 0) - RNE_ST_SEC_BYTES;
    memmove(m + at + 12, m + at, n - at);
    memcpy(m + at, "\x01\x80\x01\x00\x04\x00\x00\x00zzzz", 12);
    {
        char err[RNE_STATE_ERR_LEN];

        CHECK_EQ(load(h, m, n + 12, err), 0);
        reinit(h);
    }
    free(m);
    /* Another configuration: refused by name. */
    {
        struct rne_dev_config cfg = h->dev.cfg;
        const struct rne_host_ops *ops = h->dev.host.ops;
        void *opaque = h->dev.host.opaque;
        char err[RNE_STATE_ERR_LEN];

        rne_dev_fini(&h->dev);
        cfg.max_qp = 512;
        CHECK(!rne_dev_init(&h->dev, &cfg, ops, opaque));
        CHECK_EQ(load(h, s, n, err), -1);
        CHECK(strstr(err, "max-qp is 1024 in the stream, 512 here") != NULL);
        printf("other config: refused: %s\n", err);
        cfg.max_qp = 1024;
        rne_dev_fini(&h->dev);
        CHECK(!rne_dev_init(&h->dev, &cfg, ops, opaque));
    }
    /* A target that is not fresh. */
    {
        char err[RNE_STATE_ERR_LEN];

        CHECK_EQ(load(h, s, n, err), 0);
        CHECK_EQ(load(h, s, n, err), -1);
        CHECK(strstr(err, "not freshly created") != NULL);
    }
}

int main(void)
{
    struct harness *h = build();
    char err[RNE_STATE_ERR_LEN];
    uint8_t *s;
    size_t n;

    test_round_trip(h, &s, &n);
    free(s);
    /*
     * The rest loads thousands of streams: without the listener on one
     * address, whose TCP engine costs most of a load to make.
     */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_CM_DESTROY_LISTEN, 5), RNIC_STS_OK);
    CHECK_EQ(rne_state_save(&h->dev, &s, &n, err, sizeof(err)), 0);
    test_truncation(h, s, n);
    test_targeted(h, s, n);
    test_flips(h, s, n);
    free(s);
    h_free(h);
    return t_report("test-state");
}
