/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page lists of any length (level 1 or 2, docs/hardware-interface.md
 * section 4) copied into the device, and the work/completion rings built
 * on them (SQ, RQ, SRQ, CQ: up to 1 MiB, more than struct rnic_ring holds).
 */
#include <stdlib.h>
#include <string.h>
#include "rdma_int.h"
#include "wire/le.h"

/* Entries per DMA burst while copying a page list. */
#define PBL_CHUNK 64

/* Copy n LE page addresses from guest address src into out[]. */
static int copy_list(const struct rnic_host *h, uint64_t src, uint32_t n,
                     uint64_t *out)
{
    uint64_t buf[PBL_CHUNK];
    uint32_t done = 0, i;

    while (done < n) {
        uint32_t k = n - done < PBL_CHUNK ? n - done : PBL_CHUNK;

        if (rnic_dma_read(h, src + (uint64_t)done * 8, buf, k * 8)) {
            return -1;
        }
        for (i = 0; i < k; i++) {
            out[done + i] = rnic_ld64(buf[i]);
        }
        done += k;
    }
    return 0;
}

unsigned rnic_pbl_load(const struct rnic_host *h, const struct rnic_pbl *pbl,
                       uint32_t nentries, uint64_t *out)
{
    uint64_t addr = rnic_ld64(pbl->addr);
    uint64_t mask = (1ull << pbl->page_shift) - 1;
    uint32_t i;

    if (pbl->rsvd || rnic_ld32(pbl->nentries) != nentries || (addr & 7) ||
        pbl->page_shift < RNIC_PAGE_SHIFT || pbl->page_shift > 63) {
        return RNIC_STS_BAD_PARAM;
    }
    if (pbl->levels == 1) {
        if (copy_list(h, addr, nentries, out)) {
            return RNIC_STS_DMA_ERROR;
        }
    } else if (pbl->levels == 2) {
        uint32_t nl2 = (nentries + RNIC_PBL_PER_PAGE - 1) / RNIC_PBL_PER_PAGE;

        /* The level-1 entries land in out[] first, then get expanded. */
        for (i = 0; i < nl2; i++) {
            uint64_t l2;
            uint32_t k = nentries - i * RNIC_PBL_PER_PAGE;

            if (rnic_dma_read(h, addr + (uint64_t)i * 8, &l2, 8)) {
                return RNIC_STS_DMA_ERROR;
            }
            l2 = rnic_ld64(l2);
            if (l2 & (RNIC_PAGE_SIZE - 1)) {
                return RNIC_STS_BAD_PARAM;
            }
            if (k > RNIC_PBL_PER_PAGE) {
                k = RNIC_PBL_PER_PAGE;
            }
            if (copy_list(h, l2, k, out + (size_t)i * RNIC_PBL_PER_PAGE)) {
                return RNIC_STS_DMA_ERROR;
            }
        }
    } else {
        return RNIC_STS_BAD_PARAM;
    }
    for (i = 0; i < nentries; i++) {
        if (out[i] & mask) {
            return RNIC_STS_BAD_PARAM;
        }
        /* Catch pages outside guest RAM now, not at first use. */
        if (rnic_dma_check_ram(h, out[i], mask + 1)) {
            return RNIC_STS_DMA_ERROR;
        }
    }
    return RNIC_STS_OK;
}

unsigned rnic_qring_load(struct rnic_qring *r, const struct rnic_host *h,
                         const struct rnic_pbl *pbl, uint32_t depth,
                         uint32_t entry_size)
{
    uint64_t bytes = (uint64_t)depth * entry_size;
    uint32_t need = (uint32_t)((bytes + RNIC_PAGE_SIZE - 1) / RNIC_PAGE_SIZE);
    uint64_t *pages;
    unsigned sts;

    memset(r, 0, sizeof(*r));
    if (!rnic_is_pow2(depth) || depth < 2 || !rnic_is_pow2(entry_size) ||
        entry_size > RNIC_PAGE_SIZE || pbl->page_shift != RNIC_PAGE_SHIFT) {
        return RNIC_STS_BAD_PARAM;
    }
    pages = calloc(need, sizeof(*pages));
    if (!pages) {
        return RNIC_STS_NO_RESOURCES;
    }
    sts = rnic_pbl_load(h, pbl, need, pages);
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

void rnic_qring_free(struct rnic_qring *r)
{
    free(r->pages);
    memset(r, 0, sizeof(*r));
}

uint64_t rnic_qring_slot(const struct rnic_qring *r, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & (r->depth - 1)) * r->entry_size;

    return r->pages[off >> RNIC_PAGE_SHIFT] + (off & (RNIC_PAGE_SIZE - 1));
}

int rnic_qring_read(const struct rnic_qring *r, const struct rnic_host *h,
                    uint32_t idx, void *entry)
{
    return rnic_dma_read(h, rnic_qring_slot(r, idx), entry, r->entry_size);
}

int rnic_qring_publish(const struct rnic_qring *r, const struct rnic_host *h,
                       uint32_t idx, void *entry, uint32_t flag_off)
{
    uint8_t *bytes = entry;
    uint64_t slot = rnic_qring_slot(r, idx);
    uint8_t phase = ((idx / r->depth) & 1) ? 0 : 1;
    uint8_t flag = (bytes[flag_off] & ~RNIC_CQE_PHASE) | phase;

    /* Whole entry with the old phase first, then the phase byte. */
    bytes[flag_off] = flag ^ RNIC_CQE_PHASE;
    if (rnic_dma_write(h, slot, bytes, r->entry_size)) {
        return -1;
    }
    bytes[flag_off] = flag;
    return rnic_dma_write(h, slot + flag_off, &flag, 1);
}
