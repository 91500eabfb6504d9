/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device memory per idle connected QP (issue 18, row Q): two simulated
 * rnics connect N QPs (MPA rev 2, CRC), the link goes quiet, and each
 * device's QUERY_STATS conn_mem_bytes -- the engine's count of the host
 * memory it holds for connections and QPs (core/mem.h plus the offload
 * TCP's own) -- divided by N must stay within --max-per-qp.  Then every
 * connection is closed, every QP destroyed and TIME_WAIT left to pass: the
 * count must come back to exactly zero, so every byte counted in was
 * counted out (ASan checks that nothing was left allocated).
 *
 * usage: qp-mem [--qps N[,N...]] [--max-per-qp BYTES] [--markers]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simpair.h"

static const char *const kind_name[RNE_MEM_KINDS] = {
    [RNE_MEM_CONN] = "connection",
    [RNE_MEM_MPA] = "MPA exchange",
    [RNE_MEM_RX_FPDU] = "partial FPDU",
    [RNE_MEM_MARKERS] = "marker FPDU buffers",
    [RNE_MEM_IW_QP] = "QP iWARP state",
    [RNE_MEM_QP_RING] = "SQ/RQ page lists",
};

static bool quiet_for(void *ctx)
{
    (void)ctx;
    return false;
}

/* conn_mem_bytes of QUERY_STATS, checked against the engine's own sum. */
static bool conn_mem(struct simdev *sd, uint64_t *bytes, uint64_t *eng)
{
    struct rnic_port_stats ps;
    struct rne_mem_usage u;

    if (sd_query_stats(sd, &ps)) {
        printf("FAIL: QUERY_STATS: %s\n", sd->err);
        return false;
    }
    rne_dev_mem_usage(&sd->dev, &u);
    if (u.conn_total != ps.conn_mem_bytes ||
        u.tcp_engine != ps.tcp_engine_mem_bytes || u.mismatch) {
        printf("FAIL: QUERY_STATS says %" PRIu64 "/%" PRIu64 ", the engine "
               "%" PRIu64 "/%" PRIu64 " (%" PRIu64 " unmatched frees)\n",
               (uint64_t)ps.conn_mem_bytes,
               (uint64_t)ps.tcp_engine_mem_bytes, u.conn_total,
               u.tcp_engine, u.mismatch);
        return false;
    }
    *bytes = u.conn_total;
    *eng = u.tcp_engine;
    return true;
}

static void print_kinds(struct simdev *sd, unsigned n)
{
    struct rne_mem_usage u;
    int k;

    rne_dev_mem_usage(&sd->dev, &u);
    for (k = 0; k < RNE_MEM_KINDS; k++) {
        if (u.kind[k]) {
            printf("    %-20s %8.1f B/QP\n", kind_name[k],
                   (double)u.kind[k] / n);
        }
    }
    if (u.tcp_conn) {
        printf("    %-20s %8.1f B/QP\n", "TCP buffers", (double)u.tcp_conn / n);
    }
}

static int run(unsigned n, uint64_t max_per_qp, bool markers)
{
    struct rne_dev_config cfg;
    struct simpair sp;
    struct sp_opts o;
    uint64_t bytes[2], eng[2];
    unsigned q;
    int side, rc = 1;

    rne_dev_config_default(&cfg);
    cfg.max_qp = n + 1;                 /* QPN 0 is never used */
    cfg.max_cq = 2 * n > cfg.max_cq ? 2 * n : cfg.max_cq;
    cfg.max_conn = n > cfg.max_conn ? n : cfg.max_conn;
    memset(&o, 0, sizeof(o));
    o.nqp = n;
    o.mpa_rev = 2;
    o.mpa_flags = RNIC_MPA_CRC | (markers ? RNIC_MPA_MARKERS : 0);
    o.ird = o.ord = 4;
    o.sq_log = 4;
    o.rq_log = 4;
    o.cq_log = 5;
    o.mem_size = (16ull << 20) + (uint64_t)n * 64 * 4096;
    o.batch = 128;                      /* simdev: backlog 64, CM EQ 256 */
    o.cfg = &cfg;
    if (!sp_init(&sp, &o, n) || !sp_connect(&sp)) {
        printf("%u QPs: FAIL: %s\n", n, sp.err);
        goto out;
    }
    /* the last ACKs and delayed ACKs: the connections go idle */
    sl_run(&sp.sl, quiet_for, NULL, 2 * SL_SEC);
    for (side = 0; side < 2; side++) {
        if (!conn_mem(sp.sd[side], &bytes[side], &eng[side])) {
            goto out;
        }
        printf("%u idle QPs%s, device %c: %.1f B per QP (%" PRIu64
               " B; TCP engine tables %" PRIu64 " B, not per QP)\n", n,
               markers ? " with markers" : "", 'A' + side,
               (double)bytes[side] / n, bytes[side], eng[side]);
        print_kinds(sp.sd[side], n);
        if (bytes[side] > max_per_qp * n) {
            printf("FAIL: above %" PRIu64 " B per QP\n", max_per_qp);
            goto out;
        }
    }
    if (!sp_disconnect(&sp)) {
        printf("%u QPs: FAIL: %s\n", n, sp.err);
        goto out;
    }
    for (q = 0; q < n; q++) {
        for (side = 0; side < 2; side++) {
            if (sd_destroy(sp.sd[side], RNIC_CMD_DESTROY_QP,
                           sp.end[q][side].qp.qpn)) {
                printf("FAIL: DESTROY_QP: %s\n", sp.sd[side]->err);
                goto out;
            }
        }
    }
    /* TIME_WAIT is 60 s: past it, nothing of a connection may be left */
    sl_run(&sp.sl, quiet_for, NULL, 65 * SL_SEC);
    for (side = 0; side < 2; side++) {
        if (!conn_mem(sp.sd[side], &bytes[side], &eng[side])) {
            goto out;
        }
        if (bytes[side]) {
            printf("FAIL: device %c holds %" PRIu64 " B after every QP is "
                   "gone\n", 'A' + side, bytes[side]);
            print_kinds(sp.sd[side], 1);
            goto out;
        }
    }
    printf("%u QPs: all closed and destroyed, 0 B held\n", n);
    rc = 0;
out:
    sp_fini(&sp);
    return rc;
}

int main(int argc, char **argv)
{
    const char *qps = "1,256,1024";
    uint64_t max_per_qp = 4096;
    bool markers = false;
    int i, rc = 0;
    char *p;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--qps") && i + 1 < argc) {
            qps = argv[++i];
        } else if (!strcmp(argv[i], "--max-per-qp") && i + 1 < argc) {
            max_per_qp = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--markers")) {
            markers = true;
        } else {
            fprintf(stderr, "usage: qp-mem [--qps N[,N...]] "
                    "[--max-per-qp BYTES] [--markers]\n");
            return 2;
        }
    }
    for (p = (char *)qps; *p;) {
        unsigned long n = strtoul(p, &p, 10);

        if (n < 1 || n > SP_MAX_CONN) {
            fprintf(stderr, "qp-mem: 1..%d QPs\n", SP_MAX_CONN);
            return 2;
        }
        rc |= run((unsigned)n, max_per_qp, markers);
        if (*p == ',') {
            p++;
        }
    }
    return rc;
}
