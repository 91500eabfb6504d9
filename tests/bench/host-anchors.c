/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host anchors for the benchmarks (see host-anchors.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "host-anchors.h"

#define NET_BUFSIZE     (4096 + 65536)  /* QEMU's include/net/net.h */
#define WARMUP_S        0.2

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double thread_cpu_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double anchor_median(double *v, int n)
{
    double s[256];
    int i;

    if (n <= 0 || n > 256) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        s[i] = v[i];
    }
    qsort(s, (size_t)n, sizeof(s[0]), cmp_double);
    return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

struct pump {
    int fd;
    size_t frame;
    volatile int stop;      /* volatile: set by the main thread */
    uint64_t bytes;         /* received, atomically updated */
    double cpu_s;           /* the thread's CPU time at its end */
};

static void *spin(void *arg)
{
    struct pump *p = arg;
    volatile uint64_t n = 0;    /* volatile: the loop must not vanish */

    while (!p->stop) {
        n++;
    }
    return NULL;
}

static void wait_fd(int fd, short ev)
{
    struct pollfd pfd = { .fd = fd, .events = ev };

    poll(&pfd, 1, 100);
}

/* One writev per frame, the length first; partial writes resumed. */
static void *wire_tx(void *arg)
{
    struct pump *p = arg;
    uint8_t *frame = malloc(p->frame);
    uint32_t len = htonl((uint32_t)p->frame);
    size_t i, total = 4 + p->frame, sent;

    for (i = 0; i < p->frame; i++) {
        frame[i] = (uint8_t)(i * 7 + 1);
    }
    while (!p->stop) {
        for (sent = 0; sent < total && !p->stop;) {
            struct iovec iov[2] = {
                { (uint8_t *)&len + (sent < 4 ? sent : 4),
                  sent < 4 ? 4 - sent : 0 },
                { frame + (sent > 4 ? sent - 4 : 0),
                  p->frame - (sent > 4 ? sent - 4 : 0) },
            };
            ssize_t r = writev(p->fd, iov, 2);

            if (r > 0) {
                sent += (size_t)r;
            } else if (r < 0 && errno != EAGAIN && errno != EINTR) {
                p->stop = 1;
            } else {
                wait_fd(p->fd, POLLOUT);
            }
        }
    }
    p->cpu_s = thread_cpu_s();
    free(frame);
    return NULL;
}

/* Reads of NET_BUFSIZE, each frame reassembled by copy (net_fill_rstate). */
static void *wire_rx(void *arg)
{
    struct pump *p = arg;
    static __thread uint8_t buf[NET_BUFSIZE], fbuf[NET_BUFSIZE];
    uint8_t hdr[4];
    size_t idx = 0, flen = 0;
    int state = 0;

    while (!p->stop) {
        ssize_t r = read(p->fd, buf, sizeof(buf)), off = 0;

        if (r <= 0) {
            if (r < 0 && errno != EAGAIN && errno != EINTR) {
                break;
            }
            wait_fd(p->fd, POLLIN);
            continue;
        }
        while (off < r) {
            size_t l;

            if (state == 0) {
                l = 4 - idx < (size_t)(r - off) ? 4 - idx : (size_t)(r - off);
                memcpy(hdr + idx, buf + off, l);
                off += l;
                idx += l;
                if (idx == 4) {
                    flen = ntohl(*(uint32_t *)hdr);
                    idx = 0;
                    state = 1;
                }
            } else {
                l = flen - idx < (size_t)(r - off) ? flen - idx
                                                   : (size_t)(r - off);
                if (idx + l <= sizeof(fbuf)) {
                    memcpy(fbuf + idx, buf + off, l);
                }
                off += l;
                idx += l;
                if (idx == flen) {
                    __atomic_add_fetch(&p->bytes, flen, __ATOMIC_RELAXED);
                    idx = 0;
                    state = 0;
                }
            }
        }
    }
    p->cpu_s = thread_cpu_s();
    return NULL;
}

/* Run tx and rx over fds for seconds (after a warm-up), busy spinners. */
static struct anchor_result run_pump(void *(*tx)(void *), void *(*rx)(void *),
                                     int fd_tx, int fd_rx, size_t frame,
                                     double seconds, int busy)
{
    struct pump ptx = { .fd = fd_tx, .frame = frame };
    struct pump prx = { .fd = fd_rx, .frame = frame };
    struct pump pspin = { 0 };
    struct anchor_result res = { 0, 0 };
    pthread_t t_tx, t_rx, t_spin[8];
    uint64_t b0, b1;
    double t0, t1;
    int i;

    busy = busy < 0 ? 0 : busy > 8 ? 8 : busy;
    for (i = 0; i < busy; i++) {
        pthread_create(&t_spin[i], NULL, spin, &pspin);
    }
    pthread_create(&t_rx, NULL, rx, &prx);
    pthread_create(&t_tx, NULL, tx, &ptx);
    usleep((useconds_t)(WARMUP_S * 1e6));
    b0 = __atomic_load_n(&prx.bytes, __ATOMIC_RELAXED);
    t0 = now_s();
    usleep((useconds_t)(seconds * 1e6));
    b1 = __atomic_load_n(&prx.bytes, __ATOMIC_RELAXED);
    t1 = now_s();
    ptx.stop = prx.stop = pspin.stop = 1;
    pthread_join(t_tx, NULL);
    pthread_join(t_rx, NULL);
    for (i = 0; i < busy; i++) {
        pthread_join(t_spin[i], NULL);
    }
    res.gbps = (double)(b1 - b0) / (t1 - t0) / 1e9;
    /* CPU over the whole pump (warm-up included) per byte it moved. */
    if (prx.bytes) {
        res.cpu_s_per_gb = (ptx.cpu_s + prx.cpu_s) / (prx.bytes / 1e9);
    }
    return res;
}

struct anchor_result anchor_wire(size_t frame, double seconds, int busy)
{
    struct anchor_result res = { 0, 0 };
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   sv)) {
        perror("anchor_wire: socketpair");
        return res;
    }
    res = run_pump(wire_tx, wire_rx, sv[0], sv[1], frame, seconds, busy);
    close(sv[0]);
    close(sv[1]);
    return res;
}

#define TCP_CHUNK   (1u << 20)

static void *tcp_tx(void *arg)
{
    struct pump *p = arg;
    uint8_t *b = malloc(TCP_CHUNK);

    memset(b, 0x5a, TCP_CHUNK);
    while (!p->stop) {
        if (write(p->fd, b, TCP_CHUNK) < 0 && errno != EINTR) {
            break;
        }
    }
    p->cpu_s = thread_cpu_s();
    free(b);
    return NULL;
}

static void *tcp_rx(void *arg)
{
    struct pump *p = arg;
    uint8_t *b = malloc(TCP_CHUNK);
    ssize_t r;

    while (!p->stop && (r = read(p->fd, b, TCP_CHUNK)) != 0) {
        if (r > 0) {
            __atomic_add_fetch(&p->bytes, (uint64_t)r, __ATOMIC_RELAXED);
        } else if (errno != EINTR) {
            break;
        }
    }
    p->cpu_s = thread_cpu_s();
    free(b);
    return NULL;
}

struct anchor_result anchor_tcp(double seconds)
{
    struct anchor_result res = { 0, 0 };
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof(sa);
    int l, c = -1, a = -1;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l >= 0 && !bind(l, (struct sockaddr *)&sa, sizeof(sa)) &&
        !listen(l, 1) && !getsockname(l, (struct sockaddr *)&sa, &sl)) {
        c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    }
    if (c >= 0 && !connect(c, (struct sockaddr *)&sa, sizeof(sa))) {
        a = accept(l, NULL, NULL);
    }
    if (a < 0) {
        perror("anchor_tcp");
    } else {
        /*
         * Time-outs, so that a thread blocked on a full or empty socket
         * sees the stop flag once the other one has ended.
         */
        struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        res = run_pump(tcp_tx, tcp_rx, c, a, TCP_CHUNK, seconds, 0);
    }
    if (c >= 0) {
        close(c);
    }
    if (a >= 0) {
        close(a);
    }
    if (l >= 0) {
        close(l);
    }
    return res;
}

struct anchor_result anchor_memcpy_hot(double seconds)
{
    struct anchor_result res = { 0, 0 };
    size_t len = 1u << 20;
    uint8_t *src = malloc(len), *dst = malloc(len);
    uint64_t n = 0;
    double t0, t1;
    int i;

    memset(src, 0x33, len);
    memset(dst, 0, len);
    for (i = 0; i < 16; i++) {
        memcpy(dst, src, len);     /* warm the caches */
    }
    t0 = now_s();
    do {
        for (i = 0; i < 64; i++) {
            memcpy(dst, src, len);
            __asm__ volatile("" : : "r"(dst) : "memory");
        }
        n += 64;
        t1 = now_s();
    } while (t1 - t0 < seconds);
    res.gbps = (double)n * len / (t1 - t0) / 1e9;
    free(src);
    free(dst);
    return res;
}
