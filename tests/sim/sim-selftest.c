// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's own parts, with no RDMA needed from the device: the pcap
 * writer (read back byte by byte), the impairment link (loss, duplication,
 * reordering, rate, determinism per seed) and the simulated guest (bring-up
 * through the admin queue, EQs, guard pattern, an L2 frame from one device's
 * TX ring over the link into the other's RX ring, DMA outside guest memory
 * refused).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcapw.h"
#include "simlink.h"

static int failures;
#define CHECK(c) do { \
        if (!(c)) { \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
            failures++; \
        } \
    } while (0)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void test_pcap(const char *dir)
{
    char path[512];
    uint8_t f1[60], f2[1514], buf[4096];
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "%s/selftest.pcap", dir);
    memset(f1, 0x11, sizeof(f1));
    memset(f2, 0x22, sizeof(f2));
    f = pcapw_open(path);
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    CHECK(pcapw_frame(f, 1500000000123ull, f1, sizeof(f1)));
    CHECK(pcapw_frame(f, 1500000001000ull, f2, sizeof(f2)));
    CHECK(pcapw_close(f) == 0);
    f = fopen(path, "rb");
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    CHECK(n == 24 + 16 + 60 + 16 + 1514);
    CHECK(rd32(buf) == PCAPW_MAGIC_NS);
    CHECK(buf[4] == 2 && buf[6] == 4);
    CHECK(rd32(buf + 16) == PCAPW_SNAPLEN);
    CHECK(rd32(buf + 20) == 1);
    CHECK(rd32(buf + 24) == 1500 && rd32(buf + 28) == 123);
    CHECK(rd32(buf + 32) == 60 && rd32(buf + 36) == 60);
    CHECK(buf[40] == 0x11 && buf[99] == 0x11);
    CHECK(rd32(buf + 100) == 1500 && rd32(buf + 104) == 1000);
    CHECK(rd32(buf + 108) == 1514 && buf[116] == 0x22);
}

/* A port that records sequence numbers (first 4 bytes) in arrival order. */
struct sink {
    uint32_t *seq;
    size_t n, cap;
    uint64_t last_at;
    struct simlink *sl;
};

static bool sink_deliver(void *o, const uint8_t *f, size_t len)
{
    struct sink *s = o;

    (void)len;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->seq = realloc(s->seq, s->cap * sizeof(*s->seq));
    }
    s->seq[s->n++] = rd32(f);
    s->last_at = s->sl->now;
    return true;
}

static uint64_t run_link(uint64_t seed, const struct sl_params *p,
                         unsigned nframes, struct sl_stats *st,
                         unsigned *inversions, uint64_t *end_ns)
{
    struct simlink sl;
    struct sink s;
    uint8_t f[1000];
    uint64_t hash = 1469598103934665603ull, t0;
    unsigned i;

    memset(&s, 0, sizeof(s));
    sl_init(&sl, seed);
    s.sl = &sl;
    sl.p[0] = *p;
    sl.port[1].opaque = &s;
    sl.port[1].deliver = sink_deliver;
    t0 = sl.now;
    memset(f, 0, sizeof(f));
    for (i = 0; i < nframes; i++) {
        f[0] = (uint8_t)i;
        f[1] = (uint8_t)(i >> 8);
        f[2] = (uint8_t)(i >> 16);
        f[3] = (uint8_t)(i >> 24);
        sl_send(&sl, 0, f, sizeof(f));
    }
    while (sl_step(&sl)) {
    }
    *inversions = 0;
    for (i = 0; i < s.n; i++) {
        hash = (hash ^ s.seq[i]) * 1099511628211ull;
        if (i && s.seq[i] < s.seq[i - 1]) {
            (*inversions)++;
        }
    }
    *st = sl.st[0];
    *end_ns = s.last_at - t0;
    CHECK(st->delivered == s.n);
    free(s.seq);
    sl_fini(&sl);
    return hash;
}

static void test_link(void)
{
    struct sl_params p = {
        .loss = 0.03, .dup = 0.02, .reorder = 0.05,
        .delay_ns = 100000, .jitter_ns = 0, .reorder_ns = 3000000,
    };
    struct sl_stats st, st2;
    unsigned inv, inv2;
    uint64_t h1, h2, h3, end;

    h1 = run_link(7, &p, 20000, &st, &inv, &end);
    printf("link: sent %" PRIu64 " lost %" PRIu64 " dup %" PRIu64
           " reordered %" PRIu64 " delivered %" PRIu64 " inversions %u\n",
           st.sent, st.lost, st.duplicated, st.reordered, st.delivered, inv);
    CHECK(st.sent == 20000);
    CHECK(st.lost > 400 && st.lost < 800);              /* ~600 */
    CHECK(st.duplicated > 250 && st.duplicated < 550);  /* ~388 */
    CHECK(st.delivered == st.sent - st.lost + st.duplicated);
    CHECK(st.reordered > 700 && inv > 300);
    h2 = run_link(7, &p, 20000, &st2, &inv2, &end);
    CHECK(h1 == h2 && inv == inv2 && st.lost == st2.lost);
    h3 = run_link(8, &p, 20000, &st2, &inv2, &end);
    CHECK(h1 != h3);
    /* rate: 1000 frames of 1000 bytes at 80 Mb/s take 100 ms */
    memset(&p, 0, sizeof(p));
    p.rate_bps = 80000000;
    p.delay_ns = 1000;
    run_link(1, &p, 1000, &st, &inv, &end);
    CHECK(st.delivered == 1000 && inv == 0);
    CHECK(end >= 99 * SL_MS && end <= 101 * SL_MS);
    /* drop-tail: a 10 KB queue keeps about 10 frames of a 1000-frame burst */
    p.qlimit_bytes = 10000;
    run_link(1, &p, 1000, &st, &inv, &end);
    CHECK(st.queue_drops > 980 && st.delivered < 20);
}

static void test_devices(const char *dir)
{
    struct simlink sl;
    struct sd_env env;
    struct rne_dev_config cfg;
    struct simdev *sd[2];
    struct rnic_admin_cmd cmd;
    uint8_t frame[200];
    char path[512];
    uint64_t txring, buf, g;
    struct rnic_l2_tx_desc d;
    int i, s;

    sl_init(&sl, 3);
    snprintf(path, sizeof(path), "%s/selftest-l2.pcap", dir);
    CHECK(sl_pcap(&sl, path));
    env = sl_env(&sl);
    for (i = 0; i < 2; i++) {
        rne_dev_config_default(&cfg);
        cfg.mac[5] = (uint8_t)(0x10 + i);
        sd[i] = sd_new(&cfg, 8u << 20, i, 3, &env);
        CHECK(sd[i] != NULL);
        sl_port_simdev(&sl, i, sd[i]);
        s = sd_enable(sd[i], 1500);
        if (s) {
            fprintf(stderr, "enable %d: %s\n", i, sd[i]->err);
        }
        CHECK(s == 0);
        CHECK(sd_create_pd(sd[i], 1) == RNIC_STS_OK);
        CHECK(sd_create_pd(sd[i], 1) == RNIC_STS_EXISTS);
    }
    printf("devices: FEATURES 0x%x\n", sd[0]->features);
    /* A sends one broadcast frame from a TX ring; B's L2 ring gets it. */
    txring = sd_alloc(sd[0], 1);
    buf = sd_alloc(sd[0], 1);
    memset(&cmd, 0, sizeof(cmd));
    cmd.hdr.opcode = RNIC_CMD_CREATE_TXQ;
    cmd.u.create_l2q.qid = 0;
    cmd.u.create_l2q.eqn = SD_EQ_COMP;
    cmd.u.create_l2q.log_depth = 4;
    {
        uint64_t list = sd_alloc(sd[0], 1);

        sd_write(sd[0], list, &txring, 8);
        cmd.u.create_l2q.ring.addr = list;
        cmd.u.create_l2q.ring.nentries = 1;
        cmd.u.create_l2q.ring.page_shift = 12;
        cmd.u.create_l2q.ring.levels = 1;
    }
    CHECK(sd_cmd(sd[0], &cmd) == RNIC_STS_OK);
    memset(frame, 0xff, 6);
    memcpy(frame + 6, sd[0]->mac, 6);
    frame[12] = 0x88;
    frame[13] = 0xb5;           /* local experimental ethertype */
    for (i = 14; i < (int)sizeof(frame); i++) {
        frame[i] = (uint8_t)i;
    }
    sd_write(sd[0], buf, frame, sizeof(frame));
    memset(&d, 0, sizeof(d));
    d.addr = buf;
    d.len = sizeof(frame);
    d.flags = RNIC_L2_TX_EOP;
    sd_write(sd[0], txring, &d, sizeof(d));
    rne_dev_doorbell(&sd[0]->dev, 0, RNIC_DB_L2_TX, RNIC_DB_VAL(0, 0, 1));
    while (sl_step(&sl) && sl.now < 10 * SL_SEC) {
    }
    sd_read(sd[0], txring, &d, sizeof(d));
    CHECK(d.status == RNIC_L2_DONE);
    CHECK(sd[1]->st.l2_rx_frames == 1);
    CHECK(sd[0]->st.tx_frames == 1);
    {
        uint8_t got[200];

        sd_read(sd[1], sd[1]->l2_buf[0], got, sizeof(got));
        CHECK(memcmp(got, frame, sizeof(frame)) == 0);
    }
    for (i = 0; i < 2; i++) {
        CHECK(sd_check_guards(sd[i]) == 0);
        CHECK(sd[i]->st.dma_faults == 0);
    }
    /* the guard check catches one stray byte, in a hole or in MR slack */
    g = sd[1]->alloc_next + 100;
    sd[1]->mem[g] ^= 1;
    CHECK(sd_check_guards(sd[1]) == 1);
    sd[1]->mem[g] ^= 1;
    sd_add_slack(sd[1], sd[1]->l2_buf[1] + 500, 10);
    sd[1]->mem[sd[1]->l2_buf[1] + 509] ^= 0x80;
    CHECK(sd_check_guards(sd[1]) == 1);
    /* DMA beyond guest memory is refused, not performed */
    {
        uint8_t b[8];

        CHECK(rne_dma_read(&sd[0]->dev.host, sd[0]->mem_size - 4, b, 8) == -1);
        CHECK(rne_dma_write(&sd[0]->dev.host, UINT64_MAX - 2, b, 8) == -1);
        CHECK(sd[0]->st.dma_faults == 1);
    }
    /* the RDMA commands answer something definite (printed, not judged) */
    {
        struct sd_cq cq;

        s = sd_create_cq(sd[0], &cq, 0, 6);
        printf("devices: CREATE_CQ answered %s\n", sd_sts_name(s));
        CHECK(s >= 0);
    }
    sl_fini(&sl);
    sd_free(sd[0]);
    sd_free(sd[1]);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";

    test_pcap(dir);
    test_link();
    test_devices(dir);
    if (failures) {
        printf("sim-selftest: %d failures\n", failures);
        return 1;
    }
    printf("sim-selftest: OK\n");
    return 0;
}
