// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The net_device of the rnic port: open/stop, MTU and MAC changes, receive
 * filter flags and link state.  The rings themselves are in l2.c.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>

#include "rnic.h"

/* Tell the device our address, MTU and filter flags.  Holds port_lock. */
int rnic_set_port(struct rnic_dev *rdev)
{
	struct net_device *nd = rdev->netdev;
	struct rnic_admin_cmd cmd = {};
	u32 flags = 0;
	int err;

	lockdep_assert_held(&rdev->port_lock);
	if (nd->flags & IFF_PROMISC)
		flags |= RNIC_PORT_PROMISC;
	if (nd->flags & IFF_ALLMULTI)
		flags |= RNIC_PORT_ALLMULTI;
	cmd.hdr.opcode = RNIC_CMD_SET_PORT;
	ether_addr_copy(cmd.u.set_port.mac, nd->dev_addr);
	cmd.u.set_port.mtu = cpu_to_le16(READ_ONCE(nd->mtu));
	cmd.u.set_port.flags = cpu_to_le32(flags);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (err)
		netdev_err(nd, "SET_PORT (mtu %u, flags %#x) failed: %d\n",
			   READ_ONCE(nd->mtu), flags, err);
	return err;
}

void rnic_netdev_link(struct rnic_dev *rdev, bool up)
{
	if (up)
		netif_carrier_on(rdev->netdev);
	else
		netif_carrier_off(rdev->netdev);
}

static int rnic_open(struct net_device *nd)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	int err;

	mutex_lock(&rdev->port_lock);
	err = rnic_l2_up(rdev);
	mutex_unlock(&rdev->port_lock);
	if (err)
		return err;
	/*
	 * A PORT_UP that came before registration set the carrier without a
	 * linkwatch event; go through off so the operstate follows.
	 */
	netif_carrier_off(nd);
	rnic_netdev_link(rdev, rnic_rd(rdev, RNIC_REG_DEV_STATUS) &
			 RNIC_STATUS_LINK_UP);
	return 0;
}

static int rnic_stop(struct net_device *nd)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);

	mutex_lock(&rdev->port_lock);
	rnic_l2_down(rdev);
	mutex_unlock(&rdev->port_lock);
	cancel_work_sync(&rdev->rx_mode_work);
	return 0;
}

/* Rings are sized for the MTU: a running port gets new ones. */
static int rnic_change_mtu(struct net_device *nd, int new_mtu)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	unsigned int old_mtu = nd->mtu;
	int err = 0;

	mutex_lock(&rdev->port_lock);
	if (!netif_running(nd)) {
		WRITE_ONCE(nd->mtu, new_mtu);
		goto out;
	}
	rnic_l2_down(rdev);
	WRITE_ONCE(nd->mtu, new_mtu);
	err = rnic_l2_up(rdev);
	if (err) {
		netdev_err(nd, "MTU %d refused (%d), back to %u\n", new_mtu, err,
			   old_mtu);
		WRITE_ONCE(nd->mtu, old_mtu);
		if (rnic_l2_up(rdev))
			netdev_err(nd, "port stays down\n");
	}
out:
	mutex_unlock(&rdev->port_lock);
	return err;
}

static int rnic_set_mac(struct net_device *nd, void *p)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	u8 old[ETH_ALEN];
	int err;

	err = eth_prepare_mac_addr_change(nd, p);
	if (err)
		return err;
	ether_addr_copy(old, nd->dev_addr);
	eth_commit_mac_addr_change(nd, p);
	if (!netif_running(nd))
		return 0;
	mutex_lock(&rdev->port_lock);
	err = rnic_set_port(rdev);
	if (err)
		eth_hw_addr_set(nd, old);
	mutex_unlock(&rdev->port_lock);
	return err;
}

/* ndo_set_rx_mode runs in atomic context; SET_PORT sleeps. */
static void rnic_set_rx_mode(struct net_device *nd)
{
	schedule_work(&rnic_from_netdev(nd)->rx_mode_work);
}

static void rnic_rx_mode_work(struct work_struct *work)
{
	struct rnic_dev *rdev = container_of(work, struct rnic_dev,
					     rx_mode_work);

	mutex_lock(&rdev->port_lock);
	if (rdev->l2.rxq_live)
		rnic_set_port(rdev);
	mutex_unlock(&rdev->port_lock);
}

static void rnic_tx_timeout(struct net_device *nd, unsigned int txqueue)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	struct rnic_l2 *l2 = &rdev->l2;

	netdev_warn(nd, "TX stalled: prod %u cons %u, device status %#x\n",
		    READ_ONCE(l2->tx_prod), READ_ONCE(l2->tx_cons),
		    rnic_rd(rdev, RNIC_REG_DEV_STATUS));
	/* A lost ring event is the likely cause: reap and re-arm. */
	napi_schedule(&l2->napi);
}

static void rnic_get_stats64(struct net_device *nd,
			     struct rtnl_link_stats64 *s)
{
	rnic_l2_get_stats(&rnic_from_netdev(nd)->l2, s);
}

static const struct net_device_ops rnic_netdev_ops = {
	.ndo_open = rnic_open,
	.ndo_stop = rnic_stop,
	.ndo_start_xmit = rnic_l2_xmit,
	.ndo_change_mtu = rnic_change_mtu,
	.ndo_set_mac_address = rnic_set_mac,
	.ndo_set_rx_mode = rnic_set_rx_mode,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_tx_timeout = rnic_tx_timeout,
	.ndo_get_stats64 = rnic_get_stats64,
};

int rnic_netdev_alloc(struct rnic_dev *rdev)
{
	struct net_device *nd;
	u32 lo, hi;
	u8 mac[ETH_ALEN];

	nd = alloc_etherdev(sizeof(struct rnic_dev *));
	if (!nd)
		return -ENOMEM;
	*(struct rnic_dev **)netdev_priv(nd) = rdev;
	SET_NETDEV_DEV(nd, &rdev->pdev->dev);
	rdev->netdev = nd;
	rdev->l2.rdev = rdev;

	lo = rnic_rd(rdev, RNIC_REG_MAC_LO);
	hi = rnic_rd(rdev, RNIC_REG_MAC_HI);
	mac[0] = lo;
	mac[1] = lo >> 8;
	mac[2] = lo >> 16;
	mac[3] = lo >> 24;
	mac[4] = hi;
	mac[5] = hi >> 8;
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(nd, mac);
		memcpy(nd->perm_addr, mac, ETH_ALEN);
	} else {
		dev_warn(&rdev->pdev->dev, "invalid MAC %pM, using a random one\n",
			 mac);
		eth_hw_addr_random(nd);
	}

	nd->netdev_ops = &rnic_netdev_ops;
	rnic_set_ethtool_ops(nd);
	nd->watchdog_timeo = 5 * HZ;
	nd->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	nd->min_mtu = max_t(u32, ETH_MIN_MTU, rdev->caps.min_mtu);
	/* An RX buffer holds MTU + header + one VLAN tag. */
	nd->max_mtu = min_t(u32, rdev->caps.max_mtu,
			    RNIC_L2_MAX_FRAME - VLAN_ETH_HLEN - ETH_FCS_LEN);
	if (nd->mtu > nd->max_mtu)
		nd->mtu = nd->max_mtu;

	u64_stats_init(&rdev->l2.tx_stats.syncp);
	u64_stats_init(&rdev->l2.rx_stats.syncp);
	netif_napi_add(nd, &rdev->l2.napi, rnic_l2_poll);
	INIT_WORK(&rdev->rx_mode_work, rnic_rx_mode_work);
	netif_carrier_off(nd);
	return 0;
}

int rnic_netdev_register(struct rnic_dev *rdev)
{
	int err = register_netdev(rdev->netdev);

	if (err)
		dev_err(&rdev->pdev->dev, "register_netdev: %d\n", err);
	else
		netdev_info(rdev->netdev, "rnic port %pM, MTU %u..%u\n",
			    rdev->netdev->dev_addr, rdev->netdev->min_mtu,
			    rdev->netdev->max_mtu);
	return err;
}

void rnic_netdev_unregister(struct rnic_dev *rdev)
{
	unregister_netdev(rdev->netdev);
	cancel_work_sync(&rdev->rx_mode_work);
}

void rnic_netdev_free(struct rnic_dev *rdev)
{
	if (!rdev->netdev)
		return;
	cancel_work_sync(&rdev->rx_mode_work);
	netif_napi_del(&rdev->l2.napi);
	free_netdev(rdev->netdev);
	rdev->netdev = NULL;
}
