// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue memory: DMA-coherent rings described to the device by a level-1
 * page list of 4 KiB pages (docs/hardware-interface.md section 4).
 */
#include <linux/dma-mapping.h>

#include "rnic.h"

int rnic_ring_alloc(struct rnic_dev *rdev, struct rnic_ring *r, u32 depth,
		    u32 entry_size)
{
	struct device *dev = &rdev->pdev->dev;
	u32 i;

	if (!is_power_of_2(depth) || depth < 2 || !entry_size)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->depth = depth;
	r->entry_size = entry_size;
	/* The device wants exactly the pages the entries need. */
	r->npages = DIV_ROUND_UP(depth * entry_size, RNIC_PAGE_SIZE);
	r->size = (size_t)r->npages * RNIC_PAGE_SIZE;
	/* Zeroed memory: every phase bit starts as "not yet written". */
	r->buf = dma_alloc_coherent(dev, r->size, &r->dma, GFP_KERNEL);
	if (!r->buf)
		return -ENOMEM;
	r->pbl = dma_alloc_coherent(dev, r->npages * sizeof(__le64),
				    &r->pbl_dma, GFP_KERNEL);
	if (!r->pbl) {
		dma_free_coherent(dev, r->size, r->buf, r->dma);
		r->buf = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < r->npages; i++)
		r->pbl[i] = cpu_to_le64(r->dma + (dma_addr_t)i * RNIC_PAGE_SIZE);
	return 0;
}

void rnic_ring_free(struct rnic_dev *rdev, struct rnic_ring *r)
{
	struct device *dev = &rdev->pdev->dev;

	if (r->pbl)
		dma_free_coherent(dev, r->npages * sizeof(__le64), r->pbl,
				  r->pbl_dma);
	if (r->buf)
		dma_free_coherent(dev, r->size, r->buf, r->dma);
	r->pbl = NULL;
	r->buf = NULL;
}

void rnic_ring_to_pbl(const struct rnic_ring *r, struct rnic_pbl *pbl)
{
	pbl->addr = cpu_to_le64(r->pbl_dma);
	pbl->nentries = cpu_to_le32(r->npages);
	pbl->page_shift = RNIC_PAGE_SHIFT;
	pbl->levels = 1;
	pbl->rsvd = 0;
}
