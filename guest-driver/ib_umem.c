// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Pinned user memory: the queues and records the provider allocates, the
 * pages of user MRs, and the page lists the device reads them through
 * (docs/hardware-interface.md section 4).
 */
#include <linux/dma-mapping.h>
#include <linux/pci.h>

#include "ib.h"

/* ib_umem_get that leaves *umem NULL on failure, for the release paths. */
int rnic_umem_pin(struct rnic_ib *rib, u64 va, u64 len, int access,
		  struct ib_umem **umem)
{
	struct ib_umem *m = ib_umem_get(&rib->ibdev, va, len, access);

	if (IS_ERR(m)) {
		*umem = NULL;
		return PTR_ERR(m);
	}
	*umem = m;
	return 0;
}

void rnic_pbl_free(struct rnic_ib *rib, struct rnic_pbl_buf *pb)
{
	struct device *dev = &rib->rdev->pdev->dev;
	u32 i;

	for (i = 0; pb->l2 && i < pb->nleaves; i++)
		if (pb->l2[i])
			dma_free_coherent(dev, RNIC_PAGE_SIZE, pb->l2[i],
					  pb->l2_dma[i]);
	kfree(pb->l2);
	kfree(pb->l2_dma);
	if (pb->l1)
		dma_free_coherent(dev, pb->l1_size, pb->l1, pb->l1_dma);
	memset(pb, 0, sizeof(*pb));
}

static __le64 *rnic_pbl_slot(struct rnic_pbl_buf *pb, u32 i)
{
	if (pb->levels == 1)
		return &pb->l1[i];
	return &pb->l2[i / RNIC_PBL_PER_PAGE][i % RNIC_PBL_PER_PAGE];
}

/*
 * The page list of umem in pgsz pages: level 1 while it fits one 4 KiB
 * page or when two levels are not wanted (rings), level 2 above (MRs).
 */
int rnic_pbl_from_umem(struct rnic_ib *rib, struct ib_umem *umem,
		       unsigned long pgsz, bool two_levels,
		       struct rnic_pbl_buf *pb)
{
	struct device *dev = &rib->rdev->pdev->dev;
	struct ib_block_iter biter;
	size_t n = ib_umem_num_dma_blocks(umem, pgsz);
	u32 i = 0;

	memset(pb, 0, sizeof(*pb));
	if (!n || n > U32_MAX / 2)
		return -EINVAL;
	pb->nentries = n;
	pb->page_shift = ilog2(pgsz);
	pb->levels = (two_levels && n > RNIC_PBL_PER_PAGE) ? 2 : 1;
	if (pb->levels == 1) {
		pb->l1_size = n * sizeof(__le64);
	} else {
		pb->nleaves = DIV_ROUND_UP(n, RNIC_PBL_PER_PAGE);
		pb->l1_size = pb->nleaves * sizeof(__le64);
		pb->l2 = kcalloc(pb->nleaves, sizeof(*pb->l2), GFP_KERNEL);
		pb->l2_dma = kcalloc(pb->nleaves, sizeof(*pb->l2_dma),
				     GFP_KERNEL);
		if (!pb->l2 || !pb->l2_dma)
			goto err;
	}
	pb->l1 = dma_alloc_coherent(dev, pb->l1_size, &pb->l1_dma, GFP_KERNEL);
	if (!pb->l1)
		goto err;
	for (i = 0; i < pb->nleaves; i++) {
		pb->l2[i] = dma_alloc_coherent(dev, RNIC_PAGE_SIZE,
					       &pb->l2_dma[i], GFP_KERNEL);
		if (!pb->l2[i])
			goto err;
		pb->l1[i] = cpu_to_le64(pb->l2_dma[i]);
	}
	i = 0;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i >= n)
			break;
		*rnic_pbl_slot(pb, i++) =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
	}
	return 0;
err:
	rnic_pbl_free(rib, pb);
	return -ENOMEM;
}

void rnic_pbl_to_hw(const struct rnic_pbl_buf *pb, struct rnic_pbl *pbl)
{
	pbl->addr = cpu_to_le64(pb->l1_dma);
	pbl->nentries = cpu_to_le32(pb->nentries);
	pbl->page_shift = pb->page_shift;
	pbl->levels = pb->levels;
	pbl->rsvd = 0;
}

/*
 * Pin a queue the provider allocated: page-aligned, whole 4 KiB pages.
 * Its depth is what the length holds (a power of two, at most max_depth),
 * and must reach the want entries the verb asked for.
 */
int rnic_umem_ring_get(struct rnic_ib *rib, struct rnic_umem_ring *r,
		       u64 va, u64 len, u32 entry_size, u32 want,
		       u32 max_depth)
{
	u64 entries;
	int err;

	memset(r, 0, sizeof(*r));
	if (!va || !len || !IS_ALIGNED(va, RNIC_PAGE_SIZE) ||
	    !IS_ALIGNED(len, RNIC_PAGE_SIZE) || len > SZ_1G)
		return -EINVAL;
	entries = div_u64(len, entry_size);
	if (entries < 2)
		return -EINVAL;
	r->depth = min_t(u64, rounddown_pow_of_two(entries), max_depth);
	if (r->depth < 2 || r->depth < want)
		return -EINVAL;
	err = rnic_umem_pin(rib, va, len, IB_ACCESS_LOCAL_WRITE, &r->umem);
	if (err)
		return err;
	err = rnic_pbl_from_umem(rib, r->umem, RNIC_PAGE_SIZE, false, &r->pbl);
	if (err) {
		ib_umem_release(r->umem);
		r->umem = NULL;
		return err;
	}
	/* The device wants exactly the pages the entries occupy. */
	r->pbl.nentries = min_t(u32, r->pbl.nentries,
				DIV_ROUND_UP(r->depth * entry_size,
					     RNIC_PAGE_SIZE));
	return 0;
}

void rnic_umem_ring_put(struct rnic_ib *rib, struct rnic_umem_ring *r)
{
	rnic_pbl_free(rib, &r->pbl);
	ib_umem_release(r->umem);
	r->umem = NULL;
}

/* Pin a user's 8-byte record (a CQ's consumer index); 0 if it cannot be. */
dma_addr_t rnic_umem_rec_get(struct rnic_ib *rib, u64 va, struct ib_umem **umem)
{
	struct ib_block_iter biter;

	*umem = NULL;
	if (!va || !IS_ALIGNED(va, 8) ||
	    rnic_umem_pin(rib, va & ~(u64)(RNIC_PAGE_SIZE - 1), RNIC_PAGE_SIZE,
			  IB_ACCESS_LOCAL_WRITE, umem))
		return 0;
	rdma_umem_for_each_dma_block(*umem, &biter, RNIC_PAGE_SIZE)
		return rdma_block_iter_dma_address(&biter) +
		       (va & (RNIC_PAGE_SIZE - 1));
	return 0;
}
