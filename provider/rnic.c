// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rnic provider: device matching and the user context.
 *
 * Out of tree the kernel reports RDMA_DRIVER_UNKNOWN, so libibverbs skips
 * driver-id matching and finds us by the PCI modalias (1af4:10f5).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ccan/minmax.h>

#include "rnic.h"
#include "rnic_abi.h"

static void rnic_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops rnic_ctx_ops = {
	.alloc_mw = rnic_alloc_mw,
	.alloc_pd = rnic_alloc_pd,
	.bind_mw = rnic_bind_mw,
	.create_cq = rnic_create_cq,
	.create_qp = rnic_create_qp,
	.create_srq = rnic_create_srq,
	.dealloc_mw = rnic_dealloc_mw,
	.dealloc_pd = rnic_dealloc_pd,
	.dereg_mr = rnic_dereg_mr,
	.destroy_cq = rnic_destroy_cq,
	.destroy_qp = rnic_destroy_qp,
	.destroy_srq = rnic_destroy_srq,
	.free_context = rnic_free_context,
	.modify_qp = rnic_modify_qp,
	.modify_srq = rnic_modify_srq,
	.poll_cq = rnic_poll_cq,
	.post_recv = rnic_post_recv,
	.post_send = rnic_post_send,
	.post_srq_recv = rnic_post_srq_recv,
	.query_device_ex = rnic_query_device,
	.query_port = rnic_query_port,
	.query_qp = rnic_query_qp,
	.query_srq = rnic_query_srq,
	.reg_mr = rnic_reg_mr,
	.req_notify_cq = rnic_req_notify_cq,
	.rereg_mr = rnic_rereg_mr,
	.resize_cq = rnic_resize_cq,
};

/* The queue layouts are compiled in: refuse a driver that disagrees. */
static bool rnic_ucontext_resp_ok(struct rnic_context *ctx,
				  const struct rnic_alloc_ucontext_resp *r)
{
	if (r->hw_version >> 16 != RNIC_HW_VERSION_MAJOR ||
	    r->sq_wqe_size != RNIC_SQ_WQE_SIZE ||
	    r->rq_wqe_size != RNIC_RQ_WQE_SIZE ||
	    r->cqe_size != RNIC_CQE_SIZE ||
	    r->db_page_size < RNIC_DB_PAGE_SIZE) {
		verbs_err(&ctx->ibv_ctx,
			  "rnic: driver reports hw %#x, WQE %u/%u, CQE %u, doorbell page %u; provider speaks hw %u.x, %u/%u, %u, %u\n",
			  r->hw_version, r->sq_wqe_size, r->rq_wqe_size,
			  r->cqe_size, r->db_page_size, RNIC_HW_VERSION_MAJOR,
			  RNIC_SQ_WQE_SIZE, RNIC_RQ_WQE_SIZE, RNIC_CQE_SIZE,
			  RNIC_DB_PAGE_SIZE);
		return false;
	}
	return true;
}

/* Limits that let the data path refuse bad requests without asking. */
static int rnic_cache_limits(struct rnic_context *ctx,
			     const struct rnic_alloc_ucontext_resp *r)
{
	struct ibv_device_attr_ex attr;
	int ret;

	ret = rnic_query_device(&ctx->ibv_ctx.context, NULL, &attr,
				sizeof(attr));
	if (ret)
		return ret;

	ctx->features = r->features;
	ctx->max_send_sge = min_t(uint32_t, r->max_send_sge, RNIC_SQ_MAX_SGE);
	ctx->max_recv_sge = min_t(uint32_t, r->max_recv_sge, RNIC_RQ_MAX_SGE);
	ctx->max_inline = min_t(uint32_t, r->max_inline, RNIC_SQ_MAX_INLINE);
	ctx->max_qp_wr = min_t(uint32_t, attr.orig_attr.max_qp_wr,
			       RNIC_MAX_WQ_DEPTH);
	ctx->max_srq_wr = min_t(uint32_t, attr.orig_attr.max_srq_wr,
				RNIC_MAX_WQ_DEPTH);
	ctx->max_cqe = attr.orig_attr.max_cqe;
	/* Atomics need both the device feature and the verbs capability. */
	if (attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		ctx->features &= ~RNIC_FEAT_ATOMICS;
	return 0;
}

static struct verbs_context *rnic_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct rnic_ucmd_alloc_context_resp resp = {};
	struct rnic_ucmd_alloc_context cmd = {};
	struct rnic_alloc_ucontext_resp *r = &resp.drv_payload;
	struct rnic_context *ctx;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RNIC_UVERBS_DRIVER_ID);
	if (!ctx)
		return NULL;
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);

	cmd.drv_payload.provider_abi = RNIC_UVERBS_ABI_VERSION;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp)))
		goto err_free;
	if (!rnic_ucontext_resp_ok(ctx, r)) {
		errno = EPROTO;
		goto err_free;
	}

	ctx->db_page_size = r->db_page_size;
	ctx->uctx = r->uctx;
	ctx->db = mmap(NULL, ctx->db_page_size, PROT_WRITE, MAP_SHARED, cmd_fd,
		       r->db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		verbs_err(&ctx->ibv_ctx, "rnic: doorbell page mmap failed: %s\n",
			  strerror(errno));
		goto err_free;
	}

	verbs_set_ops(&ctx->ibv_ctx, &rnic_ctx_ops);
	errno = rnic_cache_limits(ctx, r);
	if (errno)
		goto err_unmap;
	return &ctx->ibv_ctx;

err_unmap:
	munmap(ctx->db, ctx->db_page_size);
err_free:
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static void rnic_free_context(struct ibv_context *ibctx)
{
	struct rnic_context *ctx = to_rnic_ctx(ibctx);
	unsigned int i;

	munmap(ctx->db, ctx->db_page_size);
	for (i = 0; i < RNIC_QP_DIR_SIZE; i++)
		free(ctx->qp_table[i]);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *rnic_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct rnic_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void rnic_device_free(struct verbs_device *vdev)
{
	free(container_of(vdev, struct rnic_device, ibv_dev));
}

static const struct verbs_match_ent rnic_match_table[] = {
	VERBS_PCI_MATCH(RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID, NULL),
	{},
};

static const struct verbs_device_ops rnic_dev_ops = {
	.name = "rnic",
	.match_min_abi_version = RNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = RNIC_UVERBS_ABI_VERSION,
	.match_table = rnic_match_table,
	.alloc_device = rnic_device_alloc,
	.uninit_device = rnic_device_free,
	.alloc_context = rnic_alloc_context,
};

PROVIDER_DRIVER(rnic, rnic_dev_ops);
