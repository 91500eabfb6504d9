// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains and completion queues.  A kernel CQ is a coherent
 * ring of 32-byte CQEs with a phase bit; the driver returns its consumer
 * index through the consumer record (dbrec) and arms through the CQ
 * doorbell.  User CQs live in the provider's memory; the kernel only pins
 * them and never polls them.
 */
#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <rdma/ib_user_verbs.h>

#include "rnic/abi.h"
#include "ib.h"

int rnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibpd->device);
	struct rnic_pd *pd = to_rpd(ibpd);
	struct rnic_admin_cmd cmd = {};
	struct rnic_alloc_pd_resp resp = {};
	int id, err;

	id = ida_alloc_max(&rib->pd_ida, rib->caps.max_pd - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	pd->pdn = id;
	pd->uctx = rnic_udata_uctx(udata);
	cmd.hdr.opcode = RNIC_CMD_CREATE_PD;
	cmd.u.create_pd.pdn = cpu_to_le32(pd->pdn);
	cmd.u.create_pd.uctx = cpu_to_le32(pd->uctx);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err_ida;
	if (udata) {
		resp.pdn = pd->pdn;
		err = rnic_udata_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_hw;
	}
	return 0;

err_hw:
	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DESTROY_PD, pd->pdn);
err_ida:
	ida_free(&rib->pd_ida, pd->pdn);
	return err;
}

int rnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibpd->device);
	struct rnic_pd *pd = to_rpd(ibpd);

	rnic_ib_destroy_hw(rib->rdev, RNIC_CMD_DESTROY_PD, pd->pdn);
	ida_free(&rib->pd_ida, pd->pdn);
	return 0;
}

static void rnic_cq_free_mem(struct rnic_ib *rib, struct rnic_cq *cq)
{
	struct device *dev = &rib->rdev->pdev->dev;

	if (cq->user) {
		rnic_umem_ring_put(rib, &cq->uring);
		ib_umem_release(cq->dbrec_umem);
		cq->dbrec_umem = NULL;
		return;
	}
	rnic_ring_free(rib->rdev, &cq->ring);
	if (cq->dbrec)
		dma_free_coherent(dev, sizeof(*cq->dbrec), cq->dbrec,
				  cq->dbrec_dma);
	cq->dbrec = NULL;
}

int rnic_create_cq_udata(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibcq->device);
	struct rnic_dev *rdev = rib->rdev;
	struct rnic_cq *cq = to_rcq(ibcq);
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_create_cq *c = &cmd.u.create_cq;
	struct rnic_create_cq_resp resp = {};
	struct rnic_create_cq_req req;
	dma_addr_t dbrec;
	u32 depth;
	int id, err;

	if (attr->flags || attr->cqe < 1 || attr->cqe >= rib->caps.max_cqe)
		return -EINVAL;
	spin_lock_init(&cq->lock);
	id = ida_alloc_max(&rib->cq_ida, rib->caps.max_cq - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	cq->cqn = id;

	if (udata) {
		cq->user = true;
		err = rnic_udata_req(udata, &req, sizeof(req));
		if (err)
			goto err_ida;
		err = rnic_umem_ring_get(rib, &cq->uring, req.buf_va,
					 req.buf_len, RNIC_CQE_SIZE, attr->cqe,
					 rib->caps.max_cqe);
		if (err)
			goto err_ida;
		depth = cq->uring.depth;
		err = -EINVAL;
		dbrec = rnic_umem_rec_get(rib, req.dbrec_va, &cq->dbrec_umem);
		if (!dbrec)
			goto err_mem;
		rnic_pbl_to_hw(&cq->uring.pbl, &c->ring);
	} else {
		depth = rnic_depth(attr->cqe, rib->caps.max_cqe);
		err = rnic_ring_alloc(rdev, &cq->ring, depth, RNIC_CQE_SIZE);
		if (err)
			goto err_ida;
		cq->dbrec = dma_alloc_coherent(&rdev->pdev->dev,
					       sizeof(*cq->dbrec),
					       &cq->dbrec_dma, GFP_KERNEL);
		err = -ENOMEM;
		if (!cq->dbrec)
			goto err_mem;
		dbrec = cq->dbrec_dma;
		rnic_ring_to_pbl(&cq->ring, &c->ring);
	}

	cmd.hdr.opcode = RNIC_CMD_CREATE_CQ;
	c->cqn = cpu_to_le32(cq->cqn);
	c->eqn = cpu_to_le32(RNIC_EQN_COMP);
	c->uctx = cpu_to_le32(rnic_udata_uctx(udata));
	c->log_depth = ilog2(depth);
	c->dbrec_addr = cpu_to_le64(dbrec);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (err)
		goto err_mem;
	ibcq->cqe = depth;
	resp.cqn = cq->cqn;
	resp.depth = depth;
	err = rnic_obj_publish(&rib->cqs, cq->cqn, cq, udata, &resp,
			       sizeof(resp));
	if (err)
		goto err_hw;
	return 0;

err_hw:
	rnic_ib_destroy_hw(rdev, RNIC_CMD_DESTROY_CQ, cq->cqn);
err_mem:
	rnic_cq_free_mem(rib, cq);
err_ida:
	ida_free(&rib->cq_ida, cq->cqn);
	return err;
}

/*
 * User CQs only: the provider holds its CQ lock across the command, so
 * nothing polls the old ring while the device moves the CQEs.  A kernel
 * CQ would need the same of every poller; no kernel consumer resizes.
 */
int rnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibcq->device);
	struct rnic_cq *cq = to_rcq(ibcq);
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_resize_cq *c = &cmd.u.resize_cq;
	struct rnic_resize_cq_resp resp = {};
	struct rnic_resize_cq_req req;
	struct rnic_umem_ring uring = {};
	struct ib_umem *dbrec_umem;
	dma_addr_t dbrec;
	u32 carried;
	int err;

	if (!cq->user || !udata)
		return -EOPNOTSUPP;
	if (!(rib->rdev->caps.features & RNIC_FEAT_RESIZE_CQ))
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe >= rib->caps.max_cqe)
		return -EINVAL;
	err = rnic_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	err = rnic_umem_ring_get(rib, &uring, req.buf_va, req.buf_len,
				 RNIC_CQE_SIZE, cqe, rib->caps.max_cqe);
	if (err)
		return err;
	err = -EINVAL;
	dbrec = rnic_umem_rec_get(rib, req.dbrec_va, &dbrec_umem);
	if (!dbrec)
		goto err_ring;

	cmd.hdr.opcode = RNIC_CMD_RESIZE_CQ;
	c->cqn = cpu_to_le32(cq->cqn);
	c->log_depth = ilog2(uring.depth);
	c->dbrec_addr = cpu_to_le64(dbrec);
	rnic_pbl_to_hw(&uring.pbl, &c->ring);
	err = rnic_admin_exec(rib->rdev, &cmd, &carried);
	if (err)
		goto err_rec;
	/* The device has let go of the old ring and record. */
	rnic_umem_ring_put(rib, &cq->uring);
	ib_umem_release(cq->dbrec_umem);
	cq->uring = uring;
	cq->dbrec_umem = dbrec_umem;
	ibcq->cqe = uring.depth;
	resp.depth = uring.depth;
	resp.carried = carried;
	return rnic_udata_resp(udata, &resp, sizeof(resp));

err_rec:
	ib_umem_release(dbrec_umem);
err_ring:
	rnic_umem_ring_put(rib, &uring);
	return err;
}

int rnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibcq->device);
	struct rnic_dev *rdev = rib->rdev;
	struct rnic_cq *cq = to_rcq(ibcq);

	xa_erase_irq(&rib->cqs, cq->cqn);
	rnic_ib_destroy_hw(rdev, RNIC_CMD_DESTROY_CQ, cq->cqn);
	/* An event handler that found the CQ before the erase is done. */
	synchronize_irq(pci_irq_vector(rdev->pdev, RNIC_EQN_COMP));
	synchronize_irq(pci_irq_vector(rdev->pdev, RNIC_EQN_ASYNC));
	rnic_cq_free_mem(rib, cq);
	ida_free(&rib->cq_ida, cq->cqn);
	return 0;
}

static enum ib_wc_status rnic_wc_status(u8 s)
{
	switch (s) {
	case RNIC_WC_SUCCESS: return IB_WC_SUCCESS;
	case RNIC_WC_LOC_LEN_ERR: return IB_WC_LOC_LEN_ERR;
	case RNIC_WC_LOC_QP_OP_ERR: return IB_WC_LOC_QP_OP_ERR;
	case RNIC_WC_LOC_PROT_ERR: return IB_WC_LOC_PROT_ERR;
	case RNIC_WC_WR_FLUSH_ERR: return IB_WC_WR_FLUSH_ERR;
	case RNIC_WC_BAD_RESP_ERR: return IB_WC_BAD_RESP_ERR;
	case RNIC_WC_LOC_ACCESS_ERR: return IB_WC_LOC_ACCESS_ERR;
	case RNIC_WC_REM_INV_REQ_ERR: return IB_WC_REM_INV_REQ_ERR;
	case RNIC_WC_REM_ACCESS_ERR: return IB_WC_REM_ACCESS_ERR;
	case RNIC_WC_REM_OP_ERR: return IB_WC_REM_OP_ERR;
	case RNIC_WC_RETRY_EXC_ERR: return IB_WC_RETRY_EXC_ERR;
	case RNIC_WC_FATAL_ERR: return IB_WC_FATAL_ERR;
	case RNIC_WC_MW_BIND_ERR: return IB_WC_MW_BIND_ERR;
	default: return IB_WC_GENERAL_ERR;
	}
}

static enum ib_wc_opcode rnic_wc_opcode(u8 op)
{
	switch (op) {
	case RNIC_WC_SEND: return IB_WC_SEND;
	case RNIC_WC_WRITE: return IB_WC_RDMA_WRITE;
	case RNIC_WC_READ: return IB_WC_RDMA_READ;
	case RNIC_WC_ATOMIC_FADD: return IB_WC_FETCH_ADD;
	case RNIC_WC_ATOMIC_CSWAP: return IB_WC_COMP_SWAP;
	case RNIC_WC_LOCAL_INV: return IB_WC_LOCAL_INV;
	case RNIC_WC_REG_MR: return IB_WC_REG_MR;
	case RNIC_WC_BIND_MW: return IB_WC_BIND_MW;
	case RNIC_WC_RECV_WRITE_IMM: return IB_WC_RECV_RDMA_WITH_IMM;
	default: return IB_WC_RECV;
	}
}

/* A completion frees its WQE and, for the SQ, every unsignaled one before. */
static void rnic_cq_retire(struct rnic_qp *qp, const struct rnic_cqe *cqe)
{
	u16 slot = le16_to_cpu(cqe->wqe_idx);

	if (qp->user)
		return;
	if ((cqe->opcode & RNIC_WC_RECV) && qp->srq) {
		/* QPs on other CQs retire from the same SRQ. */
		spin_lock(&qp->srq->lock);
		qp->srq->cons++;
		spin_unlock(&qp->srq->lock);
	} else if (cqe->opcode & RNIC_WC_RECV) {
		WRITE_ONCE(qp->rq_cons, qp->rq_cons +
			   ((slot - qp->rq_cons) & (qp->rq_depth - 1)) + 1);
	} else {
		WRITE_ONCE(qp->sq_cons, qp->sq_cons +
			   ((slot - qp->sq_cons) & (qp->sq_depth - 1)) + 1);
	}
}

static void rnic_cqe_to_wc(struct rnic_ib *rib, const struct rnic_cqe *cqe,
			   struct ib_wc *wc)
{
	struct rnic_qp *qp = xa_load(&rib->qps, le32_to_cpu(cqe->qpn));

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = rnic_wc_status(cqe->status);
	wc->opcode = rnic_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = qp ? &qp->ibqp : NULL;
	wc->port_num = 1;
	if (cqe->flags & RNIC_CQE_F_IMM) {
		/* ex carries the 4 immediate bytes in wire order. */
		wc->ex.imm_data = (__force __be32)cqe->ex;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & RNIC_CQE_F_INV) {
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->ex);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (qp)
		rnic_cq_retire(qp, cqe);
}

/* A WQE the dead device will never complete: report it flushed. */
static void rnic_flush_wc(struct rnic_qp *qp, u64 wr_id, bool recv,
			  struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IB_WC_WR_FLUSH_ERR;
	wc->opcode = recv ? IB_WC_RECV : IB_WC_SEND;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
}

/*
 * After a device reset nothing completes any more: hand out flush
 * completions for what kernel QPs still have posted, read back from their
 * own rings, so ib_drain_qp() and ULP teardown finish.
 */
static int rnic_cq_flush_sw(struct rnic_ib *rib, struct rnic_cq *cq,
			    struct ib_wc *wc, int num)
{
	struct rnic_qp *qp;
	unsigned long idx;
	int n = 0;

	xa_for_each(&rib->qps, idx, qp) {
		if (qp->user)
			continue;
		while (n < num && qp->scq == cq &&
		       READ_ONCE(qp->sq_cons) != READ_ONCE(qp->sq_prod)) {
			struct rnic_sq_wqe *w = rnic_ring_entry(&qp->sq,
								qp->sq_cons);

			rnic_flush_wc(qp, le64_to_cpu(w->hdr.wr_id), false,
				      &wc[n++]);
			WRITE_ONCE(qp->sq_cons, qp->sq_cons + 1);
		}
		while (n < num && qp->rcq == cq && !qp->srq &&
		       READ_ONCE(qp->rq_cons) != READ_ONCE(qp->rq_prod)) {
			struct rnic_rq_wqe *w = rnic_ring_entry(&qp->rq,
								qp->rq_cons);

			rnic_flush_wc(qp, le64_to_cpu(w->wr_id), true,
				      &wc[n++]);
			WRITE_ONCE(qp->rq_cons, qp->rq_cons + 1);
		}
		if (n == num)
			break;
	}
	return n;
}

/* Does a dead device leave flush completions for this CQ to hand out? */
static bool rnic_cq_sw_pending(struct rnic_ib *rib, struct rnic_cq *cq)
{
	struct rnic_qp *qp;
	unsigned long idx;

	xa_for_each(&rib->qps, idx, qp) {
		if (qp->user)
			continue;
		if (qp->scq == cq &&
		    READ_ONCE(qp->sq_cons) != READ_ONCE(qp->sq_prod))
			return true;
		if (qp->rcq == cq && !qp->srq &&
		    READ_ONCE(qp->rq_cons) != READ_ONCE(qp->rq_prod))
			return true;
	}
	return false;
}

/* The device is gone: wake the CQ's consumer so it polls the flushes. */
void rnic_cq_kick(struct rnic_cq *cq)
{
	if (cq && !cq->user && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static bool rnic_cqe_ready(struct rnic_cq *cq)
{
	struct rnic_cqe *cqe = rnic_ring_entry(&cq->ring, cq->cons);

	return (READ_ONCE(cqe->owner) & RNIC_CQE_PHASE) ==
	       rnic_phase(cq->cons, cq->ring.depth);
}

int rnic_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct rnic_ib *rib = to_rib(ibcq->device);
	struct rnic_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	int n = 0;

	if (cq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && rnic_cqe_ready(cq)) {
		/* owner is written last: read the rest after it. */
		dma_rmb();
		rnic_cqe_to_wc(rib, rnic_ring_entry(&cq->ring, cq->cons),
			       &wc[n++]);
		cq->cons++;
	}
	if (n)
		WRITE_ONCE(*cq->dbrec, cpu_to_le64(cq->cons));
	if (n < num && rnic_dead(rib->rdev))
		n += rnic_cq_flush_sw(rib, cq, wc + n, num - n);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int rnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rnic_dev *rdev = ib_rdev(ibcq->device);
	struct rnic_cq *cq = to_rcq(ibcq);
	u32 arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  RNIC_DB_ARM_SOLICITED : RNIC_DB_ARM;
	unsigned long irqf;
	int ret = 0;

	if (cq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, irqf);
	rnic_ring_db(rdev, RNIC_DB_CQ, cq->cqn, arm, cq->cons);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (rnic_cqe_ready(cq) ||
	     (rnic_dead(rdev) && rnic_cq_sw_pending(to_rib(ibcq->device), cq))))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return ret;
}
