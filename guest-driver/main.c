// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * PCI side of rnic: BAR mapping, capability check, reset and the enable
 * handshake (docs/hardware-interface.md sections 1-2), and the order in
 * which the parts come up and go down.
 */
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>

#include "rnic.h"

#define RNIC_POLL_US		1000
#define RNIC_READY_TIMEOUT_US	(5 * USEC_PER_SEC)

static const struct pci_device_id rnic_pci_ids[] = {
	{ PCI_DEVICE(RNIC_PCI_VENDOR_ID, RNIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rnic_pci_ids);

/* Drop all device state and stop its DMA; 0 once the reset is complete. */
static int rnic_hw_reset(struct rnic_dev *rdev)
{
	u32 sts;
	int err;

	rnic_wr(rdev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
	err = readl_poll_timeout(rdev->regs + RNIC_REG_DEV_STATUS, sts,
				 sts == U32_MAX ||
				 !(sts & (RNIC_STATUS_RESETTING | RNIC_STATUS_READY)),
				 RNIC_POLL_US, RNIC_READY_TIMEOUT_US);
	if (!err && sts == U32_MAX)
		err = -ENODEV;	/* surprise removal: nothing answers */
	if (err)
		dev_err(&rdev->pdev->dev, "reset did not complete (status %#x)\n",
			sts);
	return err;
}

/*
 * The device failed (timeout, refused teardown): reset it so it stops all
 * DMA, fail every waiter, and refuse further commands.  May sleep.
 */
void rnic_dev_fail(struct rnic_dev *rdev, const char *why)
{
	if (test_and_set_bit(RNIC_F_DEAD, &rdev->flags))
		return;
	dev_err(&rdev->pdev->dev,
		"%s (status %#x, error %u): resetting the device; it stays down until the driver is reloaded\n",
		why, rnic_rd(rdev, RNIC_REG_DEV_STATUS),
		rnic_rd(rdev, RNIC_REG_DEV_ERROR));
	rnic_admin_abort_all(rdev);
	rnic_hw_reset(rdev);
	if (rdev->netdev)
		netif_carrier_off(rdev->netdev);
	rnic_ib_dev_fatal(rdev);
}

static int rnic_read_caps(struct rnic_dev *rdev)
{
	struct rnic_caps *c = &rdev->caps;
	struct device *dev = &rdev->pdev->dev;
	u32 magic = rnic_rd(rdev, RNIC_REG_MAGIC);

	c->version = rnic_rd(rdev, RNIC_REG_VERSION);
	if (magic != RNIC_MAGIC) {
		dev_err(dev, "bad magic %#x\n", magic);
		return -ENODEV;
	}
	if (c->version >> 16 != RNIC_HW_VERSION_MAJOR) {
		dev_err(dev, "interface version %u.%u, driver speaks %u.x\n",
			c->version >> 16, c->version & 0xffff,
			RNIC_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	c->features = rnic_rd(rdev, RNIC_REG_FEATURES);
	c->max_eq = rnic_rd(rdev, RNIC_REG_MAX_EQ);
	c->max_l2q = rnic_rd(rdev, RNIC_REG_MAX_L2Q);
	c->max_l2q_depth = rnic_rd(rdev, RNIC_REG_MAX_L2Q_DEPTH);
	c->max_admq_depth = rnic_rd(rdev, RNIC_REG_MAX_ADMQ_DEPTH);
	c->max_eq_depth = rnic_rd(rdev, RNIC_REG_MAX_EQ_DEPTH);
	c->min_mtu = rnic_rd(rdev, RNIC_REG_MIN_MTU);
	c->max_mtu = rnic_rd(rdev, RNIC_REG_MAX_MTU);
	c->num_msix = rnic_rd(rdev, RNIC_REG_NUM_MSIX);
	c->db_pages = rnic_rd(rdev, RNIC_REG_DB_PAGES);

	/* Everything below is what this driver relies on; refuse the rest. */
	if (!(c->features & RNIC_FEAT_L2) || c->max_eq < RNIC_NUM_EQ ||
	    c->num_msix < RNIC_NUM_EQ + 1 || c->max_l2q < 1 ||
	    c->max_l2q_depth < 2 || c->max_admq_depth < 2 ||
	    c->max_eq_depth < 2 || c->db_pages < 1 ||
	    c->min_mtu < ETH_MIN_MTU || c->max_mtu < c->min_mtu) {
		dev_err(dev,
			"unusable capabilities: features %#x eq %u msix %u l2q %u depths %u/%u/%u mtu %u..%u\n",
			c->features, c->max_eq, c->num_msix, c->max_l2q,
			c->max_l2q_depth, c->max_admq_depth, c->max_eq_depth,
			c->min_mtu, c->max_mtu);
		return -ENODEV;
	}
	dev_info(dev, "rnic interface %u.%u, features %#x, MTU %u..%u\n",
		 c->version >> 16, c->version & 0xffff, c->features,
		 c->min_mtu, c->max_mtu);
	return 0;
}

/* Admin queue registers are programmed: ENABLE and wait for READY. */
static int rnic_hw_enable(struct rnic_dev *rdev)
{
	u32 sts;
	int err;

	rdev->admin.live = true;
	rnic_wr(rdev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
	err = readl_poll_timeout(rdev->regs + RNIC_REG_DEV_STATUS, sts,
				 sts & (RNIC_STATUS_READY | RNIC_STATUS_FATAL),
				 RNIC_POLL_US, RNIC_READY_TIMEOUT_US);
	if (!err && (sts & RNIC_STATUS_FATAL)) {
		dev_err(&rdev->pdev->dev, "enable failed: device error %u\n",
			rnic_rd(rdev, RNIC_REG_DEV_ERROR));
		err = -EIO;
	} else if (err) {
		dev_err(&rdev->pdev->dev, "device not ready (status %#x)\n", sts);
	}
	if (err)
		rdev->admin.live = false;
	return err;
}

static int rnic_map_bars(struct rnic_dev *rdev)
{
	struct pci_dev *pdev = rdev->pdev;

	if (pci_resource_len(pdev, RNIC_BAR_REGS) < RNIC_REGS_SIZE ||
	    pci_resource_len(pdev, RNIC_BAR_DOORBELL) < RNIC_DB_PAGE_SIZE) {
		dev_err(&pdev->dev, "BARs too small\n");
		return -ENODEV;
	}
	rdev->regs = pci_iomap_range(pdev, RNIC_BAR_REGS, 0, RNIC_REGS_SIZE);
	/* The kernel's doorbell page only; user pages get mapped per context. */
	rdev->db = pci_iomap_range(pdev, RNIC_BAR_DOORBELL, 0, RNIC_DB_PAGE_SIZE);
	if (!rdev->regs || !rdev->db)
		return -ENOMEM;
	return 0;
}

static void rnic_unmap_bars(struct rnic_dev *rdev)
{
	if (rdev->db)
		pci_iounmap(rdev->pdev, rdev->db);
	if (rdev->regs)
		pci_iounmap(rdev->pdev, rdev->regs);
}

static int rnic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct rnic_dev *rdev;
	int err;

	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;
	rdev->pdev = pdev;
	mutex_init(&rdev->port_lock);
	mutex_init(&rdev->stats_lock);
	pci_set_drvdata(pdev, rdev);

	err = pci_enable_device_mem(pdev);
	if (err)
		goto err_free;
	err = pci_request_mem_regions(pdev, RNIC_DRV_NAME);
	if (err)
		goto err_disable;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_regions;
	err = rnic_map_bars(rdev);
	if (err)
		goto err_unmap;
	err = rnic_read_caps(rdev);
	if (err)
		goto err_unmap;
	/* Start from a clean device whatever the previous driver left. */
	err = rnic_hw_reset(rdev);
	if (err)
		goto err_unmap;
	pci_set_master(pdev);

	/* The NIC needs RNIC_NUM_EQ EQs, the ib_device RNIC_NUM_EQ_RDMA. */
	rdev->nvecs = pci_alloc_irq_vectors(pdev, RNIC_NUM_EQ + 1,
					    RNIC_NUM_EQ_RDMA + 1, PCI_IRQ_MSIX);
	if (rdev->nvecs < 0) {
		err = rdev->nvecs;
		dev_err(&pdev->dev, "no MSI-X vectors: %d\n", err);
		goto err_master;
	}
	err = request_irq(pci_irq_vector(pdev, RNIC_MSIX_ADMIN), rnic_admin_irq,
			  0, "rnic-admin", rdev);
	if (err)
		goto err_vectors;

	rdev->stats_buf = dma_alloc_coherent(&pdev->dev, sizeof(*rdev->stats_buf),
					     &rdev->stats_dma, GFP_KERNEL);
	if (!rdev->stats_buf) {
		err = -ENOMEM;
		goto err_irq;
	}
	err = rnic_admin_init(rdev);
	if (err)
		goto err_stats;
	err = rnic_hw_enable(rdev);
	if (err)
		goto err_admin;

	/* The netdev exists before the async EQ can report link changes. */
	err = rnic_netdev_alloc(rdev);
	if (err)
		goto err_admin;
	err = rnic_eq_create(rdev, RNIC_EQN_ASYNC, RNIC_EQ_F_ASYNC,
			     rnic_async_event);
	if (err)
		goto err_netdev;
	err = rnic_eq_create(rdev, RNIC_EQN_L2, 0, rnic_l2_event);
	if (err)
		goto err_async_eq;
	err = rnic_netdev_register(rdev);
	if (err)
		goto err_l2_eq;
	/*
	 * The iWARP ib_device only when FEATURES has RDMA (and CM offload);
	 * without it, or if it fails, the function stays a working NIC.
	 */
	err = rnic_ib_register(rdev);
	if (err)
		dev_warn(&pdev->dev, "no ib_device (%d): L2 only\n", err);
	return 0;

err_l2_eq:
	rnic_eq_destroy(rdev, RNIC_EQN_L2);
err_async_eq:
	rnic_eq_destroy(rdev, RNIC_EQN_ASYNC);
err_netdev:
	rnic_netdev_free(rdev);
err_admin:
	/* The device may have latched the rings: stop it before freeing them. */
	rnic_hw_reset(rdev);
	rnic_admin_abort_all(rdev);
	rnic_admin_cleanup(rdev);
err_stats:
	dma_free_coherent(&pdev->dev, sizeof(*rdev->stats_buf), rdev->stats_buf,
			  rdev->stats_dma);
err_irq:
	free_irq(pci_irq_vector(pdev, RNIC_MSIX_ADMIN), rdev);
err_vectors:
	pci_free_irq_vectors(pdev);
err_master:
	pci_clear_master(pdev);
err_unmap:
	rnic_unmap_bars(rdev);
err_regions:
	pci_release_mem_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(rdev);
	return err;
}

static void rnic_remove(struct pci_dev *pdev)
{
	struct rnic_dev *rdev = pci_get_drvdata(pdev);

	/* RDMA users let go first: they sit on top of everything else. */
	rnic_ib_unregister(rdev);
	/* Link events stop first: nothing touches the netdev once it is gone. */
	rnic_eq_destroy(rdev, RNIC_EQN_ASYNC);
	rnic_netdev_unregister(rdev);
	rnic_eq_destroy(rdev, RNIC_EQN_L2);
	/* Whatever state is left, the device stops DMA before memory is freed. */
	rnic_hw_reset(rdev);
	rnic_admin_abort_all(rdev);
	free_irq(pci_irq_vector(pdev, RNIC_MSIX_ADMIN), rdev);
	rnic_netdev_free(rdev);
	rnic_admin_cleanup(rdev);
	dma_free_coherent(&pdev->dev, sizeof(*rdev->stats_buf), rdev->stats_buf,
			  rdev->stats_dma);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	rnic_unmap_bars(rdev);
	pci_release_mem_regions(pdev);
	pci_disable_device(pdev);
	kfree(rdev);
}

static void rnic_shutdown(struct pci_dev *pdev)
{
	struct rnic_dev *rdev = pci_get_drvdata(pdev);

	/* Stop DMA before the next kernel (kexec) or power-off. */
	rtnl_lock();
	netif_device_detach(rdev->netdev);
	rtnl_unlock();
	rnic_hw_reset(rdev);
}

static struct pci_driver rnic_pci_driver = {
	.name = RNIC_DRV_NAME,
	.id_table = rnic_pci_ids,
	.probe = rnic_probe,
	.remove = rnic_remove,
	.shutdown = rnic_shutdown,
};
module_pci_driver(rnic_pci_driver);

MODULE_DESCRIPTION("Emulated iWARP RNIC (QEMU rnic device)");
MODULE_LICENSE("Dual BSD/GPL");
