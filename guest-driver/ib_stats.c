// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port hardware counters (`rdma statistic show link rnic0/1`, sysfs
 * ports/1/hw_counters): the device's QUERY_STATS, read when asked.  The
 * TCP names follow the TCP MIB (RFC 4022) where it has one, as cxgb4 and
 * irdma do; docs/hardware-interface.md "Counters" says what each counts.
 */
#include "ib.h"

/* priv: where the counter sits in struct rnic_dev_stats (a __le64). */
#define RNIC_CTR(n, f) \
	{ .name = n, .priv = (const void *)offsetof(struct rnic_dev_stats, f) }

static const struct rdma_stat_desc rnic_hw_stat_descs[] = {
	RNIC_CTR("tcpOutSegs", proto.tcp_tx_segs),
	RNIC_CTR("tcpInSegs", proto.tcp_rx_segs),
	RNIC_CTR("tcpOutDataSegs", proto.tcp_tx_data_segs),
	RNIC_CTR("tcpRetransSegs", proto.tcp_rexmit_segs),
	RNIC_CTR("tcpTimeouts", proto.tcp_rto),
	RNIC_CTR("tcpFastRetrans", proto.tcp_fast_rexmit),
	RNIC_CTR("tcpInCsumErrors", proto.tcp_rx_csum_err),
	RNIC_CTR("tcpInHdrErrors", proto.tcp_rx_bad),
	RNIC_CTR("tcpInOutOfOrder", proto.tcp_rx_ooo),
	RNIC_CTR("tcpInDupSegs", proto.tcp_rx_dup),
	RNIC_CTR("tcpInNoConn", proto.tcp_rx_no_conn),
	RNIC_CTR("tcpOutRsts", proto.tcp_tx_rst),
	RNIC_CTR("tcpPawsDrops", proto.tcp_paws_drop),
	RNIC_CTR("tcpConnsOpened", proto.tcp_conns_opened),
	RNIC_CTR("mpaCrcErrors", proto.mpa_crc_err),
	RNIC_CTR("mpaFramingErrors", proto.mpa_frame_err),
	RNIC_CTR("mpaNegFailures", proto.mpa_neg_fail),
	RNIC_CTR("iwTermSent", proto.term_tx),
	RNIC_CTR("iwTermReceived", proto.term_rx),
	RNIC_CTR("iwFpduSent", proto.fpdu_tx),
	RNIC_CTR("iwFpduReceived", proto.fpdu_rx),
	RNIC_CTR("iwConnsEstablished", proto.conns_rts),
	RNIC_CTR("portTxFrames", port.tx_frames),
	RNIC_CTR("portTxBytes", port.tx_bytes),
	RNIC_CTR("portTxErrors", port.tx_errors),
	RNIC_CTR("portRxFrames", port.rx_frames),
	RNIC_CTR("portRxBytes", port.rx_bytes),
	RNIC_CTR("portRxNoBuffer", port.rx_no_buffer),
	RNIC_CTR("portRxTooLong", port.rx_too_long),
	RNIC_CTR("portRxFiltered", port.rx_filtered),
	RNIC_CTR("portRxOffload", port.rx_offload),
	RNIC_CTR("portRxErrors", port.rx_errors),
	RNIC_CTR("connMemBytes", port.conn_mem_bytes),
	RNIC_CTR("tcpEngineMemBytes", port.tcp_engine_mem_bytes),
};

#define RNIC_NUM_HW_CTRS	ARRAY_SIZE(rnic_hw_stat_descs)

static struct rdma_hw_stats *rnic_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port_num)
{
	return rdma_alloc_hw_stats_struct(rnic_hw_stat_descs, RNIC_NUM_HW_CTRS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static u64 rnic_ctr(const struct rnic_dev_stats *ds, unsigned int i)
{
	uintptr_t off = (uintptr_t)rnic_hw_stat_descs[i].priv;

	return le64_to_cpup((const __le64 *)((const u8 *)ds + off));
}

static int rnic_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rnic_dev_stats *ds;
	unsigned int i;
	int err;

	if (!port)
		return -EOPNOTSUPP;	/* device-wide counters: none */
	ds = kzalloc(sizeof(*ds), GFP_KERNEL);
	if (!ds)
		return -ENOMEM;
	err = rnic_query_stats(ib_rdev(ibdev), ds);
	if (!err) {
		for (i = 0; i < RNIC_NUM_HW_CTRS; i++)
			stats->value[i] = rnic_ctr(ds, i);
	}
	kfree(ds);
	return err ? err : RNIC_NUM_HW_CTRS;
}

static const struct ib_device_ops rnic_ib_stats_ops = {
	.alloc_hw_port_stats = rnic_alloc_hw_port_stats,
	.get_hw_stats = rnic_get_hw_stats,
};

void rnic_ib_set_stats_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &rnic_ib_stats_ops);
}
