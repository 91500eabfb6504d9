/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two endpoints wired back to back through a seeded impairment link, on one
 * virtual clock.  An endpoint is anything with the port callbacks: a
 * simulated rnic (sl_port_simdev) or a raw protocol peer (an attacker).
 *
 * Per direction: loss, duplication, reordering (a frame held back by up to
 * reorder_ns more), delay + jitter (which alone never reorders), a rate
 * limit with a drop-tail queue.
 * Same seed, same inputs: same frames at the same virtual times.  Frames
 * are captured to a pcap file as sent (before the link's impairments).
 */
#ifndef SIMLINK_H
#define SIMLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "simdev.h"

#define SL_MS 1000000ull
#define SL_SEC 1000000000ull

struct sl_port {
    void *opaque;
    /* One frame arrives; false: refused now (counted as a drop). */
    bool (*deliver)(void *opaque, const uint8_t *frame, size_t len);
    /* Earliest timer, UINT64_MAX: none. */
    uint64_t (*deadline)(void *opaque);
    /* The clock reached deadline(). */
    void (*tick)(void *opaque);
    /* Run latched work (doorbells, admin, EQ polling). */
    void (*poll)(void *opaque);
};

struct sl_params {
    double loss, dup, reorder;          /* probabilities per frame */
    uint64_t delay_ns, jitter_ns, reorder_ns;
    uint64_t rate_bps;                  /* 0: unlimited */
    uint64_t qlimit_bytes;              /* drop-tail queue (with rate) */
};

struct sl_stats {
    uint64_t sent, delivered, lost, duplicated, reordered, queue_drops;
    uint64_t refused, bytes;
};

struct sl_ev {
    uint64_t at, order;
    int dst;
    size_t len, cap;            /* cap: size the buffer was taken for */
    uint8_t *frame;
};

#define SL_FRAME_BUF    9600    /* pooled buffers hold any jumbo frame */
#define SL_POOL         4096

struct simlink {
    uint64_t now, order, rng;
    struct sl_port port[2];
    struct sl_params p[2];              /* p[i]: frames sent by port i */
    struct sl_stats st[2];
    uint64_t busy_until[2];
    uint64_t fifo_at[2];                /* latest in-order arrival */
    struct sl_ev *heap;
    size_t nheap, capheap;
    uint8_t *pool[SL_POOL];
    size_t npool;
    FILE *pcap;
    bool trace;                         /* SIMLINK_TRACE: log every frame */
    /* Capture only: flip the last payload octet of the Nth TCP data frame
     * (a negative control for capture checkers); 0 off. */
    uint64_t pcap_corrupt, pcap_data_frames;
    /* Optional: see (and edit or drop: return false) each sent frame. */
    bool (*tap)(void *opaque, int from, uint8_t *frame, size_t *len);
    void *tap_opaque;
};

void sl_init(struct simlink *sl, uint64_t seed);
void sl_fini(struct simlink *sl);
/* Capture sent frames to path; false if it cannot be created. */
bool sl_pcap(struct simlink *sl, const char *path);
/* Capture to $SIMLINK_PCAP_DIR/link-N.pcap if set (sl_init calls it). */
void sl_pcap_env(struct simlink *sl);
/* Environment for a simdev on side `side` of this link. */
struct sd_env sl_env(struct simlink *sl);
void sl_port_simdev(struct simlink *sl, int side, struct simdev *sd);
/* A frame leaves port `from` now. */
void sl_send(struct simlink *sl, int from, const uint8_t *frame, size_t len);
/* Advance to the next event and handle it; false if nothing is pending. */
bool sl_step(struct simlink *sl);
/*
 * Step until done(ctx) or the clock passes now + max_ns; true if done.
 * done is checked after every step.
 */
bool sl_run(struct simlink *sl, bool (*done)(void *ctx), void *ctx,
            uint64_t max_ns);
/* Frames in flight. */
static inline size_t sl_in_flight(const struct simlink *sl)
{
    return sl->nheap;
}

#endif
