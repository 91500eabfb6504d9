/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic provider: the work queue and completion queue ring logic.
 *
 * Everything here works on memory only (WQE slots, CQE slots, the CQ doorbell
 * record) and needs nothing from rdma-core but the public <infiniband/verbs.h>
 * types, so the host unit test (tests/unit/test-provider-ring.c) runs the very
 * code the provider runs.  Barriers and doorbell writes stay with the callers
 * (qp.c, cq.c, srq.c): they are rdma-core's udma_* and mmio_* helpers.
 *
 * Indices are free-running 32-bit counters; the slot is index & (depth - 1).
 */
#ifndef RNIC_RING_H
#define RNIC_RING_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rnic/hw.h>

/* wqe_idx in a CQE is 16 bits wide: no queue may be deeper. */
#define RNIC_MAX_WQ_DEPTH	65536u

/* One SQ, RQ or SRQ as the provider sees it. */
struct rnic_work_queue {
	uint8_t *buf;		/* depth slots of 1 << wqe_shift bytes */
	uint32_t depth;		/* power of 2, <= RNIC_MAX_WQ_DEPTH */
	uint32_t wqe_shift;
	uint32_t prod;		/* written by the poster (under its lock) */
	uint32_t cons;		/* advanced by pollers: atomic access only */
	uint32_t max_sge;
	uint32_t max_inline;	/* SQ only */
};

/* What post_send may put on the wire for this context. */
struct rnic_sq_policy {
	uint32_t features;	/* RNIC_FEAT_* the device reports */
	bool sig_all;		/* the QP was created with sq_sig_all */
};

static inline void *rnic_wq_slot(const struct rnic_work_queue *wq, uint32_t idx)
{
	return wq->buf + ((size_t)(idx & (wq->depth - 1)) << wq->wqe_shift);
}

static inline uint32_t rnic_wq_outstanding(const struct rnic_work_queue *wq)
{
	return __atomic_load_n(&wq->prod, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&wq->cons, __ATOMIC_ACQUIRE);
}

static inline bool rnic_wq_full(const struct rnic_work_queue *wq)
{
	return wq->prod - __atomic_load_n(&wq->cons, __ATOMIC_ACQUIRE) >=
	       wq->depth;
}

/* The poster publishes a new producer index (before ringing the doorbell). */
static inline void rnic_wq_publish(struct rnic_work_queue *wq, uint32_t prod)
{
	__atomic_store_n(&wq->prod, prod, __ATOMIC_RELEASE);
}

/*
 * SQ completion for ring slot @slot: that WQE and every unsignaled one before
 * it are done (the device completes an SQ in order and copied each WQE before
 * executing it), so the consumer moves past @slot.  A slot that names no
 * outstanding WQE is a device bug and is ignored.
 */
static inline bool rnic_sq_retire(struct rnic_work_queue *wq, uint16_t slot)
{
	uint32_t cons = __atomic_load_n(&wq->cons, __ATOMIC_ACQUIRE);
	uint32_t done = ((slot - cons) & (wq->depth - 1)) + 1;

	if (done > rnic_wq_outstanding(wq))
		return false;
	__atomic_store_n(&wq->cons, cons + done, __ATOMIC_RELEASE);
	return true;
}

/*
 * RQ/SRQ completion: one more receive WQE consumed.  An SRQ is shared by
 * several CQs, hence the compare-and-swap.  Nothing outstanding: device bug,
 * ignored.
 */
static inline bool rnic_rq_retire(struct rnic_work_queue *wq)
{
	uint32_t cons = __atomic_load_n(&wq->cons, __ATOMIC_ACQUIRE);

	do {
		if (__atomic_load_n(&wq->prod, __ATOMIC_ACQUIRE) == cons)
			return false;
	} while (!__atomic_compare_exchange_n(&wq->cons, &cons, cons + 1, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return true;
}

static inline void rnic_sge_set(struct rnic_sge *dst, const struct ibv_sge *src)
{
	dst->addr = htole64(src->addr);
	dst->length = htole32(src->length);
	dst->lkey = htole32(src->lkey);
}

/*
 * ex carries the 4 immediate bytes in wire order (the device copies them to
 * and from the wire as they are), which is how verbs holds imm_data: a plain
 * copy, no byte swap.
 */
static inline __le32 rnic_imm_to_hw(__be32 imm)
{
	__le32 ex;

	memcpy(&ex, &imm, sizeof(ex));
	return ex;
}

static inline __be32 rnic_imm_from_hw(__le32 ex)
{
	__be32 imm;

	memcpy(&imm, &ex, sizeof(imm));
	return imm;
}

/* Copy the SGEs' bytes into the WQE; the caller checked the total fits. */
static inline void rnic_wqe_inline(struct rnic_sq_wqe *wqe,
				   const struct ibv_send_wr *wr, uint32_t total)
{
	uint8_t *dst = wqe->data.inline_data;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		dst += wr->sg_list[i].length;
	}
	wqe->hdr.flags |= RNIC_WQE_INLINE;
	wqe->hdr.count = htole16(total);
}

/* Map the verbs opcode to the WQE opcode; -1 for what this device cannot do. */
static inline int rnic_wr_opcode(enum ibv_wr_opcode op, uint32_t features)
{
	switch (op) {
	case IBV_WR_SEND:
		return RNIC_WR_SEND;
	case IBV_WR_SEND_WITH_INV:
		return RNIC_WR_SEND_INV;
	case IBV_WR_RDMA_WRITE:
		return RNIC_WR_WRITE;
	case IBV_WR_RDMA_READ:
		return RNIC_WR_READ;
	case IBV_WR_SEND_WITH_IMM:
		return features & RNIC_FEAT_IMM ? RNIC_WR_SEND_IMM : -1;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return features & RNIC_FEAT_IMM ? RNIC_WR_WRITE_IMM : -1;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return features & RNIC_FEAT_ATOMICS ? RNIC_WR_ATOMIC_FADD : -1;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return features & RNIC_FEAT_ATOMICS ? RNIC_WR_ATOMIC_CSWAP : -1;
	case IBV_WR_LOCAL_INV:
		/* Of the QP's own type 2 windows, in user space. */
		return features & (RNIC_FEAT_FRMR | RNIC_FEAT_MW) ?
		       RNIC_WR_LOCAL_INV : -1;
	case IBV_WR_BIND_MW:
		return features & RNIC_FEAT_MW ? RNIC_WR_BIND_MW : -1;
	default:
		return -1;
	}
}

/* A window's verbs rights as the device's; -1 for what it cannot grant. */
static inline int rnic_mw_access(unsigned int flags)
{
	uint32_t hw = 0;

	if (flags & ~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_ATOMIC))
		return -1;	/* zero-based windows among them */
	if (flags & IBV_ACCESS_REMOTE_READ)
		hw |= RNIC_ACCESS_REMOTE_READ;
	if (flags & IBV_ACCESS_REMOTE_WRITE)
		hw |= RNIC_ACCESS_REMOTE_WRITE;
	if (flags & IBV_ACCESS_REMOTE_ATOMIC)
		hw |= RNIC_ACCESS_REMOTE_ATOMIC;
	return hw;
}

/* BIND_MW: the window's new rkey, the MR (none: unbind a type 1 window). */
static inline int rnic_wqe_bind_mw(struct rnic_sq_wqe *wqe,
				   const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	int access = rnic_mw_access(bi->mw_access_flags);

	if (!wr->bind_mw.mw || wr->num_sge || access < 0 ||
	    (bi->length && !bi->mr))
		return EINVAL;
	wqe->op.bind_mw.mw_stag = htole32(wr->bind_mw.rkey);
	wqe->op.bind_mw.mr_stag = htole32(bi->mr ? bi->mr->lkey : 0);
	wqe->op.bind_mw.va = htole64(bi->addr);
	wqe->op.bind_mw.length = htole64(bi->length);
	wqe->op.bind_mw.access = htole32(access);
	return 0;
}

/*
 * Fill one SQ WQE from @wr.  Returns 0 or EINVAL for a request this QP cannot
 * carry (unknown opcode, too many SGEs, inline too long, bad atomic), in
 * which case the slot's content does not matter: the producer is not advanced.
 */
static inline int rnic_build_sq_wqe(struct rnic_sq_wqe *wqe,
				    const struct rnic_work_queue *sq,
				    const struct rnic_sq_policy *pol,
				    const struct ibv_send_wr *wr)
{
	int op = rnic_wr_opcode(wr->opcode, pol->features);
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	uint64_t total = 0;
	int i;

	if (op < 0 || wr->num_sge < 0 || (uint32_t)wr->num_sge > sq->max_sge)
		return EINVAL;
	if (wr->send_flags & ~(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			       IBV_SEND_SOLICITED | IBV_SEND_INLINE))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;

	memset(wqe, 0, sizeof(*wqe));
	wqe->hdr.wr_id = htole64(wr->wr_id);
	wqe->hdr.opcode = op;
	if ((wr->send_flags & IBV_SEND_SIGNALED) || pol->sig_all)
		wqe->hdr.flags |= RNIC_WQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_FENCE)
		wqe->hdr.flags |= RNIC_WQE_FENCE;

	switch (op) {
	case RNIC_WR_SEND_INV:
	case RNIC_WR_LOCAL_INV:
		wqe->hdr.ex = htole32(wr->invalidate_rkey);
		break;
	case RNIC_WR_SEND_IMM:
	case RNIC_WR_WRITE_IMM:
		wqe->hdr.ex = rnic_imm_to_hw(wr->imm_data);
		break;
	}

	/* SE is meaningful for the Send family and Write with Immediate only. */
	if ((wr->send_flags & IBV_SEND_SOLICITED) &&
	    (op == RNIC_WR_SEND || op == RNIC_WR_SEND_INV ||
	     op == RNIC_WR_SEND_IMM || op == RNIC_WR_WRITE_IMM))
		wqe->hdr.flags |= RNIC_WQE_SOLICITED;

	switch (op) {
	case RNIC_WR_WRITE:
	case RNIC_WR_WRITE_IMM:
	case RNIC_WR_READ:
		wqe->op.rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->op.rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case RNIC_WR_ATOMIC_FADD:
	case RNIC_WR_ATOMIC_CSWAP:
		/*
		 * One 8-byte local buffer receives the original value; the
		 * target must be naturally aligned (RFC 7306).
		 */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    (wr->wr.atomic.remote_addr & 7))
			return EINVAL;
		wqe->op.atomic.remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->op.atomic.rkey = htole32(wr->wr.atomic.rkey);
		wqe->op.atomic.compare_add = htole64(wr->wr.atomic.compare_add);
		wqe->op.atomic.swap = htole64(wr->wr.atomic.swap);
		break;
	case RNIC_WR_LOCAL_INV:
		if (wr->num_sge)
			return EINVAL;
		break;
	case RNIC_WR_BIND_MW:
		if (inl || rnic_wqe_bind_mw(wqe, wr))
			return EINVAL;
		return 0;
	}

	if (inl) {
		/* Data leaves with the WQE: only for operations that send it. */
		if (op == RNIC_WR_READ || op == RNIC_WR_ATOMIC_FADD ||
		    op == RNIC_WR_ATOMIC_CSWAP || op == RNIC_WR_LOCAL_INV)
			return EINVAL;
		if (total > sq->max_inline || total > RNIC_SQ_MAX_INLINE)
			return EINVAL;
		rnic_wqe_inline(wqe, wr, total);
		return 0;
	}

	/* A message's length must fit the 32-bit byte_len of its CQE. */
	if (total > UINT32_MAX)
		return EINVAL;
	wqe->hdr.count = htole16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++)
		rnic_sge_set(&wqe->data.sge[i], &wr->sg_list[i]);
	return 0;
}

/*
 * Write the WQEs of the chain @wr into the SQ, advancing only the local
 * producer.  Returns 0, or EINVAL/ENOMEM with *bad_wr at the first request not
 * posted; the ones before it are in the ring and the caller rings the doorbell
 * for them.  The new producer is sq->prod.
 */
static inline int rnic_sq_post(struct rnic_work_queue *sq,
			       const struct rnic_sq_policy *pol,
			       struct ibv_send_wr *wr,
			       struct ibv_send_wr **bad_wr)
{
	uint32_t prod = sq->prod;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (prod - __atomic_load_n(&sq->cons, __ATOMIC_ACQUIRE) >=
		    sq->depth) {
			ret = ENOMEM;
			break;
		}
		ret = rnic_build_sq_wqe(rnic_wq_slot(sq, prod), sq, pol, wr);
		if (ret)
			break;
		prod++;
	}
	if (ret)
		*bad_wr = wr;
	rnic_wq_publish(sq, prod);
	return ret;
}

/* Fill one RQ/SRQ WQE; EINVAL for too many SGEs. */
static inline int rnic_build_rq_wqe(struct rnic_rq_wqe *wqe,
				    const struct rnic_work_queue *rq,
				    const struct ibv_recv_wr *wr)
{
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->num_sge = htole16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++)
		rnic_sge_set(&wqe->sge[i], &wr->sg_list[i]);
	return 0;
}

/* rnic_sq_post for receive queues (RQ and SRQ). */
static inline int rnic_rq_post(struct rnic_work_queue *rq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	uint32_t prod = rq->prod;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (prod - __atomic_load_n(&rq->cons, __ATOMIC_ACQUIRE) >=
		    rq->depth) {
			ret = ENOMEM;
			break;
		}
		ret = rnic_build_rq_wqe(rnic_wq_slot(rq, prod), rq, wr);
		if (ret)
			break;
		prod++;
	}
	if (ret)
		*bad_wr = wr;
	rnic_wq_publish(rq, prod);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Completion queue                                                    */
/* ------------------------------------------------------------------ */

struct rnic_cq_ring {
	struct rnic_cqe *cqe;	/* depth entries */
	uint32_t depth;		/* power of 2 */
	uint32_t log_depth;
	uint32_t cons;		/* free-running consumer index */
	__le32 *dbrec;		/* where the device reads the consumer index */
};

/* Phase of a valid entry at @idx: 1 on the first pass, flipping each wrap. */
static inline uint8_t rnic_cq_phase(const struct rnic_cq_ring *cq, uint32_t idx)
{
	return ((idx >> cq->log_depth) & 1) ? 0 : RNIC_CQE_PHASE;
}

/*
 * The CQE at the consumer index if the device has written it on this pass,
 * else NULL.  The caller puts a read barrier between this and reading the
 * rest of the entry (the device writes owner last).
 */
static inline const struct rnic_cqe *rnic_cq_peek(const struct rnic_cq_ring *cq)
{
	const struct rnic_cqe *cqe = &cq->cqe[cq->cons & (cq->depth - 1)];
	/* acquire: with the caller's device barrier, the entry is read after */
	uint8_t owner = __atomic_load_n(&cqe->owner, __ATOMIC_ACQUIRE);

	if ((owner & RNIC_CQE_PHASE) != rnic_cq_phase(cq, cq->cons))
		return NULL;
	return cqe;
}

static inline bool rnic_cqe_is_recv(const struct rnic_cqe *cqe)
{
	return cqe->opcode & 0x80;
}

static inline enum ibv_wc_status rnic_wc_status(uint8_t status)
{
	switch (status) {
	case RNIC_WC_SUCCESS:
		return IBV_WC_SUCCESS;
	case RNIC_WC_LOC_LEN_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case RNIC_WC_LOC_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case RNIC_WC_LOC_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case RNIC_WC_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case RNIC_WC_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case RNIC_WC_LOC_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case RNIC_WC_REM_INV_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case RNIC_WC_REM_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case RNIC_WC_REM_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case RNIC_WC_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case RNIC_WC_FATAL_ERR:
		return IBV_WC_FATAL_ERR;
	case RNIC_WC_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

/* Returns false for an opcode the provider does not know (device bug). */
static inline bool rnic_wc_opcode(uint8_t op, enum ibv_wc_opcode *out)
{
	switch (op) {
	case RNIC_WC_SEND:
		*out = IBV_WC_SEND;
		return true;
	case RNIC_WC_WRITE:
		*out = IBV_WC_RDMA_WRITE;
		return true;
	case RNIC_WC_READ:
		*out = IBV_WC_RDMA_READ;
		return true;
	case RNIC_WC_ATOMIC_FADD:
		*out = IBV_WC_FETCH_ADD;
		return true;
	case RNIC_WC_ATOMIC_CSWAP:
		*out = IBV_WC_COMP_SWAP;
		return true;
	case RNIC_WC_LOCAL_INV:
		*out = IBV_WC_LOCAL_INV;
		return true;
	case RNIC_WC_BIND_MW:
		*out = IBV_WC_BIND_MW;
		return true;
	case RNIC_WC_RECV:
		*out = IBV_WC_RECV;
		return true;
	case RNIC_WC_RECV_WRITE_IMM:
		*out = IBV_WC_RECV_RDMA_WITH_IMM;
		return true;
	default:
		return false;
	}
}

/* Translate a valid CQE (after the read barrier) into a work completion. */
static inline void rnic_cqe_to_wc(const struct rnic_cqe *cqe, struct ibv_wc *wc)
{
	enum ibv_wc_opcode op = IBV_WC_SEND;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = rnic_wc_status(cqe->status);
	if (!rnic_wc_opcode(cqe->opcode, &op) && wc->status == IBV_WC_SUCCESS)
		wc->status = IBV_WC_GENERAL_ERR;
	wc->opcode = op;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = le32toh(cqe->qpn);
	if (cqe->flags & RNIC_CQE_F_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = rnic_imm_from_hw(cqe->ex);
	} else if (cqe->flags & RNIC_CQE_F_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = le32toh(cqe->ex);
	}
}

/* Consumed one entry. */
static inline void rnic_cq_advance(struct rnic_cq_ring *cq)
{
	cq->cons++;
}

/* Tell the device how far we got (after a barrier ordering the CQE reads). */
static inline void rnic_cq_update_dbrec(struct rnic_cq_ring *cq)
{
	__atomic_store_n(cq->dbrec, htole32(cq->cons), __ATOMIC_RELEASE);
}

/* Doorbell values (hw.h layout: object, flags, free-running index). */
static inline uint64_t rnic_db_cq_arm(uint32_t cqn, uint32_t cons,
				      bool solicited)
{
	return RNIC_DB_VAL(cqn, solicited ? RNIC_DB_ARM_SOLICITED : RNIC_DB_ARM,
			   cons);
}

static inline uint64_t rnic_db_producer(uint32_t obj, uint32_t prod)
{
	return RNIC_DB_VAL(obj, 0, prod);
}

#endif /* RNIC_RING_H */
