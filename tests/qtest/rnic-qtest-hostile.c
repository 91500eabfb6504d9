/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hostile guest through real QEMU (issue 17).
 *
 * Ring and MR pages must be guest RAM (finding 1): a page list
 * naming another device's MMIO (the IOAPIC at 0xfec00000, which answers
 * 1-byte reads), the firmware ROM or unassigned space is refused with
 * DMA_ERROR through real QEMU's memory API, not accepted after probing
 * one byte at each end.  An EQ ring on the IOAPIC would have the device
 * write event entries into the interrupt controller's registers.
 *
 * The host log is rate-limited (finding 3): 1000 doorbell reads and 1000
 * refused kernel doorbells within a second or two leave at most 32
 * guest-error lines per second in QEMU's log.
 */
#include <time.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rnic/hw.h"
#include "qtest-client.h"

#define BAR0_ADDR   0xe0000000ull
#define BAR2_ADDR   0xe0100000ull
#define BAR4_ADDR   0xe0200000ull
#define MEM(x)      (0x200000ull + (x))     /* guest RAM used by the test */
#define ASQ         MEM(0x1000)
#define ACQ         MEM(0x2000)
#define ADEPTH      8
#define IOAPIC      0xfec00000ull           /* q35: MMIO, byte reads work */
#define BIOS_ROM    0xfffff000ull           /* last page of the -bios ROM */
#define UNASSIGNED  0xd0000000ull           /* PCI hole, nothing mapped */

static int failures;
static struct qt *q;
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

static void write_pbl(uint64_t at, uint64_t page)
{
    qt_memwrite(q, at, &page, sizeof(page));
}

/* Let the main loop run bottom halves: poll cond for up to 5 s. */
static bool wait_for(bool (*cond)(void *), void *arg, const char *what)
{
    int i;

    for (i = 0; i < 5000; i++) {
        if (cond(arg)) {
            return true;
        }
        qt_clock_step(q, 10000);
        usleep(1000);
    }
    fprintf(stderr, "FAIL: timed out waiting for %s\n", what);
    failures++;
    return false;
}

static void map_device(void)
{
    int d, devfn = -1;

    for (d = 0; d < 32; d++) {
        if (qt_pci_read(q, d << 3, 0) ==
            ((uint32_t)RNIC_PCI_DEVICE_ID << 16 | RNIC_PCI_VENDOR_ID)) {
            devfn = d << 3;
            break;
        }
    }
    if (devfn < 0) {
        fprintf(stderr, "rnic not found on bus 0\n");
        exit(1);
    }
    qt_pci_write(q, devfn, 0x10, (uint32_t)BAR0_ADDR);
    qt_pci_write(q, devfn, 0x14, 0);
    qt_pci_write(q, devfn, 0x18, (uint32_t)BAR2_ADDR);
    qt_pci_write(q, devfn, 0x1c, 0);
    qt_pci_write(q, devfn, 0x20, (uint32_t)BAR4_ADDR);
    qt_pci_write(q, devfn, 0x24, 0);
    qt_pci_write(q, devfn, 0x04, 0x6);      /* memory + bus master */
}

static bool ready(void *arg)
{
    (void)arg;
    return reg(RNIC_REG_DEV_STATUS) & RNIC_STATUS_READY;
}

static bool cqe_ready(void *arg)
{
    struct rnic_admin_cqe *cqe = arg;
    uint8_t phase = ((cq_head / ADEPTH) & 1) ? 0 : 1;

    qt_memread(q, ACQ + (cq_head % ADEPTH) * RNIC_ADMIN_CQE_SIZE, cqe,
               sizeof(*cqe));
    return (cqe->flags & RNIC_CQE_PHASE) == phase;
}

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
    wait_for(ready, NULL, "READY");
}

static unsigned run(struct rnic_admin_cmd *c, const char *what)
{
    struct rnic_admin_cqe cqe;

    c->hdr.tag = ++tag;
    qt_memwrite(q, ASQ + (sq_tail % ADEPTH) * RNIC_ADMIN_CMD_SIZE, c,
                sizeof(*c));
    sq_tail++;
    set_reg(RNIC_REG_ADMQ_SQ_TAIL, sq_tail);
    memset(&cqe, 0xff, sizeof(cqe));
    if (!wait_for(cqe_ready, &cqe, what)) {
        return 0xff;
    }
    cq_head++;
    set_reg(RNIC_REG_ADMQ_CQ_HEAD, cq_head);
    CHECK(cqe.tag == tag);
    printf("admin: %-36s -> status %u\n", what, cqe.status);
    return cqe.status;
}

static struct rnic_admin_cmd cmd(uint8_t opcode)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = opcode;
    return c;
}

/* REG_MR of one 4 KiB page at page; its list at list_at. */
static unsigned reg_mr(uint32_t index, uint64_t list_at, uint64_t page,
                       const char *what)
{
    struct rnic_admin_cmd c = cmd(RNIC_CMD_REG_MR);

    write_pbl(list_at, page);
    c.u.reg_mr.stag = RNIC_STAG(index, 0);
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.length = RNIC_PAGE_SIZE;
    c.u.reg_mr.pages.addr = list_at;
    c.u.reg_mr.pages.nentries = 1;
    c.u.reg_mr.pages.page_shift = RNIC_PAGE_SHIFT;
    c.u.reg_mr.pages.levels = 1;
    return run(&c, what);
}

static unsigned create_eq(uint32_t eqn, uint64_t page, const char *what)
{
    struct rnic_admin_cmd c = cmd(RNIC_CMD_CREATE_EQ);

    write_pbl(MEM(0x10), page);
    c.u.create_eq.eqn = eqn;
    c.u.create_eq.log_depth = 4;
    c.u.create_eq.ring.addr = MEM(0x10);
    c.u.create_eq.ring.nentries = 1;
    c.u.create_eq.ring.page_shift = RNIC_PAGE_SHIFT;
    c.u.create_eq.ring.levels = 1;
    return run(&c, what);
}

static void test_pages(void)
{
    struct rnic_admin_cmd c = cmd(RNIC_CMD_CREATE_PD);

    CHECK(run(&c, "CREATE_PD 0") == RNIC_STS_OK);
    CHECK(reg_mr(1, MEM(0x20), MEM(0x10000), "REG_MR on guest RAM") ==
          RNIC_STS_OK);
    CHECK(reg_mr(2, MEM(0x28), IOAPIC, "REG_MR on the IOAPIC (MMIO)") ==
          RNIC_STS_DMA_ERROR);
    CHECK(reg_mr(3, MEM(0x30), BIOS_ROM, "REG_MR on the firmware ROM") ==
          RNIC_STS_DMA_ERROR);
    CHECK(reg_mr(4, MEM(0x38), UNASSIGNED, "REG_MR on unassigned space") ==
          RNIC_STS_DMA_ERROR);
    CHECK(create_eq(1, IOAPIC, "CREATE_EQ 1 ring on the IOAPIC") ==
          RNIC_STS_DMA_ERROR);
    qt_memset(q, MEM(0x3000), 0, 0x1000);
    CHECK(create_eq(2, MEM(0x3000), "CREATE_EQ 2 ring on guest RAM") ==
          RNIC_STS_OK);
    CHECK(qt_alive(q));
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Lines of the QEMU log that start with "rnic: ". */
static unsigned log_lines(const char *path)
{
    char line[512];
    unsigned n = 0;
    FILE *f = fopen(path, "r");

    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof(line), f)) {
        n += !strncmp(line, "rnic: ", 6);
    }
    fclose(f);
    return n;
}

static void test_log_flood(const char *log)
{
    unsigned before = log_lines(log), lines, bound, i;
    double t0 = now_s(), secs;

    for (i = 0; i < 1000; i++) {
        qt_readq(q, BAR2_ADDR + 8 * (i % 16));
        qt_writeq(q, BAR2_ADDR + RNIC_DB_EQ, RNIC_DB_VAL(200, 0, i));
    }
    secs = now_s() - t0;
    CHECK(qt_alive(q));
    qt_clock_step(q, 10000);
    lines = log_lines(log) - before;
    bound = 32 * ((unsigned)secs + 2);
    printf("log: 2000 guest errors in %.2f s -> %u log lines (bound %u)\n",
           secs, lines, bound);
    CHECK(lines <= bound);
}

int main(void)
{
    const char *cache = getenv("RNIC_CACHE");
    const char *home = getenv("HOME");
    char qemu[4096], bios[] = "/tmp/rnic-qtest-bios-XXXXXX", log[256];
    static char zeros[256 * 1024];
    int bfd;

    snprintf(qemu, sizeof(qemu), "%s/build/qemu/qemu-system-x86_64",
             cache ? cache : (home ? home : "/root"));
    if (!cache) {
        snprintf(qemu, sizeof(qemu),
                 "%s/.cache/rnic/build/qemu/qemu-system-x86_64",
                 home ? home : "/root");
    }
    if (access(qemu, X_OK)) {
        printf("SKIP: no QEMU with the rnic device at %s "
               "(run scripts/setup/qemu.sh)\n", qemu);
        return 77;
    }
    /* The +ds QEMU tree ships no firmware; qtest never runs any. */
    bfd = mkstemp(bios);
    if (bfd < 0 || write(bfd, zeros, sizeof(zeros)) != sizeof(zeros)) {
        perror("bios");
        return 1;
    }
    close(bfd);
    snprintf(log, sizeof(log), "%s/rnic-qtest-hostile-qemu.log",
             getenv("MESON_BUILD_ROOT") ? getenv("MESON_BUILD_ROOT") : "/tmp");
    {
        const char *argv[] = {
            "-machine", "q35", "-nodefaults", "-display", "none",
            "-m", "64M", "-bios", bios,
            "-device", "rnic,id=rnic0,addr=04.0",
            "-d", "guest_errors",
            NULL
        };

        printf("qemu: %s (log %s)\n", qemu, log);
        q = qt_start(qemu, argv, log);
    }
    map_device();
    admin_enable();
    test_pages();
    test_log_flood(log);
    qt_quit(q);
    unlink(bios);
    if (failures) {
        printf("%d check(s) failed; QEMU log: %s\n", failures, log);
        return 1;
    }
    printf("rnic-qtest-hostile: all checks passed\n");
    return 0;
}
