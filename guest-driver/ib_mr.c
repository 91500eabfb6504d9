// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions.  STag = index << 8 | key: the index comes from an IDA
 * (index 0 is never used, so STag 0 is never valid), the initial key is
 * random.  Three kinds:
 *   DMA MR       REG_MR with RNIC_MR_F_PHYS: the kernel's local DMA lkey;
 *   user MR      pinned umem, page list in the best page size the device
 *                takes, handed over once (the device copies it);
 *   fast-reg MR  ALLOC_MR now, a level-1 page list filled by map_mr_sg
 *                and bound later by a REG_MR work request.
 */
#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <linux/random.h>

#include "ib.h"

static struct rnic_mr *rnic_mr_new(struct rnic_ib *rib)
{
	struct rnic_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	int id;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	id = ida_alloc_range(&rib->mr_ida, 1, rib->caps.max_mr - 1, GFP_KERNEL);
	if (id < 0) {
		kfree(mr);
		return ERR_PTR(id);
	}
	mr->index = id;
	mr->ibmr.lkey = RNIC_STAG(mr->index, get_random_u32());
	mr->ibmr.rkey = mr->ibmr.lkey;
	return mr;
}

static void rnic_mr_release(struct rnic_ib *rib, struct rnic_mr *mr)
{
	if (mr->pages)
		dma_free_coherent(&rib->rdev->pdev->dev,
				  mr->max_pages * sizeof(__le64), mr->pages,
				  mr->pages_dma);
	ib_umem_release(mr->umem);
	ida_free(&rib->mr_ida, mr->index);
	kfree(mr);
}

/* REG_MR, or REREG_MR with the same body under STag stag. */
static int rnic_mr_cmd(struct rnic_ib *rib, u8 opcode, u32 stag, u32 pdn,
		       int access, u32 flags, u64 iova, u64 length,
		       const struct rnic_pbl_buf *pb)
{
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_reg_mr *c = &cmd.u.reg_mr;

	u32 hw_access = rnic_ib_access(access);

	/* A device without windows knows no MW_BIND right. */
	if (!(rib->rdev->caps.features & RNIC_FEAT_MW))
		hw_access &= ~RNIC_ACCESS_MW_BIND;
	cmd.hdr.opcode = opcode;
	c->stag = cpu_to_le32(stag);
	c->pdn = cpu_to_le32(pdn);
	c->access = cpu_to_le32(hw_access);
	c->flags = cpu_to_le32(flags);
	c->iova = cpu_to_le64(iova);
	c->length = cpu_to_le64(length);
	if (pb)
		rnic_pbl_to_hw(pb, &c->pages);
	return rnic_admin_exec(rib->rdev, &cmd, NULL);
}

static int rnic_reg_mr_cmd(struct rnic_ib *rib, struct rnic_mr *mr, u32 pdn,
			   int access, u32 flags, u64 iova, u64 length,
			   const struct rnic_pbl_buf *pb)
{
	return rnic_mr_cmd(rib, RNIC_CMD_REG_MR, mr->ibmr.lkey, pdn, access,
			   flags, iova, length, pb);
}

/* The kernel's local DMA lkey for this PD: all of guest-physical memory. */
struct ib_mr *rnic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rnic_ib *rib = to_rib(ibpd->device);
	struct rnic_mr *mr = rnic_mr_new(rib);
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = rnic_reg_mr_cmd(rib, mr, to_rpd(ibpd)->pdn, access,
			      RNIC_MR_F_PHYS, 0, U64_MAX, NULL);
	if (err) {
		rnic_mr_release(rib, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *rnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibpd->device);
	struct rnic_pbl_buf pb;
	unsigned long pgsz;
	struct rnic_mr *mr;
	int err;

	if (!length || length > rib->caps.max_mr_size)
		return ERR_PTR(-EINVAL);
	mr = rnic_mr_new(rib);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = rnic_umem_pin(rib, start, length, access, &mr->umem);
	if (err)
		goto err;
	pgsz = ib_umem_find_best_pgsz(mr->umem, rib->caps.page_sizes, iova);
	err = -EINVAL;
	if (!pgsz || ib_umem_num_dma_blocks(mr->umem, pgsz) >
		     rib->caps.max_mr_pages)
		goto err;
	err = rnic_pbl_from_umem(rib, mr->umem, pgsz, true, &pb);
	if (err)
		goto err;
	err = rnic_reg_mr_cmd(rib, mr, to_rpd(ibpd)->pdn, access, 0, iova,
			      length, &pb);
	/* The device copied the page list during the command. */
	rnic_pbl_free(rib, &pb);
	if (err)
		goto err;
	mr->ibmr.length = length;
	mr->ibmr.iova = iova;
	mr->access = access;
	return &mr->ibmr;
err:
	rnic_mr_release(rib, mr);
	return ERR_PTR(err);
}

/* Pin [start, start + length) and give the device its page list in *pb. */
static int rnic_mr_pin_pbl(struct rnic_ib *rib, u64 start, u64 length,
			   u64 iova, int access, struct ib_umem **umem,
			   struct rnic_pbl_buf *pb)
{
	unsigned long pgsz;
	int err;

	err = rnic_umem_pin(rib, start, length, access, umem);
	if (err)
		return err;
	pgsz = ib_umem_find_best_pgsz(*umem, rib->caps.page_sizes, iova);
	err = -EINVAL;
	if (pgsz && ib_umem_num_dma_blocks(*umem, pgsz) <=
		    rib->caps.max_mr_pages)
		err = rnic_pbl_from_umem(rib, *umem, pgsz, true, pb);
	if (err) {
		ib_umem_release(*umem);
		*umem = NULL;
	}
	return err;
}

/*
 * ibv_rereg_mr of a user MR, in place (NULL): the device swaps the whole
 * description at once under a new key, so the old lkey/rkey stop working.
 * A new translation or access pins again (the access may now need write);
 * a PD change alone reuses the pinned pages.
 */
struct ib_mr *rnic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 iova, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibmr->device);
	struct rnic_mr *mr = to_rmr(ibmr);
	struct ib_umem *umem = mr->umem;
	struct rnic_pbl_buf pb;
	unsigned long pgsz;
	u32 stag;
	int err;

	if (!(rib->rdev->caps.features & RNIC_FEAT_REREG_MR))
		return ERR_PTR(-EOPNOTSUPP);
	if (!mr->umem || (flags & ~IB_MR_REREG_SUPPORTED))
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_PD))
		ibpd = ibmr->pd;
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		iova = ibmr->iova;
	}
	if (!length || length > rib->caps.max_mr_size)
		return ERR_PTR(-EINVAL);
	if (flags & (IB_MR_REREG_TRANS | IB_MR_REREG_ACCESS)) {
		err = rnic_mr_pin_pbl(rib, start, length, iova, access, &umem,
				      &pb);
	} else {
		pgsz = ib_umem_find_best_pgsz(umem, rib->caps.page_sizes,
					      iova);
		err = pgsz ? rnic_pbl_from_umem(rib, umem, pgsz, true, &pb) :
			     -EINVAL;
	}
	if (err)
		return ERR_PTR(err);
	stag = RNIC_STAG(mr->index, RNIC_STAG_KEY(ibmr->lkey) + 1);
	err = rnic_mr_cmd(rib, RNIC_CMD_REREG_MR, stag, to_rpd(ibpd)->pdn,
			  access, 0, iova, length, &pb);
	rnic_pbl_free(rib, &pb);
	if (err) {
		if (umem != mr->umem)
			ib_umem_release(umem);
		return ERR_PTR(err);
	}
	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	ibmr->lkey = stag;
	ibmr->rkey = stag;
	ibmr->iova = iova;
	ibmr->length = length;
	mr->access = access;
	return NULL;
}

struct ib_mr *rnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct rnic_ib *rib = to_rib(ibpd->device);
	struct rnic_admin_cmd cmd = {};
	struct rnic_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG ||
	    !(rib->rdev->caps.features & RNIC_FEAT_FRMR))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > rib->caps.max_mr_pages)
		return ERR_PTR(-EINVAL);
	mr = rnic_mr_new(rib);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->max_pages = max_num_sg;
	mr->pages = dma_alloc_coherent(&rib->rdev->pdev->dev,
				       mr->max_pages * sizeof(__le64),
				       &mr->pages_dma, GFP_KERNEL);
	err = -ENOMEM;
	if (!mr->pages)
		goto err;
	cmd.hdr.opcode = RNIC_CMD_ALLOC_MR;
	cmd.u.alloc_mr.stag = cpu_to_le32(mr->ibmr.lkey);
	cmd.u.alloc_mr.pdn = cpu_to_le32(to_rpd(ibpd)->pdn);
	cmd.u.alloc_mr.max_pages = cpu_to_le32(mr->max_pages);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err;
	return &mr->ibmr;
err:
	rnic_mr_release(rib, mr);
	return ERR_PTR(err);
}

static int rnic_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rnic_mr *mr = to_rmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/*
 * The caller owns the ordering: a page list still named by a posted
 * REG_MR must not be remapped before that WQE completed (as for every
 * FRWR device).
 */
int rnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		   unsigned int *sg_offset)
{
	struct rnic_ib *rib = to_rib(ibmr->device);
	struct rnic_mr *mr = to_rmr(ibmr);

	if (!mr->pages || !is_power_of_2(ibmr->page_size) ||
	    !(rib->caps.page_sizes & ibmr->page_size))
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, nents, sg_offset, rnic_set_page);
}

int rnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibmr->device);
	struct rnic_mr *mr = to_rmr(ibmr);
	struct rnic_admin_cmd cmd = {};
	int err;

	/*
	 * Memory windows bound to the MR make the device refuse (BUSY): the
	 * MR stays, as verbs asks; uverbs retries after the windows go.
	 */
	cmd.hdr.opcode = RNIC_CMD_DEREG_MR;
	cmd.u.obj.id = cpu_to_le32(ibmr->lkey);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err == -EBUSY)
		return err;
	if (err && err != -EIO)
		rnic_dev_fail(rib->rdev, "RDMA object teardown refused");
	rnic_mr_release(rib, mr);
	return 0;
}
