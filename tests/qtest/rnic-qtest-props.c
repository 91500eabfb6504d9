/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bad "-device rnic,..." values: QEMU must print a clear error naming the
 * property (or the device's own explanation) and exit with status 1, never
 * crash or start.  Each value is tried in its own QEMU, four at a time.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "qtest-client.h"

struct bad {
    const char *prop;       /* appended to "rnic,netdev=n0," */
    const char *says;       /* expected in QEMU's error output */
};

static const struct bad bad[] = {
    { "max-eq=0", "max-eq" },
    { "max-eq=64", "max-eq" },
    { "max-uctx=2", "max-uctx" },
    { "max-uctx=1024", "max-uctx" },
    { "max-l2q=9", "max-l2q" },
    { "max-mtu=1499", "max-mtu" },
    { "max-mtu=65001", "max-mtu must be 1500..65000" },
    { "max-mtu=70000", "max-mtu must be 1500..65000" },
    { "max-pd=0", "max-pd" },
    { "max-qp=0", "max-qp" },
    { "max-qp=16777217", "max-qp" },
    { "max-srq=16777217", "max-srq" },
    { "max-ord=256", "max-ord" },
    { "max-qp-wr=3", "max-qp-wr" },
    { "max-cqe=16,max-qp-wr=32", "max-cqe" },
    { "max-srq-wr=5", "max-srq-wr" },
    { "max-listen=65", "max-listen" },
    { "max-conn=4097", "max-conn" },
    { "mac=01:00:5e:00:00:01", "unicast" },
    { "mac=52:54:00:zz:00:01", "mac" },
    { "max-qp=-1", "max-qp" },
    { "max-qp=4294967296", "max-qp" },
    { "ack-batch=maybe", "ack-batch" },
    { "tcp-window=3", "tcp-window" },
    { "tcp-window=16385", "tcp-window" },
    { "tcp-keepalive-idle=32768", "tcp-keepalive-idle" },
    { "tcp-keepalive-interval=0", "tcp-keepalive-interval" },
    { "tcp-keepalive-probes=0", "tcp-keepalive-probes" },
    { "tcp-keepalive-probes=128", "tcp-keepalive-probes" },
    { "tcp-keepalive-idle=-1", "tcp-keepalive-idle" },
};

#define NBAD    (sizeof(bad) / sizeof(bad[0]))
#define PARALLEL 4

static char qemu[4096], bios[64], logdir[512];

/* Also when a dead QEMU makes the client exit. */
static void drop_bios(void)
{
    unlink(bios);
}

struct run {
    pid_t pid;
    unsigned idx;
    char log[700];
    struct timespec t0;
};

static void launch(struct run *r, unsigned idx)
{
    char dev[256];

    r->idx = idx;
    snprintf(dev, sizeof(dev), "rnic,netdev=n0,%s", bad[idx].prop);
    snprintf(r->log, sizeof(r->log), "%s/rnic-qtest-props-%u.log", logdir,
             idx);
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    r->pid = fork();
    if (r->pid == 0) {
        FILE *f = freopen(r->log, "w", stderr);

        if (!f || dup2(2, 1) < 0) {
            _exit(126);
        }
        execl(qemu, qemu, "-machine", "q35", "-nodefaults", "-display",
              "none", "-m", "64M", "-bios", bios, "-accel", "qtest",
              "-netdev", "hubport,id=n0,hubid=0", "-device", dev,
              (char *)NULL);
        _exit(127);
    }
}

static double since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Judge one finished (or hung) run: true if it failed cleanly. */
static bool judge(struct run *r, int status, bool hung)
{
    char text[4096] = "", *line, *end;
    FILE *f = fopen(r->log, "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    bool ok;

    if (f) {
        fclose(f);
    }
    text[n] = '\0';
    /* The error is QEMU's last line ("qemu-system-x86_64: -device ...") */
    while (n && text[n - 1] == '\n') {
        text[--n] = '\0';
    }
    line = strrchr(text, '\n');
    line = line ? line + 1 : text;
    end = strchr(line, '\n');
    if (end) {
        *end = '\0';
    }
    if (hung) {
        printf("FAIL %-24s QEMU started with it (still running)\n",
               bad[r->idx].prop);
        return false;
    }
    if (WIFSIGNALED(status)) {
        printf("FAIL %-24s QEMU killed by signal %d: %s\n", bad[r->idx].prop,
               WTERMSIG(status), line);
        return false;
    }
    ok = WEXITSTATUS(status) == 1 && strstr(line, bad[r->idx].says);
    printf("%s %-24s exit %d: %s\n", ok ? "ok  " : "FAIL", bad[r->idx].prop,
           WEXITSTATUS(status), line);
    if (ok) {
        unlink(r->log);
    }
    return ok;
}

int main(void)
{
    struct run runs[PARALLEL];
    unsigned next = 0, live = 0, failed = 0, i;
    int ret;
    struct timespec t0;

    ret = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (ret) {
        return ret;
    }
    atexit(drop_bios);
    snprintf(logdir, sizeof(logdir), "%s", getenv("MESON_BUILD_ROOT") ?
             getenv("MESON_BUILD_ROOT") : "/tmp");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(runs, 0, sizeof(runs));
    while (next < NBAD || live) {
        for (i = 0; i < PARALLEL; i++) {
            int status;

            if (!runs[i].pid && next < NBAD) {
                launch(&runs[i], next++);
                live++;
            } else if (runs[i].pid &&
                       waitpid(runs[i].pid, &status, WNOHANG) ==
                       runs[i].pid) {
                failed += !judge(&runs[i], status, false);
                runs[i].pid = 0;
                live--;
            } else if (runs[i].pid && since(&runs[i].t0) > 10) {
                kill(runs[i].pid, SIGKILL);
                waitpid(runs[i].pid, &status, 0);
                failed += !judge(&runs[i], status, true);
                runs[i].pid = 0;
                live--;
            }
        }
        usleep(5000);
    }
    printf("rnic-qtest-props: %u bad values, %u not refused cleanly, "
           "%.1f s\n", (unsigned)NBAD, failed, since(&t0));
    return failed ? 1 : 0;
}
