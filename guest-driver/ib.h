/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The iWARP side of rnic: an ib_device over the same PCI function as the
 * net_device.  Registered only when the device advertises RNIC_FEAT_RDMA.
 *
 * Object numbers (PD, CQ, QP, SRQ, STag index, user context, listener) are
 * picked by the driver from IDAs; the device checks them (hw.h).  CQs, QPs
 * and SRQs are also kept in xarrays so interrupt-time events find them.
 */
#ifndef RNIC_IB_H
#define RNIC_IB_H

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/iw_cm.h>

#include "rnic.h"

/* Limits read from BAR0 when the ib_device comes up. */
struct rnic_ib_caps {
	u32 max_qp, max_cq, max_mr, max_pd, max_srq, max_uctx;
	u32 max_send_sge, max_recv_sge, max_inline;
	u32 max_ird, max_ord;
	u32 max_qp_wr, max_cqe, max_srq_wr;
	u32 page_sizes;
	u64 max_mr_size;
	u32 max_mr_pages;
	u32 max_listen;
};

struct rnic_ib {
	struct ib_device ibdev;
	struct rnic_dev *rdev;
	struct rnic_ib_caps caps;

	struct ida pd_ida, cq_ida, qp_ida, srq_ida, mr_ida, uctx_ida;
	struct ida listen_ida;
	struct xarray cqs;	/* cqn -> rnic_cq, read in IRQ context */
	struct xarray qps;	/* qpn -> rnic_qp */
	struct xarray srqs;	/* srqn -> rnic_srq */

	/* CM: events are handled in order on cm_wq, under cm_lock. */
	struct workqueue_struct *cm_wq;
	struct mutex cm_lock;	/* endpoints, listeners, CM commands */
	struct list_head eps;	/* every rnic_ep */
	wait_queue_head_t ep_wq;	/* an endpoint let go of its QP */
	struct work_struct cm_dead_work;
	struct xarray conns;	/* conn_id -> rnic_ep */
	struct xarray listeners;	/* listen_id -> rnic_listener */
	struct work_struct port_work;	/* port state -> IB event */
	struct work_struct fatal_work;	/* device reset -> IB event */
	bool registered;
};

struct rnic_ucontext {
	struct ib_ucontext ibuctx;
	u32 uctx;		/* doorbell page, 1..MAX_UCTX */
	struct rdma_user_mmap_entry *db_entry;
};

struct rnic_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u64 pfn;
};

struct rnic_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u32 uctx;
};

/*
 * A page list handed to the device: level 1 for up to 512 entries, level 2
 * above (a directory page list naming 4 KiB pages of entries).
 */
struct rnic_pbl_buf {
	__le64 *l1;		/* level-1 entries (levels == 1) or directory */
	dma_addr_t l1_dma;
	size_t l1_size;
	__le64 **l2;		/* levels == 2: the leaf pages */
	dma_addr_t *l2_dma;
	u32 nleaves;
	u32 nentries;
	u8 page_shift;
	u8 levels;
};

/* A queue in user memory, pinned, with its 4 KiB page list. */
struct rnic_umem_ring {
	struct ib_umem *umem;
	struct rnic_pbl_buf pbl;
	u32 depth;
};

struct rnic_cq {
	struct ib_cq ibcq;
	u32 cqn;
	spinlock_t lock;	/* cons and the consumer record */
	u32 cons;		/* free-running consumer index (kernel CQs) */
	struct rnic_ring ring;	/* kernel CQs */
	__le64 *dbrec;		/* kernel CQs: consumer record for the device */
	dma_addr_t dbrec_dma;
	struct rnic_umem_ring uring;	/* user CQs */
	struct ib_umem *dbrec_umem;
	bool user;
};

struct rnic_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	spinlock_t lock;	/* prod, cons and the SRQ doorbell */
	u32 prod;
	u32 cons;		/* advanced by poll_cq on receive completions */
	u32 max_sge;
	u32 limit;
	struct rnic_ring ring;
	struct rnic_umem_ring uring;
	bool user;
};

struct rnic_ep;

struct rnic_qp {
	struct ib_qp ibqp;
	u32 qpn;
	refcount_t ref;		/* iw_cm and CM endpoints hold it too */
	struct completion free;	/* last reference gone */
	enum ib_qp_state state;
	struct mutex state_lock;	/* modify_qp */
	u32 access;		/* IB_ACCESS_* given by modify_qp */
	u8 ird, ord;

	spinlock_t sq_lock;	/* sq_prod, SQ ring writes, SQ doorbell */
	u32 sq_prod;
	u32 sq_cons;		/* from send CQEs (wqe_idx) */
	spinlock_t rq_lock;	/* rq_prod, RQ ring writes, RQ doorbell */
	u32 rq_prod;
	u32 rq_cons;
	struct rnic_ring sq, rq;	/* kernel QPs */
	struct rnic_umem_ring usq, urq;	/* user QPs */
	u32 sq_depth, rq_depth;
	u32 max_send_sge, max_recv_sge, max_inline;
	bool sig_all;
	bool user;
	struct rnic_cq *scq, *rcq;
	struct rnic_srq *srq;
	struct rnic_ep *ep;	/* connection, under cm_lock */
};

struct rnic_mr {
	struct ib_mr ibmr;
	u32 index;		/* STag index */
	struct ib_umem *umem;
	/* Fast-register MRs: the level-1 page list a REG_MR WQE names. */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;
	int access;		/* user MRs: IB_ACCESS_* as registered */
};

struct rnic_mw {
	struct ib_mw ibmw;
	u32 index;		/* STag index, from the MRs' allocator */
};

static inline struct rnic_ib *to_rib(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rnic_ib, ibdev);
}

static inline struct rnic_dev *ib_rdev(struct ib_device *ibdev)
{
	return to_rib(ibdev)->rdev;
}

#define RNIC_TO(type, member, p) container_of(p, struct type, member)
static inline struct rnic_pd *to_rpd(struct ib_pd *p)
{
	return RNIC_TO(rnic_pd, ibpd, p);
}

static inline struct rnic_cq *to_rcq(struct ib_cq *p)
{
	return RNIC_TO(rnic_cq, ibcq, p);
}

static inline struct rnic_qp *to_rqp(struct ib_qp *p)
{
	return RNIC_TO(rnic_qp, ibqp, p);
}

static inline struct rnic_srq *to_rsrq(struct ib_srq *p)
{
	return RNIC_TO(rnic_srq, ibsrq, p);
}

static inline struct rnic_mr *to_rmr(struct ib_mr *p)
{
	return RNIC_TO(rnic_mr, ibmr, p);
}

static inline struct rnic_mw *to_rmw(struct ib_mw *p)
{
	return RNIC_TO(rnic_mw, ibmw, p);
}

static inline struct rnic_ucontext *to_ructx(struct ib_ucontext *p)
{
	return RNIC_TO(rnic_ucontext, ibuctx, p);
}

/* The doorbell page (uctx) of the process behind udata, 0 for the kernel. */
u32 rnic_udata_uctx(struct ib_udata *udata);

/* Smallest power of two >= n and >= 2, or 0 above max. */
static inline u32 rnic_depth(u32 n, u32 max)
{
	u32 d = roundup_pow_of_two(max_t(u32, n, 2));

	return d > max ? 0 : d;
}

/* ib_main.c (and the hooks declared in rnic.h) */
void rnic_ib_comp_event(struct rnic_eq *eq, const struct rnic_eqe *eqe);
u32 rnic_ib_access(int ib_access);
void rnic_ib_destroy_hw(struct rnic_dev *rdev, u8 opcode, u32 id);

/* ib_pd_cq.c */
int rnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rnic_create_cq_udata(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata);
int rnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rnic_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int rnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void rnic_cq_kick(struct rnic_cq *cq);

/* ib_stats.c, ib_restrack.c: rdma statistic and rdma resource details */
void rnic_ib_set_stats_ops(struct ib_device *ibdev);
void rnic_ib_set_restrack_ops(struct ib_device *ibdev);

/* ib_qp.c */
int rnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int rnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int rnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init);
int rnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
struct ib_qp *rnic_iw_get_qp(struct ib_device *ibdev, int qpn);
void rnic_qp_get(struct ib_qp *ibqp);
void rnic_qp_put(struct ib_qp *ibqp);
int rnic_qp_hw_modify(struct rnic_qp *qp, u8 state);
int rnic_qp_grant_iw_access(struct rnic_qp *qp);

/* ib_srq.c */
int rnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int rnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* ib_mr.c */
struct ib_mr *rnic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *rnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_udata *udata);
struct ib_mr *rnic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 iova, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *rnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int rnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		   unsigned int *sg_offset);
int rnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* ib_mw.c */
int rnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rnic_dealloc_mw(struct ib_mw *ibmw);

/* ib_post.c */
int rnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int rnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
int rnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* ib_user.c */
int rnic_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata);
void rnic_dealloc_ucontext(struct ib_ucontext *ibuctx);
int rnic_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
void rnic_mmap_free(struct rdma_user_mmap_entry *entry);
void rnic_disassociate_ucontext(struct ib_ucontext *ibuctx);
int rnic_udata_req(struct ib_udata *udata, void *req, size_t len);
int rnic_udata_resp(struct ib_udata *udata, const void *resp, size_t len);
int rnic_obj_publish(struct xarray *xa, u32 id, void *obj,
		     struct ib_udata *udata, const void *resp, size_t len);

/* ib_umem.c */
int rnic_umem_pin(struct rnic_ib *rib, u64 va, u64 len, int access,
		  struct ib_umem **umem);
int rnic_umem_ring_get(struct rnic_ib *rib, struct rnic_umem_ring *r,
		       u64 va, u64 len, u32 entry_size, u32 want,
		       u32 max_depth);
void rnic_umem_ring_put(struct rnic_ib *rib, struct rnic_umem_ring *r);
dma_addr_t rnic_umem_rec_get(struct rnic_ib *rib, u64 va,
			     struct ib_umem **umem);
int rnic_pbl_from_umem(struct rnic_ib *rib, struct ib_umem *umem,
		       unsigned long pgsz, bool two_levels,
		       struct rnic_pbl_buf *pb);
void rnic_pbl_free(struct rnic_ib *rib, struct rnic_pbl_buf *pb);
void rnic_pbl_to_hw(const struct rnic_pbl_buf *pb, struct rnic_pbl *pbl);

/* ib_cm.c */
int rnic_iw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int rnic_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int rnic_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int rnic_iw_create_listen(struct iw_cm_id *cm_id, int backlog);
int rnic_iw_destroy_listen(struct iw_cm_id *cm_id);
int rnic_cm_qp_close(struct rnic_ib *rib, struct rnic_qp *qp, bool abort);
void rnic_cm_qp_gone(struct rnic_ib *rib, struct rnic_qp *qp);

/* ib_cm_event.c */
void rnic_cm_init(struct rnic_ib *rib);
void rnic_cm_eq_event(struct rnic_eq *eq, const struct rnic_eqe *eqe);
void rnic_cm_close_all(struct rnic_ib *rib, bool final);
void rnic_cm_dev_dead(struct rnic_ib *rib);

#endif /* RNIC_IB_H */
