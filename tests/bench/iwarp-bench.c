// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDMA Write throughput of the device engine: two simulated rnics (the
 * optimized engine, tests/sim's guest + link) back to back in one process,
 * no loss, one QP, 1 MiB RDMA Writes kept 8 deep, for MPA CRC on and off and
 * for MTU 1500, 9000 and 65000 (FPDUs of 64,948 octets).  Everything both devices do is on this one core:
 * SQ fetch, gather from guest memory, FPDU framing + CRC32c, offload TCP on
 * both ends, the link (one frame copy), DDP placement into the peer's guest
 * memory, ACKs, completions.  Prints the median GB/s of several runs and
 * the ratio to a single-core memcpy of the same bytes measured in the same
 * run (the target: >= 40 %).  Both are timed in thread CPU time, so
 * a loaded host slows them alike.  The data is checked after each run.
 *
 *   iwarp-bench [--runs N] [--mib N] [--max-conn N] [--no-memcpy]
 *               [--crc on|off] [--mtu 1500|9000|65000] [--idle-conns N]
 *
 * --idle-conns N connects N more QP pairs first and leaves them idle (issue
 * 18, row F: per-frame cost with many connections over without): the
 * Writes run on the first QP alone, every other connection established
 * with nothing to send, its ACKs settled.
 *
 * --no-memcpy leaves the baselines out (and their 2 GiB of cold buffers):
 * for profiling the engine alone under perf or callgrind.  --crc and --mtu
 * run only the cases that match (all six by default).
 *
 * After the engine figures it prints the floor of the design on this CPU:
 * each kind of pass a payload byte goes through, timed alone on a
 * frame-sized buffer that stays in L1 (CRC32c, the Internet checksum, the
 * checksumming copy, memcpy), and the throughput if the engine did nothing
 * but those passes, as a share of the same hot memcpy.  If that is below
 * 40 %, no per-segment work saved can reach the target with this pass count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include "wire/crc32c.h"
#include "wire/ddp.h"
#include "wire/mpa.h"
#include "wire/net.h"
#include "simpair.h"

#define MSG (1u << 20)
#define DEPTH 8

/*
 * CPU time of this thread: the host is shared, and preemption by other
 * processes must not count against the engine (or memcpy).
 */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* GB/s of a single-core memcpy of total bytes, one MSG buffer reused: hot. */
static double memcpy_hot_gbps(unsigned mib)
{
    uint8_t *a = malloc(MSG), *b = malloc(MSG);
    double t0, t;
    unsigned i;

    memset(a, 0x5a, MSG);
    memset(b, 0, MSG);
    memcpy(b, a, MSG);
    t0 = now_s();
    for (i = 0; i < mib; i++) {
        a[i % MSG] = (uint8_t)i;
        memcpy(b, a, MSG);
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
    t = now_s() - t0;
    free(a);
    free(b);
    return (double)mib * MSG / t / 1e9;
}

/*
 * Cache-cold buffers for the cold memcpy: source and destination each at
 * least twice the last-level cache (as the system reports it), 256 MiB at
 * the least and 1 GiB at the most, so every MSG chunk copied comes from and
 * goes to memory that later chunks evicted.
 */
static size_t cold_len;
static uint8_t *cold_src, *cold_dst;

/*
 * 2 MiB aligned and huge-page backed where the kernel allows: the cold copy
 * should measure memory bandwidth, not 4 KiB TLB misses (costly on a
 * paravirtualized host).
 */
static uint8_t *cold_alloc(size_t len)
{
    void *p;

    if (posix_memalign(&p, 2u << 20, len)) {
        return NULL;
    }
    madvise(p, len, MADV_HUGEPAGE);
    return p;
}

static bool cold_init(void)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t want = llc > 0 ? 2 * (size_t)llc : 0;

    if (want < (256u << 20)) {
        want = 256u << 20;
    }
    if (want > (1u << 30)) {
        want = 1u << 30;
    }
    cold_len = want & ~(size_t)(MSG - 1);
    cold_src = cold_alloc(cold_len);
    cold_dst = cold_alloc(cold_len);
    if (!cold_src || !cold_dst) {
        return false;
    }
    /* fault every page in now: page faults are not memcpy's cost */
    memset(cold_src, 0x5a, cold_len);
    memset(cold_dst, 0, cold_len);
    return true;
}

/* GB/s of a single-core memcpy of the same total bytes, walking cold memory */
static double memcpy_cold_gbps(unsigned mib)
{
    static size_t next;     /* the walk goes on where the last call ended */
    size_t n = cold_len / MSG, off;
    double t0, t;
    unsigned i;

    t0 = now_s();
    for (i = 0; i < mib; i++) {
        off = next * MSG;
        next = (next + 1) % n;
        memcpy(cold_dst + off, cold_src + off, MSG);
        __asm__ __volatile__("" : : "r"(cold_dst) : "memory");
    }
    t = now_s() - t0;
    return (double)mib * MSG / t / 1e9;
}

/*
 * ---- The floor: single passes on L1-hot, frame-sized buffers ----
 *
 * Per data segment the engine makes these passes (no markers, tagged Write
 * FPDUs filling the EMSS): TX gathers the payload from the source MR into
 * the send ring (memcpy), takes the CRC32c over the FPDU, copies the FPDU
 * into the frame summing the TCP checksum (rne_csum_copy); the link copies
 * the frame; RX sums the TCP segment (rne_csum_add), takes the CRC32c and
 * places the payload (memcpy).  Each is timed alone, its buffers hot in L1,
 * so the sum is a lower bound on the time of a segment's passes: the real
 * gather and placement touch 1 MiB MRs (L2), and nothing per segment (TCP,
 * headers, classifier, ACKs, completions) is counted.
 */
enum { PASS_CRC, PASS_CSUM, PASS_CSUM_COPY, PASS_COPY_PAYLOAD,
       PASS_COPY_FRAME, NPASS };
static const char *const pass_name[NPASS] = {
    "CRC32c", "checksum", "copy+checksum", "memcpy payload", "memcpy frame",
};

struct seg_shape {
    uint32_t fpdu;      /* FPDU octets, CRC included */
    uint32_t payload;   /* RDMA payload octets in it */
    uint32_t tcp;       /* TCP segment: header with timestamps + FPDU */
    uint32_t frame;     /* Ethernet frame */
};

static struct seg_shape seg_shape(uint16_t mtu)
{
    struct seg_shape s;
    uint32_t emss = mtu - RNE_IP4_HLEN - 20 - 12;      /* TCP + timestamps */
    uint32_t ulen = rne_mpa_mulpdu(emss, false);

    s.fpdu = rne_mpa_fpdu_len(ulen);
    s.payload = ulen - RNE_DDP_TAGGED_HLEN;
    s.tcp = 32 + s.fpdu;
    s.frame = RNE_ETH_HLEN + RNE_IP4_HLEN + s.tcp;
    return s;
}

/* ns per call of one pass over its span of a segment, buffers L1-hot */
static double pass_ns(int pass, const struct seg_shape *s)
{
    static uint8_t src[65536] __attribute__((aligned(64)));
    static uint8_t dst[65536] __attribute__((aligned(64)));
    /* ~256 MB of work per measurement: long enough for the CPU clock */
    unsigned n = (unsigned)((256u << 20) / s->frame), i;
    volatile uint32_t sink = 0;
    double t0;

    memset(src, 0x5a, sizeof(src));
    t0 = now_s();
    for (i = 0; i < n; i++) {
        src[i & 63] = (uint8_t)i;       /* the input changes every call */
        switch (pass) {
        case PASS_CRC:
            sink += rne_crc32c(0, src, s->fpdu - RNE_MPA_CRC_LEN);
            break;
        case PASS_CSUM:
            sink += rne_csum_add(0, src, s->tcp);
            break;
        case PASS_CSUM_COPY:
            sink += rne_csum_copy(dst, src, s->fpdu);
            break;
        case PASS_COPY_PAYLOAD:
            memcpy(dst, src, s->payload);
            break;
        default:
            memcpy(dst, src, s->frame);
            break;
        }
        __asm__ __volatile__("" : : "r"(dst) : "memory");
    }
    return (now_s() - t0) * 1e9 / n;
}

/*
 * ns per payload octet if a segment cost nothing but its passes: 2 CRC32c
 * (with crc), the TX checksumming copy, the RX checksum, and three plain
 * copies (gather, the link, placement).
 */
static double floor_ns_per_byte(const double *ns, const struct seg_shape *s,
                                bool crc)
{
    double t = (crc ? 2 * ns[PASS_CRC] : 0) + ns[PASS_CSUM] +
               ns[PASS_CSUM_COPY] + 2 * ns[PASS_COPY_PAYLOAD] +
               ns[PASS_COPY_FRAME];

    return t / s->payload;
}

static void floor_report(uint16_t mtu, unsigned runs, double hot_gbps)
{
    struct seg_shape s = seg_shape(mtu);
    uint32_t span[NPASS] = {
        s.fpdu - RNE_MPA_CRC_LEN, s.tcp, s.fpdu, s.payload, s.frame,
    };
    double ns[NPASS], v[64];
    unsigned i;
    int p;

    for (p = 0; p < NPASS; p++) {
        for (i = 0; i < runs; i++) {
            v[i] = pass_ns(p, &s);
        }
        ns[p] = median(v, (int)runs);
    }
    printf("  floor MTU %4u (FPDU %u octets, %u of payload), one pass alone "
           "on an L1-hot buffer:\n   ", mtu, s.fpdu, s.payload);
    for (p = 0; p < NPASS; p++) {
        printf(" %s %u: %.1f ns (%.1f GB/s)%s", pass_name[p], span[p], ns[p],
               span[p] / ns[p], p + 1 < NPASS ? "," : "\n");
    }
    for (i = 0; i < 2; i++) {
        double b = floor_ns_per_byte(ns, &s, !i);

        printf("    CRC %-3s: %s + 2 checksum + 3 copies = %.4f ns per payload "
               "octet = %.2f GB/s = %.1f %% of hot memcpy%s\n",
               i ? "off" : "on", i ? "0 CRC" : "2 CRC", b, 1 / b,
               100 / b / hot_gbps, i ? "" : " (the best case with these passes)");
    }
}

struct result {
    double gbps;
    uint64_t frames;
    bool ok;
};

static unsigned max_conn;      /* 0: the device default */
static unsigned idle_conns;    /* connected QP pairs beside the measured one */
static bool no_memcpy;

static bool never(void *ctx)
{
    (void)ctx;
    return false;
}

static struct result run_once(bool crc, uint16_t mtu, unsigned mib)
{
    struct rne_dev_config cfg;
    static struct simpair sp;
    struct sp_opts o;
    struct sd_mr src, dst;
    struct simdev *a, *b;
    struct result r = { 0, 0, false };
    uint64_t frames0;
    uint8_t *buf;
    unsigned posted = 0, done = 0, i;
    double t0;

    memset(&o, 0, sizeof(o));
    o.nqp = 1 + idle_conns;
    o.mpa_rev = 2;
    o.mpa_flags = crc ? RNIC_MPA_CRC : 0;
    o.ird = o.ord = 8;
    o.sq_log = 6;
    o.rq_log = 4;
    o.cq_log = 8;
    o.mtu = mtu;
    o.mem_size = (24u << 20) + (uint64_t)idle_conns * (128u << 10);
    rne_dev_config_default(&cfg);
    if (mtu > cfg.max_mtu) {
        cfg.max_mtu = mtu;
    }
    if (idle_conns) {
        cfg.max_qp = cfg.max_qp > o.nqp + 1 ? cfg.max_qp : o.nqp + 1;
        cfg.max_cq = cfg.max_cq > 2 * o.nqp ? cfg.max_cq : 2 * o.nqp;
        cfg.max_conn = cfg.max_conn > o.nqp ? cfg.max_conn : o.nqp;
        o.batch = 128;                  /* simdev: backlog 64, CM EQ 256 */
    }
    if (max_conn) {
        cfg.max_conn = max_conn;
    }
    o.cfg = &cfg;
    if (!sp_init(&sp, &o, 1) || !sp_connect(&sp)) {
        fprintf(stderr, "iwarp-bench: set-up failed: %s\n", sp.err);
        sp_fini(&sp);
        return r;
    }
    if (idle_conns) {
        /* the handshakes' last ACKs and delayed ACKs: the rest go idle */
        sl_run(&sp.sl, never, NULL, 2 * SL_SEC);
    }
    sp.sl.p[0].delay_ns = sp.sl.p[1].delay_ns = 1000;
    a = sp.sd[0];
    b = sp.sd[1];
    if (sd_reg_mr(a, &src, RNIC_STAG(40, 1), SP_PDN, 0, 0x10000000, MSG, 0) ||
        sd_reg_mr(b, &dst, RNIC_STAG(41, 2), SP_PDN,
                  RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE,
                  0x20000000, MSG, 0)) {
        fprintf(stderr, "iwarp-bench: REG_MR: %s%s\n", a->err, b->err);
        sp_fini(&sp);
        return r;
    }
    buf = malloc(MSG);
    for (i = 0; i < MSG; i++) {
        buf[i] = (uint8_t)(i * 7 + (i >> 12));
    }
    sd_mr_write(a, &src, 0, buf, MSG);
    frames0 = sp.sl.st[0].sent + sp.sl.st[1].sent;
    t0 = now_s();
    while (done < mib) {
        struct rnic_cqe cqe;

        while (posted < mib && posted - done < DEPTH) {
            struct rnic_sq_wqe w;

            memset(&w, 0, sizeof(w));
            w.hdr.wr_id = posted;
            w.hdr.opcode = RNIC_WR_WRITE;
            w.hdr.flags = RNIC_WQE_SIGNALED;
            w.hdr.count = 1;
            w.op.rdma.remote_addr = dst.iova;
            w.op.rdma.rkey = dst.stag;
            w.data.sge[0].addr = src.iova;
            w.data.sge[0].length = MSG;
            w.data.sge[0].lkey = src.stag;
            sd_post_send(a, &sp.end[0][0].qp, &w);
            posted++;
        }
        if (sd_poll_cq(a, &sp.end[0][0].scq, &cqe)) {
            if (cqe.status != RNIC_WC_SUCCESS || cqe.wr_id != done) {
                fprintf(stderr, "iwarp-bench: write %u completed with %s\n",
                        done, sd_wc_status_name(cqe.status));
                goto out;
            }
            done++;
            continue;
        }
        if (!sl_step(&sp.sl)) {
            fprintf(stderr, "iwarp-bench: stalled at %u of %u\n", done, mib);
            goto out;
        }
    }
    r.gbps = (double)mib * MSG / (now_s() - t0) / 1e9;
    r.frames = sp.sl.st[0].sent + sp.sl.st[1].sent - frames0;
    /* the last Write is placed once the peer's TCP has it: drain, compare */
    for (i = 0; i < 1000 && sl_in_flight(&sp.sl); i++) {
        sl_step(&sp.sl);
    }
    {
        uint8_t *got = malloc(MSG);

        sd_mr_read(b, &dst, 0, got, MSG);
        r.ok = !memcmp(got, buf, MSG);
        free(got);
    }
    if (!r.ok) {
        fprintf(stderr, "iwarp-bench: data at the target differs\n");
    }
out:
    free(buf);
    sp_fini(&sp);
    return r;
}

int main(int argc, char **argv)
{
    unsigned runs = 5, mib = 256, i, k;
    static const struct { bool crc; uint16_t mtu; } cfg[] = {
        { true, 1500 }, { false, 1500 }, { true, 9000 }, { false, 9000 },
        { true, 65000 }, { false, 65000 },
    };
    static const uint16_t floor_mtu[] = { 1500, 9000, 65000 };
    int fail = 0, only_crc = -1, only_mtu = 0;
    double hot_all[6 * 64];
    unsigned nhot = 0;

    for (i = 1; i < (unsigned)argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < (unsigned)argc) {
            runs = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--max-conn") && i + 1 < (unsigned)argc) {
            max_conn = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--idle-conns") && i + 1 < (unsigned)argc) {
            idle_conns = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-memcpy")) {
            no_memcpy = true;
        } else if (!strcmp(argv[i], "--mib") && i + 1 < (unsigned)argc) {
            mib = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--crc") && i + 1 < (unsigned)argc) {
            only_crc = !strcmp(argv[++i], "on");
        } else if (!strcmp(argv[i], "--mtu") && i + 1 < (unsigned)argc) {
            only_mtu = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--runs N] [--mib N] [--max-conn N] "
                    "[--no-memcpy] [--crc on|off] [--mtu 1500|9000|65000] "
                    "[--idle-conns N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > 64 || mib < 1 || idle_conns >= SP_MAX_CONN) {
        return 2;
    }
    if (no_memcpy) {
        cold_len = 0;
    } else if (!cold_init()) {
        fprintf(stderr, "iwarp-bench: no memory for the cold memcpy\n");
        return 2;
    }
    printf("iwarp-bench: %u x 1 MiB RDMA Writes, %d deep, median of %u runs, "
           "max-conn %u, %u idle connections, per CPU second\n", mib, DEPTH,
           runs, max_conn ? max_conn : idle_conns >= RNE_DEF_MAX_CONN ?
           idle_conns + 1 : RNE_DEF_MAX_CONN, idle_conns);
    printf("  memcpy baselines, same bytes, single core: hot = one 1 MiB "
           "buffer reused (cache-resident),\n  cold = walking %zu MiB "
           "buffers (LLC %ld KiB). Headline: ratio to hot, because the "
           "bench's\n  own 1 MiB source and target MRs are reused and stay "
           "cache-resident too.\n", cold_len >> 20,
           sysconf(_SC_LEVEL3_CACHE_SIZE) >> 10);
    for (k = 0; k < sizeof(cfg) / sizeof(cfg[0]); k++) {
        double g[64], hot[64], cold[64], rhot[64], rcold[64];
        uint64_t frames = 0;

        if ((only_crc >= 0 && cfg[k].crc != only_crc) ||
            (only_mtu && cfg[k].mtu != only_mtu)) {
            continue;
        }
        for (i = 0; i < runs; i++) {
            struct result r = run_once(cfg[k].crc, cfg[k].mtu, mib);

            hot[i] = no_memcpy ? 0 : memcpy_hot_gbps(mib);
            cold[i] = no_memcpy ? 0 : memcpy_cold_gbps(mib);
            g[i] = r.gbps;
            rhot[i] = no_memcpy ? 0 : r.gbps / hot[i];
            rcold[i] = no_memcpy ? 0 : r.gbps / cold[i];
            frames = r.frames;
            fail |= !r.ok;
            hot_all[nhot++] = hot[i];
        }
        printf("  CRC %-3s MTU %5u: %6.2f GB/s | memcpy hot %6.2f GB/s, "
               "ratio %5.1f %% (headline) | memcpy cold %6.2f GB/s, "
               "ratio %5.1f %% | %" PRIu64 " frames per run\n",
               cfg[k].crc ? "on" : "off", cfg[k].mtu, median(g, (int)runs),
               median(hot, (int)runs), 100 * median(rhot, (int)runs),
               median(cold, (int)runs), 100 * median(rcold, (int)runs),
               frames);
    }
    if (!no_memcpy && nhot) {
        double hot = median(hot_all, (int)nhot);

        printf("  the floor: passes alone, median of %u, against the median "
               "hot memcpy above (%.2f GB/s)\n", runs, hot);
        for (k = 0; k < sizeof(floor_mtu) / sizeof(floor_mtu[0]); k++) {
            uint16_t mtu = floor_mtu[k];

            if (!only_mtu || only_mtu == mtu) {
                floor_report(mtu, runs, hot);
            }
        }
    }
    free(cold_src);
    free(cold_dst);
    return fail;
}
