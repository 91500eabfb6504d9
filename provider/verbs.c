// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rnic provider: device/port queries, PDs, MRs, memory windows and queue
 * memory.
 * All of these are plain uverbs commands: the kernel driver does the work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <util/util.h>

#include "rnic.h"
#include "rnic_abi.h"

/*
 * Queue memory: whole 4 KiB pages, page-aligned, zeroed (a zero CQE owner byte
 * is "not yet written" on the first pass) and excluded from fork so a child
 * cannot take the pages the device writes to.
 */
int rnic_alloc_queue_mem(struct rnic_queue_mem *mem, size_t size)
{
	void *buf;
	int ret;

	ret = posix_memalign(&buf, RNIC_PAGE_SIZE, size);
	if (ret)
		goto err;
	memset(buf, 0, size);
	ret = ibv_dontfork_range(buf, size);
	if (ret) {
		free(buf);
		goto err;
	}
	mem->buf = buf;
	mem->size = size;
	return 0;

err:
	errno = ret;
	return ret;
}

void rnic_free_queue_mem(struct rnic_queue_mem *mem)
{
	if (!mem->buf)
		return;
	ibv_dofork_range(mem->buf, mem->size);
	free(mem->buf);
	mem->buf = NULL;
}

/* Ring depth for @wanted entries: a power of 2, at least 2. */
uint32_t rnic_queue_depth(uint32_t wanted)
{
	return roundup_pow_of_two(wanted < 2 ? 2 : wanted);
}

int rnic_query_device(struct ibv_context *ibctx,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* The driver reports the hw interface version as major.minor. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u", (unsigned int)(fw >> 16) & 0xffff,
		 (unsigned int)fw & 0xffff);
	return 0;
}

int rnic_query_port(struct ibv_context *ibctx, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *rnic_alloc_pd(struct ibv_context *ibctx)
{
	struct rnic_ucmd_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct ibv_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	if (ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp.ibv_resp,
			     sizeof(resp))) {
		free(pd);
		return NULL;
	}
	return pd;
}

int rnic_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

struct ibv_mr *rnic_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	if (ibv_cmd_reg_mr(pd, addr, len, hca_va, access, vmr, &cmd,
			   sizeof(cmd), &resp, sizeof(resp))) {
		free(vmr);
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* The kernel swaps the MR's description in place, under a new key. */
int rnic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t len, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd = {};

	return ibv_cmd_rereg_mr(vmr, flags, addr, len, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int rnic_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/* A window of the device's STag table; bound by BIND_MW WQEs (qp.c). */
struct ibv_mw *rnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	if (!(to_rnic_ctx(pd->context)->features & RNIC_FEAT_MW)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int rnic_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}
