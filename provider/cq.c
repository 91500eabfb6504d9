// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rnic provider: completion queues.
 *
 * The device writes 32-byte CQEs with the phase bit last; we poll the phase,
 * read the entry behind a read barrier, and publish the consumer index in the
 * doorbell record (no MMIO).  Arming is the one doorbell of the CQ.
 */
#include <errno.h>
#include <stdlib.h>

#include <util/util.h>

#include "rnic.h"
#include "rnic_abi.h"

struct ibv_cq *rnic_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct rnic_context *ctx = to_rnic_ctx(ibctx);
	struct rnic_ucmd_create_cq_resp resp = {};
	struct rnic_ucmd_create_cq cmd = {};
	size_t ring_len;
	uint32_t depth;
	struct rnic_cq *cq;
	int ret;

	if (cqe < 1 || (uint32_t)cqe > ctx->max_cqe) {
		errno = EINVAL;
		return NULL;
	}
	depth = rnic_queue_depth(cqe);

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE))
		goto err_free;

	/* Ring pages, then a page whose first 8 bytes are the dbrec. */
	ring_len = rnic_ring_len(depth, RNIC_CQE_SIZE);
	if (rnic_alloc_queue_mem(&cq->mem, ring_len + RNIC_PAGE_SIZE))
		goto err_lock;

	cmd.drv_payload.buf_va = (uintptr_t)cq->mem.buf;
	cmd.drv_payload.buf_len = ring_len;
	cmd.drv_payload.dbrec_va = (uintptr_t)cq->mem.buf + ring_len;
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->ibv_cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		errno = ret;
		goto err_mem;
	}

	/*
	 * The driver sizes the CQ by the ring it pins (possibly deeper than
	 * asked: whole pages); trust its depth only if it fits that ring.
	 */
	depth = resp.drv_payload.depth;
	if (depth < (uint32_t)cqe ||
	    !rnic_ring_fits(depth, RNIC_CQE_SIZE, ring_len)) {
		verbs_err(&ctx->ibv_ctx, "rnic: driver answered CQ depth %u for a %zu-byte ring\n",
			  depth, ring_len);
		ibv_cmd_destroy_cq(&cq->ibv_cq);
		errno = EPROTO;
		goto err_mem;
	}

	cq->cqn = resp.drv_payload.cqn;
	cq->ring.cqe = cq->mem.buf;
	cq->ring.depth = depth;
	cq->ring.log_depth = ilog32(depth) - 1;
	cq->ring.cons = 0;
	cq->ring.dbrec = (__le32 *)((uint8_t *)cq->mem.buf + ring_len);
	cq->ibv_cq.cqe = depth;
	return &cq->ibv_cq;

err_mem:
	rnic_free_queue_mem(&cq->mem);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	return NULL;
}

/*
 * A new ring and consumer record; the kernel has the device copy the CQEs
 * not polled yet into its first slots.  The CQ lock is held throughout, so
 * no poll reads the old ring while they move.
 */
int rnic_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rnic_context *ctx = to_rnic_ctx(ibcq->context);
	struct rnic_ucmd_resize_cq_resp resp = {};
	struct rnic_ucmd_resize_cq cmd = {};
	struct rnic_cq *cq = to_rnic_cq(ibcq);
	struct rnic_queue_mem mem;
	size_t ring_len;
	uint32_t depth;
	int ret;

	if (cqe < 1 || (uint32_t)cqe > ctx->max_cqe)
		return EINVAL;
	depth = rnic_queue_depth(cqe);
	ring_len = rnic_ring_len(depth, RNIC_CQE_SIZE);
	if (rnic_alloc_queue_mem(&mem, ring_len + RNIC_PAGE_SIZE))
		return ENOMEM;

	pthread_spin_lock(&cq->lock);
	cmd.drv_payload.buf_va = (uintptr_t)mem.buf;
	cmd.drv_payload.buf_len = ring_len;
	cmd.drv_payload.dbrec_va = (uintptr_t)mem.buf + ring_len;
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret && (resp.drv_payload.depth < (uint32_t)cqe ||
		     !rnic_ring_fits(resp.drv_payload.depth, RNIC_CQE_SIZE,
				     ring_len) ||
		     resp.drv_payload.carried > resp.drv_payload.depth)) {
		/*
		 * The device writes to the new ring now: its memory is left
		 * allocated (never reused by malloc), the CQ is unusable.
		 */
		verbs_err(&ctx->ibv_ctx, "rnic: driver answered CQ depth %u (%u carried) for a %zu-byte ring\n",
			  resp.drv_payload.depth, resp.drv_payload.carried,
			  ring_len);
		pthread_spin_unlock(&cq->lock);
		return EPROTO;
	}
	if (ret) {
		pthread_spin_unlock(&cq->lock);
		rnic_free_queue_mem(&mem);
		return ret;
	}
	rnic_free_queue_mem(&cq->mem);
	cq->mem = mem;
	depth = resp.drv_payload.depth;
	cq->ring.cqe = mem.buf;
	cq->ring.depth = depth;
	cq->ring.log_depth = ilog32(depth) - 1;
	cq->ring.cons = 0;
	cq->ring.dbrec = (__le32 *)((uint8_t *)mem.buf + ring_len);
	cq->ibv_cq.cqe = depth;
	pthread_spin_unlock(&cq->lock);
	return 0;
}

int rnic_destroy_cq(struct ibv_cq *ibcq)
{
	struct rnic_cq *cq = to_rnic_cq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	rnic_free_queue_mem(&cq->mem);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* Free the work queue slot(s) a completion accounts for. */
static void rnic_cq_retire(struct rnic_context *ctx, const struct rnic_cqe *cqe)
{
	struct rnic_qp *qp = rnic_find_qp(ctx, le32toh(cqe->qpn));

	/* A QP destroyed with completions still queued: nothing to free. */
	if (!qp)
		return;
	if (!rnic_cqe_is_recv(cqe))
		rnic_sq_retire(&qp->sq, le16toh(cqe->wqe_idx));
	else if (qp->srq)
		rnic_rq_retire(&qp->srq->wq);
	else
		rnic_rq_retire(&qp->rq);
}

int rnic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rnic_context *ctx = to_rnic_ctx(ibcq->context);
	struct rnic_cq *cq = to_rnic_cq(ibcq);
	const struct rnic_cqe *cqe;
	int n;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < num_entries; n++) {
		cqe = rnic_cq_peek(&cq->ring);
		if (!cqe)
			break;
		/* owner is written last: read the rest only after it. */
		udma_from_device_barrier();
		rnic_cqe_to_wc(cqe, &wc[n]);
		rnic_cq_retire(ctx, cqe);
		rnic_cq_advance(&cq->ring);
	}
	if (n) {
		/* The entries are read before the device may reuse them. */
		udma_to_device_barrier();
		rnic_cq_update_dbrec(&cq->ring);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

int rnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rnic_context *ctx = to_rnic_ctx(ibcq->context);
	struct rnic_cq *cq = to_rnic_cq(ibcq);
	uint64_t db;

	pthread_spin_lock(&cq->lock);
	db = rnic_db_cq_arm(cq->cqn, cq->ring.cons, solicited_only);
	rnic_ring_db(ctx, RNIC_DB_CQ, db);
	pthread_spin_unlock(&cq->lock);
	return 0;
}
