// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Admin queue: 128-byte commands, 16-byte completions with a phase bit
 * (docs/hardware-interface.md section 5).  Any number of process-context
 * callers may have commands in flight; each owns a tag (= its slot) and
 * sleeps until the completion with that tag arrives or the timeout fires.
 * A device that does not answer is declared dead and reset, so no buffer
 * a late completion could point at is ever freed while the device may
 * still write it.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "rnic.h"

/* TCG guests are slow; the device answers in microseconds when it works. */
#define RNIC_ADMIN_TIMEOUT_MS	10000

static int rnic_status_to_errno(u8 status)
{
	switch (status) {
	case RNIC_STS_OK:
		return 0;
	case RNIC_STS_BAD_OPCODE:
	case RNIC_STS_UNSUPPORTED:
		return -EOPNOTSUPP;
	case RNIC_STS_BAD_PARAM:
	case RNIC_STS_BAD_INDEX:
		return -EINVAL;
	case RNIC_STS_EXISTS:
		return -EEXIST;
	case RNIC_STS_NOT_FOUND:
		return -ENOENT;
	case RNIC_STS_BUSY:
		return -EBUSY;
	case RNIC_STS_DMA_ERROR:
		return -EFAULT;
	case RNIC_STS_NO_RESOURCES:
		return -ENOSPC;
	case RNIC_STS_BAD_STATE:
		return -EPERM;
	case RNIC_STS_RING_OVERFLOW:
		return -EOVERFLOW;
	default:
		return -EIO;
	}
}

/* Consume every completion the device has written.  Caller holds the lock. */
static void rnic_admin_reap(struct rnic_dev *rdev)
{
	struct rnic_admin *aq = &rdev->admin;
	u32 depth = aq->cq.depth, start = aq->cq_head;

	for (;;) {
		struct rnic_admin_cqe *cqe = rnic_ring_entry(&aq->cq, aq->cq_head);
		struct rnic_admin_slot *slot;
		u16 tag;

		if ((READ_ONCE(cqe->flags) & RNIC_CQE_PHASE) !=
		    rnic_phase(aq->cq_head, depth))
			break;
		/* The flags byte is written last: read the rest after it. */
		dma_rmb();
		tag = le16_to_cpu(cqe->tag);
		aq->cq_head++;
		if (tag >= aq->sq.depth || !test_bit(tag, aq->busy)) {
			dev_warn_ratelimited(&rdev->pdev->dev,
					     "admin completion for no command: tag %#x opcode %#x status %u\n",
					     tag, cqe->opcode, cqe->status);
			continue;
		}
		slot = &aq->slots[tag];
		slot->status = cqe->status;
		slot->result0 = le32_to_cpu(cqe->result0);
		slot->result1 = le32_to_cpu(cqe->result1);
		complete(&slot->done);
	}
	if (aq->cq_head != start)
		rnic_wr(rdev, RNIC_REG_ADMQ_CQ_HEAD, aq->cq_head);
}

irqreturn_t rnic_admin_irq(int irq, void *data)
{
	struct rnic_dev *rdev = data;
	unsigned long flags;

	spin_lock_irqsave(&rdev->admin.lock, flags);
	if (rdev->admin.live)
		rnic_admin_reap(rdev);
	spin_unlock_irqrestore(&rdev->admin.lock, flags);
	return IRQ_HANDLED;
}

/* Wake every waiter with -EIO: the device was reset and will not answer. */
void rnic_admin_abort_all(struct rnic_dev *rdev)
{
	struct rnic_admin *aq = &rdev->admin;
	unsigned long flags;
	u32 tag;

	spin_lock_irqsave(&aq->lock, flags);
	aq->live = false;
	for_each_set_bit(tag, aq->busy, aq->sq.depth) {
		aq->slots[tag].err = -EIO;
		complete(&aq->slots[tag].done);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
}

static const char *rnic_opcode_name(u8 op)
{
	switch (op) {
	case RNIC_CMD_NOP: return "NOP";
	case RNIC_CMD_QUERY_STATS: return "QUERY_STATS";
	case RNIC_CMD_SET_PORT: return "SET_PORT";
	case RNIC_CMD_CREATE_EQ: return "CREATE_EQ";
	case RNIC_CMD_DESTROY_EQ: return "DESTROY_EQ";
	case RNIC_CMD_CREATE_TXQ: return "CREATE_TXQ";
	case RNIC_CMD_DESTROY_TXQ: return "DESTROY_TXQ";
	case RNIC_CMD_CREATE_RXQ: return "CREATE_RXQ";
	case RNIC_CMD_DESTROY_RXQ: return "DESTROY_RXQ";
	default: return "command";
	}
}

/*
 * Run one command and wait for its completion.  Process context only.
 * Returns 0, the errno of the device's status, -EIO if the device is dead
 * or -ETIMEDOUT (after which the device is dead).
 */
int rnic_admin_exec(struct rnic_dev *rdev, struct rnic_admin_cmd *cmd,
		    u32 *result0)
{
	struct rnic_admin *aq = &rdev->admin;
	struct rnic_admin_slot *slot;
	unsigned long left;
	int err = 0;
	u32 tag;
	u8 op = cmd->hdr.opcode;

	might_sleep();
	if (rnic_dead(rdev))
		return -EIO;
	/*
	 * One credit per SQ slot; the CQ is as deep, so it never overflows.
	 * Not killable: teardown commands must not fail because of a signal,
	 * and every holder gives its credit back within the timeout.
	 */
	down(&aq->credits);

	spin_lock_irq(&aq->lock);
	if (!aq->live) {
		spin_unlock_irq(&aq->lock);
		up(&aq->credits);
		return -EIO;
	}
	tag = find_first_zero_bit(aq->busy, aq->sq.depth);
	/* Cannot fail: credits <= free tags. */
	__set_bit(tag, aq->busy);
	slot = &aq->slots[tag];
	reinit_completion(&slot->done);
	slot->err = 0;
	slot->status = 0;
	slot->result0 = 0;
	slot->result1 = 0;
	cmd->hdr.tag = cpu_to_le16(tag);
	cmd->hdr.flags = 0;
	memcpy(rnic_ring_entry(&aq->sq, aq->sq_tail), cmd, sizeof(*cmd));
	aq->sq_tail++;
	/* writel orders the command bytes before the doorbell. */
	rnic_wr(rdev, RNIC_REG_ADMQ_SQ_TAIL, aq->sq_tail);
	spin_unlock_irq(&aq->lock);

	left = wait_for_completion_timeout(&slot->done,
					   msecs_to_jiffies(RNIC_ADMIN_TIMEOUT_MS));
	if (!left) {
		/* A lost interrupt must not kill the device: look once more. */
		spin_lock_irq(&aq->lock);
		if (aq->live)
			rnic_admin_reap(rdev);
		spin_unlock_irq(&aq->lock);
		if (try_wait_for_completion(&slot->done)) {
			dev_warn_ratelimited(&rdev->pdev->dev,
					     "admin %s completed without an interrupt\n",
					     rnic_opcode_name(op));
		} else {
			dev_err(&rdev->pdev->dev, "admin %s timed out after %d ms\n",
				rnic_opcode_name(op), RNIC_ADMIN_TIMEOUT_MS);
			err = -ETIMEDOUT;
		}
	}
	if (!err)
		err = slot->err;
	if (!err && slot->status) {
		err = rnic_status_to_errno(slot->status);
		dev_dbg(&rdev->pdev->dev, "admin %s: status %u (%d)\n",
			rnic_opcode_name(op), slot->status, err);
	}
	if (!err && result0)
		*result0 = slot->result0;

	spin_lock_irq(&aq->lock);
	__clear_bit(tag, aq->busy);
	spin_unlock_irq(&aq->lock);
	up(&aq->credits);

	if (err == -ETIMEDOUT)
		rnic_dev_fail(rdev, "admin queue timeout");
	return err;
}

/* DESTROY_x and friends: commands naming one object. */
int rnic_admin_destroy(struct rnic_dev *rdev, u8 opcode, u32 id)
{
	struct rnic_admin_cmd cmd = {};
	int err;

	cmd.hdr.opcode = opcode;
	cmd.u.obj.id = cpu_to_le32(id);
	err = rnic_admin_exec(rdev, &cmd, NULL);
	if (err && err != -EIO)
		dev_err(&rdev->pdev->dev, "%s %u failed: %d\n",
			rnic_opcode_name(opcode), id, err);
	return err;
}

/* Allocate the rings and program the registers; ENABLE is main.c's job. */
int rnic_admin_init(struct rnic_dev *rdev)
{
	struct rnic_admin *aq = &rdev->admin;
	u32 depth = RNIC_ADMIN_DEPTH, i;
	int err;

	if (rdev->caps.max_admq_depth < depth)
		depth = rounddown_pow_of_two(rdev->caps.max_admq_depth);
	if (depth < 2)
		return -EINVAL;

	spin_lock_init(&aq->lock);
	sema_init(&aq->credits, depth);
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->busy = bitmap_zalloc(depth, GFP_KERNEL);
	aq->slots = kcalloc(depth, sizeof(*aq->slots), GFP_KERNEL);
	if (!aq->busy || !aq->slots) {
		err = -ENOMEM;
		goto err;
	}
	for (i = 0; i < depth; i++)
		init_completion(&aq->slots[i].done);

	err = rnic_ring_alloc(rdev, &aq->sq, depth, RNIC_ADMIN_CMD_SIZE);
	if (err)
		goto err;
	err = rnic_ring_alloc(rdev, &aq->cq, depth, RNIC_ADMIN_CQE_SIZE);
	if (err)
		goto err;

	rnic_wr(rdev, RNIC_REG_ADMQ_SQ_PBL_LO, lower_32_bits(aq->sq.pbl_dma));
	rnic_wr(rdev, RNIC_REG_ADMQ_SQ_PBL_HI, upper_32_bits(aq->sq.pbl_dma));
	rnic_wr(rdev, RNIC_REG_ADMQ_CQ_PBL_LO, lower_32_bits(aq->cq.pbl_dma));
	rnic_wr(rdev, RNIC_REG_ADMQ_CQ_PBL_HI, upper_32_bits(aq->cq.pbl_dma));
	rnic_wr(rdev, RNIC_REG_ADMQ_CFG,
		RNIC_ADMQ_CFG_SQ_LOG(ilog2(depth)) |
		RNIC_ADMQ_CFG_CQ_LOG(ilog2(depth)));
	return 0;

err:
	/* The device was not told of the rings yet. */
	rnic_admin_cleanup(rdev);
	return err;
}

/* Only after the device was reset: it no longer touches the rings. */
void rnic_admin_cleanup(struct rnic_dev *rdev)
{
	struct rnic_admin *aq = &rdev->admin;

	rnic_ring_free(rdev, &aq->cq);
	rnic_ring_free(rdev, &aq->sq);
	kfree(aq->slots);
	bitmap_free(aq->busy);
	aq->slots = NULL;
	aq->busy = NULL;
}
