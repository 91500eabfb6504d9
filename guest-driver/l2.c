// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The L2 data path: one TX and one RX ring of 16-byte descriptors that the
 * device writes back with DONE (docs/hardware-interface.md section 7), one
 * NAPI context for both.  Ring events are armed when NAPI completes; an
 * armed ring with progress since its last event raises one entry on the L2
 * EQ, whose interrupt schedules NAPI again.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>

#include "rnic.h"

static u32 rnic_tx_free(const struct rnic_l2 *l2)
{
	return l2->tx_ring.depth - (l2->tx_prod - READ_ONCE(l2->tx_cons));
}

/* Wake a stopped queue only when a burst fits again. */
static bool rnic_tx_wakeable(const struct rnic_l2 *l2)
{
	return rnic_tx_free(l2) >= l2->tx_ring.depth / 4;
}

netdev_tx_t rnic_l2_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct rnic_dev *rdev = rnic_from_netdev(nd);
	struct rnic_l2 *l2 = &rdev->l2;
	struct rnic_l2_tx_desc *desc;
	struct rnic_tx_buf *buf;
	dma_addr_t dma;

	/* The device wants whole Ethernet frames; pad runts like a wire would. */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		atomic_long_inc(&l2->tx_dropped);
		return NETDEV_TX_OK;
	}
	if (unlikely(skb->len > nd->mtu + VLAN_ETH_HLEN)) {
		atomic_long_inc(&l2->tx_dropped);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (unlikely(!rnic_tx_free(l2))) {
		/* Not reached while the stop/wake logic below holds. */
		netif_stop_queue(nd);
		atomic_long_inc(&l2->tx_busy);
		return NETDEV_TX_BUSY;
	}
	dma = dma_map_single(&rdev->pdev->dev, skb->data, skb->len,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(&rdev->pdev->dev, dma)) {
		atomic_long_inc(&l2->tx_dropped);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	buf = &l2->tx_bufs[l2->tx_prod & (l2->tx_ring.depth - 1)];
	buf->skb = skb;
	buf->dma = dma;
	buf->len = skb->len;
	desc = rnic_ring_entry(&l2->tx_ring, l2->tx_prod);
	desc->addr = cpu_to_le64(dma);
	desc->len = cpu_to_le16(skb->len);
	desc->flags = RNIC_L2_TX_EOP;
	desc->rsvd = 0;
	desc->status = 0;
	skb_tx_timestamp(skb);
	/* NAPI reads the producer to know which slots hold skbs. */
	smp_store_release(&l2->tx_prod, l2->tx_prod + 1);

	if (!rnic_tx_free(l2)) {
		netif_stop_queue(nd);
		/* Order the stop before re-reading tx_cons; pairs with NAPI. */
		smp_mb();
		if (rnic_tx_wakeable(l2))
			netif_start_queue(nd);
	}
	if (!netdev_xmit_more() || netif_queue_stopped(nd))
		rnic_ring_db(rdev, RNIC_DB_L2_TX, RNIC_L2_QID, 0, l2->tx_prod);
	return NETDEV_TX_OK;
}

static void rnic_tx_clean(struct rnic_l2 *l2, int budget)
{
	struct net_device *nd = l2->rdev->netdev;
	struct device *dev = &l2->rdev->pdev->dev;
	u32 cons = l2->tx_cons, mask = l2->tx_ring.depth - 1;
	u64 packets = 0, bytes = 0, errors = 0;
	u32 prod;

	/* Pairs with xmit's release: slots below prod hold their skb. */
	prod = smp_load_acquire(&l2->tx_prod);

	while (cons != prod) {
		struct rnic_l2_tx_desc *desc = rnic_ring_entry(&l2->tx_ring, cons);
		struct rnic_tx_buf *buf = &l2->tx_bufs[cons & mask];
		u8 status = READ_ONCE(desc->status);

		if (!(status & RNIC_L2_DONE))
			break;
		dma_rmb();
		dma_unmap_single(dev, buf->dma, buf->len, DMA_TO_DEVICE);
		if (status & RNIC_L2_ERR) {
			errors++;
		} else {
			packets++;
			bytes += buf->len;
		}
		napi_consume_skb(buf->skb, budget);
		buf->skb = NULL;
		cons++;
	}
	if (cons == l2->tx_cons)
		return;
	if (errors)
		dev_warn_ratelimited(dev, "device refused %llu TX frames\n",
				     errors);
	u64_stats_update_begin(&l2->tx_stats.syncp);
	l2->tx_stats.packets += packets;
	l2->tx_stats.bytes += bytes;
	l2->tx_stats.errors += errors;
	u64_stats_update_end(&l2->tx_stats.syncp);

	WRITE_ONCE(l2->tx_cons, cons);
	/* Publish tx_cons before testing stopped; pairs with xmit. */
	smp_mb();
	if (netif_queue_stopped(nd) && rnic_tx_wakeable(l2))
		netif_wake_queue(nd);
}

/* Give the device one empty buffer at rx_prod (not yet rung). */
static int rnic_rx_post(struct rnic_l2 *l2, gfp_t gfp)
{
	struct device *dev = &l2->rdev->pdev->dev;
	struct rnic_rx_buf *buf;
	struct rnic_l2_rx_desc *desc;
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = __netdev_alloc_skb_ip_align(l2->rdev->netdev, l2->rx_buf_len, gfp);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(dev, skb->data, l2->rx_buf_len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	buf = &l2->rx_bufs[l2->rx_prod & (l2->rx_ring.depth - 1)];
	buf->skb = skb;
	buf->dma = dma;
	desc = rnic_ring_entry(&l2->rx_ring, l2->rx_prod);
	desc->addr = cpu_to_le64(dma);
	desc->buf_len = cpu_to_le16(l2->rx_buf_len);
	desc->pkt_len = 0;
	desc->flags = 0;
	desc->rsvd = 0;
	desc->status = 0;
	l2->rx_prod++;
	return 0;
}

/* Fill every free RX slot; returns how many were posted. */
static u32 rnic_rx_refill(struct rnic_l2 *l2, gfp_t gfp)
{
	u32 n = 0;

	while (l2->rx_prod - l2->rx_cons < l2->rx_fill) {
		if (rnic_rx_post(l2, gfp)) {
			u64_stats_update_begin(&l2->rx_stats.syncp);
			l2->rx_stats.dropped++;
			u64_stats_update_end(&l2->rx_stats.syncp);
			break;
		}
		n++;
	}
	return n;
}

static int rnic_rx_poll(struct rnic_l2 *l2, int budget)
{
	struct net_device *nd = l2->rdev->netdev;
	struct device *dev = &l2->rdev->pdev->dev;
	u32 mask = l2->rx_ring.depth - 1;
	u64 packets = 0, bytes = 0, errors = 0;
	int done = 0;

	while (done < budget && l2->rx_cons != l2->rx_prod) {
		struct rnic_l2_rx_desc *desc = rnic_ring_entry(&l2->rx_ring,
							       l2->rx_cons);
		struct rnic_rx_buf *buf = &l2->rx_bufs[l2->rx_cons & mask];
		u8 status = READ_ONCE(desc->status);
		struct sk_buff *skb;
		u32 len;

		if (!(status & RNIC_L2_DONE))
			break;
		dma_rmb();
		len = le16_to_cpu(desc->pkt_len);
		skb = buf->skb;
		buf->skb = NULL;
		dma_unmap_single(dev, buf->dma, l2->rx_buf_len, DMA_FROM_DEVICE);
		l2->rx_cons++;
		done++;
		/* Never trust a length the device wrote. */
		if ((status & RNIC_L2_ERR) || len < ETH_HLEN ||
		    len > l2->rx_buf_len) {
			errors++;
			napi_consume_skb(skb, budget);
			continue;
		}
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, nd);
		packets++;
		bytes += len;
		napi_gro_receive(&l2->napi, skb);
	}
	if (done) {
		u64_stats_update_begin(&l2->rx_stats.syncp);
		l2->rx_stats.packets += packets;
		l2->rx_stats.bytes += bytes;
		l2->rx_stats.errors += errors;
		u64_stats_update_end(&l2->rx_stats.syncp);
	}
	return done;
}

/* Ask for one event on the next progress of either ring. */
static void rnic_l2_arm(struct rnic_l2 *l2)
{
	struct rnic_dev *rdev = l2->rdev;
	struct netdev_queue *txq = netdev_get_tx_queue(rdev->netdev, 0);

	rnic_ring_db(rdev, RNIC_DB_L2_RX, RNIC_L2_QID, RNIC_DB_ARM, l2->rx_prod);
	/* The TX doorbell carries the producer, which xmit moves under this lock. */
	__netif_tx_lock(txq, smp_processor_id());
	rnic_ring_db(rdev, RNIC_DB_L2_TX, RNIC_L2_QID, RNIC_DB_ARM, l2->tx_prod);
	__netif_tx_unlock(txq);
}

int rnic_l2_poll(struct napi_struct *napi, int budget)
{
	struct rnic_l2 *l2 = container_of(napi, struct rnic_l2, napi);
	bool posted;
	int done;

	rnic_tx_clean(l2, budget);
	done = rnic_rx_poll(l2, budget);
	posted = rnic_rx_refill(l2, GFP_ATOMIC);
	/* With no RX buffer posted no frame, hence no event, can come. */
	if (l2->rx_prod == l2->rx_cons)
		return budget;
	if (done < budget && napi_complete_done(napi, done)) {
		/* The arming RX doorbell also hands over the new buffers. */
		rnic_l2_arm(l2);
		return done;
	}
	if (posted)
		rnic_ring_db(l2->rdev, RNIC_DB_L2_RX, RNIC_L2_QID, 0, l2->rx_prod);
	return done;
}

/* L2 EQ handler (hard IRQ): any ring event means "poll". */
void rnic_l2_event(struct rnic_eq *eq, const struct rnic_eqe *eqe)
{
	struct rnic_dev *rdev = eq->rdev;

	if ((eqe->type == RNIC_EQE_L2_TX || eqe->type == RNIC_EQE_L2_RX) &&
	    le32_to_cpu(eqe->obj) == RNIC_L2_QID) {
		napi_schedule_irqoff(&rdev->l2.napi);
		return;
	}
	dev_warn_ratelimited(&rdev->pdev->dev,
			     "unexpected event type %u object %u on the L2 EQ\n",
			     eqe->type, le32_to_cpu(eqe->obj));
}

static int rnic_l2q_create(struct rnic_dev *rdev, u8 opcode,
			   struct rnic_ring *ring)
{
	struct rnic_admin_cmd cmd = {};
	int err;

	cmd.hdr.opcode = opcode;
	cmd.u.create_l2q.qid = cpu_to_le32(RNIC_L2_QID);
	cmd.u.create_l2q.eqn = cpu_to_le32(RNIC_EQN_L2);
	cmd.u.create_l2q.log_depth = ilog2(ring->depth);
	rnic_ring_to_pbl(ring, &cmd.u.create_l2q.ring);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (err)
		netdev_err(rdev->netdev, "creating the %s ring failed: %d\n",
			   opcode == RNIC_CMD_CREATE_TXQ ? "TX" : "RX", err);
	return err;
}

/* Destroy the device queues, then free buffers and rings. */
static void rnic_l2_teardown(struct rnic_dev *rdev)
{
	struct rnic_l2 *l2 = &rdev->l2;
	struct device *dev = &rdev->pdev->dev;
	bool failed = false;
	u32 i;

	if (l2->txq_live &&
	    rnic_admin_destroy(rdev, RNIC_CMD_DESTROY_TXQ, RNIC_L2_QID))
		failed = true;
	if (l2->rxq_live &&
	    rnic_admin_destroy(rdev, RNIC_CMD_DESTROY_RXQ, RNIC_L2_QID))
		failed = true;
	l2->txq_live = false;
	l2->rxq_live = false;
	/* The device might still DMA into the buffers: stop it first. */
	if (failed)
		rnic_dev_fail(rdev, "L2 queue teardown failed");

	for (i = 0; l2->tx_bufs && i < l2->tx_ring.depth; i++) {
		struct rnic_tx_buf *buf = &l2->tx_bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dev, buf->dma, buf->len, DMA_TO_DEVICE);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
	for (i = 0; l2->rx_bufs && i < l2->rx_ring.depth; i++) {
		struct rnic_rx_buf *buf = &l2->rx_bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dev, buf->dma, l2->rx_buf_len, DMA_FROM_DEVICE);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
	kfree(l2->tx_bufs);
	kfree(l2->rx_bufs);
	l2->tx_bufs = NULL;
	l2->rx_bufs = NULL;
	rnic_ring_free(rdev, &l2->tx_ring);
	rnic_ring_free(rdev, &l2->rx_ring);
}

/* Bring the rings up for the current MTU.  Holds port_lock. */
int rnic_l2_up(struct rnic_dev *rdev)
{
	struct rnic_l2 *l2 = &rdev->l2;
	struct net_device *nd = rdev->netdev;
	u32 depth = min_t(u32, RNIC_L2_DEPTH,
			  rounddown_pow_of_two(rdev->caps.max_l2q_depth));
	int err;

	lockdep_assert_held(&rdev->port_lock);
	if (rnic_dead(rdev))
		return -EIO;
	l2->tx_prod = 0;
	l2->tx_cons = 0;
	l2->rx_prod = 0;
	l2->rx_cons = 0;
	/* Buffers follow the MTU: rnic_change_mtu brings the rings up anew. */
	l2->rx_buf_len = nd->mtu + VLAN_ETH_HLEN;
	l2->rx_fill = clamp_t(u32, RNIC_L2_RX_BYTES / l2->rx_buf_len,
			      min_t(u32, RNIC_L2_RX_MIN_BUFS, depth), depth);

	err = rnic_ring_alloc(rdev, &l2->tx_ring, depth, RNIC_L2_DESC_SIZE);
	if (err)
		goto err;
	err = rnic_ring_alloc(rdev, &l2->rx_ring, depth, RNIC_L2_DESC_SIZE);
	if (err)
		goto err;
	l2->tx_bufs = kcalloc(depth, sizeof(*l2->tx_bufs), GFP_KERNEL);
	l2->rx_bufs = kcalloc(depth, sizeof(*l2->rx_bufs), GFP_KERNEL);
	if (!l2->tx_bufs || !l2->rx_bufs) {
		err = -ENOMEM;
		goto err;
	}
	err = rnic_set_port(rdev);
	if (err)
		goto err;
	err = rnic_l2q_create(rdev, RNIC_CMD_CREATE_TXQ, &l2->tx_ring);
	if (err)
		goto err;
	l2->txq_live = true;
	err = rnic_l2q_create(rdev, RNIC_CMD_CREATE_RXQ, &l2->rx_ring);
	if (err)
		goto err;
	l2->rxq_live = true;
	if (!rnic_rx_refill(l2, GFP_KERNEL)) {
		err = -ENOMEM;
		goto err;
	}
	l2->up = true;
	napi_enable(&l2->napi);
	/* NAPI is off and the queue stopped: nobody else rings yet. */
	rnic_ring_db(rdev, RNIC_DB_L2_RX, RNIC_L2_QID, RNIC_DB_ARM, l2->rx_prod);
	rnic_ring_db(rdev, RNIC_DB_L2_TX, RNIC_L2_QID, RNIC_DB_ARM, l2->tx_prod);
	netif_wake_queue(nd);
	return 0;

err:
	rnic_l2_teardown(rdev);
	return err;
}

void rnic_l2_down(struct rnic_dev *rdev)
{
	struct rnic_l2 *l2 = &rdev->l2;

	lockdep_assert_held(&rdev->port_lock);
	if (!l2->up)
		return;
	netif_tx_disable(rdev->netdev);
	napi_disable(&l2->napi);
	rnic_l2_teardown(rdev);
	l2->up = false;
}

void rnic_l2_get_stats(struct rnic_l2 *l2, struct rtnl_link_stats64 *s)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&l2->tx_stats.syncp);
		s->tx_packets = l2->tx_stats.packets;
		s->tx_bytes = l2->tx_stats.bytes;
		s->tx_errors = l2->tx_stats.errors;
	} while (u64_stats_fetch_retry(&l2->tx_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&l2->rx_stats.syncp);
		s->rx_packets = l2->rx_stats.packets;
		s->rx_bytes = l2->rx_stats.bytes;
		s->rx_errors = l2->rx_stats.errors;
		s->rx_dropped = l2->rx_stats.dropped;
	} while (u64_stats_fetch_retry(&l2->rx_stats.syncp, start));
	s->tx_dropped = atomic_long_read(&l2->tx_dropped);
}
