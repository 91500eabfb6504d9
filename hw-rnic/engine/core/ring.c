/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest rings described by page lists (see ring.h).
 */
#include <stdlib.h>
#include <string.h>
#include "ring.h"
#include "pbl.h"
#include "wire/le.h"

uint32_t rne_ring_pages_needed(uint32_t depth, uint32_t entry_size)
{
    uint64_t bytes = (uint64_t)depth * entry_size;

    return (uint32_t)((bytes + RNIC_PAGE_SIZE - 1) / RNIC_PAGE_SIZE);
}

static bool ring_shape_ok(uint32_t depth, uint32_t entry_size)
{
    return rne_is_pow2(depth) && depth >= 2 && rne_is_pow2(entry_size) &&
           entry_size <= RNIC_PAGE_SIZE;
}

/* Copy the checked page list of a ring of this shape into r. */
static unsigned ring_fill(struct rne_ring *r, const struct rne_host *h,
                          uint64_t pbl_addr, uint8_t levels, uint32_t depth,
                          uint32_t entry_size)
{
    uint32_t need = rne_ring_pages_needed(depth, entry_size);
    uint64_t *pages = calloc(need, sizeof(*pages));
    unsigned sts;

    memset(r, 0, sizeof(*r));
    if (!pages) {
        return RNIC_STS_NO_RESOURCES;
    }
    sts = rne_pbl_copy(h, pbl_addr, need, levels, RNIC_PAGE_SHIFT, pages);
    if (sts) {
        free(pages);
        return sts;
    }
    r->depth = depth;
    r->entry_size = entry_size;
    r->npages = need;
    r->pages = pages;
    return RNIC_STS_OK;
}

unsigned rne_ring_load(struct rne_ring *r, const struct rne_host *h,
                       uint64_t pbl_addr, uint32_t nentries, uint8_t levels,
                       uint8_t page_shift, uint32_t depth,
                       uint32_t entry_size)
{
    uint32_t need = rne_ring_pages_needed(depth, entry_size);

    if (!ring_shape_ok(depth, entry_size) || levels != 1 ||
        page_shift != RNIC_PAGE_SHIFT || nentries != need ||
        need > RNE_RING_MAX_PAGES) {
        return RNIC_STS_BAD_PARAM;
    }
    return ring_fill(r, h, pbl_addr, levels, depth, entry_size);
}

unsigned rne_ring_load_pbl(struct rne_ring *r, const struct rne_host *h,
                           const struct rnic_pbl *pbl, uint32_t depth,
                           uint32_t entry_size)
{
    if (pbl->rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    return rne_ring_load(r, h, rne_le64_to_cpu(pbl->addr),
                         rne_le32_to_cpu(pbl->nentries), pbl->levels,
                         pbl->page_shift, depth, entry_size);
}

unsigned rne_ring_load_large(struct rne_ring *r, const struct rne_host *h,
                             const struct rnic_pbl *pbl, uint32_t depth,
                             uint32_t entry_size, uint64_t max_pages)
{
    uint32_t need = rne_ring_pages_needed(depth, entry_size);

    memset(r, 0, sizeof(*r));
    if (!ring_shape_ok(depth, entry_size) || pbl->rsvd ||
        pbl->page_shift != RNIC_PAGE_SHIFT ||
        rne_le32_to_cpu(pbl->nentries) != need) {
        return RNIC_STS_BAD_PARAM;
    }
    if (need > max_pages) {
        return RNIC_STS_NO_RESOURCES;
    }
    return ring_fill(r, h, rne_le64_to_cpu(pbl->addr), pbl->levels, depth,
                     entry_size);
}

void rne_ring_free(struct rne_ring *r)
{
    free(r->pages);
    memset(r, 0, sizeof(*r));
}

uint64_t rne_ring_slot(const struct rne_ring *r, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & (r->depth - 1)) * r->entry_size;

    return r->pages[off >> RNIC_PAGE_SHIFT] + (off & (RNIC_PAGE_SIZE - 1));
}

int rne_ring_read(const struct rne_ring *r, const struct rne_host *h,
                  uint32_t idx, void *entry)
{
    return rne_dma_read(h, rne_ring_slot(r, idx), entry, r->entry_size);
}

int rne_ring_publish(const struct rne_ring *r, const struct rne_host *h,
                     uint32_t idx, void *entry, uint32_t flag_off)
{
    uint8_t *bytes = entry;
    uint64_t slot = rne_ring_slot(r, idx);
    uint8_t flag = (bytes[flag_off] & ~RNIC_CQE_PHASE) |
                   rne_ring_phase(r, idx);

    /* Whole entry with the old phase first, then the phase byte. */
    bytes[flag_off] = flag ^ RNIC_CQE_PHASE;
    if (rne_dma_write(h, slot, bytes, r->entry_size)) {
        return -1;
    }
    bytes[flag_off] = flag;
    return rne_dma_write(h, slot + flag_off, &flag, 1);
}
