// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel data path: work requests become 256-byte SQ WQEs / 128-byte RQ
 * WQEs in the QP's rings, then one doorbell with the new free-running
 * producer index.  A ring slot is free again once a CQE retired it
 * (poll_cq advances the consumer indices).
 */
#include "ib.h"

static u8 rnic_wqe_flags(const struct rnic_qp *qp, const struct ib_send_wr *wr)
{
	u8 f = 0;

	if (qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		f |= RNIC_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		f |= RNIC_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		f |= RNIC_WQE_FENCE;
	return f;
}

/* Copy the SGEs' bytes into the WQE (IB_SEND_INLINE): no lkey needed. */
static int rnic_wqe_inline(struct rnic_qp *qp, const struct ib_send_wr *wr,
			   struct rnic_sq_wqe *w)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *s = &wr->sg_list[i];

		if (s->length > qp->max_inline - len)
			return -EINVAL;
		memcpy(w->data.inline_data + len,
		       (void *)(uintptr_t)s->addr, s->length);
		len += s->length;
	}
	w->hdr.flags |= RNIC_WQE_INLINE;
	w->hdr.count = cpu_to_le16(len);
	return 0;
}

static int rnic_wqe_sges(struct rnic_qp *qp, const struct ib_send_wr *wr,
			 struct rnic_sq_wqe *w)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE)
		return rnic_wqe_inline(qp, wr, w);
	for (i = 0; i < wr->num_sge; i++) {
		w->data.sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		w->data.sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		w->data.sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
	w->hdr.count = cpu_to_le16(wr->num_sge);
	return 0;
}

static int rnic_wqe_reg_mr(const struct ib_reg_wr *reg, struct rnic_sq_wqe *w)
{
	struct rnic_mr *mr = to_rmr(reg->mr);
	struct rnic_wqe_reg_mr *r = &w->op.reg_mr;

	if (!mr->pages || !mr->npages)
		return -EINVAL;
	r->iova = cpu_to_le64(mr->ibmr.iova);
	r->length = cpu_to_le64(mr->ibmr.length);
	r->stag = cpu_to_le32(reg->key);
	r->access = cpu_to_le32(rnic_ib_access(reg->access));
	r->pages.addr = cpu_to_le64(mr->pages_dma);
	r->pages.nentries = cpu_to_le32(mr->npages);
	r->pages.page_shift = ilog2(mr->ibmr.page_size);
	r->pages.levels = 1;
	/* The new key is the MR's from now on (dereg names the STag). */
	mr->ibmr.lkey = reg->key;
	mr->ibmr.rkey = reg->key;
	return 0;
}

/* Fill one SQ WQE from wr; the slot was zeroed by the caller. */
static int rnic_build_wqe(struct rnic_qp *qp, const struct ib_send_wr *wr,
			  struct rnic_sq_wqe *w)
{
	u32 feat = ib_rdev(qp->ibqp.device)->caps.features;
	int err = 0;

	w->hdr.wr_id = cpu_to_le64(wr->wr_id);
	w->hdr.flags = rnic_wqe_flags(qp, wr);
	switch (wr->opcode) {
	case IB_WR_SEND:
		w->hdr.opcode = RNIC_WR_SEND;
		err = rnic_wqe_sges(qp, wr, w);
		break;
	case IB_WR_SEND_WITH_INV:
		w->hdr.opcode = RNIC_WR_SEND_INV;
		w->hdr.ex = cpu_to_le32(wr->ex.invalidate_rkey);
		err = rnic_wqe_sges(qp, wr, w);
		break;
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!(feat & RNIC_FEAT_IMM))
			return -EOPNOTSUPP;
		/* ex carries the 4 immediate bytes in wire order. */
		w->hdr.ex = (__force __le32)wr->ex.imm_data;
		if (wr->opcode == IB_WR_SEND_WITH_IMM) {
			w->hdr.opcode = RNIC_WR_SEND_IMM;
			err = rnic_wqe_sges(qp, wr, w);
			break;
		}
		w->hdr.opcode = RNIC_WR_WRITE_IMM;
		fallthrough;
	case IB_WR_RDMA_WRITE:
		if (wr->opcode == IB_WR_RDMA_WRITE)
			w->hdr.opcode = RNIC_WR_WRITE;
		w->op.rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		w->op.rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		err = rnic_wqe_sges(qp, wr, w);
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		if (wr->send_flags & IB_SEND_INLINE)
			return -EINVAL;
		w->hdr.opcode = RNIC_WR_READ;
		/*
		 * rdma_rw reads this way on iWARP: the sink MR is invalidated.
		 * Name it by the sink SGE's lkey, as siw does: rdma_rw bumps
		 * the key after filling ex.invalidate_rkey, which goes stale.
		 */
		if (wr->opcode == IB_WR_RDMA_READ_WITH_INV) {
			w->hdr.opcode = RNIC_WR_READ_INV;
			w->hdr.ex = cpu_to_le32(wr->num_sge ?
						wr->sg_list[0].lkey :
						wr->ex.invalidate_rkey);
		}
		w->op.rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		w->op.rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		err = rnic_wqe_sges(qp, wr, w);
		break;
	case IB_WR_LOCAL_INV:
		w->hdr.opcode = RNIC_WR_LOCAL_INV;
		w->hdr.ex = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_REG_MR:
		w->hdr.opcode = RNIC_WR_REG_MR;
		err = rnic_wqe_reg_mr(reg_wr(wr), w);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return err;
}

int rnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct rnic_dev *rdev = ib_rdev(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	unsigned long flags;
	u32 start;
	int err = 0;

	if (qp->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&qp->sq_lock, flags);
	start = qp->sq_prod;
	for (; wr; wr = wr->next) {
		struct rnic_sq_wqe *w;

		if (qp->sq_prod - READ_ONCE(qp->sq_cons) >= qp->sq_depth) {
			err = -ENOMEM;
			break;
		}
		w = rnic_ring_entry(&qp->sq, qp->sq_prod);
		memset(w, 0, sizeof(*w));
		err = rnic_build_wqe(qp, wr, w);
		if (err)
			break;
		WRITE_ONCE(qp->sq_prod, qp->sq_prod + 1);
	}
	/* writeq orders the WQE stores before the doorbell. */
	if (qp->sq_prod != start)
		rnic_ring_db(rdev, RNIC_DB_SQ, qp->qpn, 0, qp->sq_prod);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	/* Nothing will complete on a dead device: poll_cq flushes these. */
	if (rnic_dead(rdev) && qp->sq_prod != start)
		rnic_cq_kick(qp->scq);
	return err;
}

static int rnic_build_rqe(const struct ib_recv_wr *wr, u32 max_sge,
			  struct rnic_rq_wqe *w)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->wr_id = cpu_to_le64(wr->wr_id);
	w->num_sge = cpu_to_le16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++) {
		w->sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		w->sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		w->sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
	return 0;
}

int rnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct rnic_dev *rdev = ib_rdev(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	unsigned long flags;
	u32 start;
	int err = 0;

	if (qp->user)
		return -EOPNOTSUPP;
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	start = qp->rq_prod;
	for (; wr; wr = wr->next) {
		if (qp->rq_prod - READ_ONCE(qp->rq_cons) >= qp->rq_depth) {
			err = -ENOMEM;
			break;
		}
		err = rnic_build_rqe(wr, qp->max_recv_sge,
				     rnic_ring_entry(&qp->rq, qp->rq_prod));
		if (err)
			break;
		WRITE_ONCE(qp->rq_prod, qp->rq_prod + 1);
	}
	if (qp->rq_prod != start)
		rnic_ring_db(rdev, RNIC_DB_RQ, qp->qpn, 0, qp->rq_prod);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (err)
		*bad_wr = wr;
	if (rnic_dead(rdev) && qp->rq_prod != start)
		rnic_cq_kick(qp->rcq);
	return err;
}

int rnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct rnic_dev *rdev = ib_rdev(ibsrq->device);
	struct rnic_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	u32 start;
	int err = 0;

	if (srq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&srq->lock, flags);
	start = srq->prod;
	for (; wr; wr = wr->next) {
		if (srq->prod - srq->cons >= srq->ring.depth) {
			err = -ENOMEM;
			break;
		}
		err = rnic_build_rqe(wr, srq->max_sge,
				     rnic_ring_entry(&srq->ring, srq->prod));
		if (err)
			break;
		srq->prod++;
	}
	if (srq->prod != start)
		rnic_ring_db(rdev, RNIC_DB_SRQ, srq->srqn, 0, srq->prod);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
