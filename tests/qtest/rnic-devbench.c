/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device-only benchmark (issue 18): two QEMUs with -accel qtest joined
 * by the lab's wire (-netdev stream over a unix socket, as tests/vm/lab.py
 * --wire stream), each rnic driven through its hardware interface by this
 * harness (rnic-driver.h: rings in guest memory, doorbells, CQ polling).
 * No guest code and no TCG: what is timed is the device model, QEMU's
 * netdev and the two main loops.
 *
 * One QP pair; A posts 1 MiB RDMA Writes, DEPTH deep, into a 16 MiB MR at
 * B for --seconds per run (--runs runs per MTU, medians); a Send after the
 * Writes ends each run, so the clock stops when B has all the data.  Write
 * n copies source MiB n % 17 to target MiB n % 16, so after a run every
 * target MiB holds exactly what its last Write carried: the harness reads
 * the whole target back and compares.  Reported: GB/s (1e9 bytes of RDMA
 * payload per second) and the two QEMU processes' CPU time per GB (all
 * their threads, /proc/PID/task/N/schedstat).
 *
 * In the same run, between the device runs: the host anchors of
 * tests/bench/host-anchors.h at each MTU's frame size (MTU + 14): the
 * stream-netdev frame pump with two busy threads (the vCPUs of two guests)
 * and with none (as here: qtest has no running vCPU), loopback TCP and hot
 * memcpy; ratios of the device figure to each.  Lines starting "RESULT"
 * are for tests/bench/goal-table.py.
 *
 * QEMU's virtual clock moves only when told under qtest: the harness keeps
 * each QEMU's clock at the real time elapsed since it started, so the
 * device's TCP timers run as they do in a guest.
 *
 * MTUs: 1500, 9216 (the device's default max-mtu) and the device's largest
 * (--max-mtu, default 65000: every rnic runs with max-mtu set to it, 0
 * leaves the device's default), unless --mtu names them.
 *
 * Usage: rnic-devbench [--seconds S] [--runs N] [--mtu M]... [--max-mtu M]
 *        [--tcp-window KIB] [--idle-conns N] [--no-anchors]
 *        rnic-devbench --quick MIB    (a verified short run per MTU, no
 *                                      timing claims: suite qtest)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rnic-driver.h"
#include "host-anchors.h"
#include "../sim/splitmix64.h"

#define MIB             (1ull << 20)
#define HUGE_PAGE       (2 * MIB)
#define DEPTH           16
#define SLOTS           16              /* target MiBs */
#define CHUNKS          17              /* source MiBs (coprime with SLOTS) */
#define RAM_LO          0x200000ull     /* rings, lists: the bump allocator */
#define RAM_HI          0x7800000ull    /* 120 MiB: room for idle QPs */
#define SRC             0x8000000ull    /* 18 MiB at 128 MiB */
#define SRC_PAGES       9
#define DST             0xa000000ull    /* 16 MiB at 160 MiB */
#define DST_PAGES       8
#define BAR0            0xe0000000ull
#define BAR2            0xe1000000ull
#define BAR4            0xe2000000ull
#define EQ_ASYNC        1
#define EQ_COMP         2
#define EQ_CM           3
#define CQN             1
#define QPN             2
#define SRC_STAG        RNIC_STAG(1, 0x11)
#define DST_STAG        RNIC_STAG(2, 0x22)
#define RCV_STAG        RNIC_STAG(3, 0x33)
#define PORT            20050
#define FLUSH_ID        0xf1005ull
#define STALL_S         20.0
/*
 * Idle wait between CQ polls: each poll is a qtest command served by A's
 * main loop, the thread the device runs in.  16 MiB in flight last far
 * longer than this at any rate seen, so the queue never runs dry.
 */
#define POLL_IDLE_US    300
#define MAX_RUNS        32
#define MAX_CFGS        6
#define MAX_IDLE        4000

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };

struct side {
    const char *name;
    struct qt *q;
    struct rd d;
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
    double t_start;         /* real time QEMU started */
    int64_t vnow;           /* its virtual clock, ns */
    uint64_t rcv_buf;
};

static char qemu[4096], bios[64], logdir[512], wire_path[108];
static uint8_t *src_copy;           /* what A's source MR holds */
static uint64_t writes_total;       /* Writes posted over all runs */
static unsigned idle_conns;         /* of the configuration being run */
/* The device's max-mtu property: the largest MTU the wire carries. */
static unsigned dev_max_mtu = RNIC_L2_MAX_FRAME - 22;
/* The device's tcp-window property, KiB (0: the device's default). */
static unsigned dev_tcp_window;

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* QEMUs this harness started and has not ended: ended on any exit. */
static pid_t live[3];

static void track(pid_t pid, bool on)
{
    unsigned i;

    for (i = 0; i < 3; i++) {
        if (on ? !live[i] : live[i] == pid) {
            live[i] = on ? pid : 0;
            return;
        }
    }
}

static void cleanup(void)
{
    unsigned i;

    for (i = 0; i < 3; i++) {
        /* still our unreaped child (qtest-client may have reaped it) */
        if (live[i] && waitpid(live[i], NULL, WNOHANG) == 0) {
            kill(live[i], SIGKILL);
            waitpid(live[i], NULL, 0);
        }
    }
    unlink(bios);
    unlink(wire_path);
}

static void fail(const char *fmt, const char *what)
{
    fprintf(stderr, "rnic-devbench: FAIL: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(1);
}

/* CPU time of every thread of pid, in seconds. */
static double proc_cpu_s(pid_t pid)
{
    char path[64], line[400];
    struct dirent *e;
    double s = 0;
    DIR *dir;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    dir = opendir(path);
    while (dir && (e = readdir(dir))) {
        FILE *f;

        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(line, sizeof(line), "%s/%s/schedstat", path, e->d_name);
        f = fopen(line, "r");
        if (f && fgets(line, sizeof(line), f)) {
            s += strtoull(line, NULL, 10) / 1e9;
        }
        if (f) {
            fclose(f);
        }
    }
    if (dir) {
        closedir(dir);
    }
    return s;
}

static double self_cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void loadavg(char *buf, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");

    buf[0] = '\0';
    if (f && fgets(buf, (int)len, f)) {
        char *p = buf;
        int sp = 0;

        while (*p && sp < 3) {      /* the three averages */
            sp += *p++ == ' ';
        }
        p[sp == 3 ? -1 : 0] = '\0';
    }
    if (f) {
        fclose(f);
    }
}

/* ------------------------------------------------------------------ */
/* base64 for qtest's b64write / b64read                               */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const uint8_t *p, size_t n)
{
    char *o = malloc(4 * ((n + 2) / 3) + 1), *w = o;
    size_t i;

    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | p[i + 1] << 8 | p[i + 2];

        *w++ = b64[v >> 18];
        *w++ = b64[(v >> 12) & 63];
        *w++ = b64[(v >> 6) & 63];
        *w++ = b64[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0);

        *w++ = b64[v >> 18];
        *w++ = b64[(v >> 12) & 63];
        *w++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        *w++ = '=';
    }
    *w = '\0';
    return o;
}

static int b64_val(char c)
{
    const char *p = strchr(b64, c);

    return c && p ? (int)(p - b64) : -1;
}

/* Decodes up to n bytes into out; returns how many. */
static size_t b64_decode(const char *s, uint8_t *out, size_t n)
{
    size_t got = 0;
    uint32_t v = 0;
    int bits = 0, x;

    for (; *s && got < n; s++) {
        x = b64_val(*s);
        if (x < 0) {
            continue;       /* '=' padding */
        }
        v = v << 6 | (uint32_t)x;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[got++] = (uint8_t)(v >> bits);
        }
    }
    return got;
}

static void mem_put(struct qt *q, uint64_t addr, const uint8_t *p, size_t n)
{
    const size_t step = 512 * 1024;
    size_t off;

    for (off = 0; off < n; off += step) {
        size_t l = n - off < step ? n - off : step;
        char *e = b64_encode(p + off, l);

        qt_cmd(q, "b64write 0x%" PRIx64 " 0x%zx %s", addr + off, l, e);
        free(e);
    }
}

static void mem_get(struct qt *q, uint64_t addr, uint8_t *p, size_t n)
{
    const char *r = qt_cmd(q, "b64read 0x%" PRIx64 " 0x%zx", addr, n);

    if (b64_decode(r + 3, p, n) != n) {
        fail("%s", "b64read returned too little");
    }
}

/* ------------------------------------------------------------------ */
/* The two QEMUs                                                       */

/* Keep the virtual clock at the real time since QEMU started. */
static void clock_sync(struct side *s)
{
    int64_t want = (int64_t)((now_s() - s->t_start) * 1e9);
    const char *r;

    if (want <= s->vnow) {
        return;
    }
    r = qt_cmd(s->q, "clock_step %" PRId64, want - s->vnow);
    s->vnow = strtoll(r + 3, NULL, 10);
}

static void start(struct side *s, const char *name, bool server,
                  const char *mac)
{
    char netdev[256], dev[160], log[700];
    const char *argv[] = {
        "-machine", "q35", "-nodefaults", "-display", "none", "-m", "256M",
        "-bios", bios, "-netdev", netdev, "-device", dev, NULL
    };

    snprintf(netdev, sizeof(netdev), "stream,id=n0,server=%s,%saddr.type=unix,"
             "addr.path=%s", server ? "on" : "off",
             server ? "" : "reconnect-ms=50,", wire_path);
    snprintf(dev, sizeof(dev), "rnic,netdev=n0,addr=04.0,mac=%s", mac);
    if (dev_max_mtu) {
        snprintf(dev + strlen(dev), sizeof(dev) - strlen(dev),
                 ",max-mtu=%u", dev_max_mtu);
    }
    if (idle_conns) {
        snprintf(dev + strlen(dev), sizeof(dev) - strlen(dev),
                 ",max-qp=%u,max-conn=%u", idle_conns + 16, idle_conns + 16);
    }
    if (dev_tcp_window) {
        snprintf(dev + strlen(dev), sizeof(dev) - strlen(dev),
                 ",tcp-window=%u", dev_tcp_window);
    }
    snprintf(log, sizeof(log), "%s/rnic-devbench-%s.log", logdir, name);
    memset(s, 0, sizeof(*s));
    s->name = name;
    s->t_start = now_s();
    s->q = qt_start(qemu, argv, strdup(log));
    track(s->q->pid, true);
    s->d.q = s->q;
    s->d.devfn = rd_find(s->q, 0);
    s->d.bar0 = BAR0;
    s->d.bar2 = BAR2;
    s->d.bar4 = BAR4;
    s->d.mem = RAM_LO;
    s->d.mem_end = RAM_HI;
    if (s->d.devfn < 0) {
        fail("no rnic in QEMU %s", name);
    }
    rd_map(&s->d);
}

static void check(unsigned sts, const char *what)
{
    if (sts != RNIC_STS_OK) {
        fprintf(stderr, "rnic-devbench: %s: status %u\n", what, sts);
        fail("%s failed", what);
    }
}

/* An MR over 2 MiB guest pages at base (iova = base). */
static void reg_mr_huge(struct side *s, uint32_t stag, uint64_t base,
                        unsigned pages, uint32_t access)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_REG_MR);
    uint64_t list = rd_alloc(&s->d, 1), p;
    unsigned i;

    for (i = 0; i < pages; i++) {
        p = base + (uint64_t)i * HUGE_PAGE;
        qt_memwrite(s->q, list + 8 * i, &p, 8);
    }
    c.u.reg_mr.stag = stag;
    c.u.reg_mr.pdn = 0;
    c.u.reg_mr.access = access;
    c.u.reg_mr.iova = base;
    c.u.reg_mr.length = (uint64_t)pages * HUGE_PAGE;
    c.u.reg_mr.pages.addr = list;
    c.u.reg_mr.pages.nentries = pages;
    c.u.reg_mr.pages.page_shift = 21;
    c.u.reg_mr.pages.levels = 1;
    check(rd_cmd(&s->d, &c), "REG_MR (2 MiB pages)");
}

static void bring_up(struct side *s, const uint8_t mac[6], unsigned mtu)
{
    struct rnic_admin_cmd c;

    if (!rd_enable(&s->d)) {
        fail("rnic in QEMU %s never became READY", s->name);
    }
    check(rd_create_eq(&s->d, &s->async, EQ_ASYNC, 4, RNIC_EQ_F_ASYNC, 0),
          "CREATE_EQ async");
    check(rd_create_eq(&s->d, &s->comp, EQ_COMP, 4, 0, 0), "CREATE_EQ comp");
    check(rd_create_eq(&s->d, &s->cm, EQ_CM, 4, RNIC_EQ_F_CM, 0),
          "CREATE_EQ cm");
    check(rd_create_pd(&s->d, 0), "CREATE_PD");
    check(rd_create_cq(&s->d, &s->cq, CQN, EQ_COMP, 6), "CREATE_CQ");
    check(rd_create_qp(&s->d, &s->qp, QPN, 0, CQN, 5, 4), "CREATE_QP");
    c = rd_mk(RNIC_CMD_SET_PORT);
    c.u.set_port.mtu = (uint16_t)mtu;
    memcpy(c.u.set_port.mac, mac, 6);
    check(rd_cmd(&s->d, &c), "SET_PORT");
    s->rcv_buf = rd_alloc(&s->d, 1);
    check(rd_reg_mr(&s->d, RCV_STAG, 0, s->rcv_buf, 1), "REG_MR (receive)");
}

static bool wait_cm(struct side *s, uint8_t code, struct rnic_eqe *e)
{
    int i;

    for (i = 0; i < 5000; i++) {
        if (rd_poll_eq(&s->d, &s->cm, e)) {
            if (e->type == RNIC_EQE_CM && e->code == code) {
                return true;
            }
            continue;
        }
        rd_step(s->q);
    }
    return false;
}

static void wait_link(struct side *s)
{
    int i;

    for (i = 0; i < 5000; i++) {
        if (rd_reg(&s->d, RNIC_REG_DEV_STATUS) & RNIC_STATUS_LINK_UP) {
            return;
        }
        rd_step(s->q);
    }
    fail("QEMU %s: the stream wire never came up", s->name);
}

/* A's QP qpn to B's listener, B accepting on its QP of the same number. */
static void connect_qp(struct side *a, struct side *b, uint32_t qpn)
{
    struct rnic_eqe e;
    uint32_t conn = 0;

    check(rd_connect(&a->d, qpn, ip_a, ip_b, PORT, mac_b, &conn),
          "CM_CONNECT");
    if (!wait_cm(b, RNIC_CM_CONNECT_REQUEST, &e)) {
        fail("%s", "no CONNECT_REQUEST at B");
    }
    check(rd_accept(&b->d, e.obj, qpn), "CM_ACCEPT");
    if (!wait_cm(a, RNIC_CM_CONNECT_REPLY, &e) ||
        !wait_cm(b, RNIC_CM_ESTABLISHED, &e)) {
        fail("%s", "the connection was not established");
    }
}

/*
 * n more QP pairs from qpn first on, connected a listen backlog at a time:
 * B accepts each request on the next of its QPs (idle ones: any pairing).
 */
static void connect_idle(struct side *a, struct side *b, uint32_t first,
                         unsigned n)
{
    struct rd_qp qp;
    struct rnic_eqe e;
    unsigned i, accepted = 0, replies = 0, est = 0;
    uint32_t conn;
    double t0 = now_s();

    for (i = 0; i < n; i++) {
        /* small rings: they only have to exist */
        check(rd_create_qp(&a->d, &qp, first + i, 0, CQN, 2, 2),
              "CREATE_QP (idle)");
        check(rd_create_qp(&b->d, &qp, first + i, 0, CQN, 2, 2),
              "CREATE_QP (idle)");
        check(rd_connect(&a->d, first + i, ip_a, ip_b, PORT, mac_b, &conn),
              "CM_CONNECT (idle)");
    }
    while (replies < n || est < n) {
        bool got = false;

        while (rd_poll_eq(&b->d, &b->cm, &e)) {
            got = true;
            if (e.type == RNIC_EQE_CM && e.code == RNIC_CM_CONNECT_REQUEST) {
                check(rd_accept(&b->d, e.obj, first + accepted++),
                      "CM_ACCEPT (idle)");
            } else if (e.type == RNIC_EQE_CM &&
                       e.code == RNIC_CM_ESTABLISHED) {
                est++;
            }
        }
        while (rd_poll_eq(&a->d, &a->cm, &e)) {
            got = true;
            if (e.type == RNIC_EQE_CM && e.code == RNIC_CM_CONNECT_REPLY) {
                replies++;
            } else if (e.type == RNIC_EQE_CM) {
                fprintf(stderr, "rnic-devbench: CM event %u at A\n", e.code);
                fail("%s", "an idle connection failed");
            }
        }
        if (!got) {
            if (now_s() - t0 > STALL_S) {
                fail("%s", "idle connections not established in 20 s");
            }
            rd_step(a->q);
            rd_step(b->q);
        }
    }
}

/*
 * Both QEMUs up, idle_conns idle QP pairs connected and then the measured
 * one, at mtu; MRs registered.
 */
static void pair_up(struct side *a, struct side *b, unsigned mtu)
{
    unsigned i;

    unlink(wire_path);
    start(a, "A", true, "52:54:00:00:00:0a");
    start(b, "B", false, "52:54:00:00:00:0b");
    bring_up(a, mac_a, mtu);
    bring_up(b, mac_b, mtu);
    wait_link(a);
    wait_link(b);
    reg_mr_huge(a, SRC_STAG, SRC, SRC_PAGES, RNIC_ACCESS_LOCAL_WRITE);
    reg_mr_huge(b, DST_STAG, DST, DST_PAGES,
                RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
    mem_put(a->q, SRC, src_copy, CHUNKS * MIB);
    qt_memset(b->q, DST, 0, SLOTS * MIB);
    writes_total = 0;
    check(rd_listen(&b->d, 0, ip_b, PORT), "CM_LISTEN");
    for (i = 0; i < idle_conns; i += 8) {
        connect_idle(a, b, QPN + 1 + i, idle_conns - i < 8 ? idle_conns - i
                                                           : 8);
    }
    if (idle_conns && (rd_qp_state(&a->d, QPN + idle_conns) != RNIC_QPS_RTS ||
                       rd_qp_state(&b->d, QPN + idle_conns) != RNIC_QPS_RTS)) {
        fail("%s", "the last idle QPs are not in RTS");
    }
    connect_qp(a, b, QPN);
    if (rd_qp_state(&a->d, QPN) != RNIC_QPS_RTS ||
        rd_qp_state(&b->d, QPN) != RNIC_QPS_RTS) {
        fail("%s", "QPs not in RTS");
    }
}

static void quit(struct side *s)
{
    track(s->q->pid, false);
    qt_quit(s->q);
}

static void pair_down(struct side *a, struct side *b)
{
    quit(b);
    quit(a);
}

/* ------------------------------------------------------------------ */
/* The Writes                                                          */

static void post_write(struct side *a, uint64_t n)
{
    struct rnic_sq_wqe w;
    uint64_t slot = a->qp.sq + (uint64_t)(a->qp.sq_prod &
                                          (a->qp.sq_depth - 1)) *
                    RNIC_SQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = n;
    w.hdr.opcode = RNIC_WR_WRITE;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = DST + (n % SLOTS) * MIB;
    w.op.rdma.rkey = DST_STAG;
    w.data.sge[0].addr = SRC + (n % CHUNKS) * MIB;
    w.data.sge[0].length = MIB;
    w.data.sge[0].lkey = SRC_STAG;
    /* header, RDMA fields and the one SGE: the rest of the slot is unused */
    qt_memwrite(a->q, slot, &w, offsetof(struct rnic_sq_wqe, data.sge[1]));
    a->qp.sq_prod++;
}

/* New CQEs of s, read in one go; returns how many (cq consumed). */
static unsigned poll_cq(struct side *s, struct rnic_cqe *out, unsigned max)
{
    struct rd_cq *cq = &s->cq;
    unsigned idx = cq->cons & (cq->depth - 1), n = cq->depth - idx, i;
    uint8_t phase = ((cq->cons / cq->depth) & 1) ? 0 : 1;

    n = n < max ? n : max;
    qt_memread(s->q, cq->ring + (uint64_t)idx * RNIC_CQE_SIZE, out,
               n * sizeof(*out));
    i = 0;
    while (i < n && (out[i].owner & RNIC_CQE_PHASE) == phase) {
        i++;
    }
    if (i) {
        cq->cons += i;
        qt_memwrite(s->q, cq->dbrec, &cq->cons, 4);
    }
    return i;
}

struct run {
    double gbps, cpu_a, cpu_b, cpu_harness, seconds;
    uint64_t bytes, polls;
};

/*
 * Writes for `seconds` (or exactly `count` of them when count > 0), then a
 * Send that B must receive; the time and CPU span the lot.
 */
static struct run run_writes(struct side *a, struct side *b, double seconds,
                             uint64_t count)
{
    struct rnic_cqe cqe[DEPTH];
    struct run r = { 0 };
    uint64_t posted = 0, done = 0;
    double t0, t_end, t_sync = 0, t_progress, ca, cb, ch;
    bool flush_sent = false, flush_done = false, got_rcv = false;
    unsigned k, i;

    rd_recv1(&b->d, &b->qp, FLUSH_ID, b->rcv_buf, 64, RCV_STAG);
    clock_sync(a);
    clock_sync(b);
    ca = proc_cpu_s(a->q->pid);
    cb = proc_cpu_s(b->q->pid);
    ch = self_cpu_s();
    t0 = t_progress = now_s();
    t_end = t0 + seconds;
    while (!got_rcv) {
        double t = now_s();
        bool more = count ? posted < count : t < t_end;

        for (k = 0; more && posted - done < DEPTH; k++) {
            post_write(a, writes_total + posted);
            posted++;
            more = count ? posted < count : t < t_end;
        }
        if (!more && done == posted && !flush_sent) {
            rd_send1(&a->d, &a->qp, FLUSH_ID, SRC, 4, SRC_STAG);
            flush_sent = true;
        } else if (k) {
            rd_doorbell(&a->d, RNIC_DB_SQ, a->qp.qpn, 0, a->qp.sq_prod);
        }
        k = poll_cq(a, cqe, DEPTH);
        for (i = 0; i < k; i++) {
            bool flush = cqe[i].wr_id == FLUSH_ID;

            if (cqe[i].status != RNIC_WC_SUCCESS ||
                cqe[i].opcode != (flush ? RNIC_WC_SEND : RNIC_WC_WRITE) ||
                (!flush && cqe[i].wr_id != writes_total + done)) {
                fprintf(stderr, "rnic-devbench: CQE wr_id %" PRIu64
                        " opcode %u status %u (want Write %" PRIu64 ")\n",
                        (uint64_t)cqe[i].wr_id, cqe[i].opcode,
                        cqe[i].status, writes_total + done);
                fail("%s", "a Write completed in error or out of order");
            }
            if (flush) {
                flush_done = true;
            } else {
                done++;
            }
        }
        if (flush_done && poll_cq(b, cqe, 1)) {
            if (cqe[0].wr_id != FLUSH_ID || cqe[0].opcode != RNIC_WC_RECV ||
                cqe[0].status != RNIC_WC_SUCCESS) {
                fail("%s", "B's receive of the closing Send failed");
            }
            got_rcv = true;
        }
        t = now_s();
        if (k) {
            t_progress = t;
        } else if (t - t_progress > STALL_S) {
            fprintf(stderr, "rnic-devbench: %" PRIu64 " of %" PRIu64
                    " Writes done\n", done, posted);
            fail("no completion for %s", "20 s");
        }
        if (t - t_sync > 0.001) {
            clock_sync(a);
            clock_sync(b);
            t_sync = t;
        }
        if (!k) {
            usleep(POLL_IDLE_US);
        }
        r.polls++;
    }
    r.seconds = now_s() - t0;
    r.cpu_a = proc_cpu_s(a->q->pid) - ca;
    r.cpu_b = proc_cpu_s(b->q->pid) - cb;
    r.cpu_harness = self_cpu_s() - ch;
    r.bytes = done * MIB;
    r.gbps = r.bytes / r.seconds / 1e9;
    writes_total += done;
    return r;
}

/* Every target MiB holds what its last Write carried (zero if none). */
static void verify(struct side *b)
{
    static uint8_t got[MIB], zero[MIB];
    unsigned s;

    for (s = 0; s < SLOTS; s++) {
        const uint8_t *want = zero;
        uint64_t last;

        if (writes_total > s) {
            last = s + (writes_total - 1 - s) / SLOTS * SLOTS;
            want = src_copy + (last % CHUNKS) * MIB;
        }
        mem_get(b->q, DST + s * MIB, got, MIB);
        if (memcmp(got, want, MIB)) {
            fprintf(stderr, "rnic-devbench: target MiB %u differs after %"
                    PRIu64 " Writes\n", s, writes_total);
            fail("%s", "data at the target differs");
        }
    }
}

/* ------------------------------------------------------------------ */

static void fill_source(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;

    src_copy = malloc(CHUNKS * MIB);
    splitmix64_fill(&x, src_copy, CHUNKS * MIB);
}

static void qemu_id(char *buf, size_t len)
{
    char cmd[4200];
    FILE *p;

    snprintf(cmd, sizeof(cmd), "md5sum '%s'", qemu);
    p = popen(cmd, "r");
    buf[0] = '\0';
    if (p && fgets(buf, (int)len, p)) {
        buf[len - 1 < 8 ? len - 1 : 8] = '\0';
    }
    if (p) {
        pclose(p);
    }
}

static void runs_list(const double *v, int n, char *buf, size_t len)
{
    size_t o = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < n && o < len; i++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%.2f", i ? "/" : "", v[i]);
    }
}

struct cfg {
    unsigned mtu, idle;
};

int main(int argc, char **argv)
{
    double seconds = 4, quick_mib = 0, base_cpu = 0, base_gbps = 0;
    int runs = 3, ncfg = 0, i, m, ret;
    unsigned max_mtu, idle = 0;
    struct cfg cfgs[MAX_CFGS];
    bool anchors = true;
    char load0[64], load1[64], id[16], list[512];
    struct side a, b;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--mtu") && i + 1 < argc &&
                   ncfg < MAX_CFGS - 1) {
            cfgs[ncfg++].mtu = (unsigned)atoi(argv[++i]);
            cfgs[ncfg - 1].idle = 0;
        } else if (!strcmp(argv[i], "--max-mtu") && i + 1 < argc) {
            dev_max_mtu = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--tcp-window") && i + 1 < argc) {
            dev_tcp_window = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--idle-conns") && i + 1 < argc) {
            idle = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--quick") && i + 1 < argc) {
            quick_mib = atof(argv[++i]);
            anchors = false;
        } else if (!strcmp(argv[i], "--no-anchors")) {
            anchors = false;
        } else {
            fprintf(stderr, "usage: %s [--seconds S] [--runs N] [--mtu M]... "
                    "[--max-mtu M] [--tcp-window KIB] [--idle-conns N] "
                    "[--no-anchors] | "
                    "--quick MIB\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS || seconds <= 0 || quick_mib < 0 ||
        idle > MAX_IDLE) {
        return 2;
    }
    if (quick_mib) {
        runs = 1;
    }
    ret = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (ret) {
        return ret;
    }
    snprintf(wire_path, sizeof(wire_path), "/tmp/rnic-devbench-%d.sock",
             (int)getpid());
    atexit(cleanup);
    signal(SIGPIPE, SIG_IGN);
    snprintf(logdir, sizeof(logdir), "%s", getenv("MESON_BUILD_ROOT") ?
             getenv("MESON_BUILD_ROOT") : "/tmp");
    fill_source();
    qemu_id(id, sizeof(id));

    /* The device's largest MTU, from the device itself. */
    start(&a, "probe", true, "52:54:00:00:00:0c");
    max_mtu = rd_reg(&a.d, RNIC_REG_MAX_MTU);
    quit(&a);
    if (!ncfg) {
        /* Ethernet, the device's default max-mtu (jumbo), the largest */
        cfgs[ncfg++] = (struct cfg){ 1500, 0 };
        if (max_mtu > 9216) {
            cfgs[ncfg++] = (struct cfg){ 9216, 0 };
        }
        if (max_mtu > 1500) {
            cfgs[ncfg++] = (struct cfg){ max_mtu, 0 };
        }
    }
    if (idle) {
        /* the first MTU again, idle connections beside the measured one */
        cfgs[ncfg] = cfgs[0];
        cfgs[ncfg++].idle = idle;
    }
    loadavg(load0, sizeof(load0));
    printf("rnic-devbench: two QEMUs (-accel qtest, QEMU %s) over -netdev "
           "stream (unix socket), device max MTU %u\n", id, max_mtu);
    if (quick_mib) {
        printf("  %.0f x 1 MiB RDMA Writes, %d deep, per MTU, verified "
               "(short variant: figures not for quoting)\n", quick_mib,
               DEPTH);
    } else {
        printf("  1 MiB RDMA Writes, %d deep, %d runs x %.1f s per MTU, "
               "medians; host load %s at the start\n", DEPTH, runs, seconds,
               load0);
    }
    for (m = 0; m < ncfg; m++) {
        double g[MAX_RUNS], cpu[MAX_RUNS], ca[MAX_RUNS], cb[MAX_RUNS];
        double ch[MAX_RUNS], wb[MAX_RUNS], wi[MAX_RUNS], wbc[MAX_RUNS];
        double tcp[MAX_RUNS], mc[MAX_RUNS], pr[MAX_RUNS];
        unsigned mtu = cfgs[m].mtu, frame = mtu + 14;
        double med, medcpu, wire_busy = 0, wire_idle = 0, t, mcpy = 0, t0;
        bool anchor = anchors && !cfgs[m].idle;

        idle_conns = cfgs[m].idle;
        t0 = now_s();
        pair_up(&a, &b, mtu);
        if (idle_conns) {
            printf("  %u idle connections beside the measured one, set up "
                   "in %.1f s\n", idle_conns, now_s() - t0);
        }
        for (i = 0; i < runs; i++) {
            struct run r = run_writes(&a, &b, seconds,
                                      (uint64_t)quick_mib);

            verify(&b);
            g[i] = r.gbps;
            ca[i] = r.cpu_a / (r.bytes / 1e9);
            cb[i] = r.cpu_b / (r.bytes / 1e9);
            cpu[i] = ca[i] + cb[i];
            ch[i] = r.cpu_harness / (r.bytes / 1e9);
            pr[i] = r.polls / r.seconds;
            if (anchor) {
                struct anchor_result x = anchor_wire(frame, 1.0, 2);

                wb[i] = x.gbps;
                wbc[i] = x.cpu_s_per_gb;
                wi[i] = anchor_wire(frame, 1.0, 0).gbps;
                tcp[i] = anchor_tcp(1.0).gbps;
                mc[i] = anchor_memcpy_hot(0.3).gbps;
            }
        }
        pair_down(&a, &b);
        med = anchor_median(g, runs);
        medcpu = anchor_median(cpu, runs);
        runs_list(g, runs, list, sizeof(list));
        printf("  MTU %5u%s: %6.3f GB/s (%.2f Gb/s; runs %s), QEMU CPU %.2f "
               "s/GB (A %.2f + B %.2f), harness %.2f s/GB (%.0f CQ polls/s), "
               "data verified\n",
               mtu, idle_conns ? ", idle conns" : "", med, med * 8, list,
               medcpu, anchor_median(ca, runs), anchor_median(cb, runs),
               anchor_median(ch, runs), anchor_median(pr, runs));
        printf("RESULT device mtu=%u idle=%u gbps=%.4f cpu_s_per_gb=%.3f "
               "runs=%d seconds=%.1f\n", mtu, idle_conns, med, medcpu, runs,
               quick_mib ? 0 : seconds);
        if (m == 0) {
            base_cpu = medcpu;
            base_gbps = med;
        }
        if (idle_conns) {
            /*
             * The same MTU, so the same frames per GB: CPU per GB is the
             * per-frame cost up to a constant.
             */
            printf("    with %u idle connections / with none (MTU %u, this "
                   "run): CPU per GB %.3f, GB/s %.3f\n", idle_conns, mtu,
                   medcpu / base_cpu, med / base_gbps);
            printf("RESULT idle conns=%u mtu=%u cpu_ratio=%.4f gbps_ratio=%.4f"
                   "\n", idle_conns, mtu, medcpu / base_cpu, med / base_gbps);
        }
        if (!anchor) {
            continue;
        }
        wire_busy = anchor_median(wb, runs);
        wire_idle = anchor_median(wi, runs);
        t = anchor_median(tcp, runs);
        mcpy = anchor_median(mc, runs);
        printf("    Wire(%u), 2 busy threads: %6.3f GB/s (pump CPU %.2f s/GB)"
               "; no busy threads: %6.3f GB/s\n", frame, wire_busy,
               anchor_median(wbc, runs), wire_idle);
        printf("    host loopback TCP %6.3f GB/s, hot memcpy %6.2f GB/s\n",
               t, mcpy);
        printf("    device / Wire(%u) %.3f (busy) %.3f (idle), / TCP %.3f, "
               "/ memcpy %.4f\n", frame, med / wire_busy, med / wire_idle,
               med / t, med / mcpy);
        printf("RESULT wire frame=%u busy=2 gbps=%.4f\n", frame, wire_busy);
        printf("RESULT wire frame=%u busy=0 gbps=%.4f\n", frame, wire_idle);
        printf("RESULT tcp mtu=%u gbps=%.4f\n", mtu, t);
        printf("RESULT memcpy mtu=%u gbps=%.3f\n", mtu, mcpy);
    }
    loadavg(load1, sizeof(load1));
    printf("RESULT load start=%.*s end=%.*s\n", (int)strcspn(load0, " "),
           load0, (int)strcspn(load1, " "), load1);
    printf("rnic-devbench: done; host load %s at the start, %s at the end\n",
           load0, load1);
    return 0;
}
