// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rnic provider: shared receive queues.  Same 128-byte WQEs as an RQ, its own
 * doorbell (RNIC_DB_SRQ); completions arrive on the CQs of the QPs using it.
 */
#include <errno.h>
#include <stdlib.h>

#include <ccan/minmax.h>
#include <util/util.h>

#include "rnic.h"
#include "rnic_abi.h"

struct ibv_srq *rnic_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct rnic_context *ctx = to_rnic_ctx(pd->context);
	struct rnic_ucmd_create_srq_resp resp = {};
	struct rnic_ucmd_create_srq cmd = {};
	struct ibv_srq_init_attr init = *attr;
	struct rnic_srq *srq;
	uint32_t depth;
	size_t len;
	int ret;

	depth = rnic_queue_depth(attr->attr.max_wr);
	if (depth > ctx->max_srq_wr || attr->attr.max_sge > ctx->max_recv_sge) {
		errno = EINVAL;
		return NULL;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	if (pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE))
		goto err_free;
	len = rnic_ring_len(depth, RNIC_RQ_WQE_SIZE);
	if (rnic_alloc_queue_mem(&srq->mem, len))
		goto err_lock;

	cmd.drv_payload.buf_va = (uintptr_t)srq->mem.buf;
	cmd.drv_payload.buf_len = len;
	init.attr.max_wr = depth;
	init.attr.max_sge = ctx->max_recv_sge;	/* room is there in every WQE */
	ret = ibv_cmd_create_srq(pd, &srq->ibv_srq, &init, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err_mem;
	}

	depth = resp.drv_payload.depth;
	if (!rnic_wq_fits(depth, RNIC_RQ_WQE_SIZE, len)) {
		verbs_err(&ctx->ibv_ctx, "rnic: driver answered SRQ depth %u for a %zu-byte ring\n",
			  depth, len);
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		errno = EPROTO;
		goto err_mem;
	}

	srq->srqn = resp.drv_payload.srqn;
	rnic_wq_init(&srq->wq, srq->mem.buf, depth, RNIC_RQ_WQE_SIZE,
		     min_t(uint32_t, init.attr.max_sge, RNIC_RQ_MAX_SGE));
	attr->attr.max_wr = depth;
	attr->attr.max_sge = srq->wq.max_sge;
	return &srq->ibv_srq;

err_mem:
	rnic_free_queue_mem(&srq->mem);
err_lock:
	pthread_spin_destroy(&srq->lock);
err_free:
	free(srq);
	return NULL;
}

int rnic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	/* The ring is sized at creation: only the limit can change. */
	if (attr_mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int rnic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int rnic_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rnic_srq *srq = to_rnic_srq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	rnic_free_queue_mem(&srq->mem);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int rnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct rnic_srq *srq = to_rnic_srq(ibsrq);

	return rnic_post_rq(to_rnic_ctx(ibsrq->context), &srq->lock, &srq->wq,
			    RNIC_DB_SRQ, srq->srqn, wr, bad_wr);
}
