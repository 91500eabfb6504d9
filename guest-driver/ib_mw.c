// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows (RNIC_FEAT_MW): ALLOC_MW / DEALLOC_MW for user space
 * (ibv_alloc_mw).  A window takes an STag index from the MRs' allocator:
 * the device keeps MRs and windows in one STag table.  Binding is a
 * BIND_MW WQE the provider posts on the SQ; the driver never sees it.
 */
#include <linux/random.h>
#include "ib.h"

int rnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibmw->device);
	struct rnic_mw *mw = to_rmw(ibmw);
	struct rnic_admin_cmd cmd = {};
	int id, err;

	if (!(rib->rdev->caps.features & RNIC_FEAT_MW))
		return -EOPNOTSUPP;
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	id = ida_alloc_range(&rib->mr_ida, 1, rib->caps.max_mr - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	mw->index = id;
	ibmw->rkey = RNIC_STAG(mw->index, get_random_u32());
	cmd.hdr.opcode = RNIC_CMD_ALLOC_MW;
	cmd.u.alloc_mw.stag = cpu_to_le32(ibmw->rkey);
	cmd.u.alloc_mw.pdn = cpu_to_le32(to_rpd(ibmw->pd)->pdn);
	cmd.u.alloc_mw.type = ibmw->type == IB_MW_TYPE_1 ? RNIC_MW_TYPE_1 :
							    RNIC_MW_TYPE_2;
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err) {
		ida_free(&rib->mr_ida, mw->index);
		return err;
	}
	return 0;
}

/* A bound window is unbound by the device (verbs' dealloc of a bound MW). */
int rnic_dealloc_mw(struct ib_mw *ibmw)
{
	struct rnic_ib *rib = to_rib(ibmw->device);
	struct rnic_mw *mw = to_rmw(ibmw);

	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DEALLOC_MW, ibmw->rkey);
	ida_free(&rib->mr_ida, mw->index);
	return 0;
}
