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

/*
 * RFC 7306 FetchAdd / CompareSwap: one 8-byte local buffer receives the
 * original value, the target is a naturally aligned 64-bit word.
 */
static int rnic_wqe_atomic(struct rnic_qp *qp, const struct ib_send_wr *wr,
			   struct rnic_sq_wqe *w)
{
	const struct ib_atomic_wr *a = atomic_wr(wr);

	if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
	    (a->remote_addr & 7) || (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	w->hdr.opcode = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			RNIC_WR_ATOMIC_CSWAP : RNIC_WR_ATOMIC_FADD;
	w->op.atomic.remote_addr = cpu_to_le64(a->remote_addr);
	w->op.atomic.rkey = cpu_to_le32(a->rkey);
	w->op.atomic.compare_add = cpu_to_le64(a->compare_add);
	w->op.atomic.swap = cpu_to_le64(a->swap);
	return rnic_wqe_sges(qp, wr, w);
}

/* Fill one SQ WQE from wr; rnic_postq_slot zeroed the slot. */
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
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!(feat & RNIC_FEAT_ATOMICS))
			return -EOPNOTSUPP;
		err = rnic_wqe_atomic(qp, wr, w);
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

/* A ring a post verb fills, and the doorbell that hands it to the device. */
struct rnic_postq {
	spinlock_t *lock;	/* prod, the ring's slots, the doorbell */
	struct rnic_ring *ring;
	u32 *prod;		/* free-running producer index */
	const u32 *cons;	/* advanced by poll_cq */
	u32 depth;
	u32 db;			/* RNIC_DB_SQ, RNIC_DB_RQ or RNIC_DB_SRQ */
	u32 qn;			/* QPN or SRQN */
	struct rnic_cq *cq;	/* flushes on a dead device; NULL for an SRQ */
};

/* The next slot, zeroed, or NULL while every slot waits for its CQE. */
static void *rnic_postq_slot(const struct rnic_postq *q)
{
	void *w;

	if (*q->prod - READ_ONCE(*q->cons) >= q->depth)
		return NULL;
	w = rnic_ring_entry(q->ring, *q->prod);
	memset(w, 0, q->ring->entry_size);
	return w;
}

static void rnic_postq_push(const struct rnic_postq *q)
{
	WRITE_ONCE(*q->prod, *q->prod + 1);
}

/* One doorbell for every WQE written since start; the lock is held. */
static void rnic_postq_doorbell(struct rnic_dev *rdev,
				const struct rnic_postq *q, u32 start)
{
	/* writeq orders the WQE stores before the doorbell. */
	if (*q->prod != start)
		rnic_ring_db(rdev, q->db, q->qn, 0, *q->prod);
}

/* Nothing will complete on a dead device: poll_cq flushes what was posted. */
static void rnic_postq_kick(struct rnic_dev *rdev, const struct rnic_postq *q,
			    u32 start)
{
	if (rnic_dead(rdev) && READ_ONCE(*q->prod) != start)
		rnic_cq_kick(q->cq);
}

int rnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct rnic_dev *rdev = ib_rdev(ibqp->device);
	struct rnic_qp *qp = to_rqp(ibqp);
	const struct rnic_postq sq = {
		.lock = &qp->sq_lock, .ring = &qp->sq,
		.prod = &qp->sq_prod, .cons = &qp->sq_cons,
		.depth = qp->sq_depth, .db = RNIC_DB_SQ, .qn = qp->qpn,
		.cq = qp->scq,
	};
	unsigned long flags;
	u32 start;
	int err = 0;

	if (qp->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(sq.lock, flags);
	start = qp->sq_prod;
	for (; wr; wr = wr->next) {
		struct rnic_sq_wqe *w = rnic_postq_slot(&sq);

		err = w ? rnic_build_wqe(qp, wr, w) : -ENOMEM;
		if (err)
			break;
		rnic_postq_push(&sq);
	}
	rnic_postq_doorbell(rdev, &sq, start);
	spin_unlock_irqrestore(sq.lock, flags);
	if (err)
		*bad_wr = wr;
	rnic_postq_kick(rdev, &sq, start);
	return err;
}

static int rnic_build_rqe(const struct ib_recv_wr *wr, u32 max_sge,
			  struct rnic_rq_wqe *w)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	w->wr_id = cpu_to_le64(wr->wr_id);
	w->num_sge = cpu_to_le16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++) {
		w->sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		w->sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		w->sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
	return 0;
}

/* post_recv and post_srq_recv: the same 128-byte WQEs into either ring. */
static int rnic_post_rqes(struct rnic_dev *rdev, const struct rnic_postq *q,
			  u32 max_sge, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	u32 start;
	int err = 0;

	spin_lock_irqsave(q->lock, flags);
	start = *q->prod;
	for (; wr; wr = wr->next) {
		struct rnic_rq_wqe *w = rnic_postq_slot(q);

		err = w ? rnic_build_rqe(wr, max_sge, w) : -ENOMEM;
		if (err)
			break;
		rnic_postq_push(q);
	}
	rnic_postq_doorbell(rdev, q, start);
	spin_unlock_irqrestore(q->lock, flags);
	if (err)
		*bad_wr = wr;
	rnic_postq_kick(rdev, q, start);
	return err;
}

int rnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct rnic_qp *qp = to_rqp(ibqp);
	const struct rnic_postq rq = {
		.lock = &qp->rq_lock, .ring = &qp->rq,
		.prod = &qp->rq_prod, .cons = &qp->rq_cons,
		.depth = qp->rq_depth, .db = RNIC_DB_RQ, .qn = qp->qpn,
		.cq = qp->rcq,
	};

	if (qp->user)
		return -EOPNOTSUPP;
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return rnic_post_rqes(ib_rdev(ibqp->device), &rq, qp->max_recv_sge,
			      wr, bad_wr);
}

int rnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct rnic_srq *srq = to_rsrq(ibsrq);
	const struct rnic_postq q = {
		.lock = &srq->lock, .ring = &srq->ring,
		.prod = &srq->prod, .cons = &srq->cons,
		.depth = srq->ring.depth, .db = RNIC_DB_SRQ, .qn = srq->srqn,
	};

	if (srq->user)
		return -EOPNOTSUPP;
	return rnic_post_rqes(ib_rdev(ibsrq->device), &q, srq->max_sge, wr,
			      bad_wr);
}
