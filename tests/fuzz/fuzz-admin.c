// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over the device's guest interface: a whole engine
 * device (core/dev.h) on 256 KiB of guest RAM, driven only through its
 * entry points (register writes, doorbells, process, timer, receive, reset)
 * by a program the fuzzer writes: admin commands with any opcode and any
 * field, guest memory contents, doorbells on any page and offset, register
 * writes, frames from the wire, device resets.
 *
 * Guest memory as the harness leaves it before the program runs:
 *   page 1      a level-1 page list naming pages 16..63 in order, so a
 *               list {0x1000 + 8 * k, n, 12, 1} is n pages from 16 + k
 *   pages 2..4  the admin SQ (16 commands), CQ (16 entries), their lists
 *   pages 16..  zero, for rings and buffers
 *
 * Program: records of [op][operands]; op % 9 selects
 *   0 CMD    [opcode][n][n body bytes]: an admin command (header flags 0)
 *   1 MEM    [page][off hi][off lo][n][n bytes]: guest memory contents
 *   2 DB     [page][slot][8 value bytes]: doorbell page, offset slot * 8
 *   3 REG    [off hi][off lo][4 value bytes]: a register write
 *   4 READ   [off]: a register read
 *   5 TIME   [n]: n ms pass, the timer fires if due
 *   6 RESET  device reset, then the admin queue is set up again
 *   7 FRAME  [n][n bytes]: a frame from the wire
 *   8 LINK   [b]: link up (b odd) or down
 *
 * Checked after every step: the device's DMA stayed inside guest RAM (the
 * host refuses the rest; ASan guards the array), and, unless the program
 * reprogrammed the admin queue or overwrote it (through MEM, or a DMA
 * target it chose), a NOP posted on the admin queue completes with OK.
 * At the end a reset must bring the device back to READY answering NOP;
 * LeakSanitizer checks that fini frees everything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/dev.h"
#include "core/ring.h"

#define PG              RNIC_PAGE_SIZE
#define NPAGES          64
#define MEM_SIZE        (NPAGES * PG)
#define LIST_PAGE       1
#define ADMQ_SQ_PAGE    2
#define ADMQ_CQ_PAGE    3
#define ADMQ_PBL_PAGE   4
#define FIRST_FREE      16
#define ADMQ_LOG        4
#define ADMQ_DEPTH      (1u << ADMQ_LOG)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_ADMIN_TRACE=1: print every admin completion (seed debugging). */
static bool trace;

struct fa {
    struct rne_dev dev;
    uint8_t *mem;
    uint64_t now, deadline;
    uint32_t sq_tail, cq_head;
    uint16_t tag;
    bool tampered;          /* the admin queue is no longer the harness's */
    bool in_admq_write;     /* the device writes its admin CQE */
};

static bool in_ram(uint64_t addr, size_t len)
{
    return addr <= MEM_SIZE && len <= MEM_SIZE - addr;
}

static bool hits_admq(uint64_t addr, size_t len)
{
    return addr < (ADMQ_PBL_PAGE + 1) * PG && addr + len > ADMQ_SQ_PAGE * PG;
}

static int h_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct fa *f = opaque;

    if (!in_ram(addr, len)) {
        return -1;
    }
    memcpy(buf, f->mem + addr, len);
    return 0;
}

static int h_dma_write(void *opaque, uint64_t addr, const void *buf,
                       size_t len)
{
    struct fa *f = opaque;
    uint64_t cq = ADMQ_CQ_PAGE * PG;

    if (!in_ram(addr, len)) {
        return -1;
    }
    /* Admin CQEs: 16 bytes in slot; anything else there is the program's. */
    if (hits_admq(addr, len) &&
        !(addr >= cq && addr < cq + ADMQ_DEPTH * RNIC_ADMIN_CQE_SIZE &&
          len <= RNIC_ADMIN_CQE_SIZE &&
          (addr & ~(uint64_t)(RNIC_ADMIN_CQE_SIZE - 1)) ==
          ((addr + len - 1) & ~(uint64_t)(RNIC_ADMIN_CQE_SIZE - 1)))) {
        f->tampered = true;
    }
    memcpy(f->mem + addr, buf, len);
    return 0;
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
    return ((struct fa *)opaque)->now;
}

static void h_timer_mod(void *opaque, uint64_t deadline)
{
    ((struct fa *)opaque)->deadline = deadline;
}

static void h_guest_error(void *opaque, const char *what, uint64_t a,
                          uint64_t b)
{
    (void)opaque;
    (void)what;
    (void)a;
    (void)b;
}

/* Ring and MR pages: all of the fuzzer's memory is RAM, nothing else. */
static int h_dma_check_ram(void *opaque, uint64_t addr, uint64_t len)
{
    (void)opaque;
    return in_ram(addr, len) ? 0 : -1;
}

/* The ISN key: fixed, so that an input replays the same way. */
static void h_random(void *opaque, void *buf, size_t len)
{
    (void)opaque;
    memset(buf, 0x5a, len);
}

static const struct rne_host_ops fa_ops = {
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

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* The admin queue in pages 2..4, enabled; false if the device refused. */
static bool admq_enable(struct fa *f)
{
    uint64_t sq_list = ADMQ_PBL_PAGE * PG, cq_list = sq_list + 8;

    memset(f->mem + ADMQ_SQ_PAGE * PG, 0, 3 * PG);
    put64(f->mem + sq_list, ADMQ_SQ_PAGE * PG);
    put64(f->mem + cq_list, ADMQ_CQ_PAGE * PG);
    f->sq_tail = f->cq_head = 0;
    f->tampered = false;
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)sq_list);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_SQ_PBL_HI, 0);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)cq_list);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CQ_PBL_HI, 0);
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CFG,
                      RNIC_ADMQ_CFG_SQ_LOG(ADMQ_LOG) |
                      RNIC_ADMQ_CFG_CQ_LOG(ADMQ_LOG));
    rne_dev_reg_write(&f->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    rne_dev_process(&f->dev);
    return (rne_dev_reg_read(&f->dev, RNIC_REG_DEV_STATUS) &
            (RNIC_STATUS_READY | RNIC_STATUS_FATAL)) == RNIC_STATUS_READY;
}

/* Consume every completion the device wrote; *out: the one with tag. */
static void admq_drain(struct fa *f, uint16_t tag, struct rnic_admin_cqe *out)
{
    unsigned n;

    for (n = 0; n < ADMQ_DEPTH; n++) {
        uint32_t slot = f->cq_head & (ADMQ_DEPTH - 1);
        uint8_t phase = ((f->cq_head / ADMQ_DEPTH) & 1) ? 0 : 1;
        struct rnic_admin_cqe c;

        memcpy(&c, f->mem + ADMQ_CQ_PAGE * PG + slot * RNIC_ADMIN_CQE_SIZE,
               sizeof(c));
        if ((c.flags & RNIC_CQE_PHASE) != phase) {
            return;
        }
        f->cq_head++;
        rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_CQ_HEAD, f->cq_head);
        if (trace) {
            fprintf(stderr, "admin: opcode 0x%02x tag %u status 0x%02x "
                    "result0 %u\n", c.opcode, c.tag, c.status, c.result0);
        }
        if (out && c.tag == tag) {
            *out = c;
        }
    }
}

static uint16_t admq_post(struct fa *f, const struct rnic_admin_cmd *cmd)
{
    uint64_t slot = ADMQ_SQ_PAGE * PG +
                    (uint64_t)(f->sq_tail & (ADMQ_DEPTH - 1)) *
                    RNIC_ADMIN_CMD_SIZE;
    struct rnic_admin_cmd c = *cmd;

    if (++f->tag == RNIC_ADMIN_TAG_NONE) {
        f->tag = 1;
    }
    c.hdr.tag = f->tag;
    memcpy(f->mem + slot, &c, sizeof(c));
    f->sq_tail++;
    rne_dev_reg_write(&f->dev, RNIC_REG_ADMQ_SQ_TAIL, f->sq_tail);
    rne_dev_process(&f->dev);
    return c.hdr.tag;
}

/* The device must still answer: a NOP completes with OK. */
static void check_nop(struct fa *f)
{
    struct rnic_admin_cmd cmd;
    struct rnic_admin_cqe c;
    uint16_t tag;

    memset(&cmd, 0, sizeof(cmd));
    cmd.hdr.opcode = RNIC_CMD_NOP;
    memset(&c, 0, sizeof(c));
    c.status = 0xff;
    tag = admq_post(f, &cmd);
    admq_drain(f, tag, &c);
    if (c.tag != tag || c.status != RNIC_STS_OK || c.opcode != RNIC_CMD_NOP) {
        abort();
    }
}

static void run(struct fa *f)
{
    rne_dev_process(&f->dev);
    if (f->now >= f->deadline) {
        f->deadline = UINT64_MAX;
        rne_dev_timer(&f->dev);
        rne_dev_process(&f->dev);
    }
    rne_dev_rx_batch_end(&f->dev);
    rne_dev_process(&f->dev);
}

static void reset(struct fa *f)
{
    if (!rne_dev_reset(&f->dev) || !admq_enable(f)) {
        abort();        /* nothing is running: a reset takes effect now */
    }
}

static void setup_memory(struct fa *f)
{
    uint32_t i;

    memset(f->mem, 0, MEM_SIZE);
    for (i = 0; i < NPAGES - FIRST_FREE; i++) {
        put64(f->mem + LIST_PAGE * PG + 8 * i,
              (uint64_t)(FIRST_FREE + i) * PG);
    }
}

/* Take n bytes of the input, or what is left; NULL at the end. */
static const uint8_t *take(const uint8_t **p, const uint8_t *end, size_t n)
{
    const uint8_t *r = *p;

    if ((size_t)(end - r) < n) {
        return NULL;
    }
    *p += n;
    return r;
}

static void step(struct fa *f, uint8_t op, const uint8_t **p,
                 const uint8_t *end)
{
    const uint8_t *a, *b;
    struct rnic_admin_cmd cmd;
    uint64_t v;
    uint32_t u, off;

    switch (op % 9) {
    case 0:
        a = take(p, end, 2);
        if (!a) {
            return;
        }
        b = take(p, end, a[1] > 120 ? 120 : a[1]);
        if (!b) {
            return;
        }
        memset(&cmd, 0, sizeof(cmd));
        cmd.hdr.opcode = a[0];
        memcpy(cmd.u.raw, b, a[1] > 120 ? 120 : a[1]);
        admq_post(f, &cmd);
        break;
    case 1:
        a = take(p, end, 4);
        if (!a) {
            return;
        }
        off = (a[0] % NPAGES) * PG + (((uint32_t)a[1] << 8 | a[2]) & (PG - 1));
        u = a[3];
        if (u > MEM_SIZE - off) {
            u = MEM_SIZE - off;
        }
        b = take(p, end, u);
        if (!b) {
            return;
        }
        if (hits_admq(off, u)) {
            f->tampered = true;
        }
        memcpy(f->mem + off, b, u);
        break;
    case 2:
        a = take(p, end, 10);
        if (!a) {
            return;
        }
        memcpy(&v, a + 2, 8);
        rne_dev_doorbell(&f->dev, a[0] % (f->dev.cfg.max_uctx + 2),
                         (a[1] % 16) * 8, v);
        break;
    case 3:
        a = take(p, end, 6);
        if (!a) {
            return;
        }
        off = ((uint32_t)a[0] << 8 | a[1]) & 0x1fc;
        memcpy(&u, a + 2, 4);
        if (off == RNIC_REG_DEV_CTRL ||
            (off >= RNIC_REG_ADMQ_SQ_PBL_LO && off <= RNIC_REG_ADMQ_CQ_HEAD)) {
            f->tampered = true;
        }
        rne_dev_reg_write(&f->dev, off, u);
        break;
    case 4:
        a = take(p, end, 1);
        if (!a) {
            return;
        }
        (void)rne_dev_reg_read(&f->dev, (uint32_t)a[0] * 4 & 0x1fc);
        return;
    case 5:
        a = take(p, end, 1);
        if (!a) {
            return;
        }
        f->now += (uint64_t)a[0] * 1000000;
        break;
    case 6:
        reset(f);
        break;
    case 7:
        a = take(p, end, 1);
        if (!a) {
            return;
        }
        b = take(p, end, a[0]);
        if (!b) {
            return;
        }
        rne_dev_receive(&f->dev, b, a[0]);
        break;
    case 8:
        a = take(p, end, 1);
        if (!a) {
            return;
        }
        rne_dev_set_link(&f->dev, a[0] & 1);
        break;
    }
    run(f);
    admq_drain(f, 0, NULL);
    if (!f->tampered) {
        check_nop(f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *mem;
    struct rne_dev_config cfg;
    const uint8_t *p = data, *end = data + size;
    struct fa *f;

    if (!mem) {
        trace = getenv("FUZZ_ADMIN_TRACE") != NULL;
        mem = malloc(MEM_SIZE);     /* exactly RAM: ASan guards both ends */
    }
    f = calloc(1, sizeof(*f));
    if (!f || !mem) {
        abort();
    }
    f->mem = mem;
    f->deadline = UINT64_MAX;
    setup_memory(f);
    rne_dev_config_default(&cfg);
    cfg.mac[0] = 0x02;
    cfg.mac[5] = 0x07;
    cfg.max_qp = cfg.max_cq = cfg.max_pd = cfg.max_srq = 8;
    cfg.max_mr = 16;
    cfg.max_uctx = 3;
    cfg.max_listen = 4;
    cfg.max_conn = 12;
    if (rne_dev_init(&f->dev, &cfg, &fa_ops, f) || !admq_enable(f)) {
        abort();
    }
    check_nop(f);
    while (p < end) {
        uint8_t op = *p++;

        step(f, op, &p, end);
    }
    reset(f);
    check_nop(f);
    rne_dev_fini(&f->dev);
    free(f);
    return 0;
}
