// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The iWARP ib_device: registration, the ops table, device/port queries,
 * and the routing of completion and async events to CQs, QPs and SRQs.
 *
 * The ib_device exists only when FEATURES has RNIC_FEAT_RDMA (and the CM
 * offload it needs): a device without them stays a plain NIC.
 */
#include <linux/etherdevice.h>
#include <linux/pci.h>
#include <net/addrconf.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "rnic/abi.h"
#include "ib.h"

/* FEATURES bits without which no ib_device is registered. */
#define RNIC_FEAT_IB_NEEDED	(RNIC_FEAT_RDMA | RNIC_FEAT_CM_OFFLOAD)

u32 rnic_ib_access(int a)
{
	u32 hw = 0;

	if (a & IB_ACCESS_LOCAL_WRITE)
		hw |= RNIC_ACCESS_LOCAL_WRITE;
	if (a & IB_ACCESS_REMOTE_READ)
		hw |= RNIC_ACCESS_REMOTE_READ;
	if (a & IB_ACCESS_REMOTE_WRITE)
		hw |= RNIC_ACCESS_REMOTE_WRITE;
	if (a & IB_ACCESS_REMOTE_ATOMIC)
		hw |= RNIC_ACCESS_REMOTE_ATOMIC;
	if (a & IB_ACCESS_MW_BIND)
		hw |= RNIC_ACCESS_MW_BIND;
	return hw;
}

static int rnic_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *a, struct ib_udata *udata)
{
	struct rnic_ib *rib = to_rib(ibdev);
	struct rnic_ib_caps *c = &rib->caps;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->fw_ver = rib->rdev->caps.version;
	a->sys_image_guid = ibdev->node_guid;
	a->max_mr_size = c->max_mr_size;
	a->page_size_cap = c->page_sizes;
	a->vendor_id = RNIC_PCI_VENDOR_ID;
	a->vendor_part_id = RNIC_PCI_DEVICE_ID;
	a->hw_ver = rib->rdev->pdev->revision;
	a->max_qp = c->max_qp;
	a->max_qp_wr = c->max_qp_wr;
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* Windows share the STag table with the MRs (hw.h). */
	if (rib->rdev->caps.features & RNIC_FEAT_MW) {
		a->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
				       IB_DEVICE_MEM_WINDOW_TYPE_2B;
		a->max_mw = c->max_mr - 1;
	}
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = c->max_send_sge;
	a->max_recv_sge = c->max_recv_sge;
	a->max_sge_rd = c->max_send_sge;
	a->max_cq = c->max_cq;
	a->max_cqe = c->max_cqe - 1;
	a->max_mr = c->max_mr - 1;	/* STag index 0 is never used */
	a->max_pd = c->max_pd;
	a->max_qp_rd_atom = c->max_ird;
	a->max_qp_init_rd_atom = c->max_ord;
	a->max_res_rd_atom = c->max_ird * c->max_qp;
	/*
	 * The device runs every atomic of all its QPs one at a time against
	 * guest memory, not locked against the CPUs or other devices: HCA.
	 */
	if (rib->rdev->caps.features & RNIC_FEAT_ATOMICS)
		a->atomic_cap = IB_ATOMIC_HCA;
	else
		a->atomic_cap = IB_ATOMIC_NONE;
	a->max_srq = c->max_srq;
	a->max_srq_wr = c->max_srq_wr;
	a->max_srq_sge = min_t(u32, c->max_recv_sge, RNIC_RQ_MAX_SGE);
	a->max_fast_reg_page_list_len = c->max_mr_pages;
	a->max_pkeys = 1;
	return 0;
}

/*
 * The port's rate is the netdev's link speed mapped as ib_get_eth_speed()
 * does, an unknown speed counting as 1 Gb/s (1X SDR).  Done here, not by
 * calling it, because 6.1's helper logs a warning on every query of a port
 * whose speed is unknown, and an emulated port has no line rate.
 */
static void rnic_port_rate(struct net_device *nd, u16 *speed, u8 *width)
{
	struct ethtool_link_ksettings ks = {};
	u32 mbps = SPEED_1000;

	if (!nd->ethtool_ops->get_link_ksettings(nd, &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;

	if (mbps <= SPEED_1000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_SDR;
	} else if (mbps <= SPEED_10000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_FDR10;
	} else if (mbps <= SPEED_20000) {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_DDR;
	} else if (mbps <= SPEED_25000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_EDR;
	} else if (mbps <= SPEED_40000) {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_FDR10;
	} else {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_EDR;
	}
}

static int rnic_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *a)
{
	struct net_device *nd = to_rib(ibdev)->rdev->netdev;
	bool up = netif_running(nd) && netif_carrier_ok(nd);

	/* The core zeroed *a. */
	a->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	a->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
			     IB_PORT_PHYS_STATE_DISABLED;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = ib_mtu_int_to_enum(READ_ONCE(nd->mtu));
	a->gid_tbl_len = 1;
	a->pkey_tbl_len = 1;
	a->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	a->max_msg_sz = 0x80000000;
	rnic_port_rate(nd, &a->active_speed, &a->active_width);
	return 0;
}

static int rnic_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *im)
{
	im->gid_tbl_len = 1;
	im->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* iWARP: the one GID is the port's MAC (as siw, cxgb4, irdma do). */
static int rnic_query_gid(struct ib_device *ibdev, u32 port, int index,
			  union ib_gid *gid)
{
	struct net_device *nd = to_rib(ibdev)->rdev->netdev;

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, nd->dev_addr, ETH_ALEN);
	return 0;
}

static int rnic_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static void rnic_get_fw_ver_str(struct ib_device *ibdev, char *str)
{
	u32 v = to_rib(ibdev)->rdev->caps.version;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u", v >> 16, v & 0xffff);
}

#ifdef RNIC_CREATE_CQ_ATTRS
/* 6.11 passes the uverbs attribute bundle; its driver_udata is the udata. */
static int rnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
{
	return rnic_create_cq_udata(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
static int rnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	return rnic_create_cq_udata(ibcq, attr, udata);
}
#endif

static const struct ib_device_ops rnic_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RNIC_UVERBS_DRIVER_ID,
	.uverbs_abi_ver = RNIC_UVERBS_ABI_VERSION,

	.query_device = rnic_query_device,
	.query_port = rnic_query_port,
	.get_port_immutable = rnic_get_port_immutable,
	.query_gid = rnic_query_gid,
	.query_pkey = rnic_query_pkey,
	.get_dev_fw_str = rnic_get_fw_ver_str,

	.alloc_ucontext = rnic_alloc_ucontext,
	.dealloc_ucontext = rnic_dealloc_ucontext,
	.mmap = rnic_mmap,
	.mmap_free = rnic_mmap_free,
	.disassociate_ucontext = rnic_disassociate_ucontext,

	.alloc_pd = rnic_alloc_pd,
	.dealloc_pd = rnic_dealloc_pd,
	.create_cq = rnic_create_cq,
	.destroy_cq = rnic_destroy_cq,
	.poll_cq = rnic_poll_cq,
	.req_notify_cq = rnic_req_notify_cq,
	.resize_cq = rnic_resize_cq,

	.create_qp = rnic_create_qp,
	.modify_qp = rnic_modify_qp,
	.query_qp = rnic_query_qp,
	.destroy_qp = rnic_destroy_qp,
	.post_send = rnic_post_send,
	.post_recv = rnic_post_recv,

	.create_srq = rnic_create_srq,
	.modify_srq = rnic_modify_srq,
	.query_srq = rnic_query_srq,
	.destroy_srq = rnic_destroy_srq,
	.post_srq_recv = rnic_post_srq_recv,

	.get_dma_mr = rnic_get_dma_mr,
	.reg_user_mr = rnic_reg_user_mr,
	.rereg_user_mr = rnic_rereg_user_mr,
	.alloc_mr = rnic_alloc_mr,
	.map_mr_sg = rnic_map_mr_sg,
	.dereg_mr = rnic_dereg_mr,
	.alloc_mw = rnic_alloc_mw,
	.dealloc_mw = rnic_dealloc_mw,

	.iw_connect = rnic_iw_connect,
	.iw_accept = rnic_iw_accept,
	.iw_reject = rnic_iw_reject,
	.iw_create_listen = rnic_iw_create_listen,
	.iw_destroy_listen = rnic_iw_destroy_listen,
	.iw_add_ref = rnic_qp_get,
	.iw_rem_ref = rnic_qp_put,
	.iw_get_qp = rnic_iw_get_qp,

	INIT_RDMA_OBJ_SIZE(ib_pd, rnic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, rnic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, rnic_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, rnic_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rnic_ucontext, ibuctx),
	INIT_RDMA_OBJ_SIZE(ib_mw, rnic_mw, ibmw),
};

static void rnic_ib_read_caps(struct rnic_ib *rib)
{
	struct rnic_dev *rdev = rib->rdev;
	struct rnic_ib_caps *c = &rib->caps;

	c->max_qp = rnic_rd(rdev, RNIC_REG_MAX_QP);
	c->max_cq = rnic_rd(rdev, RNIC_REG_MAX_CQ);
	c->max_mr = rnic_rd(rdev, RNIC_REG_MAX_MR);
	c->max_pd = rnic_rd(rdev, RNIC_REG_MAX_PD);
	c->max_srq = rnic_rd(rdev, RNIC_REG_MAX_SRQ);
	c->max_uctx = rnic_rd(rdev, RNIC_REG_MAX_UCTX);
	/* The WQE layouts bound what the registers may claim. */
	c->max_send_sge = min_t(u32, rnic_rd(rdev, RNIC_REG_MAX_SEND_SGE),
				RNIC_SQ_MAX_SGE);
	c->max_recv_sge = min_t(u32, rnic_rd(rdev, RNIC_REG_MAX_RECV_SGE),
				RNIC_RQ_MAX_SGE);
	c->max_inline = min_t(u32, rnic_rd(rdev, RNIC_REG_MAX_INLINE),
			      RNIC_SQ_MAX_INLINE);
	c->max_ird = min_t(u32, rnic_rd(rdev, RNIC_REG_MAX_IRD), U8_MAX);
	c->max_ord = min_t(u32, rnic_rd(rdev, RNIC_REG_MAX_ORD), U8_MAX);
	c->max_qp_wr = rnic_rd(rdev, RNIC_REG_MAX_QP_WR);
	c->max_cqe = rnic_rd(rdev, RNIC_REG_MAX_CQE);
	c->max_srq_wr = rnic_rd(rdev, RNIC_REG_MAX_SRQ_WR);
	c->page_sizes = rnic_rd(rdev, RNIC_REG_PAGE_SIZES);
	c->max_mr_size = (u64)rnic_rd(rdev, RNIC_REG_MAX_MR_SIZE_HI) << 32 |
			 rnic_rd(rdev, RNIC_REG_MAX_MR_SIZE_LO);
	c->max_mr_pages = rnic_rd(rdev, RNIC_REG_MAX_MR_PAGES);
	c->max_listen = rnic_rd(rdev, RNIC_REG_MAX_LISTEN);
	/* CQEs name ring slots in 16 bits: no deeper work queues. */
	c->max_qp_wr = min_t(u32, c->max_qp_wr, 1u << 15);
	c->max_srq_wr = min_t(u32, c->max_srq_wr, 1u << 15);
	/* Queue depths must be powers of two; round what is claimed down. */
	if (c->max_qp_wr)
		c->max_qp_wr = rounddown_pow_of_two(c->max_qp_wr);
	if (c->max_cqe)
		c->max_cqe = rounddown_pow_of_two(c->max_cqe);
	if (c->max_srq_wr)
		c->max_srq_wr = rounddown_pow_of_two(c->max_srq_wr);
}

/* Why this device cannot carry the ib_device, or NULL if it can. */
static const char *rnic_ib_unusable(struct rnic_dev *rdev,
				    const struct rnic_ib_caps *c)
{
	if ((rdev->caps.features & RNIC_FEAT_IB_NEEDED) != RNIC_FEAT_IB_NEEDED)
		return "no RDMA/CM offload in FEATURES";
	if (rdev->nvecs < RNIC_NUM_EQ_RDMA + 1 ||
	    rdev->caps.max_eq < RNIC_NUM_EQ_RDMA)
		return "too few EQs/MSI-X vectors";
	if (!c->max_qp || !c->max_cq || c->max_mr < 2 || !c->max_pd ||
	    c->max_qp_wr < 2 || c->max_cqe < 2 || c->max_send_sge < 1 ||
	    c->max_recv_sge < 1 || !c->max_listen ||
	    !(c->page_sizes & BIT(RNIC_PAGE_SHIFT)))
		return "unusable RDMA capabilities";
	return NULL;
}

/* Link changes reach ULPs as port events (process context: may sleep). */
static void rnic_ib_port_work(struct work_struct *w)
{
	struct rnic_ib *rib = container_of(w, struct rnic_ib, port_work);
	struct net_device *nd = rib->rdev->netdev;
	struct ib_event ev = {
		.device = &rib->ibdev,
		.element.port_num = 1,
	};

	ev.event = netif_carrier_ok(nd) ? IB_EVENT_PORT_ACTIVE :
					  IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

void rnic_ib_port_event(struct rnic_dev *rdev)
{
	struct rnic_ib *rib = READ_ONCE(rdev->ib);

	if (rib && READ_ONCE(rib->registered))
		schedule_work(&rib->port_work);
}

static void rnic_ib_fatal_work(struct work_struct *w)
{
	struct rnic_ib *rib = container_of(w, struct rnic_ib, fatal_work);
	struct ib_event ev = {
		.device = &rib->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = 1,
	};

	ib_dispatch_event(&ev);
}

/*
 * The device was reset (rnic_dev_fail): it will send no more completions
 * or CM events.  Close every connection in software so ULPs see their
 * DISCONNECTED and nothing waits forever; poll_cq flushes the queues.
 */
void rnic_ib_dev_fatal(struct rnic_dev *rdev)
{
	struct rnic_ib *rib = rdev->ib;
	struct rnic_cq *cq;
	unsigned long idx;

	if (!rib || !READ_ONCE(rib->registered))
		return;
	xa_for_each(&rib->cqs, idx, cq)
		rnic_cq_kick(cq);
	rnic_cm_dev_dead(rib);
	schedule_work(&rib->fatal_work);
}

/* COMP EQ handler (hard IRQ): the CQ named by the entry has a new CQE. */
void rnic_ib_comp_event(struct rnic_eq *eq, const struct rnic_eqe *eqe)
{
	struct rnic_ib *rib = eq->rdev->ib;
	struct rnic_cq *cq;

	if (!rib || eqe->type != RNIC_EQE_COMP)
		return;
	cq = xa_load(&rib->cqs, le32_to_cpu(eqe->obj));
	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static void rnic_qp_event(struct rnic_ib *rib, u32 qpn, enum ib_event_type t)
{
	struct rnic_qp *qp = xa_load(&rib->qps, qpn);
	struct ib_event ev = { .device = &rib->ibdev, .event = t };

	if (!qp)
		return;
	if (t != IB_EVENT_QP_LAST_WQE_REACHED)
		qp->state = IB_QPS_ERR;
	if (qp->ibqp.event_handler) {
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/*
 * Async EQ entries about RDMA objects (hard IRQ).  Returns true when the
 * entry was one of ours.  Objects leave the xarrays before they are
 * destroyed and destroy waits for this vector, so the lookups are safe.
 */
bool rnic_ib_async_event(struct rnic_dev *rdev, const struct rnic_eqe *eqe)
{
	struct rnic_ib *rib = READ_ONCE(rdev->ib);
	u32 obj = le32_to_cpu(eqe->obj);
	struct ib_event ev = { .device = rib ? &rib->ibdev : NULL };
	struct rnic_srq *srq;
	struct rnic_cq *cq;
	unsigned long idx;

	if (!rib)
		return false;
	switch (eqe->code) {
	case RNIC_ASYNC_EQ_OVERFLOW:
		/* Completion events were lost: let every consumer look. */
		if (obj == RNIC_EQN_COMP)
			xa_for_each(&rib->cqs, idx, cq)
				rnic_cq_kick(cq);
		return false;
	case RNIC_ASYNC_CQ_OVERFLOW:
		cq = xa_load(&rib->cqs, obj);
		if (cq && cq->ibcq.event_handler) {
			ev.event = IB_EVENT_CQ_ERR;
			ev.element.cq = &cq->ibcq;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		break;
	case RNIC_ASYNC_QP_FATAL:
		rnic_qp_event(rib, obj, IB_EVENT_QP_FATAL);
		break;
	case RNIC_ASYNC_QP_REQ_ERR:
		rnic_qp_event(rib, obj, IB_EVENT_QP_REQ_ERR);
		break;
	case RNIC_ASYNC_QP_ACCESS_ERR:
		rnic_qp_event(rib, obj, IB_EVENT_QP_ACCESS_ERR);
		break;
	case RNIC_ASYNC_SRQ_LIMIT:
	case RNIC_ASYNC_SRQ_ERR:
		srq = xa_load(&rib->srqs, obj);
		if (srq && srq->ibsrq.event_handler) {
			ev.event = eqe->code == RNIC_ASYNC_SRQ_LIMIT ?
				   IB_EVENT_SRQ_LIMIT_REACHED : IB_EVENT_SRQ_ERR;
			ev.element.srq = &srq->ibsrq;
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
		}
		break;
	default:
		return false;
	}
	return true;
}

/*
 * DESTROY_x / DEREG_MR.  A device that refuses may still DMA into memory
 * we are about to free: reset it (rnic_dev_fail) before that happens.
 */
void rnic_ib_destroy_hw(struct rnic_dev *rdev, u8 opcode, u32 id)
{
	int err = rnic_admin_destroy(rdev, opcode, id);

	if (err && err != -EIO)
		rnic_dev_fail(rdev, "RDMA object teardown refused");
}

/* The async EQ handler looks at rdev->ib: wait until it no longer can. */
static void rnic_ib_detach(struct rnic_dev *rdev)
{
	WRITE_ONCE(rdev->ib, NULL);
	synchronize_irq(pci_irq_vector(rdev->pdev, RNIC_EQN_ASYNC));
}

/* Called at probe end: an ib_device if the device can do RDMA, else nothing. */
int rnic_ib_register(struct rnic_dev *rdev)
{
	struct net_device *nd = rdev->netdev;
	const char *why;
	struct rnic_ib *rib;
	int err;

	rib = ib_alloc_device(rnic_ib, ibdev);
	if (!rib)
		return -ENOMEM;
	rib->rdev = rdev;
	rnic_ib_read_caps(rib);
	why = rnic_ib_unusable(rdev, &rib->caps);
	if (why) {
		dev_info(&rdev->pdev->dev, "L2 only, no ib_device: %s\n", why);
		ib_dealloc_device(&rib->ibdev);
		return 0;
	}

	ida_init(&rib->pd_ida);
	ida_init(&rib->cq_ida);
	ida_init(&rib->qp_ida);
	ida_init(&rib->srq_ida);
	ida_init(&rib->mr_ida);
	ida_init(&rib->uctx_ida);
	ida_init(&rib->listen_ida);
	xa_init(&rib->cqs);
	xa_init(&rib->qps);
	xa_init(&rib->srqs);
	xa_init(&rib->conns);
	xa_init(&rib->listeners);
	rnic_cm_init(rib);
	INIT_WORK(&rib->port_work, rnic_ib_port_work);
	INIT_WORK(&rib->fatal_work, rnic_ib_fatal_work);
	rib->cm_wq = alloc_ordered_workqueue("rnic-cm-%s", WQ_MEM_RECLAIM,
					     pci_name(rdev->pdev));
	if (!rib->cm_wq) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	WRITE_ONCE(rdev->ib, rib);

	err = rnic_eq_create(rdev, RNIC_EQN_COMP, 0, rnic_ib_comp_event);
	if (err)
		goto err_wq;
	err = rnic_eq_create(rdev, RNIC_EQN_CM, RNIC_EQ_F_CM, rnic_cm_eq_event);
	if (err)
		goto err_comp_eq;

	rib->ibdev.node_type = RDMA_NODE_RNIC;
	rib->ibdev.phys_port_cnt = 1;
	rib->ibdev.num_comp_vectors = 1;
	rib->ibdev.dev.parent = &rdev->pdev->dev;
	/* Non-zero node GUID from the permanent MAC (EUI-48 -> EUI-64). */
	addrconf_addr_eui48((u8 *)&rib->ibdev.node_guid, nd->perm_addr);
	memcpy(rib->ibdev.iw_ifname, nd->name, sizeof(rib->ibdev.iw_ifname));
	/*
	 * No iwpmd port mapping: the device's TCP ports are reserved in the
	 * guest's TCP port space by the driver itself (kernel sockets bound
	 * to them), so iw_cm uses the addresses as they are.
	 */
	rib->ibdev.iw_driver_flags = IW_F_NO_PORT_MAP;
	ib_set_device_ops(&rib->ibdev, &rnic_ib_ops);
	rnic_ib_set_stats_ops(&rib->ibdev);
	rnic_ib_set_restrack_ops(&rib->ibdev);
	err = ib_device_set_netdev(&rib->ibdev, nd, 1);
	if (err)
		goto err_cm_eq;
	err = ib_register_device(&rib->ibdev, "rnic%d", &rdev->pdev->dev);
	if (err)
		goto err_cm_eq;
	WRITE_ONCE(rib->registered, true);
	dev_info(&rdev->pdev->dev, "ib_device %s on %s\n",
		 dev_name(&rib->ibdev.dev), nd->name);
	return 0;

err_cm_eq:
	rnic_eq_destroy(rdev, RNIC_EQN_CM);
err_comp_eq:
	rnic_eq_destroy(rdev, RNIC_EQN_COMP);
err_wq:
	rnic_ib_detach(rdev);
	destroy_workqueue(rib->cm_wq);
err_dealloc:
	ib_dealloc_device(&rib->ibdev);
	return err;
}

/*
 * ib_unregister_device makes every ULP and user context let go (they get
 * DEVICE_REMOVAL / disassociation), which destroys their objects through
 * our ops; then the EQs go and nothing can call back into us.
 */
void rnic_ib_unregister(struct rnic_dev *rdev)
{
	struct rnic_ib *rib = rdev->ib;

	if (!rib)
		return;
	WRITE_ONCE(rib->registered, false);
	/* No link event may schedule port_work after the flush below. */
	synchronize_irq(pci_irq_vector(rdev->pdev, RNIC_EQN_ASYNC));
	ib_unregister_device(&rib->ibdev);
	flush_work(&rib->port_work);
	flush_work(&rib->fatal_work);
	flush_workqueue(rib->cm_wq);
	rnic_cm_close_all(rib, true);
	rnic_eq_destroy(rdev, RNIC_EQN_CM);
	rnic_eq_destroy(rdev, RNIC_EQN_COMP);
	destroy_workqueue(rib->cm_wq);
	rnic_ib_detach(rdev);
	xa_destroy(&rib->conns);
	xa_destroy(&rib->listeners);
	ida_destroy(&rib->listen_ida);
	ida_destroy(&rib->uctx_ida);
	ida_destroy(&rib->mr_ida);
	ida_destroy(&rib->srq_ida);
	ida_destroy(&rib->qp_ida);
	ida_destroy(&rib->cq_ida);
	ida_destroy(&rib->pd_ida);
	ib_dealloc_device(&rib->ibdev);
}
