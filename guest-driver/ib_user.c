// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User space: contexts (one doorbell page each, mapped uncached into the
 * process), pinned user queue memory and the page lists the device reads
 * (docs/hardware-interface.md sections 3, 4 and 10).
 */
#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "rnic/abi.h"
#include "ib.h"

u32 rnic_udata_uctx(struct ib_udata *udata)
{
	struct rnic_ucontext *uc = rdma_udata_to_drv_context(udata,
							     struct rnic_ucontext,
							     ibuctx);

	return uc ? uc->uctx : 0;
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
 * Its depth is what the length holds (a power of two, at most max_depth).
 */
int rnic_umem_ring_get(struct rnic_ib *rib, struct rnic_umem_ring *r,
		       u64 va, u64 len, u32 entry_size, u32 max_depth)
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
	if (r->depth < 2)
		return -EINVAL;
	r->umem = ib_umem_get(&rib->ibdev, va, len, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(r->umem)) {
		err = PTR_ERR(r->umem);
		r->umem = NULL;
		return err;
	}
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

static bool rnic_db_page_is_cpu_page(void)
{
	return RNIC_DB_PAGE_SHIFT == PAGE_SHIFT;
}

int rnic_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibuctx->device);
	struct rnic_ucontext *uc = to_ructx(ibuctx);
	struct rnic_alloc_ucontext_resp resp = {};
	struct rnic_alloc_ucontext_req req = {};
	struct rnic_user_mmap_entry *ent;
	struct rnic_admin_cmd cmd = {};
	struct pci_dev *pdev = rib->rdev->pdev;
	int id, err;

	/* A bigger CPU page would map other contexts' doorbells too. */
	if (!rnic_db_page_is_cpu_page() || !rib->caps.max_uctx)
		return -EOPNOTSUPP;
	if (udata->inlen >= sizeof(req)) {
		err = ib_copy_from_udata(&req, udata, sizeof(req));
		if (err)
			return err;
		if (req.provider_abi != RNIC_UVERBS_ABI_VERSION)
			return -EPROTONOSUPPORT;
	}
	id = ida_alloc_range(&rib->uctx_ida, 1, rib->caps.max_uctx, GFP_KERNEL);
	if (id < 0)
		return id;
	uc->uctx = id;
	cmd.hdr.opcode = RNIC_CMD_ALLOC_UCTX;
	cmd.u.alloc_uctx.uctx = cpu_to_le32(uc->uctx);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err_ida;

	ent = kzalloc(sizeof(*ent), GFP_KERNEL);
	err = -ENOMEM;
	if (!ent)
		goto err_hw;
	ent->pfn = (pci_resource_start(pdev, RNIC_BAR_DOORBELL) +
		    (u64)uc->uctx * RNIC_DB_PAGE_SIZE) >> PAGE_SHIFT;
	err = rdma_user_mmap_entry_insert(ibuctx, &ent->rdma_entry, PAGE_SIZE);
	if (err) {
		kfree(ent);
		goto err_hw;
	}
	uc->db_entry = &ent->rdma_entry;

	resp.db_mmap_key = rdma_user_mmap_get_offset(uc->db_entry);
	resp.db_page_size = RNIC_DB_PAGE_SIZE;
	resp.uctx = uc->uctx;
	resp.hw_version = rib->rdev->caps.version;
	resp.sq_wqe_size = RNIC_SQ_WQE_SIZE;
	resp.rq_wqe_size = RNIC_RQ_WQE_SIZE;
	resp.cqe_size = RNIC_CQE_SIZE;
	resp.max_send_sge = rib->caps.max_send_sge;
	resp.max_recv_sge = rib->caps.max_recv_sge;
	resp.max_inline = rib->caps.max_inline;
	resp.features = rib->rdev->caps.features;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_entry;
	return 0;

err_entry:
	rdma_user_mmap_entry_remove(uc->db_entry);
err_hw:
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_FREE_UCTX, uc->uctx);
err_ida:
	ida_free(&rib->uctx_ida, uc->uctx);
	return err;
}

void rnic_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct rnic_ib *rib = to_rib(ibuctx->device);
	struct rnic_ucontext *uc = to_ructx(ibuctx);

	rdma_user_mmap_entry_remove(uc->db_entry);
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_FREE_UCTX, uc->uctx);
	ida_free(&rib->uctx_ida, uc->uctx);
}

int rnic_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct rnic_user_mmap_entry *ent;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	ent = container_of(rdma_entry, struct rnic_user_mmap_entry, rdma_entry);
	err = rdma_user_mmap_io(ibuctx, vma, ent->pfn, PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot), rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void rnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(container_of(rdma_entry, struct rnic_user_mmap_entry,
			   rdma_entry));
}

/*
 * Hot unplug / rmmod with processes holding the device: the core zaps the
 * doorbell mappings and destroys the objects; nothing else to let go of.
 */
void rnic_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}
