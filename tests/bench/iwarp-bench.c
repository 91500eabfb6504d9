// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDMA Write throughput of the device engine: two simulated rnics (the
 * optimized engine, tests/sim's guest + link) back to back in one process,
 * no loss, one QP, 1 MiB RDMA Writes kept 8 deep, for MPA CRC on and off and
 * for MTU 1500 and 9000.  Everything both devices do is on this one core:
 * SQ fetch, gather from guest memory, FPDU framing + CRC32c, offload TCP on
 * both ends, the link (one frame copy), DDP placement into the peer's guest
 * memory, ACKs, completions.  Prints the median GB/s of several runs and
 * the ratio to a single-core memcpy of the same bytes measured in the same
 * run (the target: >= 40 %).  Both are timed in thread CPU time, so
 * a loaded host slows them alike.  The data is checked after each run.
 *
 *   iwarp-bench [--runs N] [--mib N] [--max-conn N] [--no-memcpy]
 *               [--crc on|off] [--mtu 1500|9000]
 *
 * --no-memcpy leaves the baselines out (and their 2 GiB of cold buffers):
 * for profiling the engine alone under perf or callgrind.  --crc and --mtu
 * run only the cases that match (all four by default).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
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

struct result {
    double gbps;
    uint64_t frames;
    bool ok;
};

static unsigned max_conn;      /* 0: the device default */
static bool no_memcpy;

static struct result run_once(bool crc, uint16_t mtu, unsigned mib)
{
    struct rnic_dev_config cfg;
    static struct simpair sp;
    struct sp_opts o;
    struct sd_mr src, dst;
    struct simdev *a, *b;
    struct result r = { 0, 0, false };
    uint8_t *buf;
    unsigned posted = 0, done = 0, i;
    double t0;

    memset(&o, 0, sizeof(o));
    o.nqp = 1;
    o.mpa_rev = 2;
    o.mpa_flags = crc ? RNIC_MPA_CRC : 0;
    o.ird = o.ord = 8;
    o.sq_log = 6;
    o.rq_log = 4;
    o.cq_log = 8;
    o.mtu = mtu;
    o.mem_size = 24u << 20;
    rnic_dev_config_default(&cfg);
    if (max_conn) {
        cfg.max_conn = max_conn;
    }
    o.cfg = &cfg;
    if (!sp_init(&sp, &o, 1) || !sp_connect(&sp)) {
        fprintf(stderr, "iwarp-bench: set-up failed: %s\n", sp.err);
        sp_fini(&sp);
        return r;
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
    r.frames = sp.sl.st[0].sent + sp.sl.st[1].sent;
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
    };
    int fail = 0, only_crc = -1, only_mtu = 0;

    for (i = 1; i < (unsigned)argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < (unsigned)argc) {
            runs = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--max-conn") && i + 1 < (unsigned)argc) {
            max_conn = (unsigned)atoi(argv[++i]);
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
                    "[--no-memcpy] [--crc on|off] [--mtu 1500|9000]\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > 64 || mib < 1) {
        return 2;
    }
    if (no_memcpy) {
        cold_len = 0;
    } else if (!cold_init()) {
        fprintf(stderr, "iwarp-bench: no memory for the cold memcpy\n");
        return 2;
    }
    printf("iwarp-bench: %u x 1 MiB RDMA Writes, %d deep, median of %u runs, "
           "max-conn %u, per CPU second\n", mib, DEPTH, runs,
           max_conn ? max_conn : RNIC_DEF_MAX_CONN);
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
        }
        printf("  CRC %-3s MTU %4u: %6.2f GB/s | memcpy hot %6.2f GB/s, "
               "ratio %5.1f %% (headline) | memcpy cold %6.2f GB/s, "
               "ratio %5.1f %% | %" PRIu64 " frames per run\n",
               cfg[k].crc ? "on" : "off", cfg[k].mtu, median(g, (int)runs),
               median(hot, (int)runs), 100 * median(rhot, (int)runs),
               median(cold, (int)runs), 100 * median(rcold, (int)runs),
               frames);
    }
    free(cold_src);
    free(cold_dst);
    return fail;
}
