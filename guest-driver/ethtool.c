// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ethtool: driver info, link, ring sizes, and statistics (the driver's own
 * ring counters plus the port counters the device keeps, QUERY_STATS).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "rnic.h"

struct rnic_stat_desc {
	char name[ETH_GSTRING_LEN];
	unsigned int offset;
};

#define RNIC_PORT_STAT(f) { "port_" #f, offsetof(struct rnic_port_stats, f) }
static const struct rnic_stat_desc rnic_port_stats_desc[] = {
	RNIC_PORT_STAT(tx_frames),
	RNIC_PORT_STAT(tx_bytes),
	RNIC_PORT_STAT(tx_errors),
	RNIC_PORT_STAT(rx_frames),
	RNIC_PORT_STAT(rx_bytes),
	RNIC_PORT_STAT(rx_no_buffer),
	RNIC_PORT_STAT(rx_too_long),
	RNIC_PORT_STAT(rx_filtered),
	RNIC_PORT_STAT(rx_offload),
	RNIC_PORT_STAT(rx_errors),
};

static const char rnic_drv_stats_names[][ETH_GSTRING_LEN] = {
	"tx_packets", "tx_bytes", "tx_errors", "tx_dropped", "tx_busy",
	"rx_packets", "rx_bytes", "rx_errors", "rx_alloc_fail",
};

#define RNIC_NUM_DRV_STATS	ARRAY_SIZE(rnic_drv_stats_names)
#define RNIC_NUM_PORT_STATS	ARRAY_SIZE(rnic_port_stats_desc)

/*
 * Read the device's counters.  A device that writes the port block alone
 * (port.stats_len below sizeof(*out)) leaves the protocol counters 0.
 * Sleeps.
 */
int rnic_query_stats(struct rnic_dev *rdev, struct rnic_dev_stats *out)
{
	struct rnic_admin_cmd cmd = {};
	int err;

	mutex_lock(&rdev->stats_lock);
	memset(rdev->stats_buf, 0, sizeof(*rdev->stats_buf));
	cmd.hdr.opcode = RNIC_CMD_QUERY_STATS;
	cmd.u.query_stats.buf_addr = cpu_to_le64(rdev->stats_dma);
	cmd.u.query_stats.buf_len = cpu_to_le32(sizeof(*rdev->stats_buf));
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (!err)
		memcpy(out, rdev->stats_buf, sizeof(*out));
	mutex_unlock(&rdev->stats_lock);
	return err;
}

static void rnic_get_drvinfo(struct net_device *nd,
			     struct ethtool_drvinfo *info)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);

	strscpy(info->driver, RNIC_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(rdev->pdev), sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "hw %u.%u",
		 rdev->caps.version >> 16, rdev->caps.version & 0xffff);
}

static int rnic_get_link_ksettings(struct net_device *nd,
				   struct ethtool_link_ksettings *ks)
{
	/* An emulated port has no line rate; only the link state is real. */
	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = SPEED_UNKNOWN;
	ks->base.duplex = netif_carrier_ok(nd) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static void rnic_get_ringparam(struct net_device *nd,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	u32 max = min_t(u32, RNIC_L2_DEPTH,
			rounddown_pow_of_two(rdev->caps.max_l2q_depth));

	ring->rx_max_pending = max;
	ring->tx_max_pending = max;
	ring->rx_pending = max;
	ring->tx_pending = max;
}

static int rnic_get_sset_count(struct net_device *nd, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return RNIC_NUM_DRV_STATS + RNIC_NUM_PORT_STATS;
}

static void rnic_get_strings(struct net_device *nd, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < RNIC_NUM_DRV_STATS; i++, data += ETH_GSTRING_LEN)
		memcpy(data, rnic_drv_stats_names[i], ETH_GSTRING_LEN);
	for (i = 0; i < RNIC_NUM_PORT_STATS; i++, data += ETH_GSTRING_LEN)
		memcpy(data, rnic_port_stats_desc[i].name, ETH_GSTRING_LEN);
}

static void rnic_get_ethtool_stats(struct net_device *nd,
				   struct ethtool_stats *stats, u64 *data)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	struct rtnl_link_stats64 s = {};
	struct rnic_dev_stats ds;
	unsigned int i;
	int err;

	rnic_l2_get_stats(&rdev->l2, &s);
	*data++ = s.tx_packets;
	*data++ = s.tx_bytes;
	*data++ = s.tx_errors;
	*data++ = s.tx_dropped;
	*data++ = atomic_long_read(&rdev->l2.tx_busy);
	*data++ = s.rx_packets;
	*data++ = s.rx_bytes;
	*data++ = s.rx_errors;
	*data++ = s.rx_dropped;

	err = rnic_query_stats(rdev, &ds);
	if (err) {
		/* ethtool cannot carry an error here: say so in the log. */
		dev_warn_ratelimited(&rdev->pdev->dev,
				     "QUERY_STATS failed (%d): port counters read as 0\n",
				     err);
		memset(&ds, 0, sizeof(ds));
	}
	for (i = 0; i < RNIC_NUM_PORT_STATS; i++)
		*data++ = le64_to_cpup((__le64 *)((u8 *)&ds.port +
						  rnic_port_stats_desc[i].offset));
}

static const struct ethtool_ops rnic_ethtool_ops = {
	.get_drvinfo = rnic_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = rnic_get_link_ksettings,
	.get_ringparam = rnic_get_ringparam,
	.get_sset_count = rnic_get_sset_count,
	.get_strings = rnic_get_strings,
	.get_ethtool_stats = rnic_get_ethtool_stats,
};

void rnic_set_ethtool_ops(struct net_device *nd)
{
	nd->ethtool_ops = &rnic_ethtool_ops;
}
