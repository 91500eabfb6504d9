/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic provider: uverbs commands carrying the rnic udata (include/rnic/abi.h).
 *
 * abi.h is not one of rdma-core's kernel-headers, so make_abi_structs.py does
 * not generate the _STRUCT_ wrappers DECLARE_DRV_CMD splices in: the driver
 * payload is reached as a whole, cmd.drv_payload / resp.drv_payload.
 */
#ifndef RNIC_PROVIDER_ABI_H
#define RNIC_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rnic/abi.h>

#define _STRUCT_rnic_alloc_ucontext_req struct {}
#define _STRUCT_rnic_alloc_ucontext_resp struct {}
#define _STRUCT_rnic_alloc_pd_resp struct {}
#define _STRUCT_rnic_create_cq_req struct {}
#define _STRUCT_rnic_create_cq_resp struct {}
#define _STRUCT_rnic_resize_cq_req struct {}
#define _STRUCT_rnic_resize_cq_resp struct {}
#define _STRUCT_rnic_create_qp_req struct {}
#define _STRUCT_rnic_create_qp_resp struct {}
#define _STRUCT_rnic_create_srq_req struct {}
#define _STRUCT_rnic_create_srq_resp struct {}

DECLARE_DRV_CMD(rnic_ucmd_alloc_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		rnic_alloc_ucontext_req, rnic_alloc_ucontext_resp);
DECLARE_DRV_CMD(rnic_ucmd_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, rnic_alloc_pd_resp);
DECLARE_DRV_CMD(rnic_ucmd_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		rnic_create_cq_req, rnic_create_cq_resp);
DECLARE_DRV_CMD(rnic_ucmd_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		rnic_resize_cq_req, rnic_resize_cq_resp);
DECLARE_DRV_CMD(rnic_ucmd_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		rnic_create_qp_req, rnic_create_qp_resp);
DECLARE_DRV_CMD(rnic_ucmd_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		rnic_create_srq_req, rnic_create_srq_resp);

#endif /* RNIC_PROVIDER_ABI_H */
