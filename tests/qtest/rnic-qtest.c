/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnic device qtest: no guest, the test is the driver.  QEMU runs with
 * -accel qtest and a socketpair netdev, so the test also plays the wire
 * (4-byte big-endian length + frame in both directions).
 *
 * Shows: identity/capability registers; admin commands, including
 * malformed ones answered with an error status while QEMU keeps running;
 * a frame sent and a frame received through the L2 rings (incl. jumbo; a
 * frame with no RX buffer posted dropped and counted, not held, so a later
 * one is not stuck behind it); MSI-X raised (vectors masked, PBA polled).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "rnic/hw.h"
#include "qtest-client.h"

#define BAR0_ADDR   0xe0000000ull
#define BAR2_ADDR   0xe0100000ull
#define BAR4_ADDR   0xe0200000ull
#define MEM(x)      (0x200000ull + (x))     /* guest RAM used by the test */

static int failures;
static struct qt *q;
static int wire = -1;           /* our end of the netdev socketpair */
static int devfn = -1;
static uint32_t pba_off;
static uint32_t sq_tail, cq_head;
static uint16_t tag;

#define CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++; \
        } \
    } while (0)

static uint32_t reg(uint32_t off)
{
    return qt_readl(q, BAR0_ADDR + off);
}

static void set_reg(uint32_t off, uint32_t v)
{
    qt_writel(q, BAR0_ADDR + off, v);
}

static void doorbell(uint32_t off, uint32_t obj, uint32_t flags, uint32_t idx)
{
    qt_writeq(q, BAR2_ADDR + off, RNIC_DB_VAL(obj, flags, idx));
}

/* Let the main loop run bottom halves: poll cond for up to 5 s. */
#define WAIT_FOR(cond) wait_for_impl(__extension__ ({ \
        bool ok_ = false; \
        for (int i_ = 0; i_ < 5000 && !(ok_ = (cond)); i_++) { \
            qt_clock_step(q, 10000); \
            usleep(1000); \
        } \
        ok_; }), #cond, __LINE__)

static bool wait_for_impl(bool ok, const char *what, int line)
{
    if (!ok) {
        fprintf(stderr, "FAIL line %d: timed out waiting for %s\n", line,
                what);
        failures++;
    }
    return ok;
}

static uint64_t pba(void)
{
    return qt_readq(q, BAR4_ADDR + pba_off);
}

static void write_pbl(uint64_t at, uint64_t page)
{
    qt_memwrite(q, at, &page, sizeof(page));
}

/* ------------------------------------------------------------------ */

static void find_and_map(void)
{
    uint32_t id = 0, cls, cap, ctrl, bir;
    int d;

    for (d = 0; d < 32; d++) {
        id = qt_pci_read(q, d << 3, 0);
        if (id == ((uint32_t)RNIC_PCI_DEVICE_ID << 16 | RNIC_PCI_VENDOR_ID)) {
            devfn = d << 3;
            break;
        }
    }
    CHECK(devfn >= 0);
    if (devfn < 0) {
        fprintf(stderr, "rnic not found on bus 0\n");
        exit(1);
    }
    cls = qt_pci_read(q, devfn, 0x08);
    printf("pci: %02x.0 id %04x:%04x class %06x rev %u subsys %08x\n",
           devfn >> 3, id & 0xffff, id >> 16, cls >> 8, cls & 0xff,
           qt_pci_read(q, devfn, 0x2c));
    CHECK((cls >> 8) == RNIC_PCI_CLASS);

    /* BAR sizes: all-ones probe, then program the addresses. */
    qt_pci_write(q, devfn, 0x10, 0xffffffff);
    printf("pci: BAR0 size %u bytes\n",
           ~(qt_pci_read(q, devfn, 0x10) & ~0xfu) + 1);
    CHECK((~(qt_pci_read(q, devfn, 0x10) & ~0xfu) + 1) == RNIC_REGS_SIZE);
    qt_pci_write(q, devfn, 0x18, 0xffffffff);
    printf("pci: BAR2 (doorbells) size %u bytes\n",
           ~(qt_pci_read(q, devfn, 0x18) & ~0xfu) + 1);
    qt_pci_write(q, devfn, 0x10, (uint32_t)BAR0_ADDR);
    qt_pci_write(q, devfn, 0x14, 0);
    qt_pci_write(q, devfn, 0x18, (uint32_t)BAR2_ADDR);
    qt_pci_write(q, devfn, 0x1c, 0);
    qt_pci_write(q, devfn, 0x20, (uint32_t)BAR4_ADDR);
    qt_pci_write(q, devfn, 0x24, 0);
    qt_pci_write(q, devfn, 0x04, 0x6);      /* memory + bus master */

    /* MSI-X on, every vector left masked: notifications set PBA bits. */
    for (cap = qt_pci_read(q, devfn, 0x34) & 0xff; cap;
         cap = (qt_pci_read(q, devfn, cap) >> 8) & 0xff) {
        if ((qt_pci_read(q, devfn, cap) & 0xff) == 0x11) {
            break;
        }
    }
    CHECK(cap != 0);
    ctrl = qt_pci_read(q, devfn, cap);
    printf("msix: %u vectors\n", ((ctrl >> 16) & 0x7ff) + 1);
    CHECK(((ctrl >> 16) & 0x7ff) + 1 == reg(RNIC_REG_NUM_MSIX));
    qt_pci_write(q, devfn, cap, ctrl | (1u << 31));
    bir = qt_pci_read(q, devfn, cap + 8);
    CHECK((bir & 7) == RNIC_BAR_MSIX);
    pba_off = bir & ~7u;
}

static void test_identity(void)
{
    printf("regs: magic 0x%08x version 0x%08x status 0x%x features 0x%x\n",
           reg(RNIC_REG_MAGIC), reg(RNIC_REG_VERSION),
           reg(RNIC_REG_DEV_STATUS), reg(RNIC_REG_FEATURES));
    CHECK(reg(RNIC_REG_MAGIC) == RNIC_MAGIC);
    CHECK(reg(RNIC_REG_VERSION) == RNIC_HW_VERSION);
    CHECK(reg(RNIC_REG_DEV_STATUS) == RNIC_STATUS_LINK_UP);
    printf("caps: qp %u cq %u mr %u pd %u srq %u eq %u uctx %u sge %u/%u "
           "inline %u ird/ord %u/%u mtu %u..%u pages 0x%x\n",
           reg(RNIC_REG_MAX_QP), reg(RNIC_REG_MAX_CQ), reg(RNIC_REG_MAX_MR),
           reg(RNIC_REG_MAX_PD), reg(RNIC_REG_MAX_SRQ), reg(RNIC_REG_MAX_EQ),
           reg(RNIC_REG_MAX_UCTX), reg(RNIC_REG_MAX_SEND_SGE),
           reg(RNIC_REG_MAX_RECV_SGE), reg(RNIC_REG_MAX_INLINE),
           reg(RNIC_REG_MAX_IRD), reg(RNIC_REG_MAX_ORD),
           reg(RNIC_REG_MIN_MTU), reg(RNIC_REG_MAX_MTU),
           reg(RNIC_REG_PAGE_SIZES));
    CHECK(reg(RNIC_REG_MAX_QP) == 1024);
    CHECK(reg(RNIC_REG_MAX_EQ) == 4);       /* set on the command line */
    CHECK(reg(RNIC_REG_MAX_MTU) >= 9000);
    CHECK(reg(RNIC_REG_DB_PAGES) == 64);
    CHECK(reg(RNIC_REG_MAC_LO) == 0x12005452 && reg(RNIC_REG_MAC_HI) == 0x5634);
}

/* Admin queue: 8 commands at MEM(0x1000), 8 completions at MEM(0x2000). */
#define ASQ     MEM(0x1000)
#define ACQ     MEM(0x2000)
#define ADEPTH  8

static void admin_enable(void)
{
    write_pbl(MEM(0x0000), ASQ);
    write_pbl(MEM(0x0008), ACQ);
    qt_memset(q, ASQ, 0, 0x2000);
    set_reg(RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)MEM(0));
    set_reg(RNIC_REG_ADMQ_SQ_PBL_HI, 0);
    set_reg(RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)MEM(8));
    set_reg(RNIC_REG_ADMQ_CQ_PBL_HI, 0);
    set_reg(RNIC_REG_ADMQ_CFG, RNIC_ADMQ_CFG_SQ_LOG(3) |
            RNIC_ADMQ_CFG_CQ_LOG(3));
    set_reg(RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    WAIT_FOR(reg(RNIC_REG_DEV_STATUS) & RNIC_STATUS_READY);
    printf("admin: enabled, status 0x%x\n", reg(RNIC_REG_DEV_STATUS));
}

static void post(struct rnic_admin_cmd *c)
{
    c->hdr.tag = ++tag;
    qt_memwrite(q, ASQ + (sq_tail % ADEPTH) * RNIC_ADMIN_CMD_SIZE, c,
                sizeof(*c));
    sq_tail++;
}

static bool poll_cqe(struct rnic_admin_cqe *cqe)
{
    uint8_t phase = ((cq_head / ADEPTH) & 1) ? 0 : 1;

    qt_memread(q, ACQ + (cq_head % ADEPTH) * RNIC_ADMIN_CQE_SIZE, cqe,
               sizeof(*cqe));
    return (cqe->flags & RNIC_CQE_PHASE) == phase;
}

static struct rnic_admin_cqe wait_cqe(void)
{
    struct rnic_admin_cqe cqe;

    memset(&cqe, 0xff, sizeof(cqe));
    WAIT_FOR(poll_cqe(&cqe));
    cq_head++;
    set_reg(RNIC_REG_ADMQ_CQ_HEAD, cq_head);
    return cqe;
}

static unsigned run(struct rnic_admin_cmd *c, const char *what)
{
    struct rnic_admin_cqe cqe;

    post(c);
    set_reg(RNIC_REG_ADMQ_SQ_TAIL, sq_tail);
    cqe = wait_cqe();
    CHECK(cqe.tag == tag);
    printf("admin: %-34s -> status %u\n", what, cqe.status);
    return cqe.status;
}

static struct rnic_admin_cmd cmd(uint8_t opcode)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = opcode;
    return c;
}

static void ring_pbl(struct rnic_pbl *p, uint64_t list_at, uint64_t page)
{
    write_pbl(list_at, page);
    memset(p, 0, sizeof(*p));
    p->addr = list_at;
    p->nentries = 1;
    p->levels = 1;
    p->page_shift = RNIC_PAGE_SHIFT;
}

#define EQ_RING     MEM(0x3000)
#define TX_RING     MEM(0x4000)
#define RX_RING     MEM(0x5000)
#define TX_BUF      MEM(0x10000)
#define RX_BUF      MEM(0x20000)    /* 3 pages per RX buffer */

static void test_admin(void)
{
    struct rnic_admin_cmd c;
    uint64_t before;
    int i;

    admin_enable();
    before = pba();
    c = cmd(RNIC_CMD_NOP);
    CHECK(run(&c, "NOP") == RNIC_STS_OK);
    WAIT_FOR(pba() & 1);
    printf("msix: PBA 0x%llx after the first admin completion "
           "(was 0x%llx)\n", (unsigned long long)pba(),
           (unsigned long long)before);

    c = cmd(0x7e);
    CHECK(run(&c, "bad opcode 0x7e") == RNIC_STS_BAD_OPCODE);
    c = cmd(RNIC_CMD_NOP);
    c.hdr.flags = 0x80;
    CHECK(run(&c, "NOP with reserved flags") == RNIC_STS_BAD_PARAM);
    c = cmd(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 200;
    c.u.create_eq.log_depth = 4;
    ring_pbl(&c.u.create_eq.ring, MEM(0x10), EQ_RING);
    CHECK(run(&c, "CREATE_EQ eqn 200 (max 4)") == RNIC_STS_BAD_INDEX);
    c = cmd(RNIC_CMD_CREATE_TXQ);
    c.u.create_l2q.qid = 0xffffffff;
    c.u.create_l2q.eqn = 1;
    c.u.create_l2q.log_depth = 3;
    CHECK(run(&c, "CREATE_TXQ qid 0xffffffff") == RNIC_STS_BAD_INDEX);
    c = cmd(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 1;
    c.u.create_eq.log_depth = 4;
    ring_pbl(&c.u.create_eq.ring, MEM(0x10), EQ_RING);
    c.u.create_eq.ring.addr = 0x4000000000ull;     /* 256 GiB: no RAM */
    CHECK(run(&c, "CREATE_EQ page list at 256 GiB") == RNIC_STS_DMA_ERROR);
    ring_pbl(&c.u.create_eq.ring, MEM(0x10), 0x7ffffff000ull);
    CHECK(run(&c, "CREATE_EQ ring page at 512 GiB") == RNIC_STS_DMA_ERROR);
    c = cmd(RNIC_CMD_QUERY_STATS);
    c.u.query_stats.buf_addr = 0xfffffffffffff000ull;
    c.u.query_stats.buf_len = sizeof(struct rnic_port_stats);
    CHECK(run(&c, "QUERY_STATS to the top of memory") == RNIC_STS_DMA_ERROR);
    c = cmd(RNIC_CMD_CREATE_QP);
    CHECK(run(&c, "CREATE_QP with no PD, CQs or rings") ==
          RNIC_STS_BAD_PARAM);

    /* Ring overflow: a tail 9 ahead of the head on an 8-entry ring. */
    set_reg(RNIC_REG_ADMQ_SQ_TAIL, sq_tail + ADEPTH + 1);
    {
        struct rnic_admin_cqe cqe = wait_cqe();

        printf("admin: %-34s -> status %u tag 0x%x\n",
               "SQ tail beyond head + depth", cqe.status, cqe.tag);
        CHECK(cqe.status == RNIC_STS_RING_OVERFLOW);
        CHECK(cqe.tag == RNIC_ADMIN_TAG_NONE);
    }
    CHECK(qt_alive(q));
    /* Still serving, and the completion ring wrapped (phase 0) meanwhile. */
    for (i = 0; i < 3; i++) {
        c = cmd(RNIC_CMD_NOP);
        CHECK(run(&c, "NOP after the errors") == RNIC_STS_OK);
    }
    printf("admin: %u commands, completion ring wrapped %u time(s), "
           "QEMU alive: %s\n", sq_tail, cq_head / ADEPTH,
           qt_alive(q) ? "yes" : "no");

    /* The objects the L2 test needs. */
    c = cmd(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 1;
    c.u.create_eq.log_depth = 4;
    c.u.create_eq.flags = RNIC_EQ_F_ASYNC;
    ring_pbl(&c.u.create_eq.ring, MEM(0x10), EQ_RING);
    qt_memset(q, EQ_RING, 0, 0x1000);
    CHECK(run(&c, "CREATE_EQ 1 (async)") == RNIC_STS_OK);
    c = cmd(RNIC_CMD_CREATE_TXQ);
    c.u.create_l2q.eqn = 1;
    c.u.create_l2q.log_depth = 3;
    ring_pbl(&c.u.create_l2q.ring, MEM(0x18), TX_RING);
    CHECK(run(&c, "CREATE_TXQ 0") == RNIC_STS_OK);
    c = cmd(RNIC_CMD_CREATE_RXQ);
    c.u.create_l2q.eqn = 1;
    c.u.create_l2q.log_depth = 3;
    ring_pbl(&c.u.create_l2q.ring, MEM(0x20), RX_RING);
    CHECK(run(&c, "CREATE_RXQ 0") == RNIC_STS_OK);
    c = cmd(RNIC_CMD_SET_PORT);
    c.u.set_port.mtu = 9000;
    memcpy(c.u.set_port.mac, "\x52\x54\x00\x12\x34\x56", 6);
    CHECK(run(&c, "SET_PORT mtu 9000") == RNIC_STS_OK);
}

/* ------------------------------------------------------------------ */
/* L2 */

static uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static void make_frame(uint8_t *f, size_t len, const uint8_t *dst,
                       uint8_t seed)
{
    size_t i;

    memcpy(f, dst, 6);
    memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
    f[12] = 0x88;
    f[13] = 0xb5;               /* local experimental ethertype */
    for (i = 14; i < len; i++) {
        f[i] = (uint8_t)(seed * 7 + i);
    }
}

/* Read one frame from the wire; 0 if none arrives within 5 s. */
static size_t wire_recv(uint8_t *buf, size_t cap)
{
    struct pollfd p = { .fd = wire, .events = POLLIN };
    uint32_t be;
    size_t len, got = 0;
    int i;

    for (i = 0; i < 500 && poll(&p, 1, 0) == 0; i++) {
        qt_clock_step(q, 10000);
        usleep(10000);
    }
    if (!(p.revents & POLLIN) || recv(wire, &be, 4, MSG_WAITALL) != 4) {
        return 0;
    }
    len = ntohl(be);
    if (len > cap) {
        return 0;
    }
    while (got < len) {
        ssize_t r = recv(wire, buf + got, len - got, 0);

        if (r <= 0) {
            return 0;
        }
        got += (size_t)r;
    }
    return len;
}

static void wire_send(const uint8_t *frame, size_t len)
{
    uint32_t be = htonl((uint32_t)len);

    CHECK(send(wire, &be, 4, 0) == 4);
    CHECK(send(wire, frame, len, 0) == (ssize_t)len);
}

static uint32_t tx_tail, rx_tail, eq_head;

static void tx_one(const uint8_t *frame, size_t len)
{
    struct rnic_l2_tx_desc d;
    uint64_t buf = TX_BUF + (tx_tail % 8) * 0x3000;

    qt_memwrite(q, buf, frame, len);
    memset(&d, 0, sizeof(d));
    d.addr = buf;
    d.len = (uint16_t)len;
    d.flags = RNIC_L2_TX_EOP;
    qt_memwrite(q, TX_RING + (tx_tail % 8) * 16, &d, sizeof(d));
    tx_tail++;
    doorbell(RNIC_DB_L2_TX, 0, RNIC_DB_ARM, tx_tail);
}

static uint8_t tx_status(uint32_t i)
{
    struct rnic_l2_tx_desc d;

    qt_memread(q, TX_RING + (i % 8) * 16, &d, sizeof(d));
    return d.status;
}

static void rx_post(void)
{
    struct rnic_l2_rx_desc d;

    memset(&d, 0, sizeof(d));
    d.addr = RX_BUF + (rx_tail % 8) * 0x3000;
    d.buf_len = 9018 + 4;
    qt_memwrite(q, RX_RING + (rx_tail % 8) * 16, &d, sizeof(d));
    rx_tail++;
}

static struct rnic_l2_rx_desc rx_desc(uint32_t i)
{
    struct rnic_l2_rx_desc d;

    qt_memread(q, RX_RING + (i % 8) * 16, &d, sizeof(d));
    return d;
}

static struct rnic_eqe eqe(uint32_t i)
{
    struct rnic_eqe e;

    qt_memread(q, EQ_RING + (i % 16) * RNIC_EQE_SIZE, &e, sizeof(e));
    return e;
}

static void test_tx(void)
{
    static uint8_t f[9018], got[9100];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    size_t n;

    /* The async EQ got the link state first; consume it and arm the EQ. */
    CHECK(eqe(0).type == RNIC_EQE_ASYNC && eqe(0).code == RNIC_ASYNC_PORT_UP);
    eq_head = 1;
    doorbell(RNIC_DB_EQ, 1, RNIC_DB_ARM, eq_head);
    CHECK(!(pba() & 2));

    make_frame(f, 60, bcast, 1);
    tx_one(f, 60);
    n = wire_recv(got, sizeof(got));
    printf("tx: sent 60-byte frame, wire got %zu bytes, %s\n", n,
           n == 60 && !memcmp(got, f, 60) ? "identical" : "DIFFERENT");
    CHECK(n == 60 && !memcmp(got, f, 60));
    WAIT_FOR(tx_status(0) == RNIC_L2_DONE);
    WAIT_FOR(eqe(1).type == RNIC_EQE_L2_TX);
    WAIT_FOR(pba() & 2);
    printf("tx: descriptor status 0x%x, EQE type %u obj %u, PBA 0x%llx "
           "(vector 1 = EQ 1 pending)\n", tx_status(0), eqe(1).type,
           eqe(1).obj, (unsigned long long)pba());

    /* Jumbo: 9000 MTU + 14-byte header. */
    make_frame(f, 9014, bcast, 2);
    tx_one(f, 9014);
    n = wire_recv(got, sizeof(got));
    printf("tx: sent 9014-byte jumbo frame, wire got %zu bytes, %s\n", n,
           n == 9014 && !memcmp(got, f, 9014) ? "identical" : "DIFFERENT");
    CHECK(n == 9014 && !memcmp(got, f, 9014));

    /* Too long for MTU 9000: completed with an error, never on the wire. */
    make_frame(f, 9018 + 1, bcast, 3);
    tx_one(f, 9019);
    WAIT_FOR(tx_status(2) == (RNIC_L2_DONE | RNIC_L2_ERR));
    printf("tx: 9019-byte frame (> MTU + 18) -> status 0x%x\n",
           tx_status(2));
}

/* A slow wire: QEMU's socket is full, so the ring must wait, not drop. */
static void test_tx_backpressure(void)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static uint8_t f[6][9014], got[9100];
    uint32_t first = tx_tail, done = 0, i;
    size_t n;

    for (i = 0; i < 6; i++) {
        make_frame(f[i], 9014, bcast, (uint8_t)(20 + i));
        tx_one(f[i], 9014);
    }
    for (i = 0; i < 20; i++) {
        qt_clock_step(q, 10000);
        usleep(5000);
    }
    for (i = 0; i < 6; i++) {
        done += tx_status(first + i) == RNIC_L2_DONE;
    }
    printf("tx: 6 jumbo frames into a busy socket -> %u completed, %u held "
           "in the ring\n", done, 6 - done);
    CHECK(done < 6);
    for (i = 0; i < 6; i++) {
        n = wire_recv(got, sizeof(got));
        CHECK(n == 9014 && !memcmp(got, f[i], 9014));
    }
    WAIT_FOR(tx_status(first + 5) == RNIC_L2_DONE);
    printf("tx: wire drained -> all 6 frames arrived in order, intact: %s\n",
           failures ? "NO" : "yes");
}

/* The device's rx_no_buffer counter, through QUERY_STATS. */
static uint64_t rx_no_buffer(void)
{
    struct rnic_admin_cmd c = cmd(RNIC_CMD_QUERY_STATS);
    struct rnic_port_stats st;
    struct rnic_admin_cqe cqe;

    c.u.query_stats.buf_addr = MEM(0x6000);
    c.u.query_stats.buf_len = sizeof(st);
    post(&c);
    set_reg(RNIC_REG_ADMQ_SQ_TAIL, sq_tail);
    cqe = wait_cqe();
    CHECK(cqe.tag == tag && cqe.status == RNIC_STS_OK);
    qt_memread(q, MEM(0x6000), &st, sizeof(st));
    return st.rx_no_buffer;
}

static void test_rx(void)
{
    static uint8_t f[9018], got[9018];
    struct rnic_l2_rx_desc d;
    int i;

    rx_post();
    doorbell(RNIC_DB_L2_RX, 0, RNIC_DB_ARM, rx_tail);
    make_frame(f, 1000, our_mac, 4);
    wire_send(f, 1000);
    WAIT_FOR(rx_desc(0).status & RNIC_L2_DONE);
    d = rx_desc(0);
    qt_memread(q, d.addr, got, d.pkt_len ? d.pkt_len : 1);
    printf("rx: injected 1000-byte frame -> descriptor status 0x%x len %u, "
           "%s\n", d.status, d.pkt_len,
           d.pkt_len == 1000 && !memcmp(got, f, 1000) ? "identical" :
           "DIFFERENT");
    CHECK(d.status == RNIC_L2_DONE && d.pkt_len == 1000);
    CHECK(!memcmp(got, f, 1000));
    for (i = 2; i < 15 && eqe(i).type != RNIC_EQE_L2_RX; i++) {
        continue;
    }
    CHECK(eqe(i).type == RNIC_EQE_L2_RX);

    /*
     * No buffer posted: the frame is dropped and counted (rx_no_buffer), as
     * on a real NIC; held in QEMU's queue it would hold every frame behind
     * it, offloaded connections' too.  A frame sent after a buffer is
     * posted lands in it, not the old one.
     */
    make_frame(f, 9014, our_mac, 5);
    wire_send(f, 9014);
    WAIT_FOR(rx_no_buffer() == 1);
    d = rx_desc(1);
    printf("rx: jumbo frame with no RX buffer posted -> descriptor 1 "
           "status 0x%x, rx_no_buffer %llu (dropped)\n", d.status,
           (unsigned long long)rx_no_buffer());
    CHECK(d.status == 0);
    rx_post();
    doorbell(RNIC_DB_L2_RX, 0, 0, rx_tail);
    for (i = 0; i < 20; i++) {
        qt_clock_step(q, 10000);
        usleep(5000);
    }
    CHECK(rx_desc(1).status == 0);
    make_frame(f, 9014, our_mac, 8);
    wire_send(f, 9014);
    WAIT_FOR(rx_desc(1).status & RNIC_L2_DONE);
    d = rx_desc(1);
    qt_memread(q, d.addr, got, d.pkt_len ? d.pkt_len : 1);
    printf("rx: buffer posted -> the next 9014-byte frame delivered, len "
           "%u, %s\n", d.pkt_len,
           d.pkt_len == 9014 && !memcmp(got, f, 9014) ? "identical" :
           "DIFFERENT");
    CHECK(d.pkt_len == 9014 && !memcmp(got, f, 9014));

    /* Not our MAC: filtered, buffer stays posted. */
    rx_post();
    doorbell(RNIC_DB_L2_RX, 0, 0, rx_tail);
    make_frame(f, 100, (const uint8_t *)"\x52\x54\x00\x99\x99\x99", 6);
    wire_send(f, 100);
    make_frame(f, 200, our_mac, 7);
    wire_send(f, 200);
    WAIT_FOR(rx_desc(2).status & RNIC_L2_DONE);
    printf("rx: frame for another MAC then one for us -> slot 2 got len %u\n",
           rx_desc(2).pkt_len);
    CHECK(rx_desc(2).pkt_len == 200);
}

/* Consume every valid EQ entry, then re-arm; returns the count. */
static unsigned eq_drain(void)
{
    unsigned n = 0;

    for (;;) {
        struct rnic_eqe e = eqe(eq_head);
        uint8_t phase = ((eq_head / 16) & 1) ? 0 : 1;

        if ((e.flags & RNIC_CQE_PHASE) != phase) {
            break;
        }
        eq_head++;
        n++;
    }
    doorbell(RNIC_DB_EQ, 1, RNIC_DB_ARM, eq_head);
    return n;
}

static void set_link(bool up)
{
    char cmd[128], *reply;

    snprintf(cmd, sizeof(cmd), "{\"execute\": \"set_link\", \"arguments\": "
             "{\"name\": \"rnic0\", \"up\": %s}}", up ? "true" : "false");
    reply = qt_qmp(q, cmd);
    CHECK(strstr(reply, "\"return\"") != NULL);
    free(reply);
}

static void test_link(void)
{
    unsigned drained = eq_drain();
    uint32_t at = eq_head;

    set_link(false);
    WAIT_FOR(!(reg(RNIC_REG_DEV_STATUS) & RNIC_STATUS_LINK_UP));
    WAIT_FOR(eqe(at).type == RNIC_EQE_ASYNC);
    printf("link: set_link off -> status 0x%x, EQE %u async code %u "
           "(PORT_DOWN = %u); %u earlier events drained\n",
           reg(RNIC_REG_DEV_STATUS), at, eqe(at).code, RNIC_ASYNC_PORT_DOWN,
           drained);
    CHECK(eqe(at).code == RNIC_ASYNC_PORT_DOWN);
    eq_drain();
    set_link(true);
    WAIT_FOR(reg(RNIC_REG_DEV_STATUS) & RNIC_STATUS_LINK_UP);
    WAIT_FOR(eqe(at + 1).type == RNIC_EQE_ASYNC);
    printf("link: set_link on  -> status 0x%x, async code %u (PORT_UP = %u)\n",
           reg(RNIC_REG_DEV_STATUS), eqe(at + 1).code, RNIC_ASYNC_PORT_UP);
    CHECK(eqe(at + 1).code == RNIC_ASYNC_PORT_UP);
}

static void test_stats_and_reset(void)
{
    struct rnic_admin_cmd c = cmd(RNIC_CMD_QUERY_STATS);
    struct rnic_port_stats st;

    c.u.query_stats.buf_addr = MEM(0x6000);
    c.u.query_stats.buf_len = sizeof(st);
    CHECK(run(&c, "QUERY_STATS") == RNIC_STS_OK);
    qt_memread(q, MEM(0x6000), &st, sizeof(st));
    printf("stats: tx %llu frames %llu bytes %llu errors; rx %llu frames "
           "%llu bytes, %llu filtered\n",
           (unsigned long long)st.tx_frames, (unsigned long long)st.tx_bytes,
           (unsigned long long)st.tx_errors, (unsigned long long)st.rx_frames,
           (unsigned long long)st.rx_bytes,
           (unsigned long long)st.rx_filtered);
    CHECK(st.tx_frames == 8 && st.tx_bytes == 60 + 7 * 9014 &&
          st.tx_errors == 1);
    CHECK(st.rx_frames == 3 && st.rx_filtered == 1 && st.rx_no_buffer == 1);

    set_reg(RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    WAIT_FOR(!(reg(RNIC_REG_DEV_STATUS) &
               (RNIC_STATUS_RESETTING | RNIC_STATUS_READY)));
    printf("reset: status 0x%x, admin cfg 0x%x\n", reg(RNIC_REG_DEV_STATUS),
           reg(RNIC_REG_ADMQ_CFG));
    CHECK(reg(RNIC_REG_ADMQ_CFG) == 0);
    /* Doorbells are ignored while the device is not enabled. */
    doorbell(RNIC_DB_L2_TX, 0, 0, 1);
    CHECK(qt_alive(q));
}

int main(void)
{
    char qemu[4096], bios[64], log[256];
    int ret;
    char netdev[64];
    int sv[2];

    /* The +ds QEMU tree ships no firmware; qtest never runs any. */
    ret = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (ret) {
        return ret;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("socketpair");
        return 1;
    }
    wire = sv[0];
    /* A small send buffer on QEMU's end lets the test make the wire busy. */
    {
        int sz = 4096;

        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    }
    snprintf(netdev, sizeof(netdev), "socket,id=n0,fd=%d", sv[1]);
    snprintf(log, sizeof(log), "%s/rnic-qtest-qemu.log",
             getenv("MESON_BUILD_ROOT") ? getenv("MESON_BUILD_ROOT") : "/tmp");
    {
        const char *argv[] = {
            "-machine", "q35", "-nodefaults", "-display", "none",
            "-m", "64M", "-bios", bios,
            "-netdev", netdev,
            "-device", "rnic,id=rnic0,netdev=n0,addr=04.0,max-eq=4",
            "-d", "guest_errors", "-trace", "rnic_*",
            NULL
        };

        printf("qemu: %s (log %s)\n", qemu, log);
        q = qt_start(qemu, argv, log);
    }
    close(sv[1]);

    find_and_map();
    test_identity();
    test_admin();
    test_tx();
    test_tx_backpressure();
    test_rx();
    test_link();
    test_stats_and_reset();

    CHECK(qt_alive(q));
    qt_quit(q);
    unlink(bios);
    if (failures) {
        printf("%d check(s) failed; QEMU log: %s\n", failures, log);
        return 1;
    }
    printf("rnic-qtest: all checks passed\n");
    return 0;
}
