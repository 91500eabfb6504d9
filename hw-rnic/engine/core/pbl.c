/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page lists copied into the device (see pbl.h).
 */
#include "pbl.h"
#include "wire/le.h"

/* Entries per DMA burst while copying a page list. */
#define PBL_CHUNK 64

/* Copy n LE page addresses from guest address src into out[]. */
static int copy_list(const struct rne_host *h, uint64_t src, uint32_t n,
                     uint64_t *out)
{
    uint64_t buf[PBL_CHUNK];
    uint32_t done = 0, i;

    while (done < n) {
        uint32_t k = n - done < PBL_CHUNK ? n - done : PBL_CHUNK;

        if (rne_dma_read(h, src + (uint64_t)done * 8, buf, k * 8)) {
            return -1;
        }
        for (i = 0; i < k; i++) {
            out[done + i] = rne_le64_to_cpu(buf[i]);
        }
        done += k;
    }
    return 0;
}

unsigned rne_pbl_copy(const struct rne_host *h, uint64_t addr,
                      uint32_t nentries, uint8_t levels, uint8_t page_shift,
                      uint64_t *out)
{
    uint64_t mask;
    uint32_t i;

    if ((addr & 7) || page_shift < RNIC_PAGE_SHIFT || page_shift > 63) {
        return RNIC_STS_BAD_PARAM;
    }
    mask = (1ull << page_shift) - 1;
    if (levels == 1) {
        if (copy_list(h, addr, nentries, out)) {
            return RNIC_STS_DMA_ERROR;
        }
    } else if (levels == 2) {
        uint32_t nl2 = (nentries + RNIC_PBL_PER_PAGE - 1) / RNIC_PBL_PER_PAGE;

        /* The level-1 entries land in out[] first, then get expanded. */
        for (i = 0; i < nl2; i++) {
            uint64_t l2;
            uint32_t k = nentries - i * RNIC_PBL_PER_PAGE;

            if (rne_dma_read(h, addr + (uint64_t)i * 8, &l2, 8)) {
                return RNIC_STS_DMA_ERROR;
            }
            l2 = rne_le64_to_cpu(l2);
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
        if (rne_dma_check_ram(h, out[i], mask + 1)) {
            return RNIC_STS_DMA_ERROR;
        }
    }
    return RNIC_STS_OK;
}

unsigned rne_pbl_load(const struct rne_host *h, const struct rnic_pbl *pbl,
                      uint32_t nentries, uint64_t *out)
{
    if (pbl->rsvd || rne_le32_to_cpu(pbl->nentries) != nentries) {
        return RNIC_STS_BAD_PARAM;
    }
    return rne_pbl_copy(h, rne_le64_to_cpu(pbl->addr), nentries, pbl->levels,
                        pbl->page_shift, out);
}
