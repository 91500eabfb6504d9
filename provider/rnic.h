/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic provider: objects and shared helpers.
 *
 * Queue memory is allocated here (page-aligned, zeroed, kept out of fork) and
 * pinned by the kernel driver; the only mapping is the context's doorbell
 * page.  post_send/post_recv/poll_cq/req_notify_cq make no system call.
 */
#ifndef RNIC_PROVIDER_H
#define RNIC_PROVIDER_H

#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>
#include <util/util.h>

#include <rnic/hw.h>
#include "rnic_ring.h"

struct rnic_device {
	struct verbs_device ibv_dev;
};

/* qpn -> QP for completions: two levels over the 24-bit QP number. */
#define RNIC_QPN_BITS		24
#define RNIC_QP_LEAF_SHIFT	12
#define RNIC_QP_LEAF_SIZE	(1u << RNIC_QP_LEAF_SHIFT)
#define RNIC_QP_DIR_SIZE	(1u << (RNIC_QPN_BITS - RNIC_QP_LEAF_SHIFT))

struct rnic_qp;

/* Ring memory the provider allocates and the kernel pins. */
struct rnic_queue_mem {
	void *buf;
	size_t size;
};

struct rnic_context {
	struct verbs_context ibv_ctx;
	void *db;		/* this context's doorbell page (write only) */
	uint32_t db_page_size;
	uint32_t uctx;
	uint32_t features;	/* RNIC_FEAT_* */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	uint32_t max_qp_wr;	/* from query_device at context creation */
	uint32_t max_srq_wr;
	uint32_t max_cqe;
	pthread_mutex_t qp_table_mutex;	/* writers; pollers read lock-free */
	struct rnic_qp **qp_table[RNIC_QP_DIR_SIZE];
};

struct rnic_cq {
	struct ibv_cq ibv_cq;
	pthread_spinlock_t lock;
	uint32_t cqn;
	struct rnic_cq_ring ring;
	struct rnic_queue_mem mem;	/* ring pages, then one for the dbrec */
};

struct rnic_srq {
	struct ibv_srq ibv_srq;
	pthread_spinlock_t lock;
	uint32_t srqn;
	struct rnic_work_queue wq;
	struct rnic_queue_mem mem;
};

struct rnic_qp {
	struct ibv_qp ibv_qp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	uint32_t qpn;
	struct rnic_sq_policy sq_policy;
	struct rnic_work_queue sq;
	struct rnic_work_queue rq;	/* depth 0 with an SRQ */
	struct rnic_srq *srq;
	struct rnic_queue_mem mem;	/* SQ pages, then RQ pages */
};

static inline struct rnic_context *to_rnic_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct rnic_context, ibv_ctx.context);
}

static inline struct rnic_cq *to_rnic_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct rnic_cq, ibv_cq);
}

static inline struct rnic_qp *to_rnic_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct rnic_qp, ibv_qp);
}

static inline struct rnic_srq *to_rnic_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct rnic_srq, ibv_srq);
}

/* One 64-bit doorbell store on the context's page (hw.h: never split). */
static inline void rnic_ring_db(struct rnic_context *ctx, uint32_t offset,
				uint64_t val)
{
	mmio_write64_le((uint8_t *)ctx->db + offset, htole64(val));
}

/*
 * The tail of every post: if WQEs were added since @old_prod, they reach
 * memory before one doorbell tells the device the new producer index.
 */
static inline void rnic_wq_doorbell(struct rnic_context *ctx, uint32_t offset,
				    uint32_t obj,
				    const struct rnic_work_queue *wq,
				    uint32_t old_prod)
{
	if (wq->prod == old_prod)
		return;
	udma_to_device_barrier();
	rnic_ring_db(ctx, offset, rnic_db_producer(obj, wq->prod));
}

/* post_recv and post_srq_recv: the same WQEs into an RQ or an SRQ. */
static inline int rnic_post_rq(struct rnic_context *ctx,
			       pthread_spinlock_t *lock,
			       struct rnic_work_queue *wq, uint32_t offset,
			       uint32_t obj, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	uint32_t old;
	int ret;

	pthread_spin_lock(lock);
	old = wq->prod;
	ret = rnic_rq_post(wq, wr, bad_wr);
	rnic_wq_doorbell(ctx, offset, obj, wq, old);
	pthread_spin_unlock(lock);
	return ret;
}

/* A work queue over @buf once the driver's depth is checked. */
static inline void rnic_wq_init(struct rnic_work_queue *wq, void *buf,
				uint32_t depth, size_t wqe_size,
				uint32_t max_sge)
{
	wq->buf = buf;
	wq->depth = depth;
	wq->wqe_shift = ilog32(wqe_size) - 1;
	wq->max_sge = max_sge;
}

/* Bytes of ring for @depth entries of @entry_size: whole pages. */
static inline size_t rnic_ring_len(uint32_t depth, size_t entry_size)
{
	return align((size_t)depth * entry_size, RNIC_PAGE_SIZE);
}

/* A depth the driver answered: a power of 2 whose entries fit in @len. */
static inline bool rnic_ring_fits(uint32_t depth, size_t entry_size,
				  size_t len)
{
	return depth && !(depth & (depth - 1)) &&
	       (size_t)depth * entry_size <= len;
}

/* The same for an SQ, RQ or SRQ, whose slot numbers CQEs carry in 16 bits. */
static inline bool rnic_wq_fits(uint32_t depth, size_t wqe_size, size_t len)
{
	return depth <= RNIC_MAX_WQ_DEPTH &&
	       rnic_ring_fits(depth, wqe_size, len);
}

/* verbs.c */
int rnic_alloc_queue_mem(struct rnic_queue_mem *mem, size_t size);
void rnic_free_queue_mem(struct rnic_queue_mem *mem);
uint32_t rnic_queue_depth(uint32_t wanted);
int rnic_query_device(struct ibv_context *ibctx,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size);
int rnic_query_port(struct ibv_context *ibctx, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *rnic_alloc_pd(struct ibv_context *ibctx);
int rnic_dealloc_pd(struct ibv_pd *pd);
int rnic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t len, int access);
struct ibv_mr *rnic_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			   uint64_t hca_va, int access);
int rnic_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *rnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rnic_dealloc_mw(struct ibv_mw *mw);
int rnic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);

/* cq.c */
struct ibv_cq *rnic_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int rnic_destroy_cq(struct ibv_cq *ibcq);
int rnic_resize_cq(struct ibv_cq *ibcq, int cqe);
int rnic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int rnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);

/* qp.c */
struct rnic_qp *rnic_find_qp(struct rnic_context *ctx, uint32_t qpn);
struct ibv_qp *rnic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int rnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int rnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int rnic_destroy_qp(struct ibv_qp *ibqp);
int rnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int rnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);

/* srq.c */
struct ibv_srq *rnic_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int rnic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int rnic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int rnic_destroy_srq(struct ibv_srq *ibsrq);
int rnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

#endif /* RNIC_PROVIDER_H */
