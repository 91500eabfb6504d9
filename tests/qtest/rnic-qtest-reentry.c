/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device re-entered through real QEMU (issue 16): one QEMU per case,
 * the test is the driver (rnic-driver.h).
 *
 * Since issue 17 (ring and MR pages must be guest RAM) every case that
 * used to put a CM EQ ring on a PCI config (ECAM) page first proves that
 * first line of defence: CREATE_EQ there is refused with DMA_ERROR, QEMU
 * lives, nothing is written there and no doorbell runs.
 *
 *  sbr      rnic behind a pcie-pci-bridge on q35, a connection in SYN_SENT:
 *           QUERY_STATS aims its output (tx_bytes' low octet made 0x40) at
 *           the bridge's Bridge Control and sets Secondary Bus Reset, so the
 *           device is reset from inside its own DMA write.  QEMU lives, the
 *           BARs are reset, the device answers after re-init, and
 *           connections are released again after (max-conn=2).
 *  sbr-timer  the same with the connection's SYN timer pending (retries
 *           under way); the timer must not fire into the old rings after.
 *           The old paths (the EQE of CM_ABORT or of the timer setting SBR)
 *           cannot be reached from a guest any more: an EQ ring is RAM.
 *           tests/unit/test-iw-reentry.c keeps the engine-level proof.
 *  sbr-peer B behind the bridge, A on the same hub connects to B's
 *           listener: B is reset by its own QUERY_STATS while A's connect
 *           request waits for B's accept; a fresh connection works after.
 *  timer-db a CM EQ ring on RAM, the doorbell BAR moved onto that RAM
 *           address: the timer's CM_TIMEOUT EQE still lands in RAM (RAM
 *           wins over a BAR in q35's memory map), no doorbell runs from
 *           the device's own DMA.
 *  slot     rnic behind a hot-plug pcie-root-port, the slot powered off
 *           while a connection is being set up: unplugged cleanly.
 *  hub      two rnics on one QEMU hub (synchronous delivery): a Send from A
 *           to B with no receive posted; B's Terminate and RST arrive nested
 *           in A's transmit: A's QP in error, one completion, no DDP segment
 *           twice (frames counted with filter-dump).
 *
 * Usage: rnic-qtest-reentry [CASE] (default: all of them).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rnic-driver.h"

static int failures;
static char qemu[4096], bios[64], logdir[512];

/* Also when a dead QEMU makes the client exit. */
static void drop_bios(void)
{
    unlink(bios);
}

#define CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++; \
        } \
    } while (0)

#define CHECK_EQ(a, b) do { \
        unsigned long long a_ = (a), b_ = (b); \
        if (a_ != b_) { \
            fprintf(stderr, "FAIL %s:%d: %s == %s (0x%llx != 0x%llx)\n", \
                    __FILE__, __LINE__, #a, #b, a_, b_); \
            failures++; \
        } \
    } while (0)

/* Machine memory the tests use: BARs under 0xe0000000, RAM 2..60 MiB. */
#define BAR0        0xe0000000ull
#define BAR2        0xe1000000ull
#define BAR4        0xe2000000ull
#define RAM_LO      0x200000ull
#define RAM_HI      0x3c00000ull
#define ECAM_BASE   0xb0000000ull       /* q35's default MMCONFIG base */
#define ECAM(bus, devfn) (ECAM_BASE + ((uint64_t)(bus) << 20) + \
                          ((uint64_t)(devfn) << 12))

#define EQ_ASYNC    1
#define EQ_COMP     2
#define EQ_CM       3
#define CQN         1
#define QPN         2
#define PORT        20049

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };

static struct qt *start(const char *name, const char *const *extra)
{
    const char *argv[48];
    char log[700];
    int n = 0, i;

    argv[n++] = "-machine";
    argv[n++] = "q35";
    argv[n++] = "-nodefaults";
    argv[n++] = "-display";
    argv[n++] = "none";
    argv[n++] = "-m";
    argv[n++] = "64M";
    argv[n++] = "-bios";
    argv[n++] = bios;
    argv[n++] = "-d";
    argv[n++] = "guest_errors";
    for (i = 0; extra[i] && n < 46; i++) {
        argv[n++] = extra[i];
    }
    argv[n] = NULL;
    snprintf(log, sizeof(log), "%s/rnic-qtest-reentry-%s.log", logdir, name);
    printf("%s: qemu log %s\n", name, log);
    return qt_start(qemu, argv, strdup(log));
}

static void rd_init(struct rd *d, struct qt *q, int bus, uint64_t bar_off,
                    uint64_t ram_lo, uint64_t ram_hi)
{
    memset(d, 0, sizeof(*d));
    d->q = q;
    d->bus = bus;
    d->devfn = rd_find(q, bus);
    d->bar0 = BAR0 + bar_off;
    d->bar2 = BAR2 + bar_off;
    d->bar4 = BAR4 + bar_off;
    d->mem = ram_lo;
    d->mem_end = ram_hi;
}

/* Admin queue, async + completion EQs, PD 0, a CQ and a QP. */
static bool bring_up(struct rd *d, struct rd_eq *async, struct rd_eq *comp,
                     struct rd_cq *cq, struct rd_qp *qp)
{
    bool ok = rd_enable(d);

    CHECK(ok);
    if (!ok) {
        return false;
    }
    CHECK_EQ(rd_create_eq(d, async, EQ_ASYNC, 4, RNIC_EQ_F_ASYNC, 0),
             RNIC_STS_OK);
    CHECK_EQ(rd_create_eq(d, comp, EQ_COMP, 4, 0, 0), RNIC_STS_OK);
    CHECK_EQ(rd_create_pd(d, 0), RNIC_STS_OK);
    CHECK_EQ(rd_create_cq(d, cq, CQN, EQ_COMP, 5), RNIC_STS_OK);
    CHECK_EQ(rd_create_qp(d, qp, QPN, 0, CQN, 4, 4), RNIC_STS_OK);
    return !failures;
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

/* Lines of path that contain what. */
static unsigned count_in_log(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    unsigned n = 0;

    while (f && fgets(line, sizeof(line), f)) {
        n += strstr(line, what) != NULL;
    }
    if (f) {
        fclose(f);
    }
    return n;
}

/* One L2 frame of len octets, so that the port's tx_bytes is len. */
static void l2_send(struct rd *d, struct rd_eq *eq, uint16_t len,
                    const uint8_t mac[6])
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CREATE_TXQ);
    struct rnic_l2_tx_desc t;
    uint64_t ring = rd_alloc(d, 1), buf = rd_alloc(d, 1);
    uint8_t f[14] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    int i;

    memcpy(f + 6, mac, 6);
    f[12] = 0x88;
    f[13] = 0xb5;
    c.u.create_l2q.eqn = eq->eqn;
    c.u.create_l2q.log_depth = 3;
    rd_pbl(d, &c.u.create_l2q.ring, ring, 1);
    CHECK_EQ(rd_cmd(d, &c), RNIC_STS_OK);
    c = rd_mk(RNIC_CMD_SET_PORT);
    c.u.set_port.mtu = 9000;
    memcpy(c.u.set_port.mac, mac, 6);
    CHECK_EQ(rd_cmd(d, &c), RNIC_STS_OK);
    qt_memwrite(d->q, buf, f, sizeof(f));
    memset(&t, 0, sizeof(t));
    t.addr = buf;
    t.len = len;
    t.flags = RNIC_L2_TX_EOP;
    qt_memwrite(d->q, ring, &t, sizeof(t));
    rd_doorbell(d, RNIC_DB_L2_TX, 0, 0, 1);
    for (i = 0; i < 500; i++) {
        qt_memread(d->q, ring, &t, sizeof(t));
        if (t.status & RNIC_L2_DONE) {
            break;
        }
        rd_step(d->q);
    }
    CHECK_EQ(t.status, RNIC_L2_DONE);
}

/* tx_bytes as QUERY_STATS reports it into RAM. */
static uint64_t tx_bytes(struct rd *d)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_QUERY_STATS);
    struct rnic_port_stats st;
    uint64_t buf = rd_alloc(d, 1);

    c.u.query_stats.buf_addr = buf;
    c.u.query_stats.buf_len = sizeof(st);
    CHECK_EQ(rd_cmd(d, &c), RNIC_STS_OK);
    qt_memread(d->q, buf, &st, sizeof(st));
    return st.tx_bytes;
}

/* One L2 frame so that tx_bytes' low octet becomes want. */
static void tx_bytes_low(struct rd *d, struct rd_eq *eq, const uint8_t mac[6],
                         uint8_t want)
{
    uint16_t len = (uint8_t)(want - tx_bytes(d));

    l2_send(d, eq, len < 64 ? len + 256 : len, mac);
    CHECK_EQ(tx_bytes(d) & 0xff, want);
}

/*
 * Issue 17's first line of defence: a CM EQ ring on the config page at
 * page is refused with DMA_ERROR; QEMU lives and no doorbell runs.
 */
static void ring_refused(struct rd *d, const char *name, uint64_t page)
{
    struct rd_eq cm;
    char log[700];
    unsigned sts, rung;

    snprintf(log, sizeof(log), "%s/rnic-qtest-reentry-%s.log", logdir, name);
    rung = count_in_log(log, "rnic_doorbell");
    sts = rd_create_eq(d, &cm, EQ_CM, 2, RNIC_EQ_F_CM, page);
    rung = count_in_log(log, "rnic_doorbell") - rung;
    printf("%s: CREATE_EQ (CM) on the ECAM page 0x%llx -> status %u "
           "(DMA_ERROR = %u), %u doorbell(s) run, QEMU alive: %s\n", name,
           (unsigned long long)page, sts, RNIC_STS_DMA_ERROR, rung,
           qt_alive(d->q) ? "yes" : "no");
    CHECK_EQ(sts, RNIC_STS_DMA_ERROR);
    CHECK_EQ(rung, 0);
    CHECK(qt_alive(d->q));
}

/* ------------------------------------------------------------------ */
/* Secondary Bus Reset from the device's own EQE write                 */

#define BR_DEVFN    (5 << 3)

/* Bus 1 behind the bridge, its memory window over the rnic's BARs. */
static void bridge_setup(struct qt *q)
{
    qt_pci_write(q, BR_DEVFN, 0x18, 0x00010100);     /* pri 0, sec/sub 1 */
    qt_pci_write(q, BR_DEVFN, 0x20, 0xe2f0e000);     /* e0000000-e2ffffff */
    qt_pci_write(q, BR_DEVFN, 0x24, 0x0000fff0);     /* no prefetch window */
    qt_pci_write(q, BR_DEVFN, 0x04, 0x6);
}

/*
 * QUERY_STATS' output onto the bridge's configuration page: tx_bytes
 * (offset 8) over Bridge Control (0x3e), its low octet 0x40 = Secondary Bus
 * Reset.  A one-shot command buffer, not a ring: issue 17's RAM check does
 * not cover it.  Returns Bridge Control after.
 */
static uint32_t stats_onto_bridge(struct rd *d, const char *name)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_QUERY_STATS);
    uint32_t ctl;
    unsigned sts, resets;
    char log[700];

    snprintf(log, sizeof(log), "%s/rnic-qtest-reentry-%s.log", logdir, name);
    resets = count_in_log(log, "rnic_reset");
    c.u.query_stats.buf_addr = ECAM(0, BR_DEVFN) + 0x3e - 8;
    c.u.query_stats.buf_len = sizeof(struct rnic_port_stats);
    d->wait_steps = 100;    /* its completion has nowhere to go */
    sts = rd_cmd(d, &c);
    d->wait_steps = 0;
    ctl = qt_pci_read(d->q, BR_DEVFN, 0x3c) >> 16;
    resets = count_in_log(log, "rnic_reset") - resets;
    printf("%s: QUERY_STATS onto Bridge Control -> %s (status %u), Bridge "
           "Control 0x%x, %u rnic reset(s), QEMU alive: %s\n", name,
           sts == RD_TIMEOUT ? "no completion (reset under it)" : "done",
           sts, ctl, resets, qt_alive(d->q) ? "yes" : "no");
    CHECK_EQ(resets, 1);
    return ctl;
}

/* The CM EQ refused on the bridge's ECAM page, the bridge untouched. */
static void bridge_ring_refused(struct rd *d, const char *name)
{
    uint32_t win = qt_pci_read(d->q, BR_DEVFN, 0x20);

    ring_refused(d, name, ECAM(0, BR_DEVFN));
    CHECK_EQ(qt_pci_read(d->q, BR_DEVFN, 0x3c) >> 16, 0);
    CHECK_EQ(qt_pci_read(d->q, BR_DEVFN, 0x20), win);
}

/*
 * by_timer false: SBR while a connection is in SYN_SENT;
 * true: also its SYN timer part-way through its retries.
 */
static void test_sbr(bool by_timer)
{
    const char *name = by_timer ? "sbr-timer" : "sbr";
    const char *const args[] = {
        "-netdev", "hubport,id=n0,hubid=0",
        /* a port that takes every frame: the SYNs do not hold the L2 one */
        "-netdev", "hubport,id=n1,hubid=0",
        "-device", "pcie-pci-bridge,id=br,bus=pcie.0,addr=05.0",
        "-device", "rnic,id=rnic0,bus=br,addr=01.0,netdev=n0,max-conn=2,"
                   "mac=52:54:00:00:00:0a",
        "-trace", "rnic_doorbell", "-trace", "rnic_reset",
        NULL
    };
    struct qt *q = start(name, args);
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
    struct rd d;
    struct rnic_eqe e;
    static uint8_t ring[4096], after[4096];
    uint32_t conn = 0, ctl;
    unsigned i;

    /* The firmware's job: MMCONFIG on at its usual place, bus 1. */
    qt_pci_write(q, 0, 0x64, 0);
    qt_pci_write(q, 0, 0x60, (uint32_t)ECAM_BASE | 1);
    CHECK_EQ(qt_readl(q, ECAM(0, BR_DEVFN)), qt_pci_read(q, BR_DEVFN, 0));
    bridge_setup(q);
    rd_init(&d, q, 1, 0, RAM_LO, RAM_HI);
    CHECK(d.devfn >= 0);
    if (d.devfn < 0) {
        qt_quit(q);
        return;
    }
    rd_map(&d);
    CHECK_EQ(rd_reg(&d, RNIC_REG_MAGIC), RNIC_MAGIC);
    if (!bring_up(&d, &async, &comp, &cq, &qp)) {
        qt_quit(q);
        return;
    }
    bridge_ring_refused(&d, name);
    CHECK_EQ(rd_create_eq(&d, &cm, EQ_CM, 2, RNIC_EQ_F_CM, 0), RNIC_STS_OK);
    CHECK_EQ(rd_connect(&d, QPN, ip_a, ip_b, PORT, mac_b, &conn),
             RNIC_STS_OK);
    if (by_timer) {
        /* SYN retries at 1 s and 3 s: 2.5 s in, the next one pending. */
        qt_clock_step(q, 2500000000ull);
        CHECK(!rd_poll_eq(&d, &cm, &e));    /* still in SYN_SENT */
    }
    tx_bytes_low(&d, &async, mac_a, 0x40);
    qt_memread(q, cm.ring, ring, sizeof(ring));
    ctl = stats_onto_bridge(&d, name);
    CHECK(ctl & 0x40);
    CHECK(qt_alive(q));
    if (by_timer) {
        /* The pending timer must not write into the rings of before. */
        qt_clock_step(q, 400000000000ull);
        rd_step(q);
        qt_memread(q, cm.ring, after, sizeof(after));
        printf("%s: 400 s after the reset: the old CM EQ ring %s, QEMU "
               "alive: %s\n", name, memcmp(ring, after, sizeof(ring)) ?
               "WRITTEN" : "untouched", qt_alive(q) ? "yes" : "no");
        CHECK(!memcmp(ring, after, sizeof(ring)));
        CHECK(qt_alive(q));
    }

    /* The firmware again: SBR off, the bridge and the device re-programmed. */
    qt_pci_write(q, BR_DEVFN, 0x3c, 0);
    bridge_setup(q);
    CHECK_EQ(qt_pcib_read(q, 1, d.devfn, 0x10) & ~0xfu, 0);  /* was reset */
    rd_init(&d, q, 1, 0, RAM_LO, RAM_HI);
    rd_map(&d);
    CHECK_EQ(rd_reg(&d, RNIC_REG_MAGIC), RNIC_MAGIC);
    CHECK(!(rd_reg(&d, RNIC_REG_DEV_STATUS) & RNIC_STATUS_READY));
    if (!bring_up(&d, &async, &comp, &cq, &qp)) {
        qt_quit(q);
        return;
    }
    CHECK_EQ(rd_cmd_obj(&d, RNIC_CMD_NOP, 0), RNIC_STS_OK);
    CHECK_EQ(rd_create_eq(&d, &cm, EQ_CM, 4, RNIC_EQ_F_CM, 0), RNIC_STS_OK);
    /* max-conn=2: a connection the reset left behind would run out. */
    for (i = 0; i < 4; i++) {
        CHECK_EQ(rd_create_qp(&d, &qp, QPN + 1 + i, 0, CQN, 4, 4),
                 RNIC_STS_OK);
        CHECK_EQ(rd_connect(&d, QPN + 1 + i, ip_a, ip_b, PORT, mac_b, &conn),
                 RNIC_STS_OK);
        CHECK_EQ(rd_cmd_obj(&d, RNIC_CMD_CM_ABORT, conn), RNIC_STS_OK);
        qt_clock_step(q, 1000000000ull);
    }
    printf("%s: after re-init: NOP, 4 x CM_CONNECT + CM_ABORT with "
           "max-conn=2 -> %s; QEMU alive: %s\n", name,
           failures ? "FAILED" : "all OK", qt_alive(q) ? "yes" : "no");
    CHECK(qt_alive(q));
    qt_quit(q);
}

/* ------------------------------------------------------------------ */
/* The timer's DMA onto the device's own doorbell page                  */

/*
 * The ring on an empty function's ECAM page is refused now.  What is left:
 * a CM EQ ring on RAM, then the doorbell BAR (8 KiB, max-uctx=1) moved
 * onto that RAM address; the timer's CM_TIMEOUT EQE then heads for
 * whatever the address decodes to.
 */
static void test_timer_db(void)
{
    const char *const args[] = {
        "-netdev", "hubport,id=n0,hubid=0",
        "-device", "rnic,id=rnic0,addr=04.0,netdev=n0,max-uctx=1,"
                   "mac=52:54:00:00:00:0a",
        "-trace", "rnic_doorbell",
        NULL
    };
    struct qt *q = start("timer-db", args);
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
    struct rd d;
    struct rnic_eqe e;
    uint64_t page;
    uint32_t conn = 0;
    unsigned rung, blocked;
    bool timeout = false;
    char log[700];
    int i;

    snprintf(log, sizeof(log), "%s/rnic-qtest-reentry-timer-db.log", logdir);
    qt_pci_write(q, 0, 0x64, 0);
    qt_pci_write(q, 0, 0x60, (uint32_t)ECAM_BASE | 1);
    rd_init(&d, q, 0, 0, RAM_LO, RAM_HI);
    CHECK_EQ(d.devfn, 4 << 3);
    rd_map(&d);
    if (!bring_up(&d, &async, &comp, &cq, &qp)) {
        qt_quit(q);
        return;
    }
    ring_refused(&d, "timer-db", ECAM(0, (31 << 3) | 6));  /* no 1f.6 */
    CHECK_EQ(qt_readl(q, ECAM(0, (31 << 3) | 6)), 0xffffffff);

    /* An 8 KiB-aligned RAM page, so that the BAR can sit on it. */
    page = (rd_alloc(&d, 3) + 0x1fff) & ~0x1fffull;
    CHECK_EQ(rd_create_eq(&d, &cm, EQ_CM, 2, RNIC_EQ_F_CM, page),
             RNIC_STS_OK);
    CHECK_EQ(rd_connect(&d, QPN, ip_a, ip_b, PORT, mac_b, &conn),
             RNIC_STS_OK);
    d.bar2 = page;
    rd_map(&d);
    CHECK_EQ(qt_pci_read(q, 4 << 3, 0x18) & ~0xfu, (uint32_t)page);
    rung = count_in_log(log, "rnic_doorbell");
    /* The SYN retries run out in the timer: CM_TIMEOUT's EQE goes there. */
    qt_clock_step(q, 400000000000ull);
    rd_step(q);
    rung = count_in_log(log, "rnic_doorbell") - rung;
    blocked = count_in_log(log, "Blocked re-entrant IO on MemoryRegion: "
                           "rnic-doorbells");
    /* Read back through the memory map: RAM if RAM wins over the BAR. */
    for (i = 0; i < 4 && !timeout; i++) {
        timeout = rd_poll_eq(&d, &cm, &e) && e.type == RNIC_EQE_CM &&
                  e.code == RNIC_CM_TIMEOUT && e.obj == conn;
    }
    printf("timer-db: ring on RAM 0x%llx, doorbell BAR moved onto it; the "
           "timer's EQE: %u doorbell(s) run, re-entrancy guard blocked it: "
           "%s, CM_TIMEOUT read back from RAM: %s; QEMU alive: %s\n",
           (unsigned long long)page, rung, blocked ? "yes" : "no",
           timeout ? "yes (RAM wins over the BAR)" : "no",
           qt_alive(q) ? "yes" : "no");
    CHECK_EQ(rung, 0);
    CHECK(blocked > 0 || timeout);
    CHECK(qt_alive(q));
    CHECK_EQ(rd_cmd_obj(&d, RNIC_CMD_NOP, 0), RNIC_STS_OK);
    qt_quit(q);
}

/* ------------------------------------------------------------------ */
/* Slot power-off from the device's own DMA                            */

#define RP_DEVFN    (6 << 3)

static int pcie_cap(struct qt *q, int devfn)
{
    int cap;

    for (cap = qt_pci_read(q, devfn, 0x34) & 0xfc; cap;
         cap = (qt_pci_read(q, devfn, cap) >> 8) & 0xfc) {
        if ((qt_pci_read(q, devfn, cap) & 0xff) == 0x10) {
            return cap;
        }
    }
    return -1;
}

static void test_slot(void)
{
    const char *const args[] = {
        "-netdev", "hubport,id=n0,hubid=0",
        /* native PCIe hot-plug: the root port's slot is the handler */
        "-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off",
        "-device", "pcie-root-port,id=rp,bus=pcie.0,addr=06.0,chassis=1,"
                   "slot=1",
        "-device", "rnic,id=rnic0,bus=rp,addr=00.0,netdev=n0,"
                   "mac=52:54:00:00:00:0a",
        NULL
    };
    struct qt *q = start("slot", args);
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
    struct rd d;
    struct rnic_admin_cmd c;
    uint32_t conn = 0, sltctl;
    unsigned sts;
    char *r;
    int cap;

    qt_pci_write(q, 0, 0x64, 0);
    qt_pci_write(q, 0, 0x60, (uint32_t)ECAM_BASE | 1);
    qt_pci_write(q, RP_DEVFN, 0x18, 0x00010100);
    qt_pci_write(q, RP_DEVFN, 0x20, 0xe2f0e000);
    qt_pci_write(q, RP_DEVFN, 0x24, 0x0000fff0);
    qt_pci_write(q, RP_DEVFN, 0x04, 0x6);
    cap = pcie_cap(q, RP_DEVFN);
    CHECK(cap > 0);
    rd_init(&d, q, 1, 0, RAM_LO, RAM_HI);
    CHECK(d.devfn >= 0);
    if (cap <= 0 || d.devfn < 0) {
        qt_quit(q);
        return;
    }
    sltctl = cap + 0x18;
    rd_map(&d);
    if (!bring_up(&d, &async, &comp, &cq, &qp)) {
        qt_quit(q);
        return;
    }
    /*
     * tx_bytes = 0x07c0: attention and power indicators off, power
     * controller off.  QUERY_STATS writes it (offset 8 of its output) onto
     * the root port's Slot Control from inside the device's command.
     */
    l2_send(&d, &async, 0x07c0, mac_a);
    /* Traffic in flight: a connection in SYN_SENT, its timer armed. */
    CHECK_EQ(rd_create_eq(&d, &cm, EQ_CM, 4, RNIC_EQ_F_CM, 0), RNIC_STS_OK);
    CHECK_EQ(rd_connect(&d, QPN, ip_a, ip_b, PORT, mac_b, &conn),
             RNIC_STS_OK);
    printf("slot: Slot Control at 0x%x = 0x%08x before\n", sltctl,
           qt_pci_read(q, RP_DEVFN, sltctl));
    c = rd_mk(RNIC_CMD_QUERY_STATS);
    c.u.query_stats.buf_addr = ECAM(0, RP_DEVFN) + sltctl - 8;
    c.u.query_stats.buf_len = sizeof(struct rnic_port_stats);
    d.wait_steps = 100;     /* its completion has nowhere to go */
    sts = rd_cmd(&d, &c);
    printf("slot: QUERY_STATS onto Slot Control -> %s (status %u), "
           "Slot Control 0x%04x, rnic config id 0x%08x, QEMU alive: %s\n",
           sts == RD_TIMEOUT ? "no completion (unplugged under it)" :
           "done", sts, qt_pci_read(q, RP_DEVFN, sltctl) & 0xffff,
           qt_pcib_read(q, 1, d.devfn, 0), qt_alive(q) ? "yes" : "no");
    CHECK(qt_alive(q));
    CHECK_EQ(qt_pcib_read(q, 1, d.devfn, 0), 0xffffffff);
    r = qt_qmp(q, "{\"execute\": \"qom-get\", \"arguments\": {\"path\": "
               "\"/machine/peripheral/rnic0\", \"property\": \"type\"}}");
    printf("slot: qom-get rnic0 -> %s\n", r);
    CHECK(strstr(r, "\"error\"") != NULL);
    free(r);
    /* The timers and bottom half of the gone device must not run. */
    qt_clock_step(q, 30000000000ull);
    rd_step(q);
    CHECK(qt_alive(q));
    qt_quit(q);
}

/* ------------------------------------------------------------------ */
/* Two rnics on one hub: the peer's answers arrive nested               */

struct tcp_seg {
    uint32_t seq, len;
};

struct capture {
    struct tcp_seg a_data[4096];    /* A's TCP segments with payload */
    unsigned a_frames, a_ndata;
    unsigned b_data, b_rst;         /* B's segments with payload, RSTs */
};

/* Read the pcap filter-dump wrote on A's hub port. */
static void read_pcap(const char *path, struct capture *c)
{
    FILE *f = fopen(path, "rb");
    static uint8_t pkt[65536];
    uint8_t hdr[24], rec[16];

    memset(c, 0, sizeof(*c));
    if (!f || fread(hdr, 1, 24, f) != 24) {
        if (f) {
            fclose(f);
        }
        return;
    }
    while (fread(rec, 1, 16, f) == 16) {
        uint32_t incl = rec[8] | rec[9] << 8 | rec[10] << 16 |
                        (uint32_t)rec[11] << 24;
        bool from_a;
        size_t ihl, thl, iplen, plen;
        const uint8_t *tcp;

        if (incl > sizeof(pkt) || fread(pkt, 1, incl, f) != incl) {
            break;
        }
        if (incl < 54) {
            continue;
        }
        from_a = !memcmp(pkt + 6, mac_a, 6);
        c->a_frames += from_a;
        if (pkt[12] != 0x08 || pkt[13] != 0x00 || pkt[23] != 6) {
            continue;
        }
        ihl = (size_t)(pkt[14] & 0xf) * 4;
        iplen = (size_t)pkt[16] << 8 | pkt[17];
        tcp = pkt + 14 + ihl;
        thl = (size_t)(tcp[12] >> 4) * 4;
        plen = iplen > ihl + thl ? iplen - ihl - thl : 0;
        if (!from_a) {
            c->b_data += plen > 0;
            c->b_rst += !!(tcp[13] & 0x04);
        } else if (plen && c->a_ndata < 4096) {
            c->a_data[c->a_ndata].seq = (uint32_t)tcp[4] << 24 |
                                        tcp[5] << 16 | tcp[6] << 8 | tcp[7];
            c->a_data[c->a_ndata].len = (uint32_t)plen;
            c->a_ndata++;
        }
    }
    fclose(f);
}

static bool wait_cm(struct rd *d, struct rd_eq *eq, uint8_t code,
                    struct rnic_eqe *e)
{
    int i;

    for (i = 0; i < 1000; i++) {
        if (rd_poll_eq(d, eq, e)) {
            if (e->type == RNIC_EQE_CM && e->code == code) {
                return true;
            }
            continue;
        }
        rd_step(d->q);
    }
    return false;
}

struct hub_dev {
    struct rd d;
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
};

static bool hub_dev_up(struct hub_dev *h, bool listen)
{
    if (!bring_up(&h->d, &h->async, &h->comp, &h->cq, &h->qp)) {
        return false;
    }
    CHECK_EQ(rd_create_eq(&h->d, &h->cm, EQ_CM, 4, RNIC_EQ_F_CM, 0),
             RNIC_STS_OK);
    if (listen) {
        CHECK_EQ(rd_listen(&h->d, 0, ip_b, PORT), RNIC_STS_OK);
    }
    return !failures;
}

/* A's QP qpn to B's listener; B accepts on its QP of the same number. */
static bool hub_connect(struct hub_dev *a, struct hub_dev *b, uint32_t qpn)
{
    struct rnic_eqe e;
    uint32_t conn = 0;

    if (qpn != QPN) {
        CHECK_EQ(rd_create_qp(&a->d, &a->qp, qpn, 0, CQN, 4, 4),
                 RNIC_STS_OK);
        CHECK_EQ(rd_create_qp(&b->d, &b->qp, qpn, 0, CQN, 4, 4),
                 RNIC_STS_OK);
    }
    CHECK_EQ(rd_connect(&a->d, qpn, ip_a, ip_b, PORT, mac_b, &conn),
             RNIC_STS_OK);
    CHECK(wait_cm(&b->d, &b->cm, RNIC_CM_CONNECT_REQUEST, &e));
    CHECK_EQ(rd_accept(&b->d, e.obj, qpn), RNIC_STS_OK);
    CHECK(wait_cm(&a->d, &a->cm, RNIC_CM_CONNECT_REPLY, &e));
    CHECK(wait_cm(&b->d, &b->cm, RNIC_CM_ESTABLISHED, &e));
    CHECK_EQ(rd_qp_state(&a->d, qpn), RNIC_QPS_RTS);
    CHECK_EQ(rd_qp_state(&b->d, qpn), RNIC_QPS_RTS);
    return !failures;
}

/*
 * An 8 KiB Send (six DDP segments at MTU 1500) from A's QP; whatever B
 * answers arrives inside A's transmit.  Checks one completion, A's QP in
 * ERROR and no data segment of A twice; *b_data / *b_rst: what B sent.
 */
static void hub_send(struct qt *q, struct hub_dev *a, const char *pcap,
                     const char *what, unsigned *b_data, unsigned *b_rst)
{
    static struct capture cap, before;
    struct rnic_cqe cqe;
    unsigned i, j, dups = 0, sends = 0, others = 0;
    uint8_t st = 0xff, qps;
    uint64_t buf, wr_id = 0x5e4d0000ull + a->qp.qpn;
    uint32_t stag = RNIC_STAG(a->qp.qpn, 0x11);

    buf = rd_alloc(&a->d, 2);
    qt_memset(q, buf, 0x5a, 8192);
    CHECK_EQ(rd_reg_mr(&a->d, stag, 0, buf, 2), RNIC_STS_OK);
    read_pcap(pcap, &before);
    rd_send1(&a->d, &a->qp, wr_id, buf, 8192, stag);
    /* A few ms, then 2 s of virtual time for whatever timers follow. */
    for (i = 0; i < 500; i++) {
        if (i < 300) {
            rd_step(q);
        } else {
            qt_clock_step(q, 10000000);
        }
        while (rd_poll_cq(&a->d, &a->cq, &cqe)) {
            if (cqe.wr_id == wr_id) {
                sends++;
                st = cqe.status;
            } else {
                others++;
            }
        }
    }
    read_pcap(pcap, &cap);
    for (i = before.a_ndata; i < cap.a_ndata; i++) {
        for (j = i + 1; j < cap.a_ndata; j++) {
            dups += cap.a_data[i].seq == cap.a_data[j].seq;
        }
    }
    qps = rd_qp_state(&a->d, a->qp.qpn);
    *b_data = cap.b_data - before.b_data;
    *b_rst = cap.b_rst - before.b_rst;
    printf("hub: %s: %u completion(s) for the Send (status %u), %u other "
           "CQE(s); A's QP state %u (ERROR = %u)\n", what, sends, st, others,
           qps, RNIC_QPS_ERROR);
    printf("hub: %s: A sent %u frames, %u TCP segments with data (%u twice);"
           " B sent %u segment(s) with data, %u RST\n", what,
           cap.a_frames - before.a_frames, cap.a_ndata - before.a_ndata, dups,
           *b_data, *b_rst);
    CHECK_EQ(sends, 1);
    CHECK_EQ(others, 0);
    CHECK_EQ(qps, RNIC_QPS_ERROR);
    CHECK_EQ(dups, 0);
    CHECK(cap.a_ndata > before.a_ndata);
}

static void hub_set_link(struct qt *q, const char *id, bool up)
{
    char cmd[160], *reply;

    snprintf(cmd, sizeof(cmd), "{\"execute\": \"set_link\", \"arguments\": "
             "{\"name\": \"%s\", \"up\": %s}}", id, up ? "true" : "false");
    reply = qt_qmp(q, cmd);
    CHECK(reply && strstr(reply, "\"return\"") != NULL);
    free(reply);
}

/* DEV_CTRL.RESET, then wait until READY and RESETTING are clear. */
static void hub_reset(struct qt *q, struct hub_dev *h)
{
    unsigned i;

    rd_set_reg(&h->d, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    for (i = 0; i < 500 && (rd_reg(&h->d, RNIC_REG_DEV_STATUS) &
                            (RNIC_STATUS_READY | RNIC_STATUS_RESETTING));
         i++) {
        rd_step(q);
    }
}

static void test_hub(void)
{
    char pcap[700], filter[800];
    const char *args[] = {
        "-netdev", "hubport,id=ha,hubid=0",
        "-netdev", "hubport,id=hb,hubid=0",
        "-object", filter,
        "-device", "rnic,id=ra,netdev=ha,addr=04.0,mac=52:54:00:00:00:0a",
        "-device", "rnic,id=rb,netdev=hb,addr=05.0,mac=52:54:00:00:00:0b",
        NULL
    };
    static struct hub_dev a, b;
    unsigned b_data, b_rst;
    struct qt *q;

    snprintf(pcap, sizeof(pcap), "%s/rnic-qtest-reentry-hub.pcap", logdir);
    snprintf(filter, sizeof(filter), "filter-dump,id=fa,netdev=ha,file=%s",
             pcap);
    unlink(pcap);
    q = start("hub", args);
    rd_init(&a.d, q, 0, 0, RAM_LO, 0x1e00000);
    rd_init(&b.d, q, 0, 0x8000000, 0x2000000, RAM_HI);
    b.d.devfn = 5 << 3;
    CHECK_EQ(a.d.devfn, 4 << 3);
    rd_map(&a.d);
    rd_map(&b.d);
    if (!hub_dev_up(&a, false) || !hub_dev_up(&b, true) ||
        !hub_connect(&a, &b, QPN)) {
        qt_quit(q);
        return;
    }
    printf("hub: A -> B connected over the hub, both QPs in RTS\n");

    /* 1: B has no receive posted: its Terminate comes back nested. */
    hub_send(q, &a, pcap, "no receive at B", &b_data, &b_rst);
    CHECK(b_data > 0);

    /*
     * 2: B forgot the connection (reset with its link down, so the RST a
     * reset sends is lost): its RST to A's data comes back nested.
     */
    if (!hub_connect(&a, &b, QPN + 1)) {
        qt_quit(q);
        return;
    }
    hub_set_link(q, "rb", false);
    hub_reset(q, &b);
    hub_set_link(q, "rb", true);
    if (!hub_dev_up(&b, true)) {
        qt_quit(q);
        return;
    }
    hub_send(q, &a, pcap, "B reset meanwhile", &b_data, &b_rst);
    CHECK(b_rst > 0);

    /* 3: B resets with its link up: its RST reaches A inside B's transmit. */
    if (!hub_connect(&a, &b, QPN + 2)) {
        qt_quit(q);
        return;
    }
    {
        static struct capture cap, before;
        struct rnic_eqe e;

        read_pcap(pcap, &before);
        hub_reset(q, &b);
        CHECK(wait_cm(&a.d, &a.cm, RNIC_CM_RESET, &e));
        CHECK_EQ(rd_qp_state(&a.d, QPN + 2), RNIC_QPS_ERROR);
        read_pcap(pcap, &cap);
        printf("hub: B reset, A idle: B sent %u RST, A's QP state %u\n",
               cap.b_rst - before.b_rst, rd_qp_state(&a.d, QPN + 2));
        CHECK_EQ(cap.b_rst - before.b_rst, 1);
        if (!hub_dev_up(&b, true)) {
            qt_quit(q);
            return;
        }
    }
    CHECK(qt_alive(q));
    CHECK_EQ(rd_cmd_obj(&a.d, RNIC_CMD_NOP, 0), RNIC_STS_OK);
    CHECK_EQ(rd_cmd_obj(&b.d, RNIC_CMD_NOP, 0), RNIC_STS_OK);
    qt_quit(q);
}

/* ------------------------------------------------------------------ */
/* SBR from the peer's connect request, inside the peer's transmit      */

/*
 * A on the root bus, B behind the pcie-pci-bridge, both on one hub.  B's CM
 * EQ is refused on the bridge's ECAM page (the old path, the CONNECT_REQUEST
 * EQE setting SBR inside A's transmit, is closed).  A connects to B's
 * listener; while the request waits for B's accept, B's own QUERY_STATS
 * sets Secondary Bus Reset over B.
 */
static void test_sbr_peer(void)
{
    const char *const args[] = {
        "-netdev", "hubport,id=ha,hubid=0",
        "-netdev", "hubport,id=hb,hubid=0",
        "-device", "pcie-pci-bridge,id=br,bus=pcie.0,addr=05.0",
        "-device", "rnic,id=ra,netdev=ha,addr=04.0,mac=52:54:00:00:00:0a",
        "-device", "rnic,id=rb,netdev=hb,bus=br,addr=01.0,"
                   "mac=52:54:00:00:00:0b",
        "-trace", "rnic_doorbell", "-trace", "rnic_reset",
        NULL
    };
    struct qt *q = start("sbr-peer", args);
    static struct hub_dev a, b;
    struct rnic_eqe e;
    uint32_t conn = 0, ctl;

    qt_pci_write(q, 0, 0x64, 0);
    qt_pci_write(q, 0, 0x60, (uint32_t)ECAM_BASE | 1);
    bridge_setup(q);
    rd_init(&a.d, q, 0, 0x8000000, RAM_LO, 0x1e00000);
    rd_init(&b.d, q, 1, 0, 0x2000000, RAM_HI);
    CHECK_EQ(a.d.devfn, 4 << 3);
    CHECK(b.d.devfn >= 0);
    if (b.d.devfn < 0) {
        qt_quit(q);
        return;
    }
    rd_map(&a.d);
    rd_map(&b.d);
    if (!hub_dev_up(&a, false) ||
        !bring_up(&b.d, &b.async, &b.comp, &b.cq, &b.qp)) {
        qt_quit(q);
        return;
    }
    bridge_ring_refused(&b.d, "sbr-peer");
    CHECK_EQ(rd_create_eq(&b.d, &b.cm, EQ_CM, 2, RNIC_EQ_F_CM, 0),
             RNIC_STS_OK);
    CHECK_EQ(rd_listen(&b.d, 0, ip_b, PORT), RNIC_STS_OK);
    CHECK_EQ(rd_connect(&a.d, QPN, ip_a, ip_b, PORT, mac_b, &conn),
             RNIC_STS_OK);
    CHECK(wait_cm(&b.d, &b.cm, RNIC_CM_CONNECT_REQUEST, &e));
    printf("sbr-peer: A's connect request at B (conn %u), not accepted\n",
           e.obj);
    tx_bytes_low(&b.d, &b.async, mac_b, 0x40);
    ctl = stats_onto_bridge(&b.d, "sbr-peer");
    CHECK(ctl & 0x40);
    CHECK(qt_alive(q));

    /* B re-initialised; then a fresh connection between the two works. */
    qt_pci_write(q, BR_DEVFN, 0x3c, 0);
    bridge_setup(q);
    CHECK_EQ(qt_pcib_read(q, 1, b.d.devfn, 0x10) & ~0xfu, 0);
    rd_init(&b.d, q, 1, 0, 0x2000000, RAM_HI);
    rd_map(&b.d);
    CHECK(!(rd_reg(&b.d, RNIC_REG_DEV_STATUS) & RNIC_STATUS_READY));
    if (!hub_dev_up(&b, true)) {
        qt_quit(q);
        return;
    }
    CHECK_EQ(rd_cmd_obj(&a.d, RNIC_CMD_NOP, 0), RNIC_STS_OK);
    CHECK(hub_connect(&a, &b, QPN + 1));
    printf("sbr-peer: after B's re-init: A -> B connected again: %s\n",
           failures ? "NO" : "yes");
    qt_quit(q);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    struct timespec t0, t1;
    int ret;

    ret = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (ret) {
        return ret;
    }
    atexit(drop_bios);
    snprintf(logdir, sizeof(logdir), "%s", getenv("MESON_BUILD_ROOT") ?
             getenv("MESON_BUILD_ROOT") : "/tmp");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!strcmp(which, "sbr") || !strcmp(which, "all")) {
        test_sbr(false);
    }
    if (!strcmp(which, "sbr-timer") || !strcmp(which, "all")) {
        test_sbr(true);
    }
    if (!strcmp(which, "timer-db") || !strcmp(which, "all")) {
        test_timer_db();
    }
    if (!strcmp(which, "slot") || !strcmp(which, "all")) {
        test_slot();
    }
    if (!strcmp(which, "hub") || !strcmp(which, "all")) {
        test_hub();
    }
    if (!strcmp(which, "sbr-peer") || !strcmp(which, "all")) {
        test_sbr_peer();
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("rnic-qtest-reentry %s: %s in %.1f s\n", which,
           failures ? "FAILED" : "passed",
           (double)(t1.tv_sec - t0.tv_sec) +
           (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return failures ? 1 : 0;
}
