/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic uverbs ABI: the udata exchanged between the rdma-core provider and the
 * Linux driver.  Layouts use __aligned_u64 and explicit padding so 32- and
 * 64-bit user space agree.  Queue memory is allocated by the provider
 * (page-aligned, a whole number of 4 KiB pages); the driver pins it and hands
 * the device a page list (struct rnic_pbl in hw.h).  The only mmap is the
 * context's doorbell page.  See docs/hardware-interface.md, "User ABI".
 */
#ifndef RNIC_ABI_H
#define RNIC_ABI_H

#include <linux/types.h>

#define RNIC_UVERBS_ABI_VERSION	1

/* Out of tree there is no RDMA_DRIVER_* id; the provider matches 1af4:10f5. */
#define RNIC_UVERBS_DRIVER_ID	0

struct rnic_alloc_ucontext_req {
	__u32 provider_abi;	/* RNIC_UVERBS_ABI_VERSION the provider speaks */
	__u32 rsvd;
};

struct rnic_alloc_ucontext_resp {
	__aligned_u64 db_mmap_key;	/* mmap offset of the doorbell page */
	__u32 db_page_size;	/* RNIC_DB_PAGE_SIZE */
	__u32 uctx;		/* doorbell page index (hw) */
	__u32 hw_version;	/* RNIC_REG_VERSION */
	__u32 sq_wqe_size;	/* RNIC_SQ_WQE_SIZE */
	__u32 rq_wqe_size;	/* RNIC_RQ_WQE_SIZE */
	__u32 cqe_size;		/* RNIC_CQE_SIZE */
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline;
	__u32 features;		/* RNIC_REG_FEATURES (RNIC_FEAT_*); was rsvd */
};

struct rnic_alloc_pd_resp {
	__u32 pdn;
	__u32 rsvd;
};

/* Queue buffers: buf_va page-aligned, buf_len = depth * entry size rounded
 * up to 4 KiB.  dbrec_va: 8 bytes in the same process for the CQ consumer
 * index (struct rnic_cmd_create_cq.dbrec_addr). */
struct rnic_create_cq_req {
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
	__aligned_u64 dbrec_va;
};

struct rnic_create_cq_resp {
	__u32 cqn;
	__u32 depth;		/* entries actually used (power of 2) */
};

/*
 * ibv_resize_cq: a new ring and consumer record (holding 0), as for
 * create; the CQEs not polled yet are moved to its first slots.
 */
struct rnic_resize_cq_req {
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
	__aligned_u64 dbrec_va;
};

struct rnic_resize_cq_resp {
	__u32 depth;		/* entries of the new ring (power of 2) */
	__u32 carried;		/* CQEs now in slots 0..carried-1 */
};

struct rnic_create_qp_req {
	__aligned_u64 sq_va;
	__aligned_u64 sq_len;
	__aligned_u64 rq_va;	/* 0 with an SRQ */
	__aligned_u64 rq_len;
};

struct rnic_create_qp_resp {
	__u32 qpn;
	__u32 sq_depth;
	__u32 rq_depth;
	__u32 max_inline;
};

struct rnic_create_srq_req {
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
};

struct rnic_create_srq_resp {
	__u32 srqn;
	__u32 depth;
};

#endif /* RNIC_ABI_H */
