// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues: rings of 64-byte entries with a phase bit, EQ n raising
 * MSI-X vector n while armed (docs/hardware-interface.md section 6).  The
 * interrupt handler hands each entry to the EQ's handler, then returns the
 * consumer index with ARM: if entries arrived meanwhile the device
 * interrupts again at once, so no event is lost between drain and re-arm.
 */
#include <linux/pci.h>

#include "rnic.h"

static irqreturn_t rnic_eq_irq(int irq, void *data)
{
	struct rnic_eq *eq = data;
	u32 depth = eq->ring.depth, n;

	/* At most one ring per interrupt; the re-arm brings us back. */
	for (n = 0; n < depth; n++) {
		struct rnic_eqe *eqe = rnic_ring_entry(&eq->ring, eq->cons);

		if ((READ_ONCE(eqe->flags) & RNIC_CQE_PHASE) !=
		    rnic_phase(eq->cons, depth))
			break;
		dma_rmb();
		eq->handler(eq, eqe);
		eq->cons++;
	}
	rnic_ring_db(eq->rdev, RNIC_DB_EQ, eq->eqn, RNIC_DB_ARM, eq->cons);
	return IRQ_HANDLED;
}

static const char *rnic_async_name(u8 code)
{
	switch (code) {
	case RNIC_ASYNC_CQ_OVERFLOW: return "CQ overflow";
	case RNIC_ASYNC_QP_FATAL: return "QP fatal";
	case RNIC_ASYNC_QP_REQ_ERR: return "QP request error";
	case RNIC_ASYNC_QP_ACCESS_ERR: return "QP access error";
	case RNIC_ASYNC_SRQ_LIMIT: return "SRQ limit";
	case RNIC_ASYNC_SRQ_ERR: return "SRQ error";
	case RNIC_ASYNC_EQ_OVERFLOW: return "EQ overflow";
	case RNIC_ASYNC_DB_ERROR: return "doorbell error";
	case RNIC_ASYNC_L2_ERROR: return "L2 ring error";
	default: return "unknown async event";
	}
}

/* Handler of the async EQ: link changes and error reports. */
void rnic_async_event(struct rnic_eq *eq, const struct rnic_eqe *eqe)
{
	struct rnic_dev *rdev = eq->rdev;
	u32 obj = le32_to_cpu(eqe->obj);
	u32 info = le32_to_cpu(eqe->u.async.info);

	if (eqe->type != RNIC_EQE_ASYNC) {
		dev_warn_ratelimited(&rdev->pdev->dev,
				     "unexpected event type %u on the async EQ\n",
				     eqe->type);
		return;
	}
	switch (eqe->code) {
	case RNIC_ASYNC_PORT_UP:
		rnic_netdev_link(rdev, true);
		rnic_ib_port_event(rdev);
		return;
	case RNIC_ASYNC_PORT_DOWN:
		rnic_netdev_link(rdev, false);
		rnic_ib_port_event(rdev);
		return;
	case RNIC_ASYNC_EQ_OVERFLOW:
		/* A ring event may be gone: let NAPI look at the rings. */
		if (obj == RNIC_EQN_L2)
			napi_schedule(&rdev->l2.napi);
		rnic_ib_async_event(rdev, eqe);
		break;
	default:
		/* QP/CQ/SRQ errors become IB events on their objects. */
		if (rnic_ib_async_event(rdev, eqe))
			return;
		break;
	}
	dev_warn_ratelimited(&rdev->pdev->dev, "%s: object %u info %#x\n",
			     rnic_async_name(eqe->code), obj, info);
}

int rnic_eq_create(struct rnic_dev *rdev, u32 eqn, u8 flags,
		   rnic_eq_handler_t handler)
{
	struct rnic_eq *eq = &rdev->eqs[eqn];
	struct rnic_admin_cmd cmd = {};
	u32 depth = RNIC_EQ_DEPTH;
	int err;

	if (rdev->caps.max_eq_depth < depth)
		depth = rounddown_pow_of_two(rdev->caps.max_eq_depth);
	if ((flags & RNIC_EQ_F_CM) && depth > RNIC_CM_EQ_MAX_DEPTH)
		depth = RNIC_CM_EQ_MAX_DEPTH;
	memset(eq, 0, sizeof(*eq));
	eq->rdev = rdev;
	eq->eqn = eqn;
	eq->handler = handler;
	err = rnic_ring_alloc(rdev, &eq->ring, depth, RNIC_EQE_SIZE);
	if (err)
		return err;
	if (flags & RNIC_EQ_F_CM) {
		err = rnic_ring_alloc(rdev, &eq->pdata, depth,
				      RNIC_CM_PDATA_SLOT);
		if (err)
			goto err_ring;
	}

	/* The vector is live before the EQ can raise it. */
	snprintf(eq->irq_name, sizeof(eq->irq_name), "rnic-eq%u@%s", eqn,
		 pci_name(rdev->pdev));
	err = request_irq(pci_irq_vector(rdev->pdev, eqn), rnic_eq_irq, 0,
			  eq->irq_name, eq);
	if (err)
		goto err_ring;
	eq->irq_requested = true;

	cmd.hdr.opcode = RNIC_CMD_CREATE_EQ;
	cmd.u.create_eq.eqn = cpu_to_le32(eqn);
	cmd.u.create_eq.log_depth = ilog2(depth);
	cmd.u.create_eq.flags = flags;
	rnic_ring_to_pbl(&eq->ring, &cmd.u.create_eq.ring);
	if (flags & RNIC_EQ_F_CM)
		rnic_ring_to_pbl(&eq->pdata, &cmd.u.create_eq.pdata);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (err) {
		dev_err(&rdev->pdev->dev, "CREATE_EQ %u failed: %d\n", eqn, err);
		goto err_irq;
	}
	eq->live = true;
	rnic_ring_db(rdev, RNIC_DB_EQ, eqn, RNIC_DB_ARM, 0);
	return 0;

err_irq:
	free_irq(pci_irq_vector(rdev->pdev, eqn), eq);
	eq->irq_requested = false;
err_ring:
	/* A timed-out CREATE left the device reset: the ring is ours again. */
	rnic_ring_free(rdev, &eq->pdata);
	rnic_ring_free(rdev, &eq->ring);
	return err;
}

/*
 * Tear an EQ down.  If the device refuses, it may still write the ring:
 * reset it before the memory goes back.
 */
void rnic_eq_destroy(struct rnic_dev *rdev, u32 eqn)
{
	struct rnic_eq *eq = &rdev->eqs[eqn];

	if (eq->live && rnic_admin_destroy(rdev, RNIC_CMD_DESTROY_EQ, eqn))
		rnic_dev_fail(rdev, "EQ teardown failed");
	eq->live = false;
	if (eq->irq_requested)
		free_irq(pci_irq_vector(rdev->pdev, eqn), eq);
	eq->irq_requested = false;
	rnic_ring_free(rdev, &eq->pdata);
	rnic_ring_free(rdev, &eq->ring);
}
