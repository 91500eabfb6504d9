// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues: a ring of 128-byte receive WQEs the device takes
 * in order for every QP bound to it.  post_srq_recv lives in ib_post.c.
 */
#include <linux/pci.h>
#include <rdma/ib_user_verbs.h>

#include "rnic/abi.h"
#include "ib.h"

static void rnic_srq_free_mem(struct rnic_ib *rib, struct rnic_srq *srq)
{
	if (srq->user)
		rnic_umem_ring_put(rib, &srq->uring);
	else
		rnic_ring_free(rib->rdev, &srq->ring);
}

int rnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *a,
		    struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibsrq->device);
	struct rnic_srq *srq = to_rsrq(ibsrq);
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_create_srq *c = &cmd.u.create_srq;
	struct rnic_create_srq_resp resp = {};
	struct rnic_create_srq_req req;
	u32 depth;
	int id, err;

	if (!(rib->rdev->caps.features & RNIC_FEAT_SRQ) || !rib->caps.max_srq)
		return -EOPNOTSUPP;
	if (a->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->attr.max_wr || a->attr.max_wr > rib->caps.max_srq_wr ||
	    a->attr.max_sge > rib->caps.max_recv_sge ||
	    a->attr.srq_limit > a->attr.max_wr)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	id = ida_alloc_max(&rib->srq_ida, rib->caps.max_srq - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	srq->srqn = id;
	srq->max_sge = max_t(u32, a->attr.max_sge, 1);
	srq->limit = a->attr.srq_limit;

	if (udata) {
		srq->user = true;
		err = rnic_udata_req(udata, &req, sizeof(req));
		if (err)
			goto err_ida;
		err = rnic_umem_ring_get(rib, &srq->uring, req.buf_va,
					 req.buf_len, RNIC_RQ_WQE_SIZE,
					 a->attr.max_wr, rib->caps.max_srq_wr);
		if (err)
			goto err_ida;
		depth = srq->uring.depth;
		rnic_pbl_to_hw(&srq->uring.pbl, &c->ring);
	} else {
		depth = rnic_depth(a->attr.max_wr, rib->caps.max_srq_wr);
		err = rnic_ring_alloc(rib->rdev, &srq->ring, depth,
				      RNIC_RQ_WQE_SIZE);
		if (err)
			goto err_ida;
		rnic_ring_to_pbl(&srq->ring, &c->ring);
	}

	cmd.hdr.opcode = RNIC_CMD_CREATE_SRQ;
	c->srqn = cpu_to_le32(srq->srqn);
	c->pdn = cpu_to_le32(to_rpd(ibsrq->pd)->pdn);
	c->uctx = cpu_to_le32(rnic_udata_uctx(udata));
	c->log_depth = ilog2(depth);
	c->max_sge = srq->max_sge;
	c->limit = cpu_to_le16(min_t(u32, srq->limit, U16_MAX));
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err_mem;
	a->attr.max_wr = depth;
	a->attr.max_sge = srq->max_sge;
	resp.srqn = srq->srqn;
	resp.depth = depth;
	err = rnic_obj_publish(&rib->srqs, srq->srqn, srq, udata, &resp,
			       sizeof(resp));
	if (err)
		goto err_hw;
	return 0;

err_hw:
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DESTROY_SRQ, srq->srqn);
err_mem:
	rnic_srq_free_mem(rib, srq);
err_ida:
	ida_free(&rib->srq_ida, srq->srqn);
	return err;
}

static u32 rnic_srq_depth(struct rnic_srq *srq)
{
	return srq->user ? srq->uring.depth : srq->ring.depth;
}

/* Only the limit can change; the ring has a fixed size. */
int rnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);
	struct rnic_admin_cmd cmd = {};
	int err;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > rnic_srq_depth(srq))
		return -EINVAL;
	cmd.hdr.opcode = RNIC_CMD_MODIFY_SRQ;
	cmd.u.modify_srq.srqn = cpu_to_le32(srq->srqn);
	cmd.u.modify_srq.limit = cpu_to_le16(min_t(u32, attr->srq_limit,
						   U16_MAX));
	err = rnic_admin_exec(ib_rdev(ibsrq->device), &cmd, NULL);
	if (!err)
		srq->limit = attr->srq_limit;
	return err;
}

int rnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);

	attr->max_wr = rnic_srq_depth(srq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int rnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibsrq->device);
	struct rnic_srq *srq = to_rsrq(ibsrq);

	xa_erase_irq(&rib->srqs, srq->srqn);
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DESTROY_SRQ, srq->srqn);
	synchronize_irq(pci_irq_vector(rib->rdev->pdev, RNIC_EQN_ASYNC));
	rnic_srq_free_mem(rib, srq);
	ida_free(&rib->srq_ida, srq->srqn);
	return 0;
}
