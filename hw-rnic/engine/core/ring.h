/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A ring of fixed-size entries in guest memory, described by a page list:
 * the device's own rings (admin queue, EQs, L2 queues) and the RDMA work
 * queues and CQs alike.  The page list is copied into the device at creation
 * and validated there (pbl.h); afterwards only slot addresses are computed,
 * never trusted from the guest.
 */
#ifndef RNE_ENGINE_RING_H
#define RNE_ENGINE_RING_H

#include <stdbool.h>
#include <stdint.h>
#include "rnic/hw.h"
#include "host.h"

/*
 * 256 KiB: the most a device ring (admin queue, EQ, L2 queue) may span,
 * enough for every depth the device allows them.
 */
#define RNE_RING_MAX_PAGES 64

struct rne_ring {
    uint32_t depth;         /* entries, power of 2 */
    uint32_t entry_size;    /* power of 2, at most RNIC_PAGE_SIZE */
    uint32_t npages;
    uint64_t *pages;        /* [npages] 4 KiB guest pages; rne_ring_free */
};

/* Pages a ring of depth entries of entry_size bytes occupies. */
uint32_t rne_ring_pages_needed(uint32_t depth, uint32_t entry_size);

/*
 * Load and check a device ring's page list (level 1, 4 KiB pages, exactly
 * the pages the ring needs and at most RNE_RING_MAX_PAGES, each aligned and
 * reachable).  Returns an RNIC_STS_* code; on success r owns its page array.
 */
unsigned rne_ring_load(struct rne_ring *r, const struct rne_host *h,
                       uint64_t pbl_addr, uint32_t nentries, uint8_t levels,
                       uint8_t page_shift, uint32_t depth,
                       uint32_t entry_size);

/* rne_ring_load() taking a struct rnic_pbl as it came from the guest. */
unsigned rne_ring_load_pbl(struct rne_ring *r, const struct rne_host *h,
                           const struct rnic_pbl *pbl, uint32_t depth,
                           uint32_t entry_size);

/*
 * A work queue's or CQ's ring: 4 KiB pages as for a device ring, but any
 * number of them, listed at level 1 or 2.  A ring of more than max_pages
 * pages (what is left of the caller's budget) is RNIC_STS_NO_RESOURCES.
 */
unsigned rne_ring_load_large(struct rne_ring *r, const struct rne_host *h,
                             const struct rnic_pbl *pbl, uint32_t depth,
                             uint32_t entry_size, uint64_t max_pages);

/* Release the page array and zero r (a zeroed ring is fine too). */
void rne_ring_free(struct rne_ring *r);

/* Guest address of the entry at free-running index idx. */
uint64_t rne_ring_slot(const struct rne_ring *r, uint32_t idx);

int rne_ring_read(const struct rne_ring *r, const struct rne_host *h,
                  uint32_t idx, void *entry);

/*
 * Publish a completion-style entry: write it whole with the phase bit of
 * the byte at flag_off inverted (still invalid to the consumer), then write
 * that byte with the real phase, so the consumer never sees a torn entry.
 */
int rne_ring_publish(const struct rne_ring *r, const struct rne_host *h,
                     uint32_t idx, void *entry, uint32_t flag_off);

/* Phase of the pass through the ring that index idx belongs to (1 first). */
static inline uint8_t rne_ring_phase(const struct rne_ring *r, uint32_t idx)
{
    return ((idx / r->depth) & 1) ? 0 : 1;
}

/* Number of valid entries between a consumer and a producer index. */
static inline uint32_t rne_ring_used(uint32_t prod, uint32_t cons)
{
    return prod - cons;
}

static inline bool rne_is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

#endif
