// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Driver details of `rdma resource show qp|cq|mr -dd`: for a QP what the
 * device reports of its connection (QUERY_QP: TCP state and sequence
 * numbers, the negotiated MPA options), for CQs and MRs what the driver
 * knows itself.
 */
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "ib.h"

static const char * const rnic_tcp_state_names[] = {
	[RNIC_TCPS_CLOSED] = "CLOSED",
	[RNIC_TCPS_LISTEN] = "LISTEN",
	[RNIC_TCPS_SYN_SENT] = "SYN_SENT",
	[RNIC_TCPS_SYN_RCVD] = "SYN_RCVD",
	[RNIC_TCPS_ESTABLISHED] = "ESTABLISHED",
	[RNIC_TCPS_FIN_WAIT_1] = "FIN_WAIT_1",
	[RNIC_TCPS_FIN_WAIT_2] = "FIN_WAIT_2",
	[RNIC_TCPS_CLOSE_WAIT] = "CLOSE_WAIT",
	[RNIC_TCPS_CLOSING] = "CLOSING",
	[RNIC_TCPS_LAST_ACK] = "LAST_ACK",
	[RNIC_TCPS_TIME_WAIT] = "TIME_WAIT",
};

/* The device's view of qp into *hw; sleeps. */
static int rnic_res_query_qp(struct rnic_dev *rdev, struct rnic_qp *qp,
			     struct rnic_qp_attr *out)
{
	struct rnic_admin_cmd cmd = {};
	struct rnic_qp_attr *hw;
	dma_addr_t dma;
	int err;

	hw = dma_alloc_coherent(&rdev->pdev->dev, sizeof(*hw), &dma, GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	cmd.hdr.opcode = RNIC_CMD_QUERY_QP;
	cmd.u.query_qp.qpn = cpu_to_le32(qp->qpn);
	cmd.u.query_qp.buf_len = cpu_to_le32(sizeof(*hw));
	cmd.u.query_qp.buf_addr = cpu_to_le64(dma);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (!err)
		memcpy(out, hw, sizeof(*out));
	dma_free_coherent(&rdev->pdev->dev, sizeof(*hw), hw, dma);
	return err;
}

static int rnic_res_put_conn(struct sk_buff *msg, const struct rnic_qp_attr *a)
{
	const struct rnic_qp_tcp_state *t = &a->tcp;
	const char *st = a->tcp_state < ARRAY_SIZE(rnic_tcp_state_names) ?
			 rnic_tcp_state_names[a->tcp_state] : "?";

	if (rdma_nl_put_driver_u32(msg, "conn_id", le32_to_cpu(a->conn_id)) ||
	    rdma_nl_put_driver_string(msg, "tcp_state", st) ||
	    rdma_nl_put_driver_u32_hex(msg, "snd_una", le32_to_cpu(t->snd_una)) ||
	    rdma_nl_put_driver_u32_hex(msg, "snd_nxt", le32_to_cpu(t->snd_nxt)) ||
	    rdma_nl_put_driver_u32_hex(msg, "rcv_nxt", le32_to_cpu(t->rcv_nxt)) ||
	    rdma_nl_put_driver_u32(msg, "snd_wnd", le32_to_cpu(t->snd_wnd)) ||
	    rdma_nl_put_driver_u32(msg, "rcv_wnd", le32_to_cpu(t->rcv_wnd)) ||
	    rdma_nl_put_driver_u32(msg, "mss", le16_to_cpu(t->mss)) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us", le32_to_cpu(t->srtt_us)) ||
	    rdma_nl_put_driver_u32(msg, "retransmits",
				   le32_to_cpu(t->retransmits)) ||
	    rdma_nl_put_driver_u32(msg, "mpa_rev", a->mpa_rev) ||
	    rdma_nl_put_driver_u32(msg, "mpa_crc",
				   !!(a->mpa_flags & RNIC_MPA_CRC)) ||
	    rdma_nl_put_driver_u32(msg, "mpa_markers",
				   !!(a->mpa_flags & RNIC_MPA_MARKERS)) ||
	    rdma_nl_put_driver_u32(msg, "rfc7306",
				   !!(a->mpa_flags & RNIC_MPA_RFC7306)))
		return -EMSGSIZE;
	return 0;
}

static int rnic_res_qp(struct sk_buff *msg, struct rnic_qp *qp)
{
	struct rnic_dev *rdev = ib_rdev(qp->ibqp.device);
	struct rnic_qp_attr a;

	if (rdma_nl_put_driver_u32(msg, "sq_depth", qp->sq_depth) ||
	    rdma_nl_put_driver_u32(msg, "rq_depth", qp->rq_depth) ||
	    rdma_nl_put_driver_u32(msg, "ird", qp->ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", qp->ord))
		return -EMSGSIZE;
	/* Not connected, or the device cannot answer: the driver's view. */
	if (rnic_res_query_qp(rdev, qp, &a) ||
	    le32_to_cpu(a.conn_id) == 0xffffffff)
		return 0;
	return rnic_res_put_conn(msg, &a);
}

static int rnic_res_cq(struct sk_buff *msg, struct rnic_cq *cq)
{
	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "user", cq->user))
		return -EMSGSIZE;
	if (!cq->user &&
	    rdma_nl_put_driver_u32(msg, "cons", READ_ONCE(cq->cons)))
		return -EMSGSIZE;
	return 0;
}

static int rnic_res_mr(struct sk_buff *msg, struct rnic_mr *mr)
{
	if (rdma_nl_put_driver_u32(msg, "stag_index", mr->index) ||
	    rdma_nl_put_driver_u32(msg, "user", !!mr->umem))
		return -EMSGSIZE;
	if (mr->pages &&
	    (rdma_nl_put_driver_u32(msg, "frmr_max_pages", mr->max_pages) ||
	     rdma_nl_put_driver_u32(msg, "frmr_npages", mr->npages)))
		return -EMSGSIZE;
	return 0;
}

/* The driver's entries go in their own nest (RDMA_NLDEV_ATTR_DRIVER). */
static struct nlattr *rnic_res_open(struct sk_buff *msg)
{
	return nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
}

static int rnic_res_close(struct sk_buff *msg, struct nlattr *nest, int err)
{
	if (err) {
		nla_nest_cancel(msg, nest);
		return err;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int rnic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct nlattr *nest = rnic_res_open(msg);

	if (!nest)
		return -EMSGSIZE;
	return rnic_res_close(msg, nest, rnic_res_qp(msg, to_rqp(ibqp)));
}

static int rnic_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct nlattr *nest = rnic_res_open(msg);

	if (!nest)
		return -EMSGSIZE;
	return rnic_res_close(msg, nest, rnic_res_cq(msg, to_rcq(ibcq)));
}

static int rnic_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct nlattr *nest = rnic_res_open(msg);

	if (!nest)
		return -EMSGSIZE;
	return rnic_res_close(msg, nest, rnic_res_mr(msg, to_rmr(ibmr)));
}

static const struct ib_device_ops rnic_ib_restrack_ops = {
	.fill_res_qp_entry = rnic_fill_res_qp_entry,
	.fill_res_cq_entry = rnic_fill_res_cq_entry,
	.fill_res_mr_entry = rnic_fill_res_mr_entry,
};

void rnic_ib_set_restrack_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &rnic_ib_restrack_ops);
}
