// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User space: contexts (one doorbell page each, mapped uncached into the
 * process) and the udata of the create verbs (docs/hardware-interface.md
 * section 10).
 */
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

/* A create verb's request: the provider sends at least the whole struct. */
int rnic_udata_req(struct ib_udata *udata, void *req, size_t len)
{
	if (udata->inlen < len)
		return -EINVAL;
	return ib_copy_from_udata(req, udata, len);
}

/* A verb's response, cut to what an older provider has room for. */
int rnic_udata_resp(struct ib_udata *udata, const void *resp, size_t len)
{
	return ib_copy_to_udata(udata, (void *)resp, min(len, udata->outlen));
}

/*
 * A create verb's last step: the object becomes findable by the event
 * handlers, then the provider gets resp; a failed answer undoes the first.
 */
int rnic_obj_publish(struct xarray *xa, u32 id, void *obj,
		     struct ib_udata *udata, const void *resp, size_t len)
{
	int err = xa_err(xa_store_irq(xa, id, obj, GFP_KERNEL));

	if (err || !udata)
		return err;
	err = rnic_udata_resp(udata, resp, len);
	if (err)
		xa_erase_irq(xa, id);
	return err;
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
	err = rnic_udata_resp(udata, &resp, sizeof(resp));
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
