// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the engine state stream's load path
 * (hw-rnic/engine/state/): the input is a stream, loaded into a freshly
 * created device on 1 MiB of guest RAM.
 *
 * A stream that is refused must leave the device as rne_dev_init made it
 * (no object, ring page, frame or counted byte; ASan's leak check covers
 * the rest at exit).  A stream that loads must save again, and that save
 * must load into a second fresh device and save to the same bytes; then
 * the first device runs a pass, a timer and a reset on what it loaded, and
 * every DMA stays inside guest RAM.
 *
 * Seeds come from the engine itself: with FUZZ_STATE_SEEDS=DIR the harness
 * builds devices through admin commands (white-box), saves them into DIR
 * and exits (make-state-seeds.py runs it so).  The last ones hold an
 * established connection of the device to its own listener (frames loop
 * inside it), idle and then with an RDMA Read at each step of its way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/dev.h"
#include "device/admin.h"
#include "iwarp/iw.h"
#include "rdma/rdma_int.h"
#include "state/state.h"

#define PG              RNIC_PAGE_SIZE
#define NPAGES          256
#define MEM_SIZE        (NPAGES * PG)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

struct fs {
    struct rne_dev dev;
    uint8_t *mem;
    uint64_t now, deadline;
};

static bool in_ram(uint64_t addr, size_t len)
{
    return addr <= MEM_SIZE && len <= MEM_SIZE - addr;
}

static int h_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct fs *f = opaque;

    if (!in_ram(addr, len)) {
        return -1;
    }
    memcpy(buf, f->mem + addr, len);
    return 0;
}

static int h_dma_write(void *opaque, uint64_t addr, const void *buf,
                       size_t len)
{
    struct fs *f = opaque;

    if (!in_ram(addr, len)) {
        return -1;
    }
    memcpy(f->mem + addr, buf, len);
    return 0;
}

static int h_dma_check_ram(void *opaque, uint64_t addr, uint64_t len)
{
    (void)opaque;
    return in_ram(addr, len) ? 0 : -1;
}

static void h_notify(void *opaque, unsigned vector)
{
    (void)opaque;
    (void)vector;
}

static bool h_send_frame(void *opaque, const void *frame, size_t len)
{
    (void)opaque;
    (void)frame;
    (void)len;
    return true;
}

static uint64_t h_now(void *opaque)
{
    return ((struct fs *)opaque)->now;
}

static void h_timer_mod(void *opaque, uint64_t deadline)
{
    ((struct fs *)opaque)->deadline = deadline;
}

static void h_guest_error(void *opaque, const char *what, uint64_t a,
                          uint64_t b)
{
    (void)opaque;
    (void)what;
    (void)a;
    (void)b;
}

static void h_random(void *opaque, void *buf, size_t len)
{
    (void)opaque;
    memset(buf, 0x5a, len);
}

static const struct rne_host_ops fs_ops = {
    .dma_read = h_dma_read,
    .dma_write = h_dma_write,
    .notify = h_notify,
    .send_frame = h_send_frame,
    .now_ns = h_now,
    .timer_mod = h_timer_mod,
    .guest_error = h_guest_error,
    .random = h_random,
    .dma_check_ram = h_dma_check_ram,
};

static uint8_t guest_mem[MEM_SIZE];

static void cfg_of_fuzzer(struct rne_dev_config *c)
{
    rne_dev_config_default(c);
    c->max_qp = 16;
    c->max_cq = 16;
    c->max_mr = 16;
    c->max_pd = 16;
    c->max_srq = 4;
    c->max_eq = 4;
    c->max_uctx = 3;
    c->max_l2q = 2;
}

static void fs_init(struct fs *f)
{
    struct rne_dev_config c;

    cfg_of_fuzzer(&c);
    memset(f, 0, sizeof(*f));
    f->mem = guest_mem;
    if (rne_dev_init(&f->dev, &c, &fs_ops, f)) {
        abort();
    }
}

/* Nothing of a refused stream is left. */
static void check_fresh(struct rne_dev *d, const char *err)
{
    struct rne_mem_usage u;
    uint32_t i;
    bool bad = false;

    rne_dev_mem_usage(d, &u);
    bad |= u.conn_total || u.mismatch || d->ctrl || d->admq.live ||
           d->rdma->pbl_pages || d->rdma->db_count || d->egress.count ||
           d->loop.count || d->backlog.count || !d->port.link_up;
    for (i = 0; i <= RNE_ENG_MAX_EQ; i++) {
        bad |= d->eq[i].live || d->eq[i].ring.pages != NULL;
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        bad |= d->rdma->mr[i].state != RNE_MR_FREE;
    }
    for (i = 0; i < d->cfg.max_pd; i++) {
        bad |= d->pd_owner[i] || d->rdma->pd_users[i];
    }
    if (bad || !err[0]) {
        fprintf(stderr, "refused (%s) but the device is not fresh\n", err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A refused stream leaves a fresh device: a is kept until one loads. */
    static struct fs a, b;
    static bool a_ready;
    char err[RNE_STATE_ERR_LEN];
    uint8_t *s1, *s2;
    size_t n1, n2;

    if (!a_ready) {
        memset(guest_mem, 0xa5, sizeof(guest_mem));
        fs_init(&a);
        a_ready = true;
    }
    if (rne_state_load(&a.dev, data, size, err, sizeof(err))) {
        check_fresh(&a.dev, err);
        return 0;
    }
    a_ready = false;
    if (rne_state_save(&a.dev, &s1, &n1, err, sizeof(err))) {
        fprintf(stderr, "a loaded state does not save: %s\n", err);
        abort();
    }
    fs_init(&b);
    if (rne_state_load(&b.dev, s1, n1, err, sizeof(err))) {
        fprintf(stderr, "a saved state does not load: %s\n", err);
        abort();
    }
    if (rne_state_save(&b.dev, &s2, &n2, err, sizeof(err)) || n1 != n2 ||
        memcmp(s1, s2, n1)) {
        fprintf(stderr, "save, load, save: the streams differ\n");
        abort();
    }
    free(s1);
    free(s2);
    rne_dev_fini(&b.dev);
    /* The loaded device at work: latched doorbells, admin, timers. */
    rne_dev_process(&a.dev);
    a.now += 1000000000ull;
    rne_dev_timer(&a.dev);
    rne_dev_process(&a.dev);
    rne_dev_reset(&a.dev);
    rne_dev_fini(&a.dev);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Seeds: devices built through admin commands, then saved            */

static uint64_t seed_next = 16 * PG;

static uint64_t seed_alloc(uint32_t pages)
{
    uint64_t a = seed_next;

    seed_next += (uint64_t)(pages + 1) * PG;
    return a;
}

/* A level-1 list of n contiguous pages at base. */
static void seed_pbl(struct rnic_pbl *p, uint64_t base, uint32_t n)
{
    uint64_t list = seed_alloc(1);
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint64_t pa = base + (uint64_t)i * PG;

        memcpy(guest_mem + list + 8 * i, &pa, 8);
    }
    p->addr = list;
    p->nentries = n;
    p->page_shift = 12;
    p->levels = 1;
    p->rsvd = 0;
}

static void seed_cmd(struct fs *f, struct rnic_admin_cmd *c, uint8_t op)
{
    struct rnic_admin_cqe cqe;
    unsigned sts;

    c->hdr.opcode = op;
    memset(&cqe, 0, sizeof(cqe));
    sts = rne_admin_execute(&f->dev, c, &cqe);
    if (sts) {
        fprintf(stderr, "seed: command 0x%x: status %u\n", op, sts);
        abort();
    }
}

static void seed_enable(struct fs *f)
{
    uint64_t sq = seed_alloc(1), cq = seed_alloc(1);
    uint64_t sql = seed_alloc(1), cql = seed_alloc(1);

    memcpy(guest_mem + sql, &sq, 8);
    memcpy(guest_mem + cql, &cq, 8);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)sql);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)cql);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CFG,
                      RNIC_ADMQ_CFG_SQ_LOG(4) | RNIC_ADMQ_CFG_CQ_LOG(4));
    rne_dev_reg_write(&f->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    rne_dev_process(&f->dev);
}

static void seed_eq(struct fs *f, uint32_t eqn, uint8_t flags)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.u.create_eq.eqn = eqn;
    c.u.create_eq.log_depth = 5;
    c.u.create_eq.flags = flags;
    seed_pbl(&c.u.create_eq.ring, seed_alloc(1), 1);
    if (flags & RNIC_EQ_F_CM) {
        seed_pbl(&c.u.create_eq.pdata, seed_alloc(4), 4);
    }
    seed_cmd(f, &c, RNIC_CMD_CREATE_EQ);
}

static void seed_objects(struct fs *f)
{
    struct rnic_admin_cmd c;
    uint32_t i;

    seed_eq(f, 1, RNIC_EQ_F_ASYNC);
    seed_eq(f, 2, RNIC_EQ_F_CM);
    seed_eq(f, 3, 0);
    for (i = 0; i < 2; i++) {
        memset(&c, 0, sizeof(c));
        c.u.create_l2q.qid = 0;
        c.u.create_l2q.eqn = 3;
        c.u.create_l2q.log_depth = 4;
        seed_pbl(&c.u.create_l2q.ring, seed_alloc(1), 1);
        seed_cmd(f, &c, i ? RNIC_CMD_CREATE_RXQ : RNIC_CMD_CREATE_TXQ);
    }
    memset(&c, 0, sizeof(c));
    c.u.alloc_uctx.uctx = 1;
    seed_cmd(f, &c, RNIC_CMD_ALLOC_UCTX);
    for (i = 0; i < 2; i++) {
        memset(&c, 0, sizeof(c));
        c.u.create_pd.pdn = i;
        c.u.create_pd.uctx = i;
        seed_cmd(f, &c, RNIC_CMD_CREATE_PD);
    }
    for (i = 0; i < 3; i++) {
        memset(&c, 0, sizeof(c));
        c.u.create_cq.cqn = i;
        c.u.create_cq.eqn = 3;
        c.u.create_cq.uctx = i == 2;
        c.u.create_cq.log_depth = 6;
        c.u.create_cq.dbrec_addr = seed_alloc(1);
        seed_pbl(&c.u.create_cq.ring, seed_alloc(1), 1);
        seed_cmd(f, &c, RNIC_CMD_CREATE_CQ);
    }
    memset(&c, 0, sizeof(c));
    c.u.create_srq.srqn = 0;
    c.u.create_srq.log_depth = 4;
    c.u.create_srq.max_sge = 2;
    c.u.create_srq.limit = 2;
    seed_pbl(&c.u.create_srq.ring, seed_alloc(1), 1);
    seed_cmd(f, &c, RNIC_CMD_CREATE_SRQ);
    for (i = 0; i < 3; i++) {
        memset(&c, 0, sizeof(c));
        c.u.create_qp.qpn = i;
        c.u.create_qp.pdn = i == 2;
        c.u.create_qp.uctx = i == 2;
        c.u.create_qp.send_cqn = i == 2 ? 2 : 0;
        c.u.create_qp.recv_cqn = i == 2 ? 2 : 1;
        c.u.create_qp.srqn = i == 1 ? 0 : RNIC_NO_SRQ;
        c.u.create_qp.sq_log_depth = 4;
        c.u.create_qp.max_send_sge = 2;
        c.u.create_qp.max_recv_sge = 2;
        seed_pbl(&c.u.create_qp.sq, seed_alloc(1), 1);
        if (i != 1) {
            c.u.create_qp.rq_log_depth = 4;
            seed_pbl(&c.u.create_qp.rq, seed_alloc(1), 1);
        }
        seed_cmd(f, &c, RNIC_CMD_CREATE_QP);
    }
    memset(&c, 0, sizeof(c));
    c.u.reg_mr.stag = 0x100 | 0x33;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ |
                        RNIC_ACCESS_MW_BIND;
    c.u.reg_mr.iova = 0x4000100;
    c.u.reg_mr.length = 2 * PG;
    seed_pbl(&c.u.reg_mr.pages, seed_alloc(3), 3);
    seed_cmd(f, &c, RNIC_CMD_REG_MR);
    /* Windows in it: type 1, type 2 bound to QP 0, one unbound. */
    for (i = 5; i <= 7; i++) {
        memset(&c, 0, sizeof(c));
        c.u.alloc_mw.stag = i << 8;
        c.u.alloc_mw.type = i == 5 ? RNIC_MW_TYPE_1 : RNIC_MW_TYPE_2;
        seed_cmd(f, &c, RNIC_CMD_ALLOC_MW);
    }
    for (i = 5; i <= 6; i++) {
        struct rnic_wqe_bind_mw b = {
            .va = 0x4000200, .length = PG, .mw_stag = i << 8 | i,
            .mr_stag = 0x100 | 0x33, .access = RNIC_ACCESS_REMOTE_READ,
        };

        if (rne_mw_bind(&f->dev, rne_qp_get(&f->dev, 0), &b)) {
            abort();
        }
    }
    memset(&c, 0, sizeof(c));
    c.u.reg_mr.stag = 0x200;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.flags = RNIC_MR_F_PHYS;
    c.u.reg_mr.length = MEM_SIZE;
    seed_cmd(f, &c, RNIC_CMD_REG_MR);
    memset(&c, 0, sizeof(c));
    c.u.alloc_mr.stag = 0x300 | 0x44;
    c.u.alloc_mr.max_pages = 8;
    seed_cmd(f, &c, RNIC_CMD_ALLOC_MR);
    for (i = 0; i < 2; i++) {
        static const uint8_t addr[2][4] = { { 0 }, { 10, 0, 0, 1 } };

        memset(&c, 0, sizeof(c));
        c.u.cm_listen.listen_id = 2 + i;
        c.u.cm_listen.backlog = 8;
        c.u.cm_listen.family = RNIC_AF_IPV4;
        c.u.cm_listen.port = 4791 + i;
        memcpy(c.u.cm_listen.addr, addr[i], 4);
        seed_cmd(f, &c, RNIC_CMD_CM_LISTEN);
    }
    /* Work latched for the next pass, frames queued between passes. */
    rne_dev_doorbell(&f->dev, 0, RNIC_DB_CQ, RNIC_DB_VAL(1, RNIC_DB_ARM, 0));
    rne_dev_doorbell(&f->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(0, 0, 1));
    rne_dev_doorbell(&f->dev, 0, RNIC_DB_SRQ, RNIC_DB_VAL(0, 0, 2));
    rne_dev_doorbell(&f->dev, 0, RNIC_DB_EQ, RNIC_DB_VAL(3, RNIC_DB_ARM, 0));
    {
        static const uint8_t frame[60] = { 0x02, 0, 0, 0, 0, 1 };

        rne_frameq_put(&f->dev.egress, frame, sizeof(frame));
        rne_frameq_put(&f->dev.loop, frame, 42);
    }
}

/* Time passes: a pass, the timer when due, 1 ms per round. */
static void seed_run(struct fs *f, unsigned rounds)
{
    while (rounds--) {
        f->now += 1000000ull;
        if (f->now >= f->deadline) {
            f->deadline = UINT64_MAX;
            rne_dev_timer(&f->dev);
        }
        rne_dev_process(&f->dev);
    }
}

/*
 * A connection of the device to its own listener (frames loop inside it):
 * QP 3 connects to 10.0.0.1:4792, QP 4 accepts; *sq_page: QP 3's SQ ring.
 */
static void seed_conn(struct fs *f, uint64_t *sq_page)
{
    struct rnic_admin_cmd c;
    uint64_t list;
    uint32_t i;

    for (i = 3; i < 5; i++) {
        memset(&c, 0, sizeof(c));
        c.u.create_qp.qpn = i;
        c.u.create_qp.send_cqn = 0;
        c.u.create_qp.recv_cqn = 1;
        c.u.create_qp.srqn = RNIC_NO_SRQ;
        c.u.create_qp.sq_log_depth = 4;
        c.u.create_qp.rq_log_depth = 4;
        c.u.create_qp.max_send_sge = 2;
        c.u.create_qp.max_recv_sge = 2;
        seed_pbl(&c.u.create_qp.sq, seed_alloc(1), 1);
        list = c.u.create_qp.sq.addr;
        if (i == 3) {
            memcpy(sq_page, guest_mem + list, 8);
        }
        seed_pbl(&c.u.create_qp.rq, seed_alloc(1), 1);
        seed_cmd(f, &c, RNIC_CMD_CREATE_QP);
        memset(&c, 0, sizeof(c));
        c.u.modify_qp.qpn = i;
        c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
        c.u.modify_qp.access = RNIC_ACCESS_REMOTE_READ;
        seed_cmd(f, &c, RNIC_CMD_MODIFY_QP);
    }
    memset(&c, 0, sizeof(c));
    c.u.cm_connect.qpn = 3;
    c.u.cm_connect.tuple.family = RNIC_AF_IPV4;
    memcpy(c.u.cm_connect.tuple.local_addr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
    memcpy(c.u.cm_connect.tuple.remote_addr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
    c.u.cm_connect.tuple.local_port = 40000;
    c.u.cm_connect.tuple.remote_port = 4792;
    memcpy(c.u.cm_connect.next_hop_mac, f->dev.port.mac, 6);
    c.u.cm_connect.ird = c.u.cm_connect.ord = 4;
    c.u.cm_connect.mpa_rev = 2;
    c.u.cm_connect.mpa_flags = RNIC_MPA_CRC;
    seed_cmd(f, &c, RNIC_CMD_CM_CONNECT);
    seed_run(f, 20);
    memset(&c, 0, sizeof(c));
    c.u.cm_accept.conn_id = 1;
    c.u.cm_accept.qpn = 4;
    c.u.cm_accept.ird = c.u.cm_accept.ord = 4;
    c.u.cm_accept.mpa_flags = RNIC_MPA_CRC;
    seed_cmd(f, &c, RNIC_CMD_CM_ACCEPT);
    seed_run(f, 20);
    if (f->dev.iw->nlive != 2 || !f->dev.rdma->qp[3].iw ||
        !f->dev.rdma->qp[4].iw) {
        fprintf(stderr, "seed: the looped connection is not up\n");
        abort();
    }
}

/* QP 3 Reads 8000 octets of MR 0x133 over the connection. */
static void seed_read(struct fs *f, uint64_t sq_page)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 7;
    w.hdr.opcode = RNIC_WR_READ;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = 0x4000100;
    w.op.rdma.rkey = 0x100 | 0x33;
    w.data.sge[0].addr = 0x4000100;
    w.data.sge[0].length = 8000;
    w.data.sge[0].lkey = 0x100 | 0x33;
    memcpy(guest_mem + sq_page, &w, sizeof(w));
    rne_dev_doorbell(&f->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(3, 0, 1));
}

static void seed_write(const char *dir, const char *name, struct fs *f)
{
    char err[RNE_STATE_ERR_LEN], path[4096];
    uint8_t *s;
    size_t n;
    FILE *fp;

    if (rne_state_save(&f->dev, &s, &n, err, sizeof(err))) {
        fprintf(stderr, "seed %s: %s\n", name, err);
        abort();
    }
    snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
    fp = fopen(path, "wb");
    if (!fp || fwrite(s, 1, n, fp) != n || fclose(fp)) {
        perror(path);
        abort();
    }
    free(s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("FUZZ_STATE_SEEDS");
    static struct fs f;
    uint64_t sq_page = 0;
    unsigned i;

    (void)argc;
    (void)argv;
    if (!dir) {
        return 0;
    }
    memset(guest_mem, 0xa5, sizeof(guest_mem));
    fs_init(&f);
    seed_write(dir, "fresh", &f);
    seed_enable(&f);
    seed_write(dir, "enabled", &f);
    seed_objects(&f);
    seed_write(dir, "objects", &f);
    rne_dev_process(&f.dev);
    seed_write(dir, "objects-run", &f);
    seed_conn(&f, &sq_page);
    seed_write(dir, "conn", &f);
    /* the Read on its way: every state between passes that saves */
    seed_read(&f, sq_page);
    for (i = 0; i < 6; i++) {
        char name[32], err[RNE_STATE_ERR_LEN];
        uint8_t *s;
        size_t n;

        rne_dev_process(&f.dev);
        if (!rne_state_save(&f.dev, &s, &n, err, sizeof(err))) {
            free(s);
            snprintf(name, sizeof(name), "conn-read-%u", i);
            seed_write(dir, name, &f);
        }
    }
    rne_dev_fini(&f.dev);
    exit(0);
}
