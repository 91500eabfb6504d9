// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs (RC only).  iWARP QPs reach RTS through the connection
 * manager, not through modify_qp: INIT/RTR/RTS requests before the
 * connection only record attributes, RTS comes with CM_CONNECT/CM_ACCEPT,
 * SQD means graceful close (CM_DISCONNECT) and ERR means flush + abort.
 * The QP memory belongs to the core and is freed after destroy_qp, so
 * destroy waits until iw_cm and the CM endpoint dropped their references.
 */
#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <rdma/ib_user_verbs.h>

#include "rnic/abi.h"
#include "ib.h"

struct ib_qp *rnic_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct rnic_qp *qp = xa_load(&to_rib(ibdev)->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

void rnic_qp_get(struct ib_qp *ibqp)
{
	refcount_inc(&to_rqp(ibqp)->ref);
}

void rnic_qp_put(struct ib_qp *ibqp)
{
	struct rnic_qp *qp = to_rqp(ibqp);

	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->free);
}

static int rnic_qp_check_caps(struct rnic_ib *rib, struct ib_qp_init_attr *a)
{
	struct ib_qp_cap *cap = &a->cap;
	struct rnic_ib_caps *c = &rib->caps;

	if (a->qp_type != IB_QPT_RC || a->create_flags)
		return -EOPNOTSUPP;
	if (!a->send_cq || !a->recv_cq)
		return -EINVAL;
	if (!cap->max_send_wr || cap->max_send_wr > c->max_qp_wr ||
	    cap->max_send_sge > c->max_send_sge ||
	    cap->max_inline_data > c->max_inline)
		return -EINVAL;
	if (a->srq)
		return 0;
	if (!cap->max_recv_wr || cap->max_recv_wr > c->max_qp_wr ||
	    cap->max_recv_sge > c->max_recv_sge)
		return -EINVAL;
	return 0;
}

static void rnic_qp_free_mem(struct rnic_ib *rib, struct rnic_qp *qp)
{
	if (qp->user) {
		rnic_umem_ring_put(rib, &qp->usq);
		rnic_umem_ring_put(rib, &qp->urq);
		return;
	}
	rnic_ring_free(rib->rdev, &qp->sq);
	rnic_ring_free(rib->rdev, &qp->rq);
}

/* The rings: coherent memory for kernel QPs, the provider's for user QPs. */
static int rnic_qp_alloc_mem(struct rnic_ib *rib, struct rnic_qp *qp,
			     struct ib_qp_init_attr *a, struct ib_udata *udata,
			     struct rnic_cmd_create_qp *c)
{
	u32 max = rib->caps.max_qp_wr;
	struct rnic_create_qp_req req;
	int err;

	if (!udata) {
		qp->sq_depth = rnic_depth(a->cap.max_send_wr, max);
		err = rnic_ring_alloc(rib->rdev, &qp->sq, qp->sq_depth,
				      RNIC_SQ_WQE_SIZE);
		if (err)
			return err;
		rnic_ring_to_pbl(&qp->sq, &c->sq);
		if (a->srq)
			return 0;
		qp->rq_depth = rnic_depth(a->cap.max_recv_wr, max);
		err = rnic_ring_alloc(rib->rdev, &qp->rq, qp->rq_depth,
				      RNIC_RQ_WQE_SIZE);
		if (err)
			return err;
		rnic_ring_to_pbl(&qp->rq, &c->rq);
		return 0;
	}

	qp->user = true;
	err = rnic_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	err = rnic_umem_ring_get(rib, &qp->usq, req.sq_va, req.sq_len,
				 RNIC_SQ_WQE_SIZE, a->cap.max_send_wr, max);
	if (err)
		return err;
	qp->sq_depth = qp->usq.depth;
	rnic_pbl_to_hw(&qp->usq.pbl, &c->sq);
	if (a->srq)
		return 0;
	err = rnic_umem_ring_get(rib, &qp->urq, req.rq_va, req.rq_len,
				 RNIC_RQ_WQE_SIZE, a->cap.max_recv_wr, max);
	if (err)
		return err;
	qp->rq_depth = qp->urq.depth;
	rnic_pbl_to_hw(&qp->urq.pbl, &c->rq);
	return 0;
}

int rnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *a,
		   struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_create_qp *c = &cmd.u.create_qp;
	struct rnic_create_qp_resp resp = {};
	int id, err;

	err = rnic_qp_check_caps(rib, a);
	if (err)
		return err;
	id = ida_alloc_range(&rib->qp_ida, 1, rib->caps.max_qp - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	qp->qpn = id;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->free);
	mutex_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	/* An iWARP QP is born idle, which verbs call INIT (as siw does). */
	qp->state = IB_QPS_INIT;
	qp->scq = to_rcq(a->send_cq);
	qp->rcq = to_rcq(a->recv_cq);
	qp->srq = a->srq ? to_rsrq(a->srq) : NULL;
	qp->sig_all = a->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = max_t(u32, a->cap.max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, a->cap.max_recv_sge, 1);
	qp->max_inline = a->cap.max_inline_data;
	qp->ird = rib->caps.max_ird;
	qp->ord = rib->caps.max_ord;

	err = rnic_qp_alloc_mem(rib, qp, a, udata, c);
	if (err)
		goto err_mem;

	cmd.hdr.opcode = RNIC_CMD_CREATE_QP;
	c->qpn = cpu_to_le32(qp->qpn);
	c->pdn = cpu_to_le32(to_rpd(ibqp->pd)->pdn);
	c->uctx = cpu_to_le32(rnic_udata_uctx(udata));
	c->send_cqn = cpu_to_le32(qp->scq->cqn);
	c->recv_cqn = cpu_to_le32(qp->rcq->cqn);
	c->srqn = cpu_to_le32(qp->srq ? qp->srq->srqn : RNIC_NO_SRQ);
	c->sq_log_depth = ilog2(qp->sq_depth);
	c->rq_log_depth = qp->srq ? 0 : ilog2(qp->rq_depth);
	c->max_send_sge = qp->max_send_sge;
	c->max_recv_sge = qp->max_recv_sge;
	c->max_inline = cpu_to_le16(qp->max_inline);
	c->flags = cpu_to_le16(qp->sig_all ? RNIC_QP_F_SQ_SIG_ALL : 0);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err_mem;

	ibqp->qp_num = qp->qpn;
	a->cap.max_send_wr = qp->sq_depth;
	a->cap.max_recv_wr = qp->srq ? 0 : qp->rq_depth;
	a->cap.max_send_sge = qp->max_send_sge;
	a->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;
	resp.qpn = qp->qpn;
	resp.sq_depth = qp->sq_depth;
	resp.rq_depth = qp->srq ? 0 : qp->rq_depth;
	resp.max_inline = qp->max_inline;
	err = rnic_obj_publish(&rib->qps, qp->qpn, qp, udata, &resp,
			       sizeof(resp));
	if (err)
		goto err_hw;
	return 0;

err_hw:
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DESTROY_QP, qp->qpn);
err_mem:
	rnic_qp_free_mem(rib, qp);
	ida_free(&rib->qp_ida, qp->qpn);
	return err;
}

int rnic_qp_hw_modify(struct rnic_qp *qp, u8 state)
{
	struct rnic_admin_cmd cmd = {};

	cmd.hdr.opcode = RNIC_CMD_MODIFY_QP;
	cmd.u.modify_qp.qpn = cpu_to_le32(qp->qpn);
	cmd.u.modify_qp.attr_mask = cpu_to_le32(RNIC_QP_ATTR_STATE);
	cmd.u.modify_qp.state = state;
	return rnic_admin_exec(ib_rdev(qp->ibqp.device), &cmd, NULL);
}

/* Access rights and IRD/ORD: only meaningful before the connection. */
static int rnic_qp_hw_attrs(struct rnic_qp *qp, struct ib_qp_attr *attr,
			    int mask)
{
	struct rnic_ib *rib = to_rib(qp->ibqp.device);
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_modify_qp *m = &cmd.u.modify_qp;
	u32 hwmask = 0;

	if (mask & IB_QP_ACCESS_FLAGS) {
		qp->access = attr->qp_access_flags;
		m->access = cpu_to_le32(rnic_ib_access(qp->access));
		hwmask |= RNIC_QP_ATTR_ACCESS;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > rib->caps.max_ird)
			return -EINVAL;
		qp->ird = attr->max_dest_rd_atomic;
		m->ird = qp->ird;
		hwmask |= RNIC_QP_ATTR_IRD;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > rib->caps.max_ord)
			return -EINVAL;
		qp->ord = attr->max_rd_atomic;
		m->ord = qp->ord;
		hwmask |= RNIC_QP_ATTR_ORD;
	}
	if (!hwmask)
		return 0;
	cmd.hdr.opcode = RNIC_CMD_MODIFY_QP;
	m->qpn = cpu_to_le32(qp->qpn);
	m->attr_mask = cpu_to_le32(hwmask);
	return rnic_admin_exec(rib->rdev, &cmd, NULL);
}

/*
 * A connection enables RDMA Read/Write on its QP, as iw_cm_init_qp_attr()
 * does for every iWARP QP.  rdma_cm's kernel users get those flags through
 * modify_qp, but librdmacm applies them on the active side before the
 * iw_cm id exists (access 0): grant them again when connecting/accepting.
 * iw_cm has no word for remote atomics; IB's CM grants them with remote
 * reads, and so does this.  They only ever run on a connection that
 * negotiated RFC 7306, and the target MR needs IB_ACCESS_REMOTE_ATOMIC.
 */
int rnic_qp_grant_iw_access(struct rnic_qp *qp)
{
	u32 feat = ib_rdev(qp->ibqp.device)->caps.features;
	struct ib_qp_attr attr = {
		.qp_access_flags = qp->access | IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ,
	};
	int err;

	if (feat & RNIC_FEAT_ATOMICS)
		attr.qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;

	mutex_lock(&qp->state_lock);
	err = rnic_qp_hw_attrs(qp, &attr, IB_QP_ACCESS_FLAGS);
	mutex_unlock(&qp->state_lock);
	return err;
}

static bool rnic_qp_unconnected(enum ib_qp_state s)
{
	return s == IB_QPS_RESET || s == IB_QPS_INIT || s == IB_QPS_RTR;
}

int rnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	enum ib_qp_state cur, new;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* rdma_cm's RTS step for iWARP is an empty mask: nothing to do. */
	if (!mask)
		return 0;
	mutex_lock(&qp->state_lock);
	cur = qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (mask & (IB_QP_ACCESS_FLAGS | IB_QP_MAX_DEST_RD_ATOMIC |
		    IB_QP_MAX_QP_RD_ATOMIC)) {
		if (!rnic_qp_unconnected(cur) && new != IB_QPS_ERR) {
			err = -EINVAL;
			goto out;
		}
		if (new != IB_QPS_ERR)
			err = rnic_qp_hw_attrs(qp, attr, mask);
		if (err)
			goto out;
	}
	if (!(mask & IB_QP_STATE) || new == cur)
		goto out;

	switch (new) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		if (!rnic_qp_unconnected(cur))
			err = -EINVAL;
		break;
	case IB_QPS_RTS:
		/* The device moves it when the connection is up. */
		if (!rnic_qp_unconnected(cur))
			err = -EINVAL;
		break;
	case IB_QPS_SQD:
		/* iw_cm's graceful disconnect: FIN once the SQ drained. */
		if (cur == IB_QPS_RTS)
			err = rnic_cm_qp_close(rib, qp, false);
		break;
	case IB_QPS_ERR:
		err = rnic_qp_hw_modify(qp, RNIC_QPS_ERROR);
		rnic_cm_qp_close(rib, qp, true);
		/* A dead device flushes in software (poll_cq). */
		if (err == -EIO)
			err = 0;
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	if (!err)
		qp->state = new;
out:
	mutex_unlock(&qp->state_lock);
	if (!err && new == IB_QPS_ERR && rnic_dead(rib->rdev)) {
		rnic_cq_kick(qp->scq);
		rnic_cq_kick(qp->rcq);
	}
	return err;
}

static enum ib_qp_state rnic_qp_state_from_hw(u8 s, enum ib_qp_state idle)
{
	switch (s) {
	case RNIC_QPS_RTS: return IB_QPS_RTS;
	case RNIC_QPS_CLOSING: return IB_QPS_SQD;
	case RNIC_QPS_TERMINATE: return IB_QPS_SQE;
	case RNIC_QPS_ERROR: return IB_QPS_ERR;
	default: return idle;
	}
}

int rnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct rnic_dev *rdev = ib_rdev(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	struct rnic_admin_cmd cmd = {};
	struct rnic_qp_attr *hw;
	dma_addr_t dma;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	attr->max_dest_rd_atomic = qp->ird;
	attr->max_rd_atomic = qp->ord;
	hw = dma_alloc_coherent(&rdev->pdev->dev, sizeof(*hw), &dma, GFP_KERNEL);
	if (hw) {
		cmd.hdr.opcode = RNIC_CMD_QUERY_QP;
		cmd.u.query_qp.qpn = cpu_to_le32(qp->qpn);
		cmd.u.query_qp.buf_len = cpu_to_le32(sizeof(*hw));
		cmd.u.query_qp.buf_addr = cpu_to_le64(dma);
		if (!rnic_admin_exec(rdev, &cmd, NULL)) {
			attr->qp_state = rnic_qp_state_from_hw(hw->state,
							       qp->state);
			attr->max_dest_rd_atomic = hw->ird;
			attr->max_rd_atomic = hw->ord;
		}
		dma_free_coherent(&rdev->pdev->dev, sizeof(*hw), hw, dma);
	}
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(rdev->netdev->mtu));
	attr->cap.max_send_wr = qp->sq_depth;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq_depth;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->port_num = 1;
	init->qp_type = IB_QPT_RC;
	init->send_cq = &qp->scq->ibcq;
	init->recv_cq = &qp->rcq->ibcq;
	init->srq = qp->srq ? &qp->srq->ibsrq : NULL;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int rnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibqp->device);
	struct rnic_dev *rdev = rib->rdev;
	struct rnic_qp *qp = to_rqp(ibqp);

	/* A connection still using the QP is aborted and let go first. */
	rnic_cm_qp_gone(rib, qp);
	xa_erase_irq(&rib->qps, qp->qpn);
	rnic_ib_destroy_hw(rdev, RNIC_CMD_DESTROY_QP, qp->qpn);
	synchronize_irq(pci_irq_vector(rdev->pdev, RNIC_EQN_ASYNC));
	rnic_qp_put(ibqp);
	wait_for_completion(&qp->free);
	rnic_qp_free_mem(rib, qp);
	ida_free(&rib->qp_ida, qp->qpn);
	return 0;
}
