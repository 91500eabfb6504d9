/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal qtest protocol client (see qtest-client.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "qtest-client.h"

static void die(struct qt *q, const char *msg)
{
    int status, i;

    fprintf(stderr, "qtest: %s\n", msg);
    if (q && q->log_path) {
        fprintf(stderr, "qtest: see QEMU log %s\n", q->log_path);
    }
    if (q && q->pid > 0) {
        /* Say how QEMU ended if it did (a signal is a crash). */
        for (i = 0; i < 100; i++) {
            if (waitpid(q->pid, &status, WNOHANG) == q->pid) {
                if (WIFSIGNALED(status)) {
                    fprintf(stderr, "qtest: QEMU killed by signal %d (%s)\n",
                            WTERMSIG(status), strsignal(WTERMSIG(status)));
                } else {
                    fprintf(stderr, "qtest: QEMU exited with status %d\n",
                            WEXITSTATUS(status));
                }
                exit(1);
            }
            usleep(10000);
        }
        kill(q->pid, SIGKILL);
        waitpid(q->pid, &status, 0);
    }
    exit(1);
}

/* A listening socket QEMU will connect to; its path goes into arg. */
static int listen_unix(struct sockaddr_un *sa, const char *kind, char *arg,
                       size_t arg_len)
{
    int lfd;

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    snprintf(sa->sun_path, sizeof(sa->sun_path), "/tmp/rnic-%s-%d.sock",
             kind, (int)getpid());
    unlink(sa->sun_path);
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)sa, sizeof(*sa)) ||
        listen(lfd, 1)) {
        die(NULL, "cannot listen on a unix socket");
    }
    snprintf(arg, arg_len, "unix:%s", sa->sun_path);
    return lfd;
}

/* Accept QEMU's connection (it connects while starting up). */
static int accept_qemu(struct qt *q, int lfd, struct sockaddr_un *sa)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

    close(lfd);
    unlink(sa->sun_path);
    if (fd < 0) {
        die(q, "QEMU did not connect");
    }
    return fd;
}

struct qt *qt_start(const char *qemu, const char *const *argv,
                    const char *log_path)
{
    struct sockaddr_un sa, qsa;
    struct qt *q = calloc(1, sizeof(*q));
    char qtest_arg[sizeof(sa.sun_path) + 16], qmp_arg[sizeof(qtest_arg)];
    const char *args[64];
    int lfd, qlfd, n = 0, i, logfd;
    char *greeting;

    lfd = listen_unix(&sa, "qtest", qtest_arg, sizeof(qtest_arg));
    qlfd = listen_unix(&qsa, "qmp", qmp_arg, sizeof(qmp_arg));
    args[n++] = qemu;
    args[n++] = "-qtest";
    args[n++] = qtest_arg;
    args[n++] = "-qmp";
    args[n++] = qmp_arg;
    args[n++] = "-accel";
    args[n++] = "qtest";
    for (i = 0; argv[i] && n < 62; i++) {
        args[n++] = argv[i];
    }
    args[n] = NULL;
    q->log_path = log_path;
    q->line_cap = 1 << 16;
    q->line = malloc(q->line_cap);
    q->pid = fork();
    if (q->pid == 0) {
        logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (logfd >= 0) {
            dup2(logfd, 1);
            dup2(logfd, 2);
        }
        execv(qemu, (char *const *)args);
        _exit(127);
    }
    q->fd = accept_qemu(q, lfd, &sa);
    q->qmp_fd = accept_qemu(q, qlfd, &qsa);
    greeting = qt_qmp(q, NULL);
    free(greeting);
    free(qt_qmp(q, "{\"execute\": \"qmp_capabilities\"}"));
    return q;
}

/* One line from the QMP socket (byte by byte: QMP is tiny here). */
static char *qmp_line(struct qt *q)
{
    size_t cap = 256, len = 0;
    char *s = malloc(cap), c;

    for (;;) {
        if (read(q->qmp_fd, &c, 1) != 1) {
            die(q, "QEMU closed the QMP connection");
        }
        if (c == '\n') {
            break;
        }
        if (len + 2 > cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        s[len++] = c;
    }
    s[len] = '\0';
    return s;
}

char *qt_qmp(struct qt *q, const char *json)
{
    char *line;

    if (json && (write(q->qmp_fd, json, strlen(json)) < 0 ||
                 write(q->qmp_fd, "\n", 1) != 1)) {
        die(q, "cannot send a QMP command");
    }
    for (;;) {
        line = qmp_line(q);
        if (!strstr(line, "\"event\"")) {
            return line;
        }
        free(line);
    }
}

bool qt_alive(struct qt *q)
{
    int status;

    return waitpid(q->pid, &status, WNOHANG) == 0;
}

void qt_quit(struct qt *q)
{
    int status;

    close(q->fd);
    close(q->qmp_fd);
    kill(q->pid, SIGTERM);
    waitpid(q->pid, &status, 0);
    free(q->line);
    free(q);
}

/* Read one '\n'-terminated line into q->line. */
static void read_line(struct qt *q)
{
    size_t used = 0;

    for (;;) {
        char *nl = memchr(q->rbuf, '\n', q->rlen);
        size_t take = nl ? (size_t)(nl - q->rbuf) + 1 : q->rlen;
        ssize_t r;

        if (used + take + 1 > q->line_cap) {
            q->line_cap = (used + take + 1) * 2;
            q->line = realloc(q->line, q->line_cap);
        }
        memcpy(q->line + used, q->rbuf, take);
        used += take;
        memmove(q->rbuf, q->rbuf + take, q->rlen - take);
        q->rlen -= take;
        if (nl) {
            q->line[used - 1] = '\0';
            return;
        }
        r = read(q->fd, q->rbuf, sizeof(q->rbuf));
        if (r <= 0) {
            die(q, "QEMU closed the qtest connection (crashed?)");
        }
        q->rlen = (size_t)r;
    }
}

const char *qt_cmd(struct qt *q, const char *fmt, ...)
{
    char *cmd;
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vasprintf(&cmd, fmt, ap);
    va_end(ap);
    if (len < 0 || write(q->fd, cmd, len) != len || write(q->fd, "\n", 1) != 1) {
        die(q, "cannot send a qtest command");
    }
    free(cmd);
    /* Skip asynchronous notifications such as "IRQ raise". */
    do {
        read_line(q);
    } while (!strncmp(q->line, "IRQ", 3));
    if (strncmp(q->line, "OK", 2)) {
        fprintf(stderr, "qtest: reply '%s'\n", q->line);
        die(q, "qtest command failed");
    }
    return q->line;
}

static uint64_t reply_value(struct qt *q)
{
    return strtoull(q->line + 3, NULL, 0);
}

uint32_t qt_inl(struct qt *q, uint16_t port)
{
    qt_cmd(q, "inl 0x%x", port);
    return (uint32_t)reply_value(q);
}

void qt_outl(struct qt *q, uint16_t port, uint32_t val)
{
    qt_cmd(q, "outl 0x%x 0x%x", port, val);
}

uint32_t qt_readl(struct qt *q, uint64_t addr)
{
    qt_cmd(q, "readl 0x%llx", (unsigned long long)addr);
    return (uint32_t)reply_value(q);
}

uint64_t qt_readq(struct qt *q, uint64_t addr)
{
    qt_cmd(q, "readq 0x%llx", (unsigned long long)addr);
    return reply_value(q);
}

void qt_writel(struct qt *q, uint64_t addr, uint32_t val)
{
    qt_cmd(q, "writel 0x%llx 0x%x", (unsigned long long)addr, val);
}

void qt_writeq(struct qt *q, uint64_t addr, uint64_t val)
{
    qt_cmd(q, "writeq 0x%llx 0x%llx", (unsigned long long)addr,
           (unsigned long long)val);
}

void qt_memwrite(struct qt *q, uint64_t addr, const void *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *b = buf;
    char *s = malloc(len * 2 + 1);
    size_t i;

    for (i = 0; i < len; i++) {
        s[2 * i] = hex[b[i] >> 4];
        s[2 * i + 1] = hex[b[i] & 15];
    }
    s[2 * len] = '\0';
    qt_cmd(q, "write 0x%llx 0x%zx 0x%s", (unsigned long long)addr, len, s);
    free(s);
}

void qt_memread(struct qt *q, uint64_t addr, void *buf, size_t len)
{
    uint8_t *b = buf;
    const char *p;
    size_t i;

    qt_cmd(q, "read 0x%llx 0x%zx", (unsigned long long)addr, len);
    p = q->line + 5;    /* "OK 0x" */
    for (i = 0; i < len; i++) {
        char byte[3] = { p[2 * i], p[2 * i + 1], 0 };

        b[i] = (uint8_t)strtoul(byte, NULL, 16);
    }
}

void qt_memset(struct qt *q, uint64_t addr, uint8_t val, size_t len)
{
    qt_cmd(q, "memset 0x%llx 0x%zx 0x%x", (unsigned long long)addr, len, val);
}

void qt_clock_step(struct qt *q, uint64_t ns)
{
    qt_cmd(q, "clock_step %llu", (unsigned long long)ns);
}

static uint32_t cfg_addr(int bus, int devfn, int reg)
{
    return 0x80000000u | (uint32_t)bus << 16 | (uint32_t)devfn << 8 |
           (uint32_t)(reg & 0xfc);
}

uint32_t qt_pcib_read(struct qt *q, int bus, int devfn, int reg)
{
    qt_outl(q, 0xcf8, cfg_addr(bus, devfn, reg));
    return qt_inl(q, 0xcfc);
}

void qt_pcib_write(struct qt *q, int bus, int devfn, int reg, uint32_t val)
{
    qt_outl(q, 0xcf8, cfg_addr(bus, devfn, reg));
    qt_outl(q, 0xcfc, val);
}

uint32_t qt_pci_read(struct qt *q, int devfn, int reg)
{
    return qt_pcib_read(q, 0, devfn, reg);
}

void qt_pci_write(struct qt *q, int devfn, int reg, uint32_t val)
{
    qt_pcib_write(q, 0, devfn, reg, val);
}

bool qt_qemu_path(char *buf, size_t len)
{
    const char *env = getenv("RNIC_QEMU");
    const char *cache = getenv("RNIC_CACHE");
    const char *home = getenv("HOME");

    if (env && *env) {
        snprintf(buf, len, "%s", env);
    } else if (cache) {
        snprintf(buf, len, "%s/build/qemu/qemu-system-x86_64", cache);
    } else {
        snprintf(buf, len, "%s/.cache/rnic/build/qemu/qemu-system-x86_64",
                 home ? home : "/root");
    }
    return access(buf, X_OK) == 0;
}

bool qt_zero_bios(char *path, size_t len)
{
    static const char zeros[4096];
    int fd, i;

    snprintf(path, len, "/tmp/rnic-qtest-bios-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0) {
        return false;
    }
    for (i = 0; i < 64; i++) {
        if (write(fd, zeros, sizeof(zeros)) != sizeof(zeros)) {
            close(fd);
            return false;
        }
    }
    close(fd);
    return true;
}

int qt_prepare(char *qemu, size_t qemu_len, char *bios, size_t bios_len)
{
    if (!qt_qemu_path(qemu, qemu_len)) {
        printf("SKIP: no QEMU with the rnic device at %s "
               "(run scripts/setup/qemu.sh)\n", qemu);
        return 77;
    }
    if (!qt_zero_bios(bios, bios_len)) {
        perror("bios");
        return 1;
    }
    return 0;
}
