// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnic_krping: a krping-like kernel verbs exerciser over rdma_cm.
 *
 * Generic verbs only, so it runs on any iWARP/RoCE device (siw, rxe, rnic).
 * The client drives, the server answers; both verify every byte:
 *
 *   send   Send of 0 B .. max_size: a 128-byte header SGE plus payload SGEs
 *          (one per buffer chunk: several SGEs for large messages);
 *   write  RDMA Write (zero-length too) into the server's buffer, then a
 *          Send the server answers after checking the data;
 *   read   RDMA Read from the server's buffer;
 *   frwr   the server fast-registers part of its buffer (REG_MR), the
 *          client writes through that STag and sends Send-with-Invalidate;
 *          the server checks the invalidated rkey, registers again with a
 *          new key, and invalidates locally (LOCAL_INV) after the next write.
 *
 * Buffers are a few physically contiguous chunks, DMA-mapped, used with
 * the PD's local DMA lkey; remote access goes through the PD's global
 * rkey (a test tool, not a storage protocol).  Teardown disconnects and
 * drains the QP (ib_drain_qp, through flush completions).
 *
 * insmod rnic_krping.ko role=server addr=10.0.0.1 [port= max_size= iters=]
 * insmod rnic_krping.ko role=client addr=10.0.0.1 ...
 * The module init runs the whole test and prints one line
 *   rnic_krping: RESULT role=... ok=1 ...
 * insmod fails (EIO) when the test fails; rmmod after a pass.
 */
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static char *role = "client";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");
static char *addr = "";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address: the server binds it, the client connects to it");
static int port = 18520;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "TCP port (default 18520)");
static uint max_size = 8 << 20;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "largest message in bytes (default 8 MiB)");
static uint iters = 2;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "rounds per size and operation (default 2)");
static uint timeout_ms = 120000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of every single wait (default 120 s)");
static bool frwr = true;
module_param(frwr, bool, 0444);
MODULE_PARM_DESC(frwr, "run the fast-register/invalidate tests (default on)");
/*
 * Linux 6.12 siw answers a zero-length Read Request that waited in its IRQ
 * with the stale first SGE of its previous WQE (siw_activate_tx leaves
 * sge[0] as it was when the request has no SGE): the interop matrix turns
 * this step off when siw serves.
 */
static bool zero_read = true;
module_param(zero_read, bool, 0444);
MODULE_PARM_DESC(zero_read, "client: RDMA Read of 0 bytes too (default on)");

#define KP_MAX_CHUNKS	4
#define KP_MAX_CHUNK	(4u << 20)	/* order-10 pages: the buddy limit */
#define KP_HDR		128
#define KP_FRWR_LEN	(64u << 10)

enum kp_type {
	KP_INFO = 1,	/* buffers and rkey */
	KP_DATA,	/* Send test: payload follows the header */
	KP_WROTE,	/* Write test: data is in place */
	KP_READREQ,	/* Read test: fill your source */
	KP_READY,	/* source filled */
	KP_FRWR,	/* fast-registered region: addr[0], rkey */
	KP_ACK,		/* status = 0 if the data checked out */
	KP_DONE,
};

struct kp_msg {
	__be32 type;
	__be32 status;
	__be64 size;
	__be32 seed;
	__be32 rkey;
	__be32 nchunks;
	__be32 chunk;
	__be64 dst[KP_MAX_CHUNKS];	/* where the peer may write */
	__be64 src[KP_MAX_CHUNKS];	/* where the peer may read */
};

struct kp_cqe {
	struct ib_cqe cqe;
	struct ib_wc wc;
	bool done;
};

struct kp {
	bool server;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;		/* the connection */
	wait_queue_head_t wq;
	int cm_state;
	int cm_err;
	bool disconnected;

	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *scq, *rcq;
	struct ib_qp *qp;
	bool drained;			/* ib_drain_qp done: QP in ERROR */
	u32 nchunks, chunk, order;
	void *src[KP_MAX_CHUNKS], *dst[KP_MAX_CHUNKS];
	u64 src_dma[KP_MAX_CHUNKS], dst_dma[KP_MAX_CHUNKS];
	void *shdr, *rhdr;		/* header buffers */
	u64 shdr_dma, rhdr_dma;
	struct kp_cqe rcqe;
	bool recv_posted;

	/* what the peer told us */
	u32 peer_rkey;
	u64 peer_dst[KP_MAX_CHUNKS], peer_src[KP_MAX_CHUNKS];

	u64 bytes;
	u32 ops[4];			/* send, write, read, frwr */
};

enum { KP_CM_IDLE, KP_CM_ADDR, KP_CM_ROUTE, KP_CM_REQ, KP_CM_CONN };

static int kp_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kp *kp = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		kp->cm_state = KP_CM_ADDR;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		kp->cm_state = KP_CM_ROUTE;
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (kp->id)
			return -EBUSY;	/* one connection per run */
		kp->id = id;
		kp->cm_state = KP_CM_REQ;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		kp->cm_state = KP_CM_CONN;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		kp->disconnected = true;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		kp->cm_err = -ENODEV;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		pr_info("rnic_krping: cm event %s (%d), status %d\n",
			rdma_event_msg(ev->event), ev->event, ev->status);
		kp->cm_err = ev->status ?: -ECONNREFUSED;
		break;
	}
	wake_up(&kp->wq);
	return 0;
}

static int kp_wait_cm(struct kp *kp, int state)
{
	long left = wait_event_interruptible_timeout(kp->wq,
		kp->cm_state >= state || kp->cm_err,
		msecs_to_jiffies(timeout_ms));

	if (kp->cm_err)
		return kp->cm_err;
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

static void kp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kp_cqe *c = container_of(wc->wr_cqe, struct kp_cqe, cqe);

	c->wc = *wc;
	c->done = true;
}

/*
 * A failed wait leaves work requests posted whose kp_cqe lives in a caller's
 * stack frame: flush them now, while those frames exist, or the teardown's
 * drain would run ->done of a dead frame.
 */
static void kp_drain_now(struct kp *kp)
{
	if (!kp->drained) {
		kp->drained = true;
		ib_drain_qp(kp->qp);
	}
}

static void kp_cqe_init(struct kp_cqe *c)
{
	memset(c, 0, sizeof(*c));
	c->cqe.done = kp_done;
}

/* Poll until c completed; an error status fails the test. */
static int kp_wait(struct kp *kp, struct ib_cq *cq, struct kp_cqe *c,
		   const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (!c->done) {
		if (ib_process_cq_direct(cq, 16) > 0)
			continue;
		if (kp->cm_err || time_after(jiffies, end) ||
		    signal_pending(current)) {
			pr_err("rnic_krping: %s: no completion (%s)\n", what,
			       kp->cm_err ? "connection error" : "timeout");
			kp_drain_now(kp);
			return -ETIMEDOUT;
		}
		usleep_range(20, 200);
	}
	if (c->wc.status != IB_WC_SUCCESS) {
		pr_err("rnic_krping: %s: %s (vendor %#x)\n", what,
		       ib_wc_status_msg(c->wc.status), c->wc.vendor_err);
		kp_drain_now(kp);
		return -EIO;
	}
	return 0;
}

static u8 kp_pattern(u32 seed, u64 i)
{
	return (u8)(seed + i * 7 + (i >> 9));
}

static void kp_fill(void **chunks, u32 chunk, u64 size, u32 seed)
{
	u64 i = 0;
	u32 c, j, len;

	for (c = 0; i < size; c++) {
		u8 *p = chunks[c];

		len = min_t(u64, chunk, size - i);
		for (j = 0; j < len; j++, i++)
			p[j] = kp_pattern(seed, i);
	}
}

static int kp_check(void **chunks, u32 chunk, u64 size, u32 seed,
		    const char *what)
{
	u64 i = 0;
	u32 c, j, len;

	for (c = 0; i < size; c++) {
		const u8 *p = chunks[c];

		len = min_t(u64, chunk, size - i);
		for (j = 0; j < len; j++, i++) {
			if (p[j] == kp_pattern(seed, i))
				continue;
			pr_err("rnic_krping: %s: byte %llu of %llu is %#x, want %#x\n",
			       what, i, size, p[j], kp_pattern(seed, i));
			return -EILSEQ;
		}
	}
	return 0;
}

static int kp_post_recv(struct kp *kp)
{
	struct ib_sge sge[1 + KP_MAX_CHUNKS];
	struct ib_recv_wr wr = {};
	u32 i;

	sge[0].addr = kp->rhdr_dma;
	sge[0].length = KP_HDR;
	sge[0].lkey = kp->pd->local_dma_lkey;
	for (i = 0; i < kp->nchunks; i++) {
		sge[1 + i].addr = kp->dst_dma[i];
		sge[1 + i].length = kp->chunk;
		sge[1 + i].lkey = kp->pd->local_dma_lkey;
	}
	kp_cqe_init(&kp->rcqe);
	wr.wr_cqe = &kp->rcqe.cqe;
	wr.sg_list = sge;
	wr.num_sge = 1 + kp->nchunks;
	kp->recv_posted = true;
	return ib_post_recv(kp->qp, &wr, NULL);
}

/* Wait for the peer's next message; its header is copied to *m. */
static int kp_recv(struct kp *kp, struct kp_msg *m, u32 want)
{
	int err = kp_wait(kp, kp->rcq, &kp->rcqe, "receive");

	kp->recv_posted = false;
	if (err)
		return err;
	if (kp->rcqe.wc.byte_len < KP_HDR) {
		pr_err("rnic_krping: short message (%u bytes)\n",
		       kp->rcqe.wc.byte_len);
		return -EPROTO;
	}
	ib_dma_sync_single_for_cpu(kp->dev, kp->rhdr_dma, KP_HDR,
				   DMA_BIDIRECTIONAL);
	memcpy(m, kp->rhdr, sizeof(*m));
	if (want && be32_to_cpu(m->type) != want) {
		pr_err("rnic_krping: message type %u, expected %u\n",
		       be32_to_cpu(m->type), want);
		return -EPROTO;
	}
	return 0;
}

/* Payload SGEs for size bytes of the chunk list at dma[]. */
static int kp_sges(struct kp *kp, const u64 *dma, u64 size,
		   struct ib_sge *sge)
{
	int n = 0;

	while (size) {
		u32 len = min_t(u64, size, kp->chunk);

		sge[n].addr = dma[n];
		sge[n].length = len;
		sge[n].lkey = kp->pd->local_dma_lkey;
		size -= len;
		n++;
	}
	return n;
}

/*
 * Send the header in m (plus size payload bytes from src when payload),
 * as Send-with-Invalidate of inv_rkey when it is non-zero.
 */
static int kp_send(struct kp *kp, struct kp_msg *m, u64 payload,
		   u32 inv_rkey)
{
	struct ib_sge sge[1 + KP_MAX_CHUNKS];
	struct ib_send_wr wr = {};
	struct kp_cqe c;
	int err;

	memcpy(kp->shdr, m, sizeof(*m));
	ib_dma_sync_single_for_device(kp->dev, kp->shdr_dma, KP_HDR,
				      DMA_BIDIRECTIONAL);
	sge[0].addr = kp->shdr_dma;
	sge[0].length = KP_HDR;
	sge[0].lkey = kp->pd->local_dma_lkey;
	wr.num_sge = 1 + kp_sges(kp, kp->src_dma, payload, &sge[1]);
	kp_cqe_init(&c);
	wr.wr_cqe = &c.cqe;
	wr.sg_list = sge;
	wr.opcode = inv_rkey ? IB_WR_SEND_WITH_INV : IB_WR_SEND;
	wr.ex.invalidate_rkey = inv_rkey;
	wr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(kp->qp, &wr, NULL);
	if (err)
		return err;
	return kp_wait(kp, kp->scq, &c, "send");
}

static int kp_send_type(struct kp *kp, u32 type, u64 size, u32 seed,
			u32 status)
{
	struct kp_msg m = {
		.type = cpu_to_be32(type),
		.size = cpu_to_be64(size),
		.seed = cpu_to_be32(seed),
		.status = cpu_to_be32(status),
	};

	return kp_send(kp, &m, 0, 0);
}

/*
 * RDMA Write (or Read) of size bytes between our chunks and the peer's,
 * one work request per chunk (a zero-length one for size 0).
 */
static int kp_rdma(struct kp *kp, bool read, u64 size, const u64 *remote,
		   u32 rkey)
{
	struct ib_rdma_wr wr[KP_MAX_CHUNKS] = {};
	struct ib_sge sge[KP_MAX_CHUNKS];
	struct kp_cqe c[KP_MAX_CHUNKS];
	int n, i, err;

	n = kp_sges(kp, read ? kp->dst_dma : kp->src_dma, size, sge);
	if (!n) {
		/* Zero-length: one empty SGE (siw wants exactly one for Read). */
		sge[0].addr = read ? kp->dst_dma[0] : kp->src_dma[0];
		sge[0].length = 0;
		sge[0].lkey = kp->pd->local_dma_lkey;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		kp_cqe_init(&c[i]);
		wr[i].wr.wr_cqe = &c[i].cqe;
		wr[i].wr.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.sg_list = &sge[i];
		wr[i].wr.num_sge = 1;
		wr[i].wr.next = i + 1 < n ? &wr[i + 1].wr : NULL;
		wr[i].remote_addr = remote[i];
		wr[i].rkey = rkey;
	}
	err = ib_post_send(kp->qp, &wr[0].wr, NULL);
	for (i = 0; !err && i < n; i++)
		err = kp_wait(kp, kp->scq, &c[i], read ? "read" : "write");
	return err;
}

static int kp_check_ack(struct kp *kp, const char *what)
{
	struct kp_msg m;
	int err = kp_recv(kp, &m, KP_ACK);

	if (!err)
		err = kp_post_recv(kp);
	if (!err && m.status) {
		pr_err("rnic_krping: server found bad data after %s\n", what);
		err = -EILSEQ;
	}
	return err;
}

/* ---- client side: one step of every test ---- */

static int kp_client_send(struct kp *kp, u64 size, u32 seed)
{
	struct kp_msg m = {
		.type = cpu_to_be32(KP_DATA),
		.size = cpu_to_be64(size),
		.seed = cpu_to_be32(seed),
	};
	int err;

	kp_fill(kp->src, kp->chunk, size, seed);
	err = kp_send(kp, &m, size, 0);
	return err ?: kp_check_ack(kp, "send");
}

static int kp_client_write(struct kp *kp, u64 size, u32 seed)
{
	int err;

	kp_fill(kp->src, kp->chunk, size, seed);
	err = kp_rdma(kp, false, size, kp->peer_dst, kp->peer_rkey);
	if (!err)
		err = kp_send_type(kp, KP_WROTE, size, seed, 0);
	return err ?: kp_check_ack(kp, "write");
}

static int kp_client_read(struct kp *kp, u64 size, u32 seed)
{
	struct kp_msg m;
	int err;

	err = kp_send_type(kp, KP_READREQ, size, seed, 0);
	if (!err)
		err = kp_recv(kp, &m, KP_READY);
	if (!err)
		err = kp_post_recv(kp);
	if (!err)
		err = kp_rdma(kp, true, size, kp->peer_src, kp->peer_rkey);
	if (!err)
		err = kp_check(kp->dst, kp->chunk, size, seed, "read");
	return err;
}

/* Write through the server's fast-registered STag, then invalidate it. */
static int kp_client_frwr(struct kp *kp, u32 seed)
{
	struct kp_msg m;
	u64 size, remote[KP_MAX_CHUNKS] = {};
	u32 rkey;
	int round, err;

	/*
	 * One request per round: the server only ever answers, so a message
	 * never arrives before the receive for it is posted.
	 */
	for (round = 0, err = 0; !err && round < 2; round++) {
		err = kp_send_type(kp, KP_FRWR, 0, seed, 0);
		if (!err)
			err = kp_recv(kp, &m, KP_FRWR);
		if (!err)
			err = kp_post_recv(kp);
		if (err)
			break;
		rkey = be32_to_cpu(m.rkey);
		remote[0] = be64_to_cpu(m.dst[0]);
		size = be64_to_cpu(m.size);
		kp_fill(kp->src, kp->chunk, size, seed + round);
		err = kp_rdma(kp, false, size, remote, rkey);
		if (err)
			break;
		m.type = cpu_to_be32(KP_WROTE);
		m.seed = cpu_to_be32(seed + round);
		/* Round 0: remote invalidate; round 1: the server's LOCAL_INV. */
		err = kp_send(kp, &m, 0, round ? 0 : rkey);
		if (!err)
			err = kp_check_ack(kp, "fast-register write");
	}
	return err;
}

/* ---- server side ---- */

static int kp_server_frwr(struct kp *kp, u32 seed)
{
	u32 len = min(KP_FRWR_LEN, kp->chunk);
	struct ib_send_wr inv = {};
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct kp_cqe c;
	struct kp_msg m;
	struct ib_mr *mr;
	int round, n, err = 0;

	mr = ib_alloc_mr(kp->pd, IB_MR_TYPE_MEM_REG, len >> PAGE_SHIFT);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sg_init_table(&sg, 1);
	sg_set_page(&sg, virt_to_page(kp->dst[0]), len, 0);
	sg_dma_address(&sg) = kp->dst_dma[0];
	sg_dma_len(&sg) = len;
	for (round = 0; round < 2; round++) {
		/* Round 0's request came through the server loop. */
		if (round) {
			err = kp_recv(kp, &m, KP_FRWR);
			if (!err)
				err = kp_post_recv(kp);
			if (err)
				break;
		}
		n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
		if (n != 1) {
			err = n < 0 ? n : -EINVAL;
			break;
		}
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
		kp_cqe_init(&c);
		reg.wr.wr_cqe = &c.cqe;
		reg.wr.opcode = IB_WR_REG_MR;
		reg.wr.send_flags = IB_SEND_SIGNALED;
		reg.mr = mr;
		reg.key = mr->rkey;
		reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		err = ib_post_send(kp->qp, &reg.wr, NULL);
		if (!err)
			err = kp_wait(kp, kp->scq, &c, "fast-register");
		if (err)
			break;
		memset(&m, 0, sizeof(m));
		m.type = cpu_to_be32(KP_FRWR);
		m.rkey = cpu_to_be32(mr->rkey);
		m.dst[0] = cpu_to_be64(mr->iova);
		m.size = cpu_to_be64(len);
		err = kp_send(kp, &m, 0, 0);
		if (!err)
			err = kp_recv(kp, &m, KP_WROTE);
		if (err)
			break;
		if (round == 0 &&
		    (!(kp->rcqe.wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
		     kp->rcqe.wc.ex.invalidate_rkey != mr->rkey)) {
			pr_err("rnic_krping: Send with Invalidate did not invalidate %#x\n",
			       mr->rkey);
			err = -EPROTO;
		}
		if (!err)
			err = kp_check(kp->dst, kp->chunk, len,
				       be32_to_cpu(m.seed), "fast-register write");
		if (!err && round == 1) {
			kp_cqe_init(&c);
			inv.wr_cqe = &c.cqe;
			inv.opcode = IB_WR_LOCAL_INV;
			inv.send_flags = IB_SEND_SIGNALED;
			inv.ex.invalidate_rkey = mr->rkey;
			err = ib_post_send(kp->qp, &inv, NULL);
			if (!err)
				err = kp_wait(kp, kp->scq, &c, "local invalidate");
		}
		if (kp_post_recv(kp) || kp_send_type(kp, KP_ACK, 0, 0, err != 0))
			err = err ?: -EIO;
		if (err)
			break;
	}
	ib_dereg_mr(mr);
	if (!err)
		kp->ops[3]++;
	return err;
}

/* Answer the client until it says DONE. */
/*
 * The server's last message: the client disconnects once it has it, which
 * can beat the completion here (siw, see kp_teardown). A failed completion
 * after the client disconnected is taken as delivered; whether the client
 * really had it, the client's own result says.
 */
static int kp_send_done(struct kp *kp)
{
	int err = kp_send_type(kp, KP_DONE, 0, 0, 0);

	if (err == -EIO) {
		wait_event_timeout(kp->wq, kp->disconnected,
				   msecs_to_jiffies(2000));
		if (kp->disconnected) {
			pr_info("rnic_krping: last send failed after the client disconnected: taken as delivered\n");
			err = 0;
		}
	}
	return err;
}

static int kp_server_loop(struct kp *kp)
{
	struct kp_msg m;
	u64 size;
	u32 seed, type;
	int err, bad;

	for (;;) {
		err = kp_recv(kp, &m, 0);
		if (err)
			return err;
		type = be32_to_cpu(m.type);
		size = be64_to_cpu(m.size);
		seed = be32_to_cpu(m.seed);
		if (size > (u64)kp->chunk * kp->nchunks)
			return -EPROTO;
		bad = 0;
		switch (type) {
		case KP_DATA:
			bad = kp->rcqe.wc.byte_len != KP_HDR + size ||
			      kp_check(kp->dst, kp->chunk, size, seed, "send");
			kp->ops[0]++;
			kp->bytes += size;
			break;
		case KP_WROTE:
			bad = kp_check(kp->dst, kp->chunk, size, seed, "write");
			kp->ops[1]++;
			kp->bytes += size;
			break;
		case KP_READREQ:
			kp_fill(kp->src, kp->chunk, size, seed);
			kp->ops[2]++;
			kp->bytes += size;
			type = KP_READY;
			break;
		case KP_FRWR:
			err = kp_post_recv(kp);
			if (!err)
				err = kp_server_frwr(kp, seed);
			if (err)
				return err;
			continue;
		case KP_DONE:
			err = kp_post_recv(kp);
			return err ?: kp_send_done(kp);
		default:
			return -EPROTO;
		}
		err = kp_post_recv(kp);
		if (!err)
			err = kp_send_type(kp, type == KP_READY ? KP_READY :
					   KP_ACK, 0, 0, bad);
		if (err)
			return err;
	}
}

static int kp_client_run(struct kp *kp)
{
	static const u64 sizes[] = {
		0, 1, 7, 64, 1000, 4095, 4096, 4097, 65536, 100000,
		1 << 20, (2 << 20) + 5, 4 << 20, 8 << 20,
	};
	u64 cap = min_t(u64, max_size, (u64)kp->chunk * kp->nchunks);
	u32 seed = 1, i, r;
	struct kp_msg m;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(sizes); i++) {
		if (sizes[i] > cap)
			continue;
		for (r = 0; !err && r < iters; r++) {
			err = kp_client_send(kp, sizes[i], seed++);
			if (!err)
				err = kp_client_write(kp, sizes[i], seed++);
			if (!err && (sizes[i] || zero_read))
				err = kp_client_read(kp, sizes[i], seed++);
			if (err) {
				pr_err("rnic_krping: size %llu round %u failed: %d\n",
				       sizes[i], r, err);
				break;
			}
			kp->ops[0]++;
			kp->ops[1]++;
			kp->ops[2] += sizes[i] || zero_read;
			kp->bytes += 3 * sizes[i];
		}
	}
	if (!err && frwr) {
		err = kp_client_frwr(kp, seed++);
		if (!err)
			kp->ops[3]++;
	}
	if (!err)
		err = kp_send_type(kp, KP_DONE, 0, 0, 0);
	if (!err)
		err = kp_recv(kp, &m, KP_DONE);
	return err;
}

/* ---- resources ---- */

static void kp_free_buffers(struct kp *kp)
{
	u32 i;

	for (i = 0; i < KP_MAX_CHUNKS; i++) {
		if (kp->src[i]) {
			ib_dma_unmap_single(kp->dev, kp->src_dma[i], kp->chunk,
					    DMA_BIDIRECTIONAL);
			free_pages((unsigned long)kp->src[i], kp->order);
		}
		if (kp->dst[i]) {
			ib_dma_unmap_single(kp->dev, kp->dst_dma[i], kp->chunk,
					    DMA_BIDIRECTIONAL);
			free_pages((unsigned long)kp->dst[i], kp->order);
		}
		kp->src[i] = NULL;
		kp->dst[i] = NULL;
	}
	if (kp->shdr) {
		ib_dma_unmap_single(kp->dev, kp->shdr_dma, KP_HDR,
				    DMA_BIDIRECTIONAL);
		ib_dma_unmap_single(kp->dev, kp->rhdr_dma, KP_HDR,
				    DMA_BIDIRECTIONAL);
	}
	kfree(kp->shdr);
	kfree(kp->rhdr);
	kp->shdr = NULL;
	kp->rhdr = NULL;
}

static int kp_map(struct kp *kp, void *buf, size_t len, u64 *dma)
{
	*dma = ib_dma_map_single(kp->dev, buf, len, DMA_BIDIRECTIONAL);
	return ib_dma_mapping_error(kp->dev, *dma) ? -ENOMEM : 0;
}

/* Chunks sized so the largest message fits the device's SGE limits. */
static int kp_alloc_buffers(struct kp *kp)
{
	struct ib_device_attr *a = &kp->dev->attrs;
	u32 sges = min3(a->max_send_sge, a->max_recv_sge, 1 + KP_MAX_CHUNKS);
	u32 i;

	if (sges < 2)
		return -EINVAL;
	kp->nchunks = sges - 1;
	kp->chunk = DIV_ROUND_UP(max_size, kp->nchunks);
	kp->chunk = roundup_pow_of_two(max_t(u32, kp->chunk, PAGE_SIZE));
	if (kp->chunk > KP_MAX_CHUNK)
		kp->chunk = KP_MAX_CHUNK;
	kp->order = get_order(kp->chunk);
	kp->shdr = kzalloc(KP_HDR, GFP_KERNEL);
	kp->rhdr = kzalloc(KP_HDR, GFP_KERNEL);
	if (!kp->shdr || !kp->rhdr)
		goto nomem;
	if (kp_map(kp, kp->shdr, KP_HDR, &kp->shdr_dma))
		goto nomem;
	if (kp_map(kp, kp->rhdr, KP_HDR, &kp->rhdr_dma)) {
		ib_dma_unmap_single(kp->dev, kp->shdr_dma, KP_HDR,
				    DMA_BIDIRECTIONAL);
		goto nomem;
	}
	for (i = 0; i < kp->nchunks; i++) {
		kp->src[i] = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO |
						      __GFP_NOWARN, kp->order);
		if (!kp->src[i])
			goto nomem;
		if (kp_map(kp, kp->src[i], kp->chunk, &kp->src_dma[i])) {
			free_pages((unsigned long)kp->src[i], kp->order);
			kp->src[i] = NULL;
			goto nomem;
		}
		kp->dst[i] = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO |
						      __GFP_NOWARN, kp->order);
		if (!kp->dst[i])
			goto nomem;
		if (kp_map(kp, kp->dst[i], kp->chunk, &kp->dst_dma[i])) {
			free_pages((unsigned long)kp->dst[i], kp->order);
			kp->dst[i] = NULL;
			goto nomem;
		}
	}
	return 0;
nomem:
	pr_err("rnic_krping: cannot allocate %u x %u-byte buffers\n",
	       kp->nchunks, kp->chunk);
	return -ENOMEM;
}

static int kp_setup_qp(struct kp *kp)
{
	struct ib_qp_init_attr qa = {};
	int err;

	kp->dev = kp->id->device;
	kp->pd = ib_alloc_pd(kp->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(kp->pd)) {
		err = PTR_ERR(kp->pd);
		kp->pd = NULL;
		return err;
	}
	err = kp_alloc_buffers(kp);
	if (err)
		return err;
	kp->scq = ib_alloc_cq(kp->dev, kp, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(kp->scq)) {
		err = PTR_ERR(kp->scq);
		kp->scq = NULL;
		return err;
	}
	kp->rcq = ib_alloc_cq(kp->dev, kp, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(kp->rcq)) {
		err = PTR_ERR(kp->rcq);
		kp->rcq = NULL;
		return err;
	}
	qa.send_cq = kp->scq;
	qa.recv_cq = kp->rcq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1 + kp->nchunks;
	qa.cap.max_recv_sge = 1 + kp->nchunks;
	err = rdma_create_qp(kp->id, kp->pd, &qa);
	if (err)
		return err;
	kp->qp = kp->id->qp;
	return kp_post_recv(kp);
}

static void kp_conn_param(struct kp *kp, struct rdma_conn_param *p)
{
	struct ib_device_attr *a = &kp->dev->attrs;

	memset(p, 0, sizeof(*p));
	p->responder_resources = min_t(int, a->max_qp_rd_atom, KP_MAX_CHUNKS);
	p->initiator_depth = min_t(int, a->max_qp_init_rd_atom, KP_MAX_CHUNKS);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int kp_exchange_info(struct kp *kp)
{
	struct kp_msg m = {};
	u32 i;
	int err;

	m.type = cpu_to_be32(KP_INFO);
	m.rkey = cpu_to_be32(kp->pd->unsafe_global_rkey);
	m.nchunks = cpu_to_be32(kp->nchunks);
	m.chunk = cpu_to_be32(kp->chunk);
	for (i = 0; i < kp->nchunks; i++) {
		m.dst[i] = cpu_to_be64(kp->dst_dma[i]);
		m.src[i] = cpu_to_be64(kp->src_dma[i]);
	}
	if (!kp->server)
		err = kp_send(kp, &m, 0, 0);
	else
		err = 0;
	if (!err)
		err = kp_recv(kp, &m, KP_INFO);
	if (!err)
		err = kp_post_recv(kp);
	if (err)
		return err;
	if (be32_to_cpu(m.nchunks) != kp->nchunks ||
	    be32_to_cpu(m.chunk) != kp->chunk) {
		pr_err("rnic_krping: peer has %u x %u buffers, we %u x %u: use the same max_size and devices with the same SGE limits\n",
		       be32_to_cpu(m.nchunks), be32_to_cpu(m.chunk),
		       kp->nchunks, kp->chunk);
		return -EINVAL;
	}
	kp->peer_rkey = be32_to_cpu(m.rkey);
	for (i = 0; i < kp->nchunks; i++) {
		kp->peer_dst[i] = be64_to_cpu(m.dst[i]);
		kp->peer_src[i] = be64_to_cpu(m.src[i]);
	}
	if (kp->server) {
		m.type = cpu_to_be32(KP_INFO);
		m.rkey = cpu_to_be32(kp->pd->unsafe_global_rkey);
		for (i = 0; i < kp->nchunks; i++) {
			m.dst[i] = cpu_to_be64(kp->dst_dma[i]);
			m.src[i] = cpu_to_be64(kp->src_dma[i]);
		}
		err = kp_send(kp, &m, 0, 0);
	}
	return err;
}

static int kp_connect(struct kp *kp, struct sockaddr_in *sin)
{
	struct rdma_conn_param p;
	int err;

	if (kp->server) {
		kp->listen_id = rdma_create_id(&init_net, kp_cm_handler, kp,
					       RDMA_PS_TCP, IB_QPT_RC);
		if (IS_ERR(kp->listen_id)) {
			err = PTR_ERR(kp->listen_id);
			kp->listen_id = NULL;
			return err;
		}
		err = rdma_bind_addr(kp->listen_id, (struct sockaddr *)sin);
		if (!err)
			err = rdma_listen(kp->listen_id, 1);
		if (!err)
			err = kp_wait_cm(kp, KP_CM_REQ);
		if (err)
			return err;
		err = kp_setup_qp(kp);
		if (err)
			return err;
		kp_conn_param(kp, &p);
		err = rdma_accept(kp->id, &p);
		return err ?: kp_wait_cm(kp, KP_CM_CONN);
	}

	kp->id = rdma_create_id(&init_net, kp_cm_handler, kp, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(kp->id)) {
		err = PTR_ERR(kp->id);
		kp->id = NULL;
		return err;
	}
	err = rdma_resolve_addr(kp->id, NULL, (struct sockaddr *)sin, 5000);
	if (!err)
		err = kp_wait_cm(kp, KP_CM_ADDR);
	if (!err)
		err = rdma_resolve_route(kp->id, 5000);
	if (!err)
		err = kp_wait_cm(kp, KP_CM_ROUTE);
	if (!err)
		err = kp_setup_qp(kp);
	if (err)
		return err;
	kp_conn_param(kp, &p);
	err = rdma_connect(kp->id, &p);
	return err ?: kp_wait_cm(kp, KP_CM_CONN);
}

static void kp_teardown(struct kp *kp, bool ok)
{
	if (kp->qp) {
		/*
		 * Only the client closes first after a clean run: its last
		 * Send completed before it got the server's DONE. A server
		 * closing right after its DONE can beat the completion of the
		 * client's DONE: siw checks for a peer close after a segment is
		 * on the wire and fails the Send if the FIN came in between
		 * (siw_qp_sq_proc_tx: tx_suspend, LOC_QP_OP_ERR).
		 */
		if (ok && kp->server && kp->cm_state == KP_CM_CONN)
			wait_event_timeout(kp->wq, kp->disconnected,
					   msecs_to_jiffies(5000));
		if (kp->cm_state == KP_CM_CONN && !kp->disconnected) {
			rdma_disconnect(kp->id);
			wait_event_timeout(kp->wq, kp->disconnected,
					   msecs_to_jiffies(5000));
		}
		/* Flush completions for what is still posted (the receive). */
		kp_drain_now(kp);
		rdma_destroy_qp(kp->id);
	}
	if (kp->scq)
		ib_free_cq(kp->scq);
	if (kp->rcq)
		ib_free_cq(kp->rcq);
	kp_free_buffers(kp);
	if (kp->pd)
		ib_dealloc_pd(kp->pd);
	if (kp->id)
		rdma_destroy_id(kp->id);
	if (kp->listen_id)
		rdma_destroy_id(kp->listen_id);
}

static int __init kp_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	ktime_t t0 = ktime_get();
	struct kp *kp;
	int err;

	if (strcmp(role, "server") && strcmp(role, "client"))
		return -EINVAL;
	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL) ||
	    port <= 0 || port > 65535 || !iters)
		return -EINVAL;
	sin.sin_port = htons(port);
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->server = !strcmp(role, "server");
	init_waitqueue_head(&kp->wq);

	err = kp_connect(kp, &sin);
	if (err) {
		pr_err("rnic_krping: no connection to %pI4:%d: %d\n",
		       &sin.sin_addr, port, err);
		goto out;
	}
	err = kp_exchange_info(kp);
	if (!err)
		err = kp->server ? kp_server_loop(kp) : kp_client_run(kp);
out:
	pr_info("rnic_krping: RESULT role=%s dev=%s ok=%d err=%d chunks=%ux%u max_size=%u sends=%u writes=%u reads=%u frwr=%u bytes=%llu ms=%lld\n",
		role, kp->dev ? dev_name(&kp->dev->dev) : "none", !err, err,
		kp->nchunks, kp->chunk, max_size, kp->ops[0], kp->ops[1],
		kp->ops[2], kp->ops[3], kp->bytes,
		ktime_ms_delta(ktime_get(), t0));
	kp_teardown(kp, !err);
	kfree(kp);
	return err ? -EIO : 0;
}

static void __exit kp_exit(void)
{
}

module_init(kp_init);
module_exit(kp_exit);
MODULE_DESCRIPTION("krping-like kernel verbs exerciser (rnic tests)");
MODULE_LICENSE("GPL");
