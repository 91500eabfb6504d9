/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit-test host for the device core (see test-dev-harness.h).
 */
#include <string.h>
#include "test-dev-harness.h"
#include "../sim/splitmix64.h"

int test_failures;
uint64_t h_random_state = 0x5eed;

static int mem_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct harness *h = opaque;

    h->dma_reads++;
    if (addr > GUEST_MEM_SIZE || len > GUEST_MEM_SIZE - addr) {
        return -1;
    }
    memcpy(buf, h->mem + addr, len);
    return 0;
}

static int mem_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
    struct harness *h = opaque;

    if (addr > GUEST_MEM_SIZE || len > GUEST_MEM_SIZE - addr) {
        return -1;
    }
    memcpy(h->mem + addr, buf, len);
    if (h->on_dma_write) {
        h->on_dma_write(h->on_dma_write_ctx, addr, len);
    }
    return 0;
}

/* All of the byte array is RAM; nothing else is. */
static int mem_check_ram(void *opaque, uint64_t addr, uint64_t len)
{
    (void)opaque;
    return addr > GUEST_MEM_SIZE || len > GUEST_MEM_SIZE - addr ? -1 : 0;
}

/* splitmix64 over h_random_state: reproducible, distinct per draw. */
static void random_bytes(void *opaque, void *buf, size_t len)
{
    (void)opaque;
    splitmix64_fill(&h_random_state, buf, len);
}

static void notify(void *opaque, unsigned vector)
{
    struct harness *h = opaque;

    if (vector < 64) {
        h->irq_count[vector]++;
    }
}

static bool send_frame(void *opaque, const void *frame, size_t len)
{
    struct harness *h = opaque;

    h->sent_total++;
    if (h->on_frame) {
        h->on_frame(h->on_frame_ctx, frame, len);
        return !h->wire_busy;
    }
    if (h->ncap < MAX_CAPTURE && len <= MAX_CAP_FRAME) {
        memcpy(h->cap[h->ncap], frame, len);
        h->cap_len[h->ncap++] = len;
    }
    return !h->wire_busy;
}

static void rx_resume(void *opaque)
{
    ((struct harness *)opaque)->rx_resumes++;
}

static void guest_error(void *opaque, const char *what, uint64_t a, uint64_t b)
{
    (void)what;
    (void)a;
    (void)b;
    ((struct harness *)opaque)->guest_errors++;
}

static uint64_t now_ns(void *opaque)
{
    return ((struct harness *)opaque)->now_ns;
}

static void timer_mod(void *opaque, uint64_t deadline_ns)
{
    ((struct harness *)opaque)->timer_deadline = deadline_ns;
}

static const struct rne_host_ops ops = {
    .dma_read = mem_read,
    .dma_write = mem_write,
    .dma_check_ram = mem_check_ram,
    .notify = notify,
    .send_frame = send_frame,
    .rx_resume = rx_resume,
    .guest_error = guest_error,
    .random = random_bytes,
    .now_ns = now_ns,
    .timer_mod = timer_mod,
};

struct harness *h_new(const struct rne_dev_config *cfg)
{
    struct rne_dev_config def;
    struct harness *h = calloc(1, sizeof(*h));

    if (!cfg) {
        rne_dev_config_default(&def);
        cfg = &def;
    }
    h->mem = calloc(1, GUEST_MEM_SIZE);
    h->alloc_next = 0x10000;
    h->timer_deadline = UINT64_MAX;
    if (rne_dev_init(&h->dev, cfg, &ops, h)) {
        abort();
    }
    return h;
}

void h_free(struct harness *h)
{
    rne_dev_fini(&h->dev);
    free(h->mem);
    free(h);
}

uint64_t h_alloc(struct harness *h, uint32_t pages)
{
    uint64_t a = h->alloc_next;

    h->alloc_next += (uint64_t)pages * RNIC_PAGE_SIZE;
    if (h->alloc_next > GUEST_MEM_SIZE) {
        abort();
    }
    memset(h->mem + a, 0, (size_t)pages * RNIC_PAGE_SIZE);
    return a;
}

void h_pbl(struct harness *h, struct rnic_pbl *pbl, uint64_t base,
           uint32_t pages)
{
    uint64_t list = h_alloc(h, 1);
    uint32_t i;

    for (i = 0; i < pages; i++) {
        uint64_t p = base + (uint64_t)i * RNIC_PAGE_SIZE;

        memcpy(h->mem + list + 8 * i, &p, 8);
    }
    memset(pbl, 0, sizeof(*pbl));
    pbl->addr = list;
    pbl->nentries = pages;
    pbl->page_shift = RNIC_PAGE_SHIFT;
    pbl->levels = 1;
}

void h_run(struct harness *h)
{
    rne_dev_process(&h->dev);
}

bool h_enable(struct harness *h, unsigned sq_log, unsigned cq_log)
{
    struct rnic_pbl sq, cq;
    uint32_t sq_pages, cq_pages;

    h->sq_depth = 1u << sq_log;
    h->cq_depth = 1u << cq_log;
    sq_pages = rne_ring_pages_needed(h->sq_depth, RNIC_ADMIN_CMD_SIZE);
    cq_pages = rne_ring_pages_needed(h->cq_depth, RNIC_ADMIN_CQE_SIZE);
    h->sq_base = h_alloc(h, sq_pages);
    h->cq_base = h_alloc(h, cq_pages);
    h_pbl(h, &sq, h->sq_base, sq_pages);
    h_pbl(h, &cq, h->cq_base, cq_pages);
    h->sq_tail = h->cq_head = 0;
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)sq.addr);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_PBL_HI, sq.addr >> 32);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)cq.addr);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CQ_PBL_HI, cq.addr >> 32);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CFG,
                      RNIC_ADMQ_CFG_SQ_LOG(sq_log) |
                      RNIC_ADMQ_CFG_CQ_LOG(cq_log));
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    h_run(h);
    return rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS) &
           RNIC_STATUS_READY;
}

void h_post(struct harness *h, struct rnic_admin_cmd *cmd)
{
    uint64_t slot = h->sq_base +
                    (uint64_t)(h->sq_tail & (h->sq_depth - 1)) *
                    RNIC_ADMIN_CMD_SIZE;

    cmd->hdr.tag = ++h->next_tag;
    memcpy(h->mem + slot, cmd, sizeof(*cmd));
    h->sq_tail++;
}

void h_ring_admin(struct harness *h)
{
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_TAIL, h->sq_tail);
}

bool h_poll(struct harness *h, struct rnic_admin_cqe *cqe)
{
    uint32_t slot = h->cq_head & (h->cq_depth - 1);
    uint8_t phase = ((h->cq_head / h->cq_depth) & 1) ? 0 : 1;

    memcpy(cqe, h->mem + h->cq_base + slot * RNIC_ADMIN_CQE_SIZE,
           sizeof(*cqe));
    if ((cqe->flags & RNIC_CQE_PHASE) != phase) {
        return false;
    }
    h->cq_head++;
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CQ_HEAD, h->cq_head);
    return true;
}

unsigned h_cmd(struct harness *h, struct rnic_admin_cmd *cmd)
{
    struct rnic_admin_cqe cqe;

    h_post(h, cmd);
    h_ring_admin(h);
    h_run(h);
    if (!h_poll(h, &cqe)) {
        return 0xff;
    }
    CHECK_EQ(cqe.tag, h->next_tag);
    CHECK_EQ(cqe.opcode, cmd->hdr.opcode);
    return cqe.status;
}

uint64_t h_create_eq(struct harness *h, uint32_t eqn, unsigned log,
                     uint8_t flags)
{
    struct rnic_admin_cmd cmd;
    uint32_t pages = rne_ring_pages_needed(1u << log, RNIC_EQE_SIZE);
    uint64_t base = h_alloc(h, pages);

    memset(&cmd, 0, sizeof(cmd));
    cmd.hdr.opcode = RNIC_CMD_CREATE_EQ;
    cmd.u.create_eq.eqn = eqn;
    cmd.u.create_eq.log_depth = (uint8_t)log;
    cmd.u.create_eq.flags = flags;
    h_pbl(h, &cmd.u.create_eq.ring, base, pages);
    CHECK_EQ(h_cmd(h, &cmd), RNIC_STS_OK);
    return base;
}

void h_doorbell(struct harness *h, uint32_t off, uint32_t obj,
                uint32_t flags, uint32_t idx)
{
    rne_dev_doorbell(&h->dev, 0, off, RNIC_DB_VAL(obj, flags, idx));
    h_run(h);
}
