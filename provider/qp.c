// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rnic provider: queue pairs.
 *
 * post_send/post_recv write 256/128-byte WQEs into the rings (rnic_ring.h),
 * then one write barrier and one 64-bit doorbell carrying the new producer
 * index.  The QP table lets poll_cq find the queue a completion frees.
 */
#include <errno.h>
#include <stdlib.h>

#include <ccan/minmax.h>
#include <util/util.h>

#include "rnic.h"
#include "rnic_abi.h"

struct rnic_qp *rnic_find_qp(struct rnic_context *ctx, uint32_t qpn)
{
	struct rnic_qp **leaf;

	if (qpn >> RNIC_QPN_BITS)
		return NULL;
	leaf = __atomic_load_n(&ctx->qp_table[qpn >> RNIC_QP_LEAF_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	return __atomic_load_n(&leaf[qpn & (RNIC_QP_LEAF_SIZE - 1)],
			       __ATOMIC_ACQUIRE);
}

static int rnic_store_qp(struct rnic_context *ctx, uint32_t qpn,
			 struct rnic_qp *qp)
{
	struct rnic_qp ***dir = &ctx->qp_table[qpn >> RNIC_QP_LEAF_SHIFT];
	int ret = 0;

	if (qpn >> RNIC_QPN_BITS)
		return EINVAL;
	pthread_mutex_lock(&ctx->qp_table_mutex);
	if (!*dir) {
		struct rnic_qp **leaf = calloc(RNIC_QP_LEAF_SIZE, sizeof(*leaf));

		if (!leaf) {
			ret = ENOMEM;
			goto out;
		}
		__atomic_store_n(dir, leaf, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&(*dir)[qpn & (RNIC_QP_LEAF_SIZE - 1)], qp,
			 __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return ret;
}

/* Both CQs of a QP, in address order so two destroyers cannot deadlock. */
static void rnic_lock_cqs(struct ibv_qp *ibqp)
{
	struct rnic_cq *a = to_rnic_cq(ibqp->send_cq);
	struct rnic_cq *b = to_rnic_cq(ibqp->recv_cq);

	if (a == b) {
		pthread_spin_lock(&a->lock);
		return;
	}
	if (a > b) {
		struct rnic_cq *t = a;

		a = b;
		b = t;
	}
	pthread_spin_lock(&a->lock);
	pthread_spin_lock(&b->lock);
}

static void rnic_unlock_cqs(struct ibv_qp *ibqp)
{
	struct rnic_cq *a = to_rnic_cq(ibqp->send_cq);
	struct rnic_cq *b = to_rnic_cq(ibqp->recv_cq);

	pthread_spin_unlock(&a->lock);
	if (a != b)
		pthread_spin_unlock(&b->lock);
}

/* Requests the device cannot hold are refused before asking the kernel. */
static bool rnic_qp_caps_ok(struct rnic_context *ctx,
			    const struct ibv_qp_init_attr *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;

	return cap->max_send_wr <= ctx->max_qp_wr &&
	       cap->max_send_sge <= ctx->max_send_sge &&
	       cap->max_inline_data <= ctx->max_inline &&
	       (attr->srq || (cap->max_recv_wr <= ctx->max_qp_wr &&
			      cap->max_recv_sge <= ctx->max_recv_sge));
}

static void rnic_qp_init_rings(struct rnic_qp *qp, size_t sq_len,
			       const struct rnic_create_qp_resp *r,
			       const struct ibv_qp_cap *cap)
{
	rnic_wq_init(&qp->sq, qp->mem.buf, r->sq_depth, RNIC_SQ_WQE_SIZE,
		     min_t(uint32_t, cap->max_send_sge, RNIC_SQ_MAX_SGE));
	qp->sq.max_inline = r->max_inline;
	if (qp->srq)
		return;
	rnic_wq_init(&qp->rq, (uint8_t *)qp->mem.buf + sq_len, r->rq_depth,
		     RNIC_RQ_WQE_SIZE,
		     min_t(uint32_t, cap->max_recv_sge, RNIC_RQ_MAX_SGE));
}

struct ibv_qp *rnic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct rnic_context *ctx = to_rnic_ctx(pd->context);
	struct rnic_ucmd_create_qp_resp resp = {};
	struct rnic_ucmd_create_qp cmd = {};
	struct rnic_create_qp_resp *r = &resp.drv_payload;
	struct ibv_qp_init_attr init = *attr;
	uint32_t sq_depth, rq_depth;
	size_t sq_len, rq_len;
	struct rnic_qp *qp;
	int ret;

	if (attr->qp_type != IBV_QPT_RC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!rnic_qp_caps_ok(ctx, attr)) {
		errno = EINVAL;
		return NULL;
	}
	sq_depth = rnic_queue_depth(attr->cap.max_send_wr);
	rq_depth = attr->srq ? 0 : rnic_queue_depth(attr->cap.max_recv_wr);
	if (sq_depth > ctx->max_qp_wr || rq_depth > ctx->max_qp_wr) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	if (pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE))
		goto err_free;
	if (pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE))
		goto err_sq_lock;
	qp->srq = attr->srq ? to_rnic_srq(attr->srq) : NULL;

	sq_len = rnic_ring_len(sq_depth, RNIC_SQ_WQE_SIZE);
	rq_len = rnic_ring_len(rq_depth, RNIC_RQ_WQE_SIZE);
	if (rnic_alloc_queue_mem(&qp->mem, sq_len + rq_len))
		goto err_rq_lock;

	cmd.drv_payload.sq_va = (uintptr_t)qp->mem.buf;
	cmd.drv_payload.sq_len = sq_len;
	cmd.drv_payload.rq_va = rq_len ? (uintptr_t)qp->mem.buf + sq_len : 0;
	cmd.drv_payload.rq_len = rq_len;
	/*
	 * Every WQE has room for the device's maxima, so ask for them: the
	 * caps written back are at least what the caller wanted.
	 */
	init.cap.max_send_wr = sq_depth;
	init.cap.max_recv_wr = rq_depth;
	init.cap.max_send_sge = ctx->max_send_sge;
	init.cap.max_recv_sge = attr->srq ? 0 : ctx->max_recv_sge;
	init.cap.max_inline_data = ctx->max_inline;
	ret = ibv_cmd_create_qp(pd, &qp->ibv_qp, &init, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err_mem;
	}

	/* The rings are ours: a driver answer that overruns them is refused. */
	if (!rnic_wq_fits(r->sq_depth, RNIC_SQ_WQE_SIZE, sq_len) ||
	    (qp->srq ? r->rq_depth != 0 :
	     !rnic_wq_fits(r->rq_depth, RNIC_RQ_WQE_SIZE, rq_len)) ||
	    r->max_inline > RNIC_SQ_MAX_INLINE) {
		verbs_err(&ctx->ibv_ctx, "rnic: driver answered SQ %u RQ %u inline %u for rings of %zu/%zu bytes\n",
			  r->sq_depth, r->rq_depth, r->max_inline, sq_len,
			  rq_len);
		errno = EPROTO;
		goto err_destroy;
	}

	qp->qpn = r->qpn;
	qp->sq_policy.features = ctx->features;
	qp->sq_policy.sig_all = attr->sq_sig_all;
	rnic_qp_init_rings(qp, sq_len, r, &init.cap);

	errno = rnic_store_qp(ctx, qp->qpn, qp);
	if (errno)
		goto err_destroy;

	attr->cap = init.cap;
	attr->cap.max_send_wr = qp->sq.depth;
	attr->cap.max_recv_wr = qp->rq.depth;
	attr->cap.max_inline_data = qp->sq.max_inline;
	return &qp->ibv_qp;

err_destroy:
	ret = errno;
	ibv_cmd_destroy_qp(&qp->ibv_qp);
	errno = ret;
err_mem:
	rnic_free_queue_mem(&qp->mem);
err_rq_lock:
	pthread_spin_destroy(&qp->rq_lock);
err_sq_lock:
	pthread_spin_destroy(&qp->sq_lock);
err_free:
	free(qp);
	return NULL;
}

int rnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int rnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int rnic_destroy_qp(struct ibv_qp *ibqp)
{
	struct rnic_context *ctx = to_rnic_ctx(ibqp->context);
	struct rnic_qp *qp = to_rnic_qp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	/*
	 * No poller holds the QP once it is out of the table under its CQs'
	 * locks; later completions of it find nothing to retire.
	 */
	rnic_lock_cqs(ibqp);
	rnic_store_qp(ctx, qp->qpn, NULL);
	rnic_unlock_cqs(ibqp);

	rnic_free_queue_mem(&qp->mem);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}

int rnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct rnic_context *ctx = to_rnic_ctx(ibqp->context);
	struct rnic_qp *qp = to_rnic_qp(ibqp);
	uint32_t old;
	int ret;

	pthread_spin_lock(&qp->sq_lock);
	old = qp->sq.prod;
	ret = rnic_sq_post(&qp->sq, &qp->sq_policy, wr, bad_wr);
	rnic_wq_doorbell(ctx, RNIC_DB_SQ, qp->qpn, &qp->sq, old);
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

/*
 * ibv_bind_mw (type 1 windows) is a BIND_MW WQE like IBV_WR_BIND_MW, with
 * the window's next key; the new rkey holds once the WQE is posted (an
 * error completion leaves the window unbound, as verbs says).
 */
int rnic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int ret;

	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = rnic_post_send(ibqp, &wr, &bad_wr);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

int rnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct rnic_qp *qp = to_rnic_qp(ibqp);

	if (qp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	return rnic_post_rq(to_rnic_ctx(ibqp->context), &qp->rq_lock, &qp->rq,
			    RNIC_DB_RQ, qp->qpn, wr, bad_wr);
}
