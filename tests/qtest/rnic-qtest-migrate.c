/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live migration of a connected rnic under traffic (issue 19), at device
 * level: two QEMUs with -accel qtest joined by the lab's wire (-netdev
 * stream over a unix socket: A connects, B listens), each rnic driven
 * through its hardware interface by this harness (rnic-driver.h).  No guest
 * code: the "guest" is this harness, whose own state (ring positions) lives
 * on across a migration as a driver's would in guest memory.
 *
 * One QP pair; each side posts RDMA Writes into the other's memory and RDMA
 * Reads from it (256 KiB each, up to DEPTH outstanding), so each side is
 * requester and responder at once.  In each of MIGRATIONS phases, once both
 * sides have work in flight, one side (A, then B, then A...) is migrated
 * with QMP "migrate" over a unix socket to a fresh QEMU started with
 * -incoming; meanwhile the other side keeps posting.  The old QEMU is ended
 * after the switch-over, the wire reconnects to the new one (frames sent
 * meanwhile are lost, TCP retransmits them) and the traffic goes on.  Every
 * completion must succeed in order; at the end every Written and Read byte
 * is read back and compared, and the slot after the last one must be
 * untouched.
 *
 * Then, with the connection still up:
 *  - A is saved with "migrate" to a file: and continues ("cont"); copies of
 *    that file with the rnic section's engine stream corrupted (a CONFIG
 *    value changed, the magic changed, the blob length made huge, the file
 *    cut inside the blob) are each loaded into a fresh QEMU, which must exit
 *    with status 1 naming the refusal (no signal); the untouched file loads;
 *  - A opens a second connection towards nobody (SYN_SENT): a migrate now
 *    must fail at once with the engine's reason, and A runs on;
 *  - a last phase of traffic, then the verification above.
 *
 * Printed: per migration the stream size of the rnic section, QEMU's
 * downtime and total time, and the harness's wall time from "migrate" to
 * the destination running.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rnic-driver.h"
#include "../sim/splitmix64.h"

#define MIB             (1ull << 20)
#define HUGE_PAGE       (2 * MIB)
#define OPSZ            (256 * 1024)
#define NSRC            16              /* source chunks of OPSZ: 4 MiB */
#define MAX_OPS         128             /* per kind and side: 32 MiB */
#define DEPTH           12              /* outstanding per side */
#define PHASE_OPS       32              /* per side and phase, both kinds */
#define MIGRATIONS      4
#define RAM_LO          0x200000ull     /* rings, lists: the bump allocator */
#define RAM_HI          0x1000000ull
#define SRC             0x1000000ull    /* 4 MiB at 16 MiB */
#define WDST            0x2000000ull    /* 32 MiB at 32 MiB: peer's Writes */
#define RDST            0x4000000ull    /* 32 MiB at 64 MiB: our Reads */
#define BAR0            0xe0000000ull
#define BAR2            0xe1000000ull
#define BAR4            0xe2000000ull
#define EQ_ASYNC        1
#define EQ_COMP         2
#define EQ_CM           3
#define CQN             1
#define QPN             2
#define QPN_HALF        3               /* the half-open connection's */
#define SRC_STAG        RNIC_STAG(1, 0x11)
#define WDST_STAG       RNIC_STAG(2, 0x22)
#define RDST_STAG       RNIC_STAG(3, 0x33)
#define PORT            20051
#define STALL_S         30.0
#define KIND_WRITE      1ull
#define KIND_READ       2ull

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t ip_none[4] = { 10, 0, 0, 99 };
static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_none[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x99 };

struct side {
    const char *name;
    bool server;                /* of the stream wire */
    const char *mac;
    unsigned gen;               /* QEMU processes so far */
    struct qt *q;
    struct rd d;
    struct rd_eq async, comp, cm;
    struct rd_cq cq;
    struct rd_qp qp;
    double t_start;             /* real time this QEMU started */
    int64_t vnow;               /* its virtual clock, ns */
    uint8_t *src;               /* what its source MR holds */
    uint64_t wn, rn;            /* Writes, Reads posted */
    uint64_t done;              /* completions taken */
    uint64_t verified;          /* bytes compared */
    uint64_t inflight[32];      /* wr_ids posted, in order */
    unsigned head, tail;
    bool frozen;                /* being migrated: not driven */
    unsigned out_a, out_b;      /* ops outstanding when it stopped */
    char log[600];
};

static char qemu[4096], bios[64], logdir[512], wire_path[108];
static char mig_path[108], file_path[108], bad_path[120];
static struct side sa, sb;

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void srv_path(char *buf, size_t len, unsigned gen);

/* QEMUs this harness started and has not ended: ended on any exit. */
static pid_t live[8];

static void track(pid_t pid, bool on)
{
    unsigned i;

    for (i = 0; i < 8; i++) {
        if (on ? !live[i] : live[i] == pid) {
            live[i] = on ? pid : 0;
            return;
        }
    }
}

static void cleanup(void)
{
    unsigned i;

    for (i = 0; i < 8; i++) {
        if (live[i] && waitpid(live[i], NULL, WNOHANG) == 0) {
            kill(live[i], SIGKILL);
            waitpid(live[i], NULL, 0);
        }
    }
    unlink(bios);
    unlink(wire_path);
    for (i = 0; i <= sb.gen; i++) {
        char path[120];

        srv_path(path, sizeof(path), i);
        unlink(path);
    }
    unlink(mig_path);
    unlink(file_path);
    unlink(bad_path);
}

static void fail(const char *fmt, const char *what)
{
    fprintf(stderr, "rnic-qtest-migrate: FAIL: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(1);
}

static void check(unsigned sts, const char *what)
{
    if (sts != RNIC_STS_OK) {
        fprintf(stderr, "rnic-qtest-migrate: %s: status %u\n", what, sts);
        fail("%s failed", what);
    }
}

/* ------------------------------------------------------------------ */
/* Guest memory in bulk: qtest's b64write / b64read                    */

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

static size_t b64_decode(const char *s, uint8_t *out, size_t n)
{
    size_t got = 0;
    uint32_t v = 0;
    int bits = 0;
    const char *p;

    for (; *s && got < n; s++) {
        p = strchr(b64, *s);
        if (*s == '=' || !p) {
            continue;
        }
        v = v << 6 | (uint32_t)(p - b64);
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
    size_t off, l;
    char *e;

    for (off = 0; off < n; off += step) {
        l = n - off < step ? n - off : step;
        e = b64_encode(p + off, l);
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
/* QEMUs                                                               */

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

/* QMP command; fails the test unless it answers "return". */
static char *qmp_ok(struct qt *q, const char *json)
{
    char *r = qt_qmp(q, json);

    if (!strstr(r, "\"return\"")) {
        fprintf(stderr, "rnic-qtest-migrate: %s -> %s\n", json, r);
        fail("%s", "a QMP command failed");
    }
    return r;
}

/*
 * A QEMU for side s (its gen-th), with -incoming uri when incoming is not
 * NULL, on the wire at path (the server binds it: unlink it first).
 */
static struct qt *spawn(struct side *s, const char *incoming,
                        const char *path, const char *logname)
{
    char netdev[300], dev[160], trace[200];
    const char *argv[] = {
        "-machine", "q35", "-nodefaults", "-display", "none", "-m", "128M",
        "-bios", bios, "-netdev", netdev, "-device", dev,
        "-trace", "rnic_mig_*", "-trace", trace, "-incoming", incoming,
        NULL
    };
    struct qt *q;

    /* RNIC_MIG_TRACE: more trace events for every QEMU (debugging) */
    snprintf(trace, sizeof(trace), "%s", getenv("RNIC_MIG_TRACE") ?
             getenv("RNIC_MIG_TRACE") : "rnic_mig_load");
    if (!incoming) {
        argv[17] = NULL;
    }

    snprintf(netdev, sizeof(netdev), "stream,id=n0,server=%s,%saddr.type=unix,"
             "addr.path=%s", s->server ? "on" : "off",
             s->server ? "" : "reconnect-ms=50,", path);
    snprintf(dev, sizeof(dev), "rnic,netdev=n0,addr=04.0,mac=%s", s->mac);
    snprintf(s->log, sizeof(s->log), "%s/rnic-qtest-migrate-%s.log",
             logdir, logname);
    q = qt_start(qemu, argv, strdup(s->log));
    track(q->pid, true);
    free(qmp_ok(q, "{\"execute\": \"migrate-set-parameters\", \"arguments\":"
                " {\"max-bandwidth\": 8589934592}}"));
    /* stopped, it waits for migrate-continue: the harness drives it till then */
    free(qmp_ok(q, "{\"execute\": \"migrate-set-capabilities\", \"arguments\":"
                " {\"capabilities\": [{\"capability\": "
                "\"pause-before-switchover\", \"state\": true}]}}"));
    return q;
}

/*
 * The listening side's socket for its gen-th QEMU.  The wire's path is a
 * symbolic link to the current one: a QEMU that ends unlinks its own
 * listening socket's path, so the next QEMU cannot take over that name.
 */
static void srv_path(char *buf, size_t len, unsigned gen)
{
    snprintf(buf, len, "%s-%u", wire_path, gen);
}

static void wire_to(unsigned gen)
{
    char target[120], tmp[120];

    srv_path(target, sizeof(target), gen);
    snprintf(tmp, sizeof(tmp), "%s.new", wire_path);
    unlink(tmp);
    if (symlink(target, tmp) || rename(tmp, wire_path)) {
        fail("cannot point the wire at %s", target);
    }
}

static void quit(struct qt *q)
{
    track(q->pid, false);
    qt_quit(q);
}

static void adopt(struct side *s, struct qt *q)
{
    s->q = q;
    s->d.q = q;
    s->t_start = now_s();
    s->vnow = 0;
}

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
    check(rd_cmd(&s->d, &c), "REG_MR");
}

static void start(struct side *s, const char *name, bool server,
                  const char *mac, uint64_t seed)
{
    struct rnic_admin_cmd c;
    char logname[16];

    s->name = name;
    s->server = server;
    s->mac = mac;
    snprintf(logname, sizeof(logname), "%s0", name);
    if (server) {
        char path[120];

        srv_path(path, sizeof(path), 0);
        unlink(path);
        adopt(s, spawn(s, NULL, path, logname));
        wire_to(0);
    } else {
        adopt(s, spawn(s, NULL, wire_path, logname));
    }
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
    if (!rd_enable(&s->d)) {
        fail("rnic in QEMU %s never became READY", name);
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
    c.u.set_port.mtu = 9000;
    memcpy(c.u.set_port.mac, server ? mac_b : mac_a, 6);
    check(rd_cmd(&s->d, &c), "SET_PORT");
    reg_mr_huge(s, SRC_STAG, SRC, NSRC * OPSZ / HUGE_PAGE,
                RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ);
    reg_mr_huge(s, WDST_STAG, WDST, MAX_OPS * OPSZ / HUGE_PAGE,
                RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
    reg_mr_huge(s, RDST_STAG, RDST, MAX_OPS * OPSZ / HUGE_PAGE,
                RNIC_ACCESS_LOCAL_WRITE);
    s->src = malloc(NSRC * OPSZ);
    splitmix64_fill(&seed, s->src, NSRC * OPSZ);
    mem_put(s->q, SRC, s->src, NSRC * OPSZ);
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

static void connect_pair(struct side *a, struct side *b)
{
    struct rnic_eqe e;
    uint32_t conn = 0;

    check(rd_listen(&b->d, 0, ip_b, PORT), "CM_LISTEN");
    check(rd_connect(&a->d, QPN, ip_a, ip_b, PORT, mac_b, &conn),
          "CM_CONNECT");
    if (!wait_cm(b, RNIC_CM_CONNECT_REQUEST, &e)) {
        fail("%s", "no CONNECT_REQUEST at B");
    }
    check(rd_accept(&b->d, e.obj, QPN), "CM_ACCEPT");
    if (!wait_cm(a, RNIC_CM_CONNECT_REPLY, &e) ||
        !wait_cm(b, RNIC_CM_ESTABLISHED, &e)) {
        fail("%s", "the connection was not established");
    }
}

/* ------------------------------------------------------------------ */
/* Traffic                                                             */

static uint64_t write_src(uint64_t i)
{
    return (i * 5) % NSRC;
}

static uint64_t read_src(uint64_t i)
{
    return (i * 3 + 1) % NSRC;
}

/* Post s's next op (Writes and Reads alternate) without its doorbell. */
static void post(struct side *s)
{
    struct rnic_sq_wqe w;
    uint64_t slot = s->qp.sq + (uint64_t)(s->qp.sq_prod &
                                          (s->qp.sq_depth - 1)) *
                    RNIC_SQ_WQE_SIZE;
    bool wr = s->wn <= s->rn;
    uint64_t i = wr ? s->wn++ : s->rn++;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = (wr ? KIND_WRITE : KIND_READ) << 32 | i;
    w.hdr.opcode = wr ? RNIC_WR_WRITE : RNIC_WR_READ;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    if (wr) {
        w.op.rdma.remote_addr = WDST + (i % MAX_OPS) * OPSZ;
        w.op.rdma.rkey = WDST_STAG;
        w.data.sge[0].addr = SRC + write_src(i) * OPSZ;
        w.data.sge[0].lkey = SRC_STAG;
    } else {
        w.op.rdma.remote_addr = SRC + read_src(i) * OPSZ;
        w.op.rdma.rkey = SRC_STAG;
        w.data.sge[0].addr = RDST + (i % MAX_OPS) * OPSZ;
        w.data.sge[0].lkey = RDST_STAG;
    }
    w.data.sge[0].length = OPSZ;
    qt_memwrite(s->q, slot, &w, offsetof(struct rnic_sq_wqe, data.sge[1]));
    s->qp.sq_prod++;
    s->inflight[s->tail++ % 32] = w.hdr.wr_id;
}

static unsigned outstanding(const struct side *s)
{
    return s->tail - s->head;
}

/*
 * The bytes of a completed op, where they landed: a Write's in the peer's
 * memory (placed before the requester's completion), a Read's in ours.
 * The slot is not reused before the op MAX_OPS later is posted.
 */
static void check_data(struct side *s, bool wr, uint64_t i)
{
    static uint8_t got[OPSZ];
    struct side *peer = s == &sa ? &sb : &sa;
    const uint8_t *want = wr ? s->src + write_src(i) * OPSZ :
                               peer->src + read_src(i) * OPSZ;

    mem_get(wr ? peer->q : s->q, (wr ? WDST : RDST) + (i % MAX_OPS) * OPSZ,
            got, OPSZ);
    if (memcmp(got, want, OPSZ)) {
        fprintf(stderr, "rnic-qtest-migrate: %s: %s %" PRIu64 " differs\n",
                s->name, wr ? "Write" : "Read", i);
        fail("%s", "the data of a completed operation differs");
    }
    s->verified += OPSZ;
}

/* Take s's new completions (in order, all successful); how many. */
static unsigned reap(struct side *s)
{
    struct rd_cq *cq = &s->cq;
    struct rnic_cqe cqe[DEPTH];
    unsigned idx = cq->cons & (cq->depth - 1), n = cq->depth - idx, i;
    uint8_t phase = ((cq->cons / cq->depth) & 1) ? 0 : 1;

    n = n < DEPTH ? n : DEPTH;
    qt_memread(s->q, cq->ring + (uint64_t)idx * RNIC_CQE_SIZE, cqe,
               n * sizeof(cqe[0]));
    for (i = 0; i < n && (cqe[i].owner & RNIC_CQE_PHASE) == phase; i++) {
        uint64_t want = s->inflight[s->head % 32];
        bool wr = want >> 32 == KIND_WRITE;

        if (s->head == s->tail || cqe[i].wr_id != want ||
            cqe[i].status != RNIC_WC_SUCCESS ||
            cqe[i].opcode != (wr ? RNIC_WC_WRITE : RNIC_WC_READ)) {
            fprintf(stderr, "rnic-qtest-migrate: %s: CQE wr_id 0x%" PRIx64
                    " opcode %u status %u, want wr_id 0x%" PRIx64 "\n",
                    s->name, (uint64_t)cqe[i].wr_id, cqe[i].opcode,
                    cqe[i].status, want);
            fail("%s", "an operation completed in error or out of order");
        }
        s->head++;
        s->done++;
        check_data(s, wr, (uint32_t)want);
    }
    if (i) {
        cq->cons += i;
        qt_memwrite(s->q, cq->dbrec, &cq->cons, 4);
    }
    return i;
}

/* One round over s: post up to quota ops in total, ring, reap. */
static unsigned drive(struct side *s, uint64_t quota)
{
    unsigned k = 0;

    if (s->frozen) {
        return 0;
    }
    while (outstanding(s) < DEPTH && s->wn + s->rn < quota) {
        post(s);
        k++;
    }
    if (k) {
        rd_doorbell(&s->d, RNIC_DB_SQ, s->qp.qpn, 0, s->qp.sq_prod);
    }
    return reap(s);
}

static double t_progress;

static void pump_once(uint64_t quota)
{
    unsigned got = drive(&sa, quota) + drive(&sb, quota);
    double t = now_s();

    clock_sync(&sa);
    clock_sync(&sb);
    if (got) {
        t_progress = t;
    } else {
        if (t - t_progress > STALL_S) {
            fprintf(stderr, "rnic-qtest-migrate: A %" PRIu64 "/%" PRIu64
                    " done, B %" PRIu64 "/%" PRIu64 "\n", sa.done,
                    sa.wn + sa.rn, sb.done, sb.wn + sb.rn);
            fprintf(stderr, "A: %s\nB: %s\n",
                    qt_qmp(sa.q, "{\"execute\": \"human-monitor-command\","
                           " \"arguments\": {\"command-line\": "
                           "\"info network\"}}"),
                    qt_qmp(sb.q, "{\"execute\": \"human-monitor-command\","
                           " \"arguments\": {\"command-line\": "
                           "\"info network\"}}"));
            fail("no completion for %s", "30 s");
        }
        usleep(300);
    }
}

#define NO_LIMIT        UINT64_MAX

/* Traffic until each side has completed `more` ops more (in flight too). */
static void pump_more(uint64_t more)
{
    uint64_t a = sa.done + more, b = sb.done + more;

    t_progress = now_s();
    while (sa.done < a || sb.done < b || !outstanding(&sa) ||
           !outstanding(&sb)) {
        pump_once(NO_LIMIT);
    }
}

/* No new work: until all that is posted has completed. */
static void drain(void)
{
    t_progress = now_s();
    while (outstanding(&sa) || outstanding(&sb)) {
        pump_once(0);
    }
}

/* ------------------------------------------------------------------ */
/* Migration                                                           */

/* A number after "key": in a QMP reply, or -1. */
static int64_t json_num(const char *r, const char *key)
{
    char pat[64];
    const char *p;

    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    p = strstr(r, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* query-migrate until it leaves "active"/"setup"...; its last reply. */
static char *migrate_wait(struct side *s, uint64_t quota)
{
    bool continued = false;
    char *r;

    for (;;) {
        r = qt_qmp(s->q, "{\"execute\": \"query-migrate\"}");
        if (strstr(r, "\"completed\"") || strstr(r, "\"failed\"") ||
            strstr(r, "\"cancelled\"")) {
            return r;
        }
        if (strstr(r, "\"pre-switchover\"") && !continued) {
            /* what the harness did so far is in the stream: stop here */
            continued = true;
            s->frozen = true;
            s->out_a = outstanding(&sa);
            s->out_b = outstanding(&sb);
            free(qmp_ok(s->q, "{\"execute\": \"migrate-continue\", "
                        "\"arguments\": {\"state\": \"pre-switchover\"}}"));
        }
        free(r);
        pump_once(quota);
    }
}

/* The last "stream N bytes" the rnic traced in log, or 0. */
static unsigned long stream_size(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[512];
    unsigned long n = 0;
    const char *p;

    while (f && fgets(line, sizeof(line), f)) {
        p = strstr(line, "rnic_mig_save stream ");
        if (p) {
            n = strtoul(p + strlen("rnic_mig_save stream "), NULL, 10);
        }
    }
    if (f) {
        fclose(f);
    }
    return n;
}

struct mig_stats {
    unsigned long stream;
    int64_t downtime_ms, total_ms;
    double wall_s;
};

/*
 * Move s to a fresh QEMU while the traffic goes on; the other side keeps
 * posting up to quota.
 */
static struct mig_stats migrate_side(struct side *s, uint64_t quota)
{
    struct mig_stats m;
    char uri[160], cmd[256], logname[16], old_log[600], path[120];
    struct qt *dst;
    char *r;
    double t0;

    snprintf(uri, sizeof(uri), "unix:%s", mig_path);
    unlink(mig_path);
    snprintf(logname, sizeof(logname), "%s%u", s->name, ++s->gen);
    snprintf(old_log, sizeof(old_log), "%s", s->log);
    srv_path(path, sizeof(path), s->gen);
    unlink(path);
    dst = spawn(s, uri, s->server ? path : wire_path, logname);
    t0 = now_s();
    snprintf(cmd, sizeof(cmd), "{\"execute\": \"migrate\", \"arguments\": "
             "{\"uri\": \"%s\"}}", uri);
    free(qmp_ok(s->q, cmd));
    /* both sides keep posting: work in flight at the switch-over */
    r = migrate_wait(s, quota);
    if (!strstr(r, "\"completed\"")) {
        fprintf(stderr, "rnic-qtest-migrate: %s\n", r);
        fail("migrating %s failed", s->name);
    }
    m.downtime_ms = json_num(r, "downtime");
    m.total_ms = json_num(r, "total-time");
    free(r);
    /* the destination runs once it has loaded everything */
    for (;;) {
        r = qt_qmp(dst, "{\"execute\": \"query-status\"}");
        if (strstr(r, "\"running\": true")) {
            free(r);
            break;
        }
        if (now_s() - t0 > STALL_S) {
            fprintf(stderr, "rnic-qtest-migrate: %s\n", r);
            fail("the destination of %s never ran", s->name);
        }
        free(r);
        usleep(1000);
    }
    m.wall_s = now_s() - t0;
    if (s->server) {
        wire_to(s->gen);    /* the peer reconnects to the new QEMU */
    }
    quit(s->q);
    m.stream = stream_size(old_log);
    adopt(s, dst);
    s->frozen = false;
    unlink(mig_path);
    return m;
}

/* ------------------------------------------------------------------ */
/* Load refusals: a corrupted file: stream                             */

static uint8_t *slurp(const char *path, size_t *len)
{
    struct stat st;
    uint8_t *b;
    int fd = open(path, O_RDONLY);

    if (fd < 0 || fstat(fd, &st)) {
        fail("cannot read %s", path);
    }
    b = malloc(st.st_size);
    if (read(fd, b, st.st_size) != st.st_size) {
        fail("cannot read %s", path);
    }
    close(fd);
    *len = st.st_size;
    return b;
}

static void spill(const char *path, const uint8_t *b, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || write(fd, b, len) != (ssize_t)len) {
        fail("cannot write %s", path);
    }
    close(fd);
}

static bool log_has(const char *log, const char *what)
{
    size_t len;
    uint8_t *b = slurp(log, &len);
    bool has;

    b = realloc(b, len + 1);
    b[len] = '\0';
    has = strstr((char *)b, what) != NULL;
    free(b);
    return has;
}

/*
 * Load path into a fresh QEMU (-incoming defer, then migrate-incoming):
 * want_ok says whether it must run or exit with status 1 saying `why`.
 */
static void load_file(const char *path, bool want_ok, const char *why,
                      const char *label)
{
    struct side s = { .name = "L", .server = false, .mac = sa.mac };
    char cmd[300], logname[32];
    struct qt *q;
    double t0;
    int status;
    char *r;

    snprintf(logname, sizeof(logname), "load-%s", label);
    /* its wire leads nowhere: it must not meet A's peer */
    q = spawn(&s, "defer", "/nonexistent/rnic-wire", logname);
    snprintf(cmd, sizeof(cmd), "{\"execute\": \"migrate-incoming\", "
             "\"arguments\": {\"uri\": \"file:%s\"}}\n", path);
    /* a refusal may end QEMU before it answers: no reply read */
    if (write(q->qmp_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd)) {
        fail("%s", "cannot send migrate-incoming");
    }
    t0 = now_s();
    if (want_ok) {
        for (;;) {
            r = qt_qmp(q, "{\"execute\": \"query-status\"}");
            if (strstr(r, "\"running\": true")) {
                free(r);
                break;
            }
            free(r);
            if (now_s() - t0 > STALL_S) {
                fail("the untouched stream (%s) never ran", label);
            }
            usleep(10000);
        }
        printf("  load %-14s runs\n", label);
        quit(q);
        return;
    }
    while (waitpid(q->pid, &status, WNOHANG) != q->pid) {
        if (now_s() - t0 > STALL_S) {
            fail("QEMU loading the %s stream did not exit", label);
        }
        usleep(10000);
    }
    track(q->pid, false);
    close(q->fd);
    close(q->qmp_fd);
    free(q->line);
    free(q);
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "rnic-qtest-migrate: killed by signal %d\n",
                WTERMSIG(status));
        fail("QEMU crashed loading the %s stream", label);
    }
    if (WEXITSTATUS(status) != 1 || !log_has(s.log, why)) {
        fprintf(stderr, "rnic-qtest-migrate: exit status %d, want 1 and "
                "'%s' in %s\n", WEXITSTATUS(status), why, s.log);
        fail("the %s stream was not refused as it should be", label);
    }
    printf("  load %-14s refused: exit 1, '%s'\n", label, why);
}

static size_t find_magic(const uint8_t *b, size_t len)
{
    static const uint8_t magic[4] = { 'R', 'N', 'S', 'T' };
    size_t i, at = 0;

    for (i = 4; i + 24 <= len; i++) {
        if (!memcmp(b + i, magic, 4)) {
            if (at) {
                fail("%s", "two RNST magics in the file");
            }
            at = i;
        }
    }
    if (!at) {
        fail("%s", "no engine stream (RNST) in the file");
    }
    return at;
}

/* A saved to a file while connected, continued; corrupted copies refused. */
static void file_refusals(uint64_t quota)
{
    char cmd[256];
    uint8_t *b, save;
    size_t len, at;
    char *r;

    snprintf(cmd, sizeof(cmd), "{\"execute\": \"migrate\", \"arguments\": "
             "{\"uri\": \"file:%s\"}}", file_path);
    sa.frozen = true;
    free(qmp_ok(sa.q, cmd));
    r = migrate_wait(&sa, quota);
    if (!strstr(r, "\"completed\"")) {
        fprintf(stderr, "rnic-qtest-migrate: %s\n", r);
        fail("%s", "saving A to a file failed");
    }
    free(r);
    free(qmp_ok(sa.q, "{\"execute\": \"cont\"}"));
    sa.frozen = false;
    b = slurp(file_path, &len);
    at = find_magic(b, len);
    printf("  A saved to a file (%zu bytes, engine stream %u bytes at %zu) "
           "and continued\n", len,
           (unsigned)b[at - 4] << 24 | b[at - 3] << 16 | b[at - 2] << 8 |
           b[at - 1], at);

    load_file(file_path, true, NULL, "untouched");
    /* CONFIG's first limit, max-qp: header 8, section 8, MAC 6 */
    b[at + 22] ^= 0x01;
    spill(bad_path, b, len);
    load_file(bad_path, false, "configuration differs: max-qp", "max-qp");
    b[at + 22] ^= 0x01;
    save = b[at];
    b[at] ^= 0xff;
    spill(bad_path, b, len);
    load_file(bad_path, false, "the device's state stream is refused",
              "magic");
    b[at] = save;
    /* the blob's length (big-endian, before the magic) made huge */
    save = b[at - 4];
    b[at - 4] = 0x7f;
    spill(bad_path, b, len);
    load_file(bad_path, false, "is cut short", "length");
    b[at - 4] = save;
    /* the file ends inside the blob */
    spill(bad_path, b, at + 100);
    load_file(bad_path, false, "is cut short", "truncated");
    free(b);
    unlink(bad_path);
    unlink(file_path);
}

/* A connection in its handshake: migrate fails at once with the reason. */
static void save_refusal(void)
{
    struct rd_qp qp;
    uint32_t conn;
    char cmd[256], *r;

    check(rd_create_qp(&sa.d, &qp, QPN_HALF, 0, CQN, 2, 2), "CREATE_QP");
    check(rd_connect(&sa.d, QPN_HALF, ip_a, ip_none, PORT, mac_none, &conn),
          "CM_CONNECT (to nobody)");
    unlink(mig_path);
    snprintf(cmd, sizeof(cmd), "{\"execute\": \"migrate\", \"arguments\": "
             "{\"uri\": \"file:%s\"}}", mig_path);
    r = qt_qmp(sa.q, cmd);
    free(r);
    r = migrate_wait(&sa, 0);
    if (!strstr(r, "\"failed\"") || !strstr(r, "cannot migrate now") ||
        !strstr(r, "connection")) {
        fprintf(stderr, "rnic-qtest-migrate: %s\n", r);
        fail("%s", "a migrate with a half-open connection was not refused");
    }
    printf("  migrate with a connection in its handshake refused: %s\n",
           strstr(r, "\"error-desc\"") ? strstr(r, "\"error-desc\"") : r);
    free(r);
    r = qt_qmp(sa.q, "{\"execute\": \"query-status\"}");
    if (!strstr(r, "\"running\": true")) {
        fail("A is not running after the refused migrate: %s", r);
    }
    free(r);
    unlink(mig_path);
}

/* ------------------------------------------------------------------ */

/* The last op of n that used slot j, or -1: each slot holds its last. */
static int64_t last_in(uint64_t n, uint64_t j)
{
    return n > j ? (int64_t)(j + (n - 1 - j) / MAX_OPS * MAX_OPS) : -1;
}

/* At the end, every slot again: its last op's bytes, or zeros if none. */
static void verify_side(struct side *s, struct side *peer)
{
    static uint8_t got[OPSZ], zero[OPSZ];
    uint64_t j;
    int64_t i;

    for (j = 0; j < MAX_OPS; j++) {
        i = last_in(peer->wn, j);
        mem_get(s->q, WDST + j * OPSZ, got, OPSZ);
        if (memcmp(got, i < 0 ? zero : peer->src + write_src(i) * OPSZ,
                   OPSZ)) {
            fprintf(stderr, "rnic-qtest-migrate: %s: Write slot %" PRIu64
                    " differs\n", s->name, j);
            fail("%s", "written data differs");
        }
        i = last_in(s->rn, j);
        mem_get(s->q, RDST + j * OPSZ, got, OPSZ);
        if (memcmp(got, i < 0 ? zero : peer->src + read_src(i) * OPSZ,
                   OPSZ)) {
            fprintf(stderr, "rnic-qtest-migrate: %s: Read slot %" PRIu64
                    " differs\n", s->name, j);
            fail("%s", "read data differs");
        }
    }
}

int main(int argc, char **argv)
{
    struct mig_stats m;
    const char *tmp = getenv("MESON_BUILD_ROOT");
    double t0 = now_s();
    unsigned p;
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = qt_prepare(qemu, sizeof(qemu), bios, sizeof(bios));
    if (rc) {
        return rc;
    }
    snprintf(logdir, sizeof(logdir), "%s", tmp ? tmp : "/tmp");
    snprintf(wire_path, sizeof(wire_path), "/tmp/rnic-migw-%d.sock",
             (int)getpid());
    snprintf(mig_path, sizeof(mig_path), "/tmp/rnic-migm-%d.sock",
             (int)getpid());
    snprintf(file_path, sizeof(file_path), "/tmp/rnic-migf-%d.img",
             (int)getpid());
    snprintf(bad_path, sizeof(bad_path), "/tmp/rnic-migf-%d-bad.img",
             (int)getpid());
    atexit(cleanup);
    unlink(wire_path);

    start(&sb, "B", true, "52:54:00:00:00:0b", 0xb0b);
    start(&sa, "A", false, "52:54:00:00:00:0a", 0xa0a);
    wait_link(&sa);
    wait_link(&sb);
    connect_pair(&sa, &sb);
    printf("A and B connected (MTU 9000, MPA CRC); %u ops of 256 KiB per "
           "side and phase, Writes and Reads, %u outstanding\n",
           PHASE_OPS, DEPTH);

    for (p = 0; p < MIGRATIONS; p++) {
        struct side *s = p % 2 ? &sb : &sa;

        pump_more(PHASE_OPS);
        m = migrate_side(s, NO_LIMIT);
        printf("migration %u: %s -> %s%u, switch-over with %u+%u ops "
               "outstanding (A+B): rnic stream %lu bytes, downtime %" PRId64
               " ms, total %" PRId64 " ms, migrate to running %.0f ms\n",
               p + 1, s->name, s->name, s->gen, s->out_a, s->out_b,
               m.stream, m.downtime_ms, m.total_ms, m.wall_s * 1e3);
    }
    pump_more(PHASE_OPS);
    drain();
    printf("after %u migrations: A %" PRIu64 " ops, B %" PRIu64 " ops\n",
           MIGRATIONS, sa.done, sb.done);

    file_refusals(0);
    save_refusal();
    pump_more(PHASE_OPS);
    drain();
    printf("last phase done: A %" PRIu64 " ops, B %" PRIu64 " ops\n",
           sa.done, sb.done);

    verify_side(&sa, &sb);
    verify_side(&sb, &sa);
    printf("verified: A wrote %" PRIu64 " and read %" PRIu64 ", B wrote %"
           PRIu64 " and read %" PRIu64 " x 256 KiB; every op's bytes "
           "compared at its completion (%" PRIu64 " MiB), every slot again "
           "at the end\n", sa.wn, sa.rn, sb.wn, sb.rn,
           (sa.verified + sb.verified) >> 20);
    quit(sa.q);
    quit(sb.q);
    printf("PASS (%.1f s)\n", now_s() - t0);
    (void)argc;
    (void)argv;
    return 0;
}
