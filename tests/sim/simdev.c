/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A simulated guest driving an rnic through hw.h (see simdev.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "simdev.h"
#include "splitmix64.h"
#include "core/ring.h"

#define PG RNIC_PAGE_SIZE

static uint64_t sd_rng(struct simdev *sd)
{
    return splitmix64_next(&sd->rng);
}

uint8_t sd_guard_byte(uint64_t addr)
{
    return (uint8_t)(((addr >> 12) * 0x9d) ^ ((addr & 0xfff) * 7) ^ 0x5a);
}

static void die(struct simdev *sd, const char *what, uint64_t a)
{
    fprintf(stderr, "simdev %s: %s (0x%" PRIx64 ")\n", sd->name, what, a);
    abort();
}

/* Driver-side bookkeeping arrays live as long as the device. */
static void *sd_calloc(struct simdev *sd, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (!p) {
        die(sd, "out of host memory", n * size);
    }
    if (sd->nowned == sd->capowned) {
        sd->capowned = sd->capowned ? 2 * sd->capowned : 64;
        sd->owned = realloc(sd->owned, sd->capowned * sizeof(void *));
        if (!sd->owned) {
            die(sd, "out of host memory", 0);
        }
    }
    sd->owned[sd->nowned++] = p;
    return p;
}

/* The guard pattern of one page: a row pattern XOR a per-page constant. */
static void fill_guard_page(uint8_t *p, uint64_t addr)
{
    uint8_t c = sd_guard_byte(addr & ~(uint64_t)(PG - 1)) ^ 0x5a;
    uint32_t i;

    for (i = 0; i < PG; i++) {
        p[i] = (uint8_t)((i * 7) ^ 0x5a ^ c);
    }
}

/* ---- host ops ---- */

static bool in_mem(struct simdev *sd, uint64_t addr, size_t len)
{
    return addr <= sd->mem_size && len <= sd->mem_size - addr;
}

static int h_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct simdev *sd = opaque;

    if (!in_mem(sd, addr, len)) {
        sd->st.dma_faults++;
        return -1;
    }
    memcpy(buf, sd->mem + addr, len);
    return 0;
}

static int h_dma_write(void *opaque, uint64_t addr, const void *buf,
                       size_t len)
{
    struct simdev *sd = opaque;

    if (!in_mem(sd, addr, len)) {
        sd->st.dma_faults++;
        return -1;
    }
    memcpy(sd->mem + addr, buf, len);
    return 0;
}

static void h_notify(void *opaque, unsigned vector)
{
    (void)vector;
    ((struct simdev *)opaque)->st.irqs++;
}

static bool h_send_frame(void *opaque, const void *frame, size_t len)
{
    struct simdev *sd = opaque;

    sd->st.tx_frames++;
    if (sd->env.tx) {
        sd->env.tx(sd->env.opaque, sd->side, frame, len);
    }
    return true;
}

static uint64_t h_now(void *opaque)
{
    struct simdev *sd = opaque;

    return sd->env.now ? *sd->env.now : 0;
}

static void h_timer_mod(void *opaque, uint64_t deadline)
{
    ((struct simdev *)opaque)->timer_deadline = deadline;
}

static void h_guest_error(void *opaque, const char *what, uint64_t a,
                          uint64_t b)
{
    struct simdev *sd = opaque;

    sd->st.guest_errors++;
    if (getenv("SIMDEV_VERBOSE")) {
        fprintf(stderr, "simdev %s: guest error: %s (0x%" PRIx64 ", 0x%" PRIx64
                ")\n", sd->name, what, a, b);
    }
}

/* The ISN key: splitmix64 from a per-process counter (reproducible runs). */
static void h_random(void *opaque, void *buf, size_t len)
{
    static uint64_t state = 0x51d5eed;
    (void)opaque;
    splitmix64_fill(&state, buf, len);
}

static const struct rne_host_ops sd_ops = {
    .dma_read = h_dma_read,
    .dma_write = h_dma_write,
    .notify = h_notify,
    .send_frame = h_send_frame,
    .now_ns = h_now,
    .timer_mod = h_timer_mod,
    .guest_error = h_guest_error,
    .random = h_random,
};

/* ---- memory ---- */

struct simdev *sd_new(const struct rne_dev_config *cfg, uint64_t mem_size,
                      int side, uint64_t seed, const struct sd_env *env)
{
    struct simdev *sd = calloc(1, sizeof(*sd));
    struct rne_dev_config def;
    uint64_t a;

    if (!sd) {
        return NULL;
    }
    if (!cfg) {
        rne_dev_config_default(&def);
        cfg = &def;
    }
    sd->side = side;
    sd->name = side ? "B" : "A";
    sd->mem_size = (mem_size + PG - 1) & ~(uint64_t)(PG - 1);
    sd->mem = malloc(sd->mem_size);
    sd->page_used = calloc(sd->mem_size / PG, 1);
    sd->page_dev = calloc(sd->mem_size / PG, 1);
    if (!sd->mem || !sd->page_used || !sd->page_dev) {
        free(sd->mem);
        free(sd->page_used);
        free(sd->page_dev);
        free(sd);
        return NULL;
    }
    for (a = 0; a < sd->mem_size; a += PG) {
        fill_guard_page(sd->mem + a, a);
    }
    sd->alloc_next = 0x10000;
    sd->rng = seed * 0x2545f4914f6cdd1dull + 7 + (uint64_t)side;
    sd->timer_deadline = UINT64_MAX;
    if (env) {
        sd->env = *env;
    }
    memcpy(sd->mac, cfg->mac, 6);
    if (rne_dev_init(&sd->dev, cfg, &sd_ops, sd)) {
        free(sd->mem);
        free(sd->page_used);
        free(sd->page_dev);
        free(sd);
        return NULL;
    }
    return sd;
}

void sd_free(struct simdev *sd)
{
    if (!sd) {
        return;
    }
    rne_dev_fini(&sd->dev);
    while (sd->nowned) {
        free(sd->owned[--sd->nowned]);
    }
    free(sd->owned);
    free(sd->mem);
    free(sd->page_used);
    free(sd->page_dev);
    free(sd);
}

void sd_mark_dev(struct simdev *sd, uint64_t addr, uint32_t pages)
{
    if (!in_mem(sd, addr, (uint64_t)pages * PG)) {
        die(sd, "sd_mark_dev outside guest memory", addr);
    }
    memset(sd->page_dev + addr / PG, 1, pages);
}

uint64_t sd_alloc(struct simdev *sd, uint32_t pages)
{
    uint64_t a = sd->alloc_next + PG;      /* one guard page before */
    uint64_t end = a + (uint64_t)pages * PG;

    if (end + PG > sd->mem_size) {
        die(sd, "guest memory exhausted", end);
    }
    memset(sd->mem + a, 0, (size_t)pages * PG);
    memset(sd->page_used + a / PG, 1, pages);
    sd->alloc_next = end;
    return a;
}

void sd_alloc_scattered(struct simdev *sd, uint32_t npages, uint64_t *out)
{
    uint64_t base = sd_alloc(sd, npages);
    uint32_t i;

    for (i = 0; i < npages; i++) {
        out[i] = base + (uint64_t)i * PG;
    }
    for (i = npages; i > 1; i--) {
        uint32_t j = (uint32_t)(sd_rng(sd) % i);
        uint64_t t = out[i - 1];

        out[i - 1] = out[j];
        out[j] = t;
    }
}

void sd_add_slack(struct simdev *sd, uint64_t addr, uint64_t len)
{
    uint64_t i;

    if (!len) {
        return;
    }
    if (sd->nslack == SD_MAX_SLACK || !in_mem(sd, addr, len)) {
        die(sd, "slack table full or range outside memory", addr);
    }
    for (i = 0; i < len; i++) {
        sd->mem[addr + i] = sd_guard_byte(addr + i);
    }
    sd->slack[sd->nslack].addr = addr;
    sd->slack[sd->nslack].len = len;
    sd->nslack++;
}

static uint64_t check_range(struct simdev *sd, uint64_t addr, uint64_t len,
                            uint64_t bad)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        if (sd->mem[addr + i] != sd_guard_byte(addr + i)) {
            if (!bad) {
                snprintf(sd->err, sizeof(sd->err),
                         "guard byte at 0x%" PRIx64 " changed: 0x%02x, "
                         "expected 0x%02x", addr + i, sd->mem[addr + i],
                         sd_guard_byte(addr + i));
            }
            bad++;
        }
    }
    return bad;
}

uint64_t sd_check_guards(struct simdev *sd)
{
    uint64_t bad = 0, p;
    unsigned i;

    uint8_t *ref = malloc(PG);

    for (p = 0; p < sd->mem_size / PG; p++) {
        if (!sd->page_used[p]) {
            fill_guard_page(ref, p * PG);
            if (memcmp(ref, sd->mem + p * PG, PG)) {
                bad = check_range(sd, p * PG, PG, bad);
            }
        }
    }
    free(ref);
    for (i = 0; i < sd->nslack; i++) {
        bad = check_range(sd, sd->slack[i].addr, sd->slack[i].len, bad);
    }
    return bad;
}

void sd_write(struct simdev *sd, uint64_t addr, const void *buf, size_t len)
{
    if (!in_mem(sd, addr, len)) {
        die(sd, "sd_write outside guest memory", addr);
    }
    memcpy(sd->mem + addr, buf, len);
}

void sd_read(struct simdev *sd, uint64_t addr, void *buf, size_t len)
{
    if (!in_mem(sd, addr, len)) {
        die(sd, "sd_read outside guest memory", addr);
    }
    memcpy(buf, sd->mem + addr, len);
}

/* ---- rings ---- */

static void pbl_level1(struct simdev *sd, struct rnic_pbl *pbl,
                       const uint64_t *pages, uint32_t n)
{
    uint32_t list_pages = (n * 8 + PG - 1) / PG;
    uint64_t list = sd_alloc(sd, list_pages ? list_pages : 1);

    sd_write(sd, list, pages, (size_t)n * 8);
    memset(pbl, 0, sizeof(*pbl));
    pbl->addr = list;
    pbl->nentries = n;
    pbl->page_shift = RNIC_PAGE_SHIFT;
    pbl->levels = 1;
}

static void pbl_level2(struct simdev *sd, struct rnic_pbl *pbl,
                       const uint64_t *pages, uint32_t n)
{
    uint32_t nl2 = (n + RNIC_PBL_PER_PAGE - 1) / RNIC_PBL_PER_PAGE;
    uint64_t *l2 = calloc(nl2, 8);
    uint64_t top = sd_alloc(sd, (nl2 * 8 + PG - 1) / PG);
    uint32_t i;

    sd_alloc_scattered(sd, nl2, l2);
    for (i = 0; i < nl2; i++) {
        uint32_t cnt = n - i * RNIC_PBL_PER_PAGE;

        if (cnt > RNIC_PBL_PER_PAGE) {
            cnt = RNIC_PBL_PER_PAGE;
        }
        sd_write(sd, l2[i], pages + (size_t)i * RNIC_PBL_PER_PAGE,
                 (size_t)cnt * 8);
    }
    sd_write(sd, top, l2, (size_t)nl2 * 8);
    free(l2);
    memset(pbl, 0, sizeof(*pbl));
    pbl->addr = top;
    pbl->nentries = n;
    pbl->page_shift = RNIC_PAGE_SHIFT;
    pbl->levels = 2;
}

static void ring_alloc(struct simdev *sd, struct sd_ring *r, uint32_t depth,
                       uint32_t esize, bool dev_writes)
{
    uint32_t i;

    r->depth = depth;
    r->entry_size = esize;
    r->npages = rne_ring_pages_needed(depth, esize);
    r->pages = sd_calloc(sd, r->npages, 8);
    sd_alloc_scattered(sd, r->npages, r->pages);
    pbl_level1(sd, &r->pbl, r->pages, r->npages);
    for (i = 0; i < r->npages && dev_writes; i++) {
        sd_mark_dev(sd, r->pages[i], 1);
    }
}

static uint64_t ring_slot(const struct sd_ring *r, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & (r->depth - 1)) * r->entry_size;

    return r->pages[off / PG] + off % PG;
}

static uint8_t ring_phase(const struct sd_ring *r, uint32_t idx)
{
    return ((idx / r->depth) & 1) ? 0 : 1;
}

/* ---- admin queue ---- */

void sd_run(struct simdev *sd)
{
    rne_dev_process(&sd->dev);
}

static uint64_t admq_slot(struct simdev *sd, bool cq, uint32_t idx)
{
    uint32_t esz = cq ? RNIC_ADMIN_CQE_SIZE : RNIC_ADMIN_CMD_SIZE;
    uint64_t off = (uint64_t)(idx & (sd->admq_depth - 1)) * esz;

    return (cq ? sd->admq_cq : sd->admq_sq) + off;
}

const char *sd_sts_name(int s)
{
    static const char *n[] = {
        "OK", "BAD_OPCODE", "BAD_PARAM", "BAD_INDEX", "EXISTS", "NOT_FOUND",
        "BUSY", "DMA_ERROR", "NO_RESOURCES", "BAD_STATE", "UNSUPPORTED",
        "RING_OVERFLOW",
    };

    if (s < 0) {
        return "NO COMPLETION";
    }
    return s < (int)(sizeof(n) / sizeof(n[0])) ? n[s] : "?";
}

const char *sd_wc_status_name(unsigned s)
{
    static const char *n[] = {
        "SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR",
        "WR_FLUSH_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR",
        "REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "FATAL_ERR",
        "GENERAL_ERR",
    };

    return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

const char *sd_cm_name(unsigned c)
{
    static const char *n[] = {
        "?", "CONNECT_REQUEST", "CONNECT_REPLY", "ESTABLISHED", "REJECTED",
        "CLOSED", "RESET", "TIMEOUT", "MPA_ERROR",
    };

    return c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}

static const char *op_name(unsigned op)
{
    switch (op) {
    case RNIC_CMD_CREATE_EQ: return "CREATE_EQ";
    case RNIC_CMD_CREATE_RXQ: return "CREATE_RXQ";
    case RNIC_CMD_SET_PORT: return "SET_PORT";
    case RNIC_CMD_CREATE_PD: return "CREATE_PD";
    case RNIC_CMD_CREATE_CQ: return "CREATE_CQ";
    case RNIC_CMD_CREATE_SRQ: return "CREATE_SRQ";
    case RNIC_CMD_CREATE_QP: return "CREATE_QP";
    case RNIC_CMD_MODIFY_QP: return "MODIFY_QP";
    case RNIC_CMD_QUERY_QP: return "QUERY_QP";
    case RNIC_CMD_DESTROY_QP: return "DESTROY_QP";
    case RNIC_CMD_DESTROY_CQ: return "DESTROY_CQ";
    case RNIC_CMD_REG_MR: return "REG_MR";
    case RNIC_CMD_ALLOC_MR: return "ALLOC_MR";
    case RNIC_CMD_DEREG_MR: return "DEREG_MR";
    case RNIC_CMD_CM_LISTEN: return "CM_LISTEN";
    case RNIC_CMD_CM_CONNECT: return "CM_CONNECT";
    case RNIC_CMD_CM_ACCEPT: return "CM_ACCEPT";
    case RNIC_CMD_CM_REJECT: return "CM_REJECT";
    case RNIC_CMD_CM_DISCONNECT: return "CM_DISCONNECT";
    case RNIC_CMD_CM_ABORT: return "CM_ABORT";
    default: return "command";
    }
}

int sd_cmd(struct simdev *sd, struct rnic_admin_cmd *cmd)
{
    struct rnic_admin_cqe cqe;
    unsigned spins;

    cmd->hdr.tag = ++sd->tag;
    if (sd->tag == RNIC_ADMIN_TAG_NONE) {
        cmd->hdr.tag = sd->tag = 1;
    }
    sd_write(sd, admq_slot(sd, false, sd->admq_tail), cmd, sizeof(*cmd));
    sd->admq_tail++;
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_SQ_TAIL, sd->admq_tail);
    for (spins = 0; spins < 1000000; spins++) {
        uint32_t idx = sd->admq_head;

        sd_run(sd);
        sd_read(sd, admq_slot(sd, true, idx), &cqe, sizeof(cqe));
        if ((cqe.flags & RNIC_CQE_PHASE) ==
            (((idx / sd->admq_depth) & 1) ? 0 : 1)) {
            sd->admq_head++;
            rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_CQ_HEAD,
                              sd->admq_head);
            if (cqe.tag != cmd->hdr.tag) {
                continue;       /* e.g. a RING_OVERFLOW notice */
            }
            sd->last_cqe = cqe;
            if (cqe.status) {
                snprintf(sd->err, sizeof(sd->err), "%s: status %s",
                         op_name(cmd->hdr.opcode), sd_sts_name(cqe.status));
            }
            return cqe.status;
        }
        if (!sd->env.step || !sd->env.step(sd->env.opaque)) {
            break;
        }
    }
    snprintf(sd->err, sizeof(sd->err), "%s: no completion",
             op_name(cmd->hdr.opcode));
    return -1;
}

static void cmd_init(struct rnic_admin_cmd *cmd, uint8_t opcode)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->hdr.opcode = opcode;
}

/* ---- event queues ---- */

static int create_eq(struct simdev *sd, struct sd_eq *eq, uint32_t eqn,
                     unsigned log, uint8_t flags)
{
    struct rnic_admin_cmd cmd;
    struct sd_ring r;
    uint32_t i;

    eq->eqn = eqn;
    eq->depth = 1u << log;
    ring_alloc(sd, &r, eq->depth, RNIC_EQE_SIZE, true);
    eq->pages = r.pages;
    eq->npages = r.npages;
    cmd_init(&cmd, RNIC_CMD_CREATE_EQ);
    cmd.u.create_eq.eqn = eqn;
    cmd.u.create_eq.log_depth = (uint8_t)log;
    cmd.u.create_eq.flags = flags;
    cmd.u.create_eq.ring = r.pbl;
    if (flags & RNIC_EQ_F_CM) {
        uint32_t np = eq->depth * RNIC_CM_PDATA_SLOT / PG;

        eq->pdata_pages = sd_calloc(sd, np, 8);
        sd_alloc_scattered(sd, np, eq->pdata_pages);
        for (i = 0; i < np; i++) {
            sd_mark_dev(sd, eq->pdata_pages[i], 1);
        }
        pbl_level1(sd, &cmd.u.create_eq.pdata, eq->pdata_pages, np);
    }
    return sd_cmd(sd, &cmd);
}

static uint64_t eq_slot(const struct sd_eq *eq, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & (eq->depth - 1)) * RNIC_EQE_SIZE;

    return eq->pages[off / PG] + off % PG;
}

static void eq_poll(struct simdev *sd, struct sd_eq *eq)
{
    struct rnic_eqe e;
    bool any = false;

    if (!eq->depth) {
        return;
    }
    for (;;) {
        uint8_t phase = ((eq->cidx / eq->depth) & 1) ? 0 : 1;

        sd_read(sd, eq_slot(eq, eq->cidx), &e, sizeof(e));
        if ((e.flags & RNIC_CQE_PHASE) != phase) {
            break;
        }
        sd->st.eq_entries++;
        if (e.type == RNIC_EQE_CM) {
            struct sd_cm_event *ev = &sd->cmq[sd->cm_tail % SD_CM_QUEUE];
            uint64_t off = (uint64_t)(eq->cidx & (eq->depth - 1)) *
                           RNIC_CM_PDATA_SLOT;
            uint16_t n = e.u.cm.pdata_len;

            if (sd->cm_tail - sd->cm_head >= SD_CM_QUEUE) {
                die(sd, "CM event queue overflow", e.obj);
            }
            memset(ev, 0, sizeof(*ev));
            ev->code = e.code;
            ev->conn_id = e.obj;
            ev->cm = e.u.cm;
            if (n > RNIC_CM_PDATA_SLOT) {
                n = RNIC_CM_PDATA_SLOT;
            }
            if (eq->pdata_pages) {
                sd_read(sd, eq->pdata_pages[off / PG] + off % PG, ev->pdata,
                        n);
            }
            sd->cm_tail++;
        } else if (e.type == RNIC_EQE_ASYNC) {
            if (sd->async_n < sizeof(sd->asyncq) / sizeof(sd->asyncq[0])) {
                sd->asyncq[sd->async_n].code = e.code;
                sd->asyncq[sd->async_n].obj = e.obj;
                sd->asyncq[sd->async_n].info = e.u.async.info;
                sd->async_n++;
            }
        } else if (e.type == RNIC_EQE_COMP) {
            sd->comp_events[e.obj % 64]++;
        }
        eq->cidx++;
        any = true;
    }
    if (any) {
        rne_dev_doorbell(&sd->dev, 0, RNIC_DB_EQ,
                         RNIC_DB_VAL(eq->eqn, RNIC_DB_ARM, eq->cidx));
    }
}

static void l2_poll(struct simdev *sd)
{
    bool any = false;

    if (!sd->l2_ring) {
        return;
    }
    for (;;) {
        uint64_t slot = sd->l2_ring + (uint64_t)(sd->l2_cidx & 63) *
                        RNIC_L2_DESC_SIZE;
        struct rnic_l2_rx_desc d;

        sd_read(sd, slot, &d, sizeof(d));
        if (!(d.status & RNIC_L2_DONE) || sd->l2_cidx == sd->l2_pidx) {
            break;
        }
        sd->st.l2_rx_frames++;
        sd->l2_cidx++;
        /* repost the same buffer at the producer slot */
        slot = sd->l2_ring + (uint64_t)(sd->l2_pidx & 63) * RNIC_L2_DESC_SIZE;
        d.status = 0;
        d.pkt_len = 0;
        d.buf_len = (uint16_t)sd->l2_buf_len;
        sd_write(sd, slot, &d, sizeof(d));
        sd->l2_pidx++;
        any = true;
    }
    if (any) {
        rne_dev_doorbell(&sd->dev, 0, RNIC_DB_L2_RX,
                         RNIC_DB_VAL(0, 0, sd->l2_pidx));
    }
}

void sd_poll_events(struct simdev *sd)
{
    eq_poll(sd, &sd->eq_async);
    eq_poll(sd, &sd->eq_cm);
    eq_poll(sd, &sd->eq_comp);
    l2_poll(sd);
}

bool sd_cm_next(struct simdev *sd, struct sd_cm_event *ev)
{
    sd_poll_events(sd);
    if (sd->cm_head == sd->cm_tail) {
        return false;
    }
    *ev = sd->cmq[sd->cm_head++ % SD_CM_QUEUE];
    return true;
}

bool sd_async_find(struct simdev *sd, uint8_t code, uint32_t obj)
{
    unsigned i;

    sd_poll_events(sd);
    for (i = 0; i < sd->async_n; i++) {
        if (sd->asyncq[i].code == code && sd->asyncq[i].obj == obj) {
            return true;
        }
    }
    return false;
}

/* ---- bring-up ---- */

int sd_announce(struct simdev *sd, const uint8_t *ip)
{
    return sd_announce_vlan(sd, ip, -1);
}

int sd_announce_vlan(struct simdev *sd, const uint8_t *ip, int32_t tci)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct rnic_l2_tx_desc desc;
    uint8_t f[64];
    size_t flen = 60;
    uint32_t slot;

    if (!sd->tx_ring) {
        struct rnic_admin_cmd cmd;
        int s;

        sd->tx_ring = sd_alloc(sd, 1);
        sd_mark_dev(sd, sd->tx_ring, 1);    /* DONE bits */
        sd->tx_buf = sd_alloc(sd, 1);
        cmd_init(&cmd, RNIC_CMD_CREATE_TXQ);
        cmd.u.create_l2q.qid = 0;
        cmd.u.create_l2q.eqn = SD_EQ_COMP;
        cmd.u.create_l2q.log_depth = 3;
        pbl_level1(sd, &cmd.u.create_l2q.ring, &sd->tx_ring, 1);
        s = sd_cmd(sd, &cmd);
        if (s) {
            return s;
        }
    }
    memset(f, 0, sizeof(f));
    memcpy(f, bcast, 6);
    memcpy(f + 6, sd->mac, 6);
    f[12] = 0x08;
    f[13] = 0x06;                       /* ARP request, Ethernet/IPv4 */
    f[15] = 1;
    f[16] = 0x08;
    f[18] = 6;
    f[19] = 4;
    f[21] = 1;
    memcpy(f + 22, sd->mac, 6);
    memcpy(f + 28, ip, 4);
    memcpy(f + 38, ip, 4);              /* gratuitous: target = sender */
    if (tci >= 0) {
        /* from a VLAN interface: one 802.1Q tag after the MACs */
        memmove(f + 16, f + 12, 48);
        f[12] = 0x81;
        f[13] = 0x00;
        f[14] = (uint8_t)(tci >> 8);
        f[15] = (uint8_t)tci;
        flen = 64;
    }
    slot = sd->tx_pidx % 8;
    memcpy(sd->mem + sd->tx_buf + slot * 64, f, flen);
    memset(&desc, 0, sizeof(desc));
    desc.addr = sd->tx_buf + slot * 64;
    desc.len = (uint16_t)flen;
    desc.flags = RNIC_L2_TX_EOP;
    memcpy(sd->mem + sd->tx_ring + slot * sizeof(desc), &desc, sizeof(desc));
    sd->tx_pidx++;
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_L2_TX,
                     RNIC_DB_VAL(0, 0, sd->tx_pidx));
    sd_run(sd);
    return 0;
}

int sd_enable(struct simdev *sd, uint16_t mtu)
{
    struct rnic_admin_cmd cmd;
    struct rnic_pbl sqp, cqp;
    uint64_t pg[2];
    uint32_t i;
    int s;

    if (rne_dev_reg_read(&sd->dev, RNIC_REG_MAGIC) != RNIC_MAGIC) {
        snprintf(sd->err, sizeof(sd->err), "bad MAGIC");
        return -1;
    }
    sd->features = rne_dev_reg_read(&sd->dev, RNIC_REG_FEATURES);
    /* 64 commands of 128 B = 2 pages, 64 completions = 1 page */
    sd->admq_depth = 64;
    sd->admq_sq = sd_alloc(sd, 2);
    sd_mark_dev(sd, sd->admq_sq, 2);    /* commands written at run time */
    sd->admq_cq = sd_alloc(sd, 1);
    sd_mark_dev(sd, sd->admq_cq, 1);
    pg[0] = sd->admq_sq;
    pg[1] = sd->admq_sq + PG;
    pbl_level1(sd, &sqp, pg, 2);
    pbl_level1(sd, &cqp, &sd->admq_cq, 1);
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)sqp.addr);
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_SQ_PBL_HI, sqp.addr >> 32);
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)cqp.addr);
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_CQ_PBL_HI, cqp.addr >> 32);
    rne_dev_reg_write(&sd->dev, RNIC_REG_ADMQ_CFG,
                      RNIC_ADMQ_CFG_SQ_LOG(6) | RNIC_ADMQ_CFG_CQ_LOG(6));
    rne_dev_reg_write(&sd->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    sd_run(sd);
    if (!(rne_dev_reg_read(&sd->dev, RNIC_REG_DEV_STATUS) &
          RNIC_STATUS_READY)) {
        snprintf(sd->err, sizeof(sd->err), "device not READY (error %u)",
                 rne_dev_reg_read(&sd->dev, RNIC_REG_DEV_ERROR));
        return -1;
    }
    s = create_eq(sd, &sd->eq_async, SD_EQ_ASYNC, 6, RNIC_EQ_F_ASYNC);
    if (!s) {
        s = create_eq(sd, &sd->eq_cm, SD_EQ_CM, 8, RNIC_EQ_F_CM);
    }
    if (!s) {
        s = create_eq(sd, &sd->eq_comp, SD_EQ_COMP, 10, 0);
    }
    if (s) {
        return s;
    }
    for (i = 1; i <= 3; i++) {
        struct sd_eq *eq = i == 1 ? &sd->eq_async :
                           i == 2 ? &sd->eq_cm : &sd->eq_comp;

        rne_dev_doorbell(&sd->dev, 0, RNIC_DB_EQ,
                         RNIC_DB_VAL(eq->eqn, RNIC_DB_ARM, 0));
    }
    cmd_init(&cmd, RNIC_CMD_SET_PORT);
    memcpy(cmd.u.set_port.mac, sd->mac, 6);
    cmd.u.set_port.mtu = mtu;
    s = sd_cmd(sd, &cmd);
    if (s) {
        return s;
    }
    /* L2 RX ring: 64 slots, 32 buffers of one frame at this MTU each */
    sd->l2_buf_len = (uint32_t)mtu + 18;    /* Ethernet + one VLAN tag */
    sd->l2_ring = sd_alloc(sd, 1);
    sd_mark_dev(sd, sd->l2_ring, 1);
    cmd_init(&cmd, RNIC_CMD_CREATE_RXQ);
    cmd.u.create_l2q.qid = 0;
    cmd.u.create_l2q.eqn = SD_EQ_COMP;
    cmd.u.create_l2q.log_depth = 6;
    pbl_level1(sd, &cmd.u.create_l2q.ring, &sd->l2_ring, 1);
    s = sd_cmd(sd, &cmd);
    if (s) {
        return s;
    }
    for (i = 0; i < SD_L2_RX_BUFS; i++) {
        struct rnic_l2_rx_desc d;

        memset(&d, 0, sizeof(d));
        sd->l2_buf[i] = sd_alloc(sd, (sd->l2_buf_len + PG - 1) / PG);
        sd_mark_dev(sd, sd->l2_buf[i], (sd->l2_buf_len + PG - 1) / PG);
        d.addr = sd->l2_buf[i];
        d.buf_len = (uint16_t)sd->l2_buf_len;
        sd_write(sd, sd->l2_ring + (uint64_t)i * RNIC_L2_DESC_SIZE, &d,
                 sizeof(d));
    }
    sd->l2_pidx = SD_L2_RX_BUFS;
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_L2_RX,
                     RNIC_DB_VAL(0, 0, sd->l2_pidx));
    sd_run(sd);
    return 0;
}

/* ---- verbs objects ---- */

int sd_create_pd(struct simdev *sd, uint32_t pdn)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_CREATE_PD);
    cmd.u.create_pd.pdn = pdn;
    return sd_cmd(sd, &cmd);
}

int sd_create_cq(struct simdev *sd, struct sd_cq *cq, uint32_t cqn,
                 unsigned log_depth)
{
    struct rnic_admin_cmd cmd;

    memset(cq, 0, sizeof(*cq));
    cq->cqn = cqn;
    ring_alloc(sd, &cq->ring, 1u << log_depth, RNIC_CQE_SIZE, true);
    cq->dbrec = sd_alloc(sd, 1);
    sd_mark_dev(sd, cq->dbrec, 1);      /* the driver's running index */
    cmd_init(&cmd, RNIC_CMD_CREATE_CQ);
    cmd.u.create_cq.cqn = cqn;
    cmd.u.create_cq.eqn = SD_EQ_COMP;
    cmd.u.create_cq.log_depth = (uint8_t)log_depth;
    cmd.u.create_cq.dbrec_addr = cq->dbrec;
    cmd.u.create_cq.ring = cq->ring.pbl;
    return sd_cmd(sd, &cmd);
}

int sd_create_srq(struct simdev *sd, struct sd_srq *srq, uint32_t srqn,
                  uint32_t pdn, unsigned log_depth)
{
    struct rnic_admin_cmd cmd;

    memset(srq, 0, sizeof(*srq));
    srq->srqn = srqn;
    srq->pdn = pdn;
    ring_alloc(sd, &srq->wq.ring, 1u << log_depth, RNIC_RQ_WQE_SIZE,
               false);
    cmd_init(&cmd, RNIC_CMD_CREATE_SRQ);
    cmd.u.create_srq.srqn = srqn;
    cmd.u.create_srq.pdn = pdn;
    cmd.u.create_srq.log_depth = (uint8_t)log_depth;
    cmd.u.create_srq.max_sge = RNIC_RQ_MAX_SGE;
    cmd.u.create_srq.ring = srq->wq.ring.pbl;
    return sd_cmd(sd, &cmd);
}

int sd_create_qp(struct simdev *sd, struct sd_qp *qp, uint32_t qpn,
                 uint32_t pdn, struct sd_cq *scq, struct sd_cq *rcq,
                 struct sd_srq *srq, unsigned sq_log, unsigned rq_log)
{
    struct rnic_admin_cmd cmd;
    struct rnic_cmd_create_qp *c = &cmd.u.create_qp;

    memset(qp, 0, sizeof(*qp));
    qp->qpn = qpn;
    qp->pdn = pdn;
    qp->scq = scq;
    qp->rcq = rcq;
    qp->srqn = srq ? srq->srqn : RNIC_NO_SRQ;
    qp->max_send_sge = RNIC_SQ_MAX_SGE;
    qp->max_recv_sge = RNIC_RQ_MAX_SGE;
    ring_alloc(sd, &qp->sq.ring, 1u << sq_log, RNIC_SQ_WQE_SIZE, false);
    cmd_init(&cmd, RNIC_CMD_CREATE_QP);
    c->qpn = qpn;
    c->pdn = pdn;
    c->send_cqn = scq->cqn;
    c->recv_cqn = rcq->cqn;
    c->srqn = qp->srqn;
    c->sq_log_depth = (uint8_t)sq_log;
    c->max_send_sge = RNIC_SQ_MAX_SGE;
    c->max_recv_sge = RNIC_RQ_MAX_SGE;
    c->max_inline = RNIC_SQ_MAX_INLINE;
    c->sq = qp->sq.ring.pbl;
    if (!srq) {
        ring_alloc(sd, &qp->rq.ring, 1u << rq_log, RNIC_RQ_WQE_SIZE,
                   false);
        c->rq_log_depth = (uint8_t)rq_log;
        c->rq = qp->rq.ring.pbl;
    }
    return sd_cmd(sd, &cmd);
}

int sd_modify_qp_state(struct simdev *sd, uint32_t qpn, uint8_t state)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_MODIFY_QP);
    cmd.u.modify_qp.qpn = qpn;
    cmd.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    cmd.u.modify_qp.state = state;
    return sd_cmd(sd, &cmd);
}

int sd_modify_qp_access(struct simdev *sd, uint32_t qpn, uint32_t access)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_MODIFY_QP);
    cmd.u.modify_qp.qpn = qpn;
    cmd.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
    cmd.u.modify_qp.access = access;
    return sd_cmd(sd, &cmd);
}

int sd_query_qp(struct simdev *sd, uint32_t qpn, struct rnic_qp_attr *attr)
{
    struct rnic_admin_cmd cmd;
    int s;

    if (!sd->scratch_query) {
        sd->scratch_query = sd_alloc(sd, 1);
        sd_mark_dev(sd, sd->scratch_query, 1);
    }
    cmd_init(&cmd, RNIC_CMD_QUERY_QP);
    cmd.u.query_qp.qpn = qpn;
    cmd.u.query_qp.buf_len = sizeof(*attr);
    cmd.u.query_qp.buf_addr = sd->scratch_query;
    s = sd_cmd(sd, &cmd);
    if (!s) {
        sd_read(sd, cmd.u.query_qp.buf_addr, attr, sizeof(*attr));
    }
    return s;
}

static int query_stats(struct simdev *sd, void *out, uint32_t len)
{
    struct rnic_admin_cmd cmd;
    int s;

    if (!sd->scratch_query) {
        sd->scratch_query = sd_alloc(sd, 1);
        sd_mark_dev(sd, sd->scratch_query, 1);
    }
    cmd_init(&cmd, RNIC_CMD_QUERY_STATS);
    cmd.u.query_stats.buf_len = len;
    cmd.u.query_stats.buf_addr = sd->scratch_query;
    s = sd_cmd(sd, &cmd);
    if (!s) {
        sd_read(sd, cmd.u.query_stats.buf_addr, out, len);
    }
    return s;
}

int sd_query_stats(struct simdev *sd, struct rnic_port_stats *out)
{
    return query_stats(sd, out, sizeof(*out));
}

int sd_query_dev_stats(struct simdev *sd, struct rnic_dev_stats *out)
{
    return query_stats(sd, out, sizeof(*out));
}

int sd_destroy(struct simdev *sd, uint8_t opcode, uint32_t id)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, opcode);
    cmd.u.obj.id = id;
    return sd_cmd(sd, &cmd);
}

/*
 * Pages covering [iova, iova + length), the first starting at iova rounded
 * down (the first byte sits at iova's offset in its page, as in Linux);
 * the bytes of the first and last page outside the region are slack.
 */
static void mr_pages(struct simdev *sd, struct sd_mr *mr, uint64_t iova,
                     uint64_t length)
{
    uint64_t fbo = iova % PG, end = (fbo + length) % PG;

    mr->npages = (uint32_t)((fbo + length + PG - 1) / PG);
    if (!mr->npages) {
        mr->npages = 1;
    }
    mr->pages = sd_calloc(sd, mr->npages, 8);
    sd_alloc_scattered(sd, mr->npages, mr->pages);
    sd_add_slack(sd, mr->pages[0], fbo);
    if (end || !length) {
        sd_add_slack(sd, mr->pages[mr->npages - 1] + end, PG - end);
    }
}

int sd_reg_mr(struct simdev *sd, struct sd_mr *mr, uint32_t stag,
              uint32_t pdn, uint32_t access, uint64_t iova, uint64_t length,
              unsigned levels)
{
    struct rnic_admin_cmd cmd;
    struct rnic_cmd_reg_mr *c = &cmd.u.reg_mr;

    memset(mr, 0, sizeof(*mr));
    mr->stag = stag;
    mr->pdn = pdn;
    mr->access = access;
    mr->iova = iova;
    mr->length = length;
    mr->page_shift = RNIC_PAGE_SHIFT;
    mr_pages(sd, mr, iova, length);
    if (!levels) {
        levels = mr->npages > RNIC_PBL_PER_PAGE ? 2 : 1;
    }
    mr->levels = (uint8_t)levels;
    cmd_init(&cmd, RNIC_CMD_REG_MR);
    c->stag = stag;
    c->pdn = pdn;
    c->access = access;
    c->iova = iova;
    c->length = length;
    if (levels == 2) {
        pbl_level2(sd, &c->pages, mr->pages, mr->npages);
    } else {
        pbl_level1(sd, &c->pages, mr->pages, mr->npages);
    }
    return sd_cmd(sd, &cmd);
}

int sd_alloc_mr(struct simdev *sd, struct sd_mr *mr, uint32_t stag,
                uint32_t pdn, uint32_t max_pages)
{
    struct rnic_admin_cmd cmd;

    memset(mr, 0, sizeof(*mr));
    mr->stag = stag;
    mr->pdn = pdn;
    mr->page_shift = RNIC_PAGE_SHIFT;
    mr->npages = max_pages;
    mr->pages = sd_calloc(sd, max_pages, 8);
    sd_alloc_scattered(sd, max_pages, mr->pages);
    mr->pbl_addr = sd_alloc(sd, (max_pages * 8 + PG - 1) / PG);
    sd_write(sd, mr->pbl_addr, mr->pages, (size_t)max_pages * 8);
    cmd_init(&cmd, RNIC_CMD_ALLOC_MR);
    cmd.u.alloc_mr.stag = stag;
    cmd.u.alloc_mr.pdn = pdn;
    cmd.u.alloc_mr.max_pages = max_pages;
    return sd_cmd(sd, &cmd);
}

void sd_wqe_fastreg(struct simdev *sd, struct sd_mr *mr, uint8_t key,
                    uint32_t access, uint64_t iova, uint64_t length,
                    struct rnic_sq_wqe *wqe)
{
    struct rnic_wqe_reg_mr *r = &wqe->op.reg_mr;
    uint32_t n = (uint32_t)((length + PG - 1) / PG);

    (void)sd;
    if (n > mr->npages) {
        n = mr->npages;
    }
    mr->stag = RNIC_STAG(RNIC_STAG_INDEX(mr->stag), key);
    mr->iova = iova;
    mr->length = length;
    mr->access = access;
    memset(wqe, 0, sizeof(*wqe));
    wqe->hdr.opcode = RNIC_WR_REG_MR;
    wqe->hdr.flags = RNIC_WQE_SIGNALED;
    r->iova = iova;
    r->length = length;
    r->stag = mr->stag;
    r->access = access;
    r->pages.addr = mr->pbl_addr;
    r->pages.nentries = n;
    r->pages.page_shift = RNIC_PAGE_SHIFT;
    r->pages.levels = 1;
}

uint64_t sd_mr_addr(const struct sd_mr *mr, uint64_t va)
{
    uint64_t off = va - mr->iova + mr->iova % PG;

    return mr->pages[off / PG] + off % PG;
}

void sd_mr_write(struct simdev *sd, const struct sd_mr *mr, uint64_t off,
                 const void *buf, uint64_t len)
{
    const uint8_t *p = buf;

    off += mr->iova % PG;          /* offsets count from iova */

    while (len) {
        uint64_t n = PG - off % PG;

        if (n > len) {
            n = len;
        }
        sd_write(sd, mr->pages[off / PG] + off % PG, p, n);
        p += n;
        off += n;
        len -= n;
    }
}

void sd_mr_read(struct simdev *sd, const struct sd_mr *mr, uint64_t off,
                void *buf, uint64_t len)
{
    uint8_t *p = buf;

    off += mr->iova % PG;          /* offsets count from iova */

    while (len) {
        uint64_t n = PG - off % PG;

        if (n > len) {
            n = len;
        }
        sd_read(sd, mr->pages[off / PG] + off % PG, p, n);
        p += n;
        off += n;
        len -= n;
    }
}

/* ---- data path ---- */

void sd_post_send(struct simdev *sd, struct sd_qp *qp,
                  const struct rnic_sq_wqe *wqe)
{
    sd_write(sd, ring_slot(&qp->sq.ring, qp->sq.pidx), wqe, sizeof(*wqe));
    qp->sq.pidx++;
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_SQ,
                     RNIC_DB_VAL(qp->qpn, 0, qp->sq.pidx));
}

void sd_post_recv(struct simdev *sd, struct sd_qp *qp,
                  const struct rnic_rq_wqe *wqe)
{
    sd_write(sd, ring_slot(&qp->rq.ring, qp->rq.pidx), wqe, sizeof(*wqe));
    qp->rq.pidx++;
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_RQ,
                     RNIC_DB_VAL(qp->qpn, 0, qp->rq.pidx));
}

void sd_post_srq(struct simdev *sd, struct sd_srq *srq,
                 const struct rnic_rq_wqe *wqe)
{
    sd_write(sd, ring_slot(&srq->wq.ring, srq->wq.pidx), wqe, sizeof(*wqe));
    srq->wq.pidx++;
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_SRQ,
                     RNIC_DB_VAL(srq->srqn, 0, srq->wq.pidx));
}

bool sd_poll_cq(struct simdev *sd, struct sd_cq *cq, struct rnic_cqe *cqe)
{
    uint32_t c;

    sd_read(sd, ring_slot(&cq->ring, cq->cidx), cqe, sizeof(*cqe));
    if ((cqe->owner & RNIC_CQE_PHASE) != ring_phase(&cq->ring, cq->cidx)) {
        return false;
    }
    cq->cidx++;
    c = cq->cidx;
    sd_write(sd, cq->dbrec, &c, 4);
    return true;
}

void sd_arm_cq(struct simdev *sd, struct sd_cq *cq, bool solicited)
{
    rne_dev_doorbell(&sd->dev, 0, RNIC_DB_CQ,
                     RNIC_DB_VAL(cq->cqn, solicited ? RNIC_DB_ARM_SOLICITED :
                                 RNIC_DB_ARM, cq->cidx));
}

/* ---- CM ---- */

static uint64_t pdata_buf(struct simdev *sd, const void *pdata, uint16_t len)
{
    if (!sd->scratch_pdata) {
        sd->scratch_pdata = sd_alloc(sd, 1);
    }
    if (len > RNIC_PAGE_SIZE) {
        len = RNIC_PAGE_SIZE;
    }
    if (len) {
        sd_write(sd, sd->scratch_pdata, pdata, len);
    }
    return sd->scratch_pdata;
}

int sd_cm_listen(struct simdev *sd, uint32_t listen_id, uint16_t port)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_CM_LISTEN);
    cmd.u.cm_listen.listen_id = listen_id;
    cmd.u.cm_listen.backlog = 64;
    cmd.u.cm_listen.family = RNIC_AF_IPV4;
    cmd.u.cm_listen.port = port;
    return sd_cmd(sd, &cmd);
}

int sd_cm_listen_vlan(struct simdev *sd, uint32_t listen_id, uint16_t port,
                      const uint8_t *ip, uint16_t tci)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_CM_LISTEN);
    cmd.u.cm_listen.listen_id = listen_id;
    cmd.u.cm_listen.backlog = 64;
    cmd.u.cm_listen.family = RNIC_AF_IPV4;
    cmd.u.cm_listen.port = port;
    memcpy(cmd.u.cm_listen.addr, ip, 4);
    cmd.u.cm_listen.flags = RNIC_LISTEN_F_VLAN;
    cmd.u.cm_listen.vlan = tci;
    return sd_cmd(sd, &cmd);
}

int sd_cm_connect(struct simdev *sd, struct rnic_cmd_cm_connect *c,
                  const void *pdata, uint32_t *conn_id)
{
    struct rnic_admin_cmd cmd;
    int s;

    cmd_init(&cmd, RNIC_CMD_CM_CONNECT);
    c->pdata_addr = pdata_buf(sd, pdata, c->pdata_len);
    cmd.u.cm_connect = *c;
    s = sd_cmd(sd, &cmd);
    if (!s && conn_id) {
        *conn_id = sd->last_cqe.result0;
    }
    return s;
}

int sd_cm_accept(struct simdev *sd, uint32_t conn_id, uint32_t qpn,
                 uint8_t ird, uint8_t ord, uint8_t mpa_flags,
                 const void *pdata, uint16_t pdata_len)
{
    struct rnic_admin_cmd cmd;
    struct rnic_cmd_cm_accept *a = &cmd.u.cm_accept;

    cmd_init(&cmd, RNIC_CMD_CM_ACCEPT);
    a->conn_id = conn_id;
    a->qpn = qpn;
    a->ird = ird;
    a->ord = ord;
    a->mpa_flags = mpa_flags;
    a->pdata_len = pdata_len;
    a->pdata_addr = pdata_buf(sd, pdata, pdata_len);
    return sd_cmd(sd, &cmd);
}

int sd_cm_reject(struct simdev *sd, uint32_t conn_id, const void *pdata,
                 uint16_t pdata_len)
{
    struct rnic_admin_cmd cmd;

    cmd_init(&cmd, RNIC_CMD_CM_REJECT);
    cmd.u.cm_reject.conn_id = conn_id;
    cmd.u.cm_reject.pdata_len = pdata_len;
    cmd.u.cm_reject.pdata_addr = pdata_buf(sd, pdata, pdata_len);
    return sd_cmd(sd, &cmd);
}

int sd_cm_simple(struct simdev *sd, uint8_t opcode, uint32_t id)
{
    return sd_destroy(sd, opcode, id);
}
