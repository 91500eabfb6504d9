/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny client of QEMU's qtest line protocol (system/qtest.c): start a
 * qemu-system binary with -accel qtest, then peek and poke its I/O ports,
 * MMIO, guest RAM and virtual clock.  libqtest is not built by our minimal
 * QEMU configuration, and this keeps the tests in our own tree.
 */
#ifndef QTEST_CLIENT_H
#define QTEST_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct qt {
    pid_t pid;
    int fd;                 /* qtest protocol socket */
    int qmp_fd;             /* QMP monitor socket */
    char *line;             /* last reply */
    size_t line_cap;
    char rbuf[65536];
    size_t rlen;
    const char *log_path;   /* QEMU's stderr/trace log */
};

/*
 * Start qemu with "-accel qtest -qtest unix:... -qmp unix:..." plus argv
 * (NULL-ended);
 * its stdout/stderr go to log_path.  Exits the test if QEMU never connects.
 */
struct qt *qt_start(const char *qemu, const char *const *argv,
                    const char *log_path);
void qt_quit(struct qt *q);
/* True while the QEMU process is still running. */
bool qt_alive(struct qt *q);

/*
 * Run one QMP command (a JSON object); returns the reply line, which the
 * caller frees.  Events are skipped.
 */
char *qt_qmp(struct qt *q, const char *json);

/* Send one command, return the reply (valid until the next call). */
const char *qt_cmd(struct qt *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

uint32_t qt_inl(struct qt *q, uint16_t port);
void qt_outl(struct qt *q, uint16_t port, uint32_t val);
uint32_t qt_readl(struct qt *q, uint64_t addr);
uint64_t qt_readq(struct qt *q, uint64_t addr);
void qt_writel(struct qt *q, uint64_t addr, uint32_t val);
void qt_writeq(struct qt *q, uint64_t addr, uint64_t val);
void qt_memwrite(struct qt *q, uint64_t addr, const void *buf, size_t len);
void qt_memread(struct qt *q, uint64_t addr, void *buf, size_t len);
void qt_memset(struct qt *q, uint64_t addr, uint8_t val, size_t len);
void qt_clock_step(struct qt *q, uint64_t ns);

/* PCI configuration space of bus 0 through ports 0xcf8/0xcfc. */
uint32_t qt_pci_read(struct qt *q, int devfn, int reg);
void qt_pci_write(struct qt *q, int devfn, int reg, uint32_t val);
/* The same on any bus a bridge has been given the number of. */
uint32_t qt_pcib_read(struct qt *q, int bus, int devfn, int reg);
void qt_pcib_write(struct qt *q, int bus, int devfn, int reg, uint32_t val);

/*
 * The QEMU to test: $RNIC_QEMU, else the grafted build in $RNIC_CACHE (or
 * ~/.cache/rnic); false if it is not there.
 */
bool qt_qemu_path(char *buf, size_t len);
/* A 256 KiB all-zero firmware image (the +ds tree ships none); qtest never
 * runs it.  The caller unlinks path. */
bool qt_zero_bios(char *path, size_t len);
/*
 * Both of the above for a test's main: 0 when ready, 77 (meson's skip,
 * said on stdout) when there is no QEMU, 1 when the image cannot be made.
 */
int qt_prepare(char *qemu, size_t qemu_len, char *bios, size_t bios_len);

#endif
