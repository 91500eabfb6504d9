/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic: Linux driver for the emulated iWARP RNIC (QEMU -device rnic).
 *
 * One PCI function = one Ethernet port.  The driver is layered so the RDMA
 * side (an iWARP ib_device, later) can sit beside the net_device on the same
 * core: main.c (PCI, reset/enable), ring.c (queue memory + page lists),
 * admin.c (command queue), eq.c (event queues, one MSI-X vector each),
 * netdev.c + l2.c (the NIC), ethtool.c.
 */
#ifndef RNIC_DRV_H
#define RNIC_DRV_H

#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "rnic/hw.h"

#define RNIC_DRV_NAME		"rnic"

/* Fixed event queue numbers (EQ n raises MSI-X vector n). */
#define RNIC_EQN_ASYNC		1	/* link and error events */
#define RNIC_EQN_L2		2	/* TX/RX ring events of L2 queue 0 */
#define RNIC_NUM_EQ		2	/* EQs the NIC needs */
#define RNIC_EQN_COMP		3	/* completion events of every CQ */
#define RNIC_EQN_CM		4	/* CM events + private data slots */
#define RNIC_NUM_EQ_RDMA	4	/* EQs the ib_device needs too */

#define RNIC_ADMIN_DEPTH	64
#define RNIC_EQ_DEPTH		1024
#define RNIC_L2_DEPTH		256
/*
 * RX buffer memory a port keeps posted: all of the ring up to MTU ~16000;
 * above, fewer buffers (64 at MTU 65000, each an order-5 allocation).
 */
#define RNIC_L2_RX_BYTES	(4u << 20)
#define RNIC_L2_RX_MIN_BUFS	16
#define RNIC_L2_QID		0

/*
 * A DMA-coherent ring plus its level-1 page list.  The buffer is one
 * coherent allocation; the page list still names every 4 KiB page because
 * that is what the device takes (and what user-memory rings will need).
 */
struct rnic_ring {
	void *buf;
	dma_addr_t dma;
	size_t size;		/* bytes, whole 4 KiB pages */
	__le64 *pbl;
	dma_addr_t pbl_dma;
	u32 npages;
	u32 depth;		/* entries, power of 2 */
	u32 entry_size;
};

/* What a single admin command waiter needs; indexed by the command tag. */
struct rnic_admin_slot {
	struct completion done;
	int err;		/* -EIO when the device was declared dead */
	u8 status;
	u32 result0;
	u32 result1;
};

struct rnic_admin {
	struct rnic_ring sq;
	struct rnic_ring cq;
	spinlock_t lock;	/* sq_tail, cq_head, slot bitmap */
	u32 sq_tail;		/* free-running, as written to ADMQ_SQ_TAIL */
	u32 cq_head;		/* free-running consumer index */
	struct semaphore credits;	/* one per ring slot */
	unsigned long *busy;	/* bitmap of tags in flight */
	struct rnic_admin_slot *slots;
	bool live;
};

struct rnic_eq;
typedef void (*rnic_eq_handler_t)(struct rnic_eq *eq, const struct rnic_eqe *eqe);

struct rnic_eq {
	struct rnic_dev *rdev;
	struct rnic_ring ring;
	struct rnic_ring pdata;	/* CM EQ: one private-data slot per entry */
	u32 eqn;
	u32 cons;		/* free-running consumer index */
	rnic_eq_handler_t handler;	/* runs in hard-IRQ context */
	bool live;		/* created on the device */
	bool irq_requested;
	char irq_name[32];
};

struct rnic_tx_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

struct rnic_rx_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
};

struct rnic_ring_stats {
	u64 packets;
	u64 bytes;
	u64 errors;
	u64 dropped;
	struct u64_stats_sync syncp;
};

/* The L2 queue pair behind the net_device. */
struct rnic_l2 {
	struct rnic_dev *rdev;
	struct napi_struct napi;
	struct rnic_ring tx_ring;
	struct rnic_ring rx_ring;
	struct rnic_tx_buf *tx_bufs;
	struct rnic_rx_buf *rx_bufs;
	u32 tx_prod;		/* free-running; written under the TX queue lock */
	u32 tx_cons;		/* advanced by NAPI */
	u32 rx_prod;
	u32 rx_cons;
	u32 rx_buf_len;
	u32 rx_fill;		/* RX buffers kept posted, <= ring depth */
	bool up;		/* rings allocated, NAPI enabled */
	bool txq_live;		/* created on the device */
	bool rxq_live;
	struct rnic_ring_stats tx_stats;	/* written by NAPI only */
	struct rnic_ring_stats rx_stats;	/* dropped = RX allocation failures */
	atomic_long_t tx_dropped;	/* xmit-side drops */
	atomic_long_t tx_busy;		/* xmit found the ring full */
};

struct rnic_caps {
	u32 version;
	u32 features;
	u32 max_eq;
	u32 max_l2q;
	u32 max_l2q_depth;
	u32 max_admq_depth;
	u32 max_eq_depth;
	u32 min_mtu;
	u32 max_mtu;
	u32 num_msix;
	u32 db_pages;
};

/* rnic_dev.flags */
#define RNIC_F_DEAD		0	/* device reset after a failure: no commands */

struct rnic_dev {
	struct pci_dev *pdev;
	void __iomem *regs;	/* BAR0 */
	void __iomem *db;	/* doorbell page 0 of BAR2 */
	struct rnic_caps caps;
	unsigned long flags;
	int nvecs;

	struct rnic_admin admin;
	struct rnic_eq eqs[RNIC_NUM_EQ_RDMA + 1];	/* index = eqn; 0 unused */

	struct net_device *netdev;
	struct rnic_l2 l2;
	struct mutex port_lock;	/* SET_PORT and L2 queue life cycle */
	struct work_struct rx_mode_work;

	struct mutex stats_lock;	/* the QUERY_STATS buffer */
	struct rnic_dev_stats *stats_buf;
	dma_addr_t stats_dma;

	struct rnic_ib *ib;	/* the ib_device, NULL while L2 only */
};

static inline u32 rnic_rd(struct rnic_dev *rdev, u32 off)
{
	return readl(rdev->regs + off);
}

static inline void rnic_wr(struct rnic_dev *rdev, u32 off, u32 val)
{
	writel(val, rdev->regs + off);
}

/* A doorbell is one 64-bit write; writeq orders it after the ring writes. */
static inline void rnic_ring_db(struct rnic_dev *rdev, u32 off, u32 obj,
				u32 flags, u32 idx)
{
	writeq(RNIC_DB_VAL(obj, flags, idx), rdev->db + off);
}

static inline struct rnic_dev *rnic_from_netdev(struct net_device *nd)
{
	return *(struct rnic_dev **)netdev_priv(nd);
}

static inline bool rnic_dead(struct rnic_dev *rdev)
{
	return test_bit(RNIC_F_DEAD, &rdev->flags);
}

/* Phase a consumer expects for free-running index idx (1 on the first pass). */
static inline u8 rnic_phase(u32 idx, u32 depth)
{
	return ((idx / depth) & 1) ? 0 : RNIC_CQE_PHASE;
}

struct rnic_ib;

/* main.c */
void rnic_dev_fail(struct rnic_dev *rdev, const char *why);

/* ring.c */
int rnic_ring_alloc(struct rnic_dev *rdev, struct rnic_ring *r, u32 depth,
		    u32 entry_size);
void rnic_ring_free(struct rnic_dev *rdev, struct rnic_ring *r);
void rnic_ring_to_pbl(const struct rnic_ring *r, struct rnic_pbl *pbl);
static inline void *rnic_ring_entry(const struct rnic_ring *r, u32 idx)
{
	return r->buf + (size_t)(idx & (r->depth - 1)) * r->entry_size;
}

/* admin.c */
int rnic_admin_init(struct rnic_dev *rdev);
void rnic_admin_cleanup(struct rnic_dev *rdev);
int rnic_admin_exec(struct rnic_dev *rdev, struct rnic_admin_cmd *cmd,
		    u32 *result0);
int rnic_admin_destroy(struct rnic_dev *rdev, u8 opcode, u32 id);
void rnic_admin_abort_all(struct rnic_dev *rdev);
irqreturn_t rnic_admin_irq(int irq, void *data);

/* eq.c */
int rnic_eq_create(struct rnic_dev *rdev, u32 eqn, u8 flags,
		   rnic_eq_handler_t handler);
void rnic_eq_destroy(struct rnic_dev *rdev, u32 eqn);
void rnic_async_event(struct rnic_eq *eq, const struct rnic_eqe *eqe);

/* netdev.c */
int rnic_netdev_alloc(struct rnic_dev *rdev);
int rnic_netdev_register(struct rnic_dev *rdev);
void rnic_netdev_unregister(struct rnic_dev *rdev);
void rnic_netdev_free(struct rnic_dev *rdev);
void rnic_netdev_link(struct rnic_dev *rdev, bool up);
int rnic_set_port(struct rnic_dev *rdev);

/* l2.c */
int rnic_l2_up(struct rnic_dev *rdev);
void rnic_l2_down(struct rnic_dev *rdev);
netdev_tx_t rnic_l2_xmit(struct sk_buff *skb, struct net_device *nd);
int rnic_l2_poll(struct napi_struct *napi, int budget);
void rnic_l2_event(struct rnic_eq *eq, const struct rnic_eqe *eqe);
void rnic_l2_get_stats(struct rnic_l2 *l2, struct rtnl_link_stats64 *s);

/* ib_main.c: the ib_device (only with RNIC_FEAT_RDMA); no-ops without it */
int rnic_ib_register(struct rnic_dev *rdev);
void rnic_ib_unregister(struct rnic_dev *rdev);
bool rnic_ib_async_event(struct rnic_dev *rdev, const struct rnic_eqe *eqe);
void rnic_ib_port_event(struct rnic_dev *rdev);
void rnic_ib_dev_fatal(struct rnic_dev *rdev);

/* ethtool.c */
void rnic_set_ethtool_ops(struct net_device *nd);
int rnic_query_stats(struct rnic_dev *rdev, struct rnic_dev_stats *out);

#endif /* RNIC_DRV_H */
