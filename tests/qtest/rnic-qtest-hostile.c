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
#include "rnic-driver.h"

#define IOAPIC      0xfec00000ull           /* q35: MMIO, byte reads work */
#define BIOS_ROM    0xfffff000ull           /* last page of the -bios ROM */
#define UNASSIGNED  0xd0000000ull           /* PCI hole, nothing mapped */

static int failures;
static struct rd d;

#define CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++; \
        } \
    } while (0)

static unsigned said(unsigned sts, const char *what)
{
    printf("admin: %-36s -> status %u\n", what, sts);
    return sts;
}

/* REG_MR of the one 4 KiB page at page (its list in guest RAM). */
static unsigned reg_mr(uint32_t index, uint64_t page, const char *what)
{
    return said(rd_reg_mr(&d, RNIC_STAG(index, 0), 0, page, 1), what);
}

static unsigned create_eq(uint32_t eqn, uint64_t page, const char *what)
{
    struct rd_eq eq;

    return said(rd_create_eq(&d, &eq, eqn, 4, 0, page), what);
}

static void test_pages(void)
{
    CHECK(said(rd_create_pd(&d, 0), "CREATE_PD 0") == RNIC_STS_OK);
    CHECK(reg_mr(1, rd_alloc(&d, 1), "REG_MR on guest RAM") == RNIC_STS_OK);
    CHECK(reg_mr(2, IOAPIC, "REG_MR on the IOAPIC (MMIO)") ==
          RNIC_STS_DMA_ERROR);
    CHECK(reg_mr(3, BIOS_ROM, "REG_MR on the firmware ROM") ==
          RNIC_STS_DMA_ERROR);
    CHECK(reg_mr(4, UNASSIGNED, "REG_MR on unassigned space") ==
          RNIC_STS_DMA_ERROR);
    CHECK(create_eq(1, IOAPIC, "CREATE_EQ 1 ring on the IOAPIC") ==
          RNIC_STS_DMA_ERROR);
    CHECK(create_eq(2, rd_alloc(&d, 1), "CREATE_EQ 2 ring on guest RAM") ==
          RNIC_STS_OK);
    CHECK(qt_alive(d.q));
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
        qt_readq(d.q, d.bar2 + 8 * (i % 16));
        qt_writeq(d.q, d.bar2 + RNIC_DB_EQ, RNIC_DB_VAL(200, 0, i));
    }
    secs = now_s() - t0;
    CHECK(qt_alive(d.q));
    qt_clock_step(d.q, 10000);
    lines = log_lines(log) - before;
    bound = 32 * ((unsigned)secs + 2);
    printf("log: 2000 guest errors in %.2f s -> %u log lines (bound %u)\n",
           secs, lines, bound);
    CHECK(lines <= bound);
}

int main(void)
{
    char qemu[4096], bios[64], log[256];
    int ret;
    const char *argv[] = {
        "-machine", "q35", "-nodefaults", "-display", "none",
        "-m", "64M", "-bios", bios,
        "-device", "rnic,id=rnic0,addr=04.0",
        "-d", "guest_errors",
        NULL
    };

    ret = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (ret) {
        return ret;
    }
    snprintf(log, sizeof(log), "%s/rnic-qtest-hostile-qemu.log",
             getenv("MESON_BUILD_ROOT") ? getenv("MESON_BUILD_ROOT") : "/tmp");
    printf("qemu: %s (log %s)\n", qemu, log);
    d.q = qt_start(qemu, argv, log);
    d.devfn = rd_find(d.q, 0);
    if (d.devfn < 0) {
        fprintf(stderr, "rnic not found on bus 0\n");
        unlink(bios);
        return 1;
    }
    d.bar0 = 0xe0000000ull;
    d.bar2 = 0xe0100000ull;
    d.bar4 = 0xe0200000ull;
    d.mem = 0x200000ull;                    /* guest RAM used by the test */
    d.mem_end = 0x400000ull;
    rd_map(&d);
    CHECK(rd_enable(&d));
    test_pages();
    test_log_flood(log);
    qt_quit(d.q);
    unlink(bios);
    if (failures) {
        printf("%d check(s) failed; QEMU log: %s\n", failures, log);
        return 1;
    }
    printf("rnic-qtest-hostile: all checks passed\n");
    return 0;
}
