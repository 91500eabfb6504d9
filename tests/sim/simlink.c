/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seeded impairment link between two endpoints (see simlink.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcapw.h"
#include "simlink.h"
#include "splitmix64.h"

static uint64_t sl_rng(struct simlink *sl)
{
    return splitmix64_next(&sl->rng);
}

static double sl_unit(struct simlink *sl)
{
    return (double)(sl_rng(sl) >> 11) / 9007199254740992.0;
}

void sl_init(struct simlink *sl, uint64_t seed)
{
    memset(sl, 0, sizeof(*sl));
    sl->rng = seed * 0x2545f4914f6cdd1dull + 1;
    sl->now = SL_SEC;           /* time 0 is special to some timers */
    sl->trace = getenv("SIMLINK_TRACE") != NULL;
    sl_pcap_env(sl);
}

/*
 * SIMLINK_PCAP_DIR=DIR: every link of the process captures to DIR/link-N.pcap
 * (N counts the links from 0), so two builds' captures of a whole test can
 * be compared file by file (the wire must not change with a refactor).
 */
void sl_pcap_env(struct simlink *sl)
{
    static unsigned nlinks;
    const char *dir = getenv("SIMLINK_PCAP_DIR");
    char path[4096];

    if (!dir || !*dir) {
        return;
    }
    snprintf(path, sizeof(path), "%s/link-%u.pcap", dir, nlinks++);
    if (!sl_pcap(sl, path)) {
        fprintf(stderr, "simlink: cannot write %s\n", path);
        abort();
    }
}

void sl_fini(struct simlink *sl)
{
    size_t i;

    for (i = 0; i < sl->nheap; i++) {
        free(sl->heap[i].frame);
    }
    while (sl->npool) {
        free(sl->pool[--sl->npool]);
    }
    free(sl->heap);
    if (sl->pcap) {
        pcapw_close(sl->pcap);
    }
    sl->heap = NULL;
    sl->nheap = sl->capheap = 0;
    sl->pcap = NULL;
}

bool sl_pcap(struct simlink *sl, const char *path)
{
    if (sl->pcap) {
        pcapw_close(sl->pcap);
    }
    sl->pcap = pcapw_open(path);
    return sl->pcap != NULL;
}

/* Frame buffers are recycled: a malloc per frame would dominate benchmarks. */
static uint8_t *buf_get(struct simlink *sl, size_t len)
{
    uint8_t *b;

    if (len <= SL_FRAME_BUF && sl->npool) {
        return sl->pool[--sl->npool];
    }
    b = malloc(len > SL_FRAME_BUF ? len : SL_FRAME_BUF);
    if (!b) {
        abort();
    }
    return b;
}

static void buf_put(struct simlink *sl, uint8_t *b, size_t len)
{
    if (len > SL_FRAME_BUF || sl->npool == SL_POOL) {
        free(b);
        return;
    }
    sl->pool[sl->npool++] = b;
}

static bool ev_before(const struct sl_ev *a, const struct sl_ev *b)
{
    return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static void heap_push(struct simlink *sl, struct sl_ev e)
{
    size_t i;

    if (sl->nheap == sl->capheap) {
        sl->capheap = sl->capheap ? 2 * sl->capheap : 1024;
        sl->heap = realloc(sl->heap, sl->capheap * sizeof(*sl->heap));
        if (!sl->heap) {
            abort();
        }
    }
    i = sl->nheap++;
    while (i > 0 && ev_before(&e, &sl->heap[(i - 1) / 2])) {
        sl->heap[i] = sl->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sl->heap[i] = e;
}

static struct sl_ev heap_pop(struct simlink *sl)
{
    struct sl_ev top = sl->heap[0];
    struct sl_ev last = sl->heap[--sl->nheap];
    size_t i = 0;

    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct sl_ev *mv = &last;

        if (l < sl->nheap && ev_before(&sl->heap[l], mv)) {
            m = l;
            mv = &sl->heap[l];
        }
        if (r < sl->nheap && ev_before(&sl->heap[r], mv)) {
            m = r;
        }
        if (m == i) {
            break;
        }
        sl->heap[i] = sl->heap[m];
        i = m;
    }
    if (sl->nheap) {
        sl->heap[i] = last;
    }
    return top;
}

/* IPv4/TCP with payload: its payload length, else 0. */
static size_t tcp_payload(const uint8_t *f, size_t len)
{
    size_t ihl, tot, doff;

    if (len < 54 || f[12] != 0x08 || f[13] != 0 || f[23] != 6) {
        return 0;
    }
    ihl = (size_t)(f[14] & 0xf) * 4;
    tot = (size_t)f[16] << 8 | f[17];
    if (14 + ihl + 20 > len || tot + 14 > len || tot < ihl + 20) {
        return 0;
    }
    doff = (size_t)(f[14 + ihl + 12] >> 4) * 4;
    return tot > ihl + doff ? tot - ihl - doff : 0;
}

static void capture(struct simlink *sl, const uint8_t *f, size_t len)
{
    size_t pl = tcp_payload(f, len);

    if (pl && sl->pcap_corrupt && ++sl->pcap_data_frames == sl->pcap_corrupt) {
        uint8_t *bad = malloc(len);

        if (!bad) {
            abort();
        }
        memcpy(bad, f, len);
        /* the last payload octet: an MPA CRC with a record-aware sender */
        bad[14 + ((size_t)bad[16] << 8 | bad[17]) - 1] ^= 0x01;
        pcapw_frame(sl->pcap, sl->now, bad, len);
        free(bad);
        return;
    }
    pcapw_frame(sl->pcap, sl->now, f, len);
}

void sl_send(struct simlink *sl, int from, const uint8_t *frame, size_t len)
{
    struct sl_params *p = &sl->p[from];
    struct sl_stats *st = &sl->st[from];
    uint8_t *copy = buf_get(sl, len);
    size_t len0 = len;
    uint64_t start, ser = 0;
    int copies, i;

    memcpy(copy, frame, len);
    st->sent++;
    if (sl->trace) {
        fprintf(stderr, "%12.6f %c> %zu bytes\n", (double)sl->now / SL_SEC,
                'A' + from, len);
    }
    if (sl->pcap) {
        capture(sl, copy, len);
    }
    if (sl->tap && !sl->tap(sl->tap_opaque, from, copy, &len)) {
        st->lost++;
        buf_put(sl, copy, len0);
        return;
    }
    if (len > len0) {
        abort();                /* a tap may shorten a frame, not grow it */
    }
    start = sl->busy_until[from] > sl->now ? sl->busy_until[from] : sl->now;
    if (p->rate_bps) {
        if (p->qlimit_bytes &&
            (start - sl->now) * p->rate_bps / (8 * SL_SEC) > p->qlimit_bytes) {
            st->queue_drops++;
            buf_put(sl, copy, len0);
            return;
        }
        ser = (uint64_t)len * 8 * SL_SEC / p->rate_bps;
        sl->busy_until[from] = start + ser;
    }
    if (p->loss > 0 && sl_unit(sl) < p->loss) {
        st->lost++;
        buf_put(sl, copy, len0);
        return;
    }
    copies = (p->dup > 0 && sl_unit(sl) < p->dup) ? 2 : 1;
    if (copies == 2) {
        st->duplicated++;
    }
    for (i = 0; i < copies; i++) {
        struct sl_ev e;

        e.at = start + ser + p->delay_ns +
               (p->jitter_ns ? sl_rng(sl) % p->jitter_ns : 0);
        if (p->reorder > 0 && p->reorder_ns && sl_unit(sl) < p->reorder) {
            e.at += 1 + sl_rng(sl) % p->reorder_ns;
            st->reordered++;
        } else {
            /* jitter alone keeps a direction in order, like a real path */
            if (e.at < sl->fifo_at[from]) {
                e.at = sl->fifo_at[from];
            }
            sl->fifo_at[from] = e.at;
        }
        e.order = sl->order++;
        e.dst = 1 - from;
        e.len = len;
        e.cap = len0;
        if (i == 0) {
            e.frame = copy;
        } else {
            e.frame = buf_get(sl, len0);
            memcpy(e.frame, copy, len);
        }
        heap_push(sl, e);
    }
}

static void poll_ports(struct simlink *sl)
{
    int i;

    for (i = 0; i < 2; i++) {
        if (sl->port[i].poll) {
            sl->port[i].poll(sl->port[i].opaque);
        }
    }
}

bool sl_step(struct simlink *sl)
{
    uint64_t next = UINT64_MAX;
    int i;

    poll_ports(sl);
    if (sl->nheap) {
        next = sl->heap[0].at;
    }
    for (i = 0; i < 2; i++) {
        uint64_t d = sl->port[i].deadline ?
                     sl->port[i].deadline(sl->port[i].opaque) : UINT64_MAX;

        if (d < next) {
            next = d;
        }
    }
    if (next == UINT64_MAX) {
        return false;
    }
    if (next > sl->now) {
        sl->now = next;
    }
    while (sl->nheap && sl->heap[0].at <= sl->now) {
        struct sl_ev e = heap_pop(sl);
        struct sl_stats *st = &sl->st[1 - e.dst];

        if (sl->trace) {
            fprintf(stderr, "%12.6f   >%c %zu bytes\n",
                    (double)sl->now / SL_SEC, 'A' + e.dst, e.len);
        }

        if (sl->port[e.dst].deliver(sl->port[e.dst].opaque, e.frame, e.len)) {
            st->delivered++;
            st->bytes += e.len;
        } else {
            st->refused++;
        }
        buf_put(sl, e.frame, e.cap);
    }
    for (i = 0; i < 2; i++) {
        if (sl->port[i].deadline && sl->port[i].tick &&
            sl->port[i].deadline(sl->port[i].opaque) <= sl->now) {
            sl->port[i].tick(sl->port[i].opaque);
        }
    }
    poll_ports(sl);
    return true;
}

bool sl_run(struct simlink *sl, bool (*done)(void *ctx), void *ctx,
            uint64_t max_ns)
{
    uint64_t end = sl->now + max_ns;

    poll_ports(sl);
    while (!done(ctx)) {
        if (sl->now > end || !sl_step(sl)) {
            return done(ctx);
        }
    }
    return true;
}

/* ---- a simdev as a port ---- */

static void env_tx(void *opaque, int side, const uint8_t *frame, size_t len)
{
    sl_send(opaque, side, frame, len);
}

static bool env_step(void *opaque)
{
    return sl_step(opaque);
}

struct sd_env sl_env(struct simlink *sl)
{
    struct sd_env e = {
        .now = &sl->now,
        .tx = env_tx,
        .opaque = sl,
        .step = env_step,
    };

    return e;
}

static bool sd_deliver(void *opaque, const uint8_t *frame, size_t len)
{
    struct simdev *sd = opaque;

    if (rne_dev_receive(&sd->dev, frame, len)) {
        return true;
    }
    /* no L2 buffer: let the guest repost and offer it once more */
    sd_poll_events(sd);
    return rne_dev_receive(&sd->dev, frame, len);
}

/*
 * Now, while the device owes a process pass (frames it looped to itself),
 * and once more after a pass that delivered some: the step that ran it
 * must not move the clock on before the caller has seen what it did.
 */
static uint64_t sd_deadline(void *opaque)
{
    struct simdev *sd = opaque;
    uint64_t now = *sd->env.now;

    if (now < sd->timer_deadline &&
        (rne_dev_work_pending(&sd->dev) ||
         sd->loop_seen != sd->dev.loop_frames)) {
        sd->loop_seen = sd->dev.loop_frames;
        return now;
    }
    return sd->timer_deadline;
}

static void sd_tick(void *opaque)
{
    struct simdev *sd = opaque;

    if (sd->timer_deadline > *sd->env.now) {
        return;         /* only a pass owed: the poll after the tick runs it */
    }
    sd->timer_deadline = UINT64_MAX;
    rne_dev_timer(&sd->dev);
}

static void sd_poll(void *opaque)
{
    struct simdev *sd = opaque;

    /* the frames of the last step were one receive burst (ack_batch) */
    rne_dev_rx_batch_end(&sd->dev);
    sd_run(sd);
    sd_poll_events(sd);
}

void sl_port_simdev(struct simlink *sl, int side, struct simdev *sd)
{
    sl->port[side].opaque = sd;
    sl->port[side].deliver = sd_deliver;
    sl->port[side].deadline = sd_deadline;
    sl->port[side].tick = sd_tick;
    sl->port[side].poll = sd_poll;
}
