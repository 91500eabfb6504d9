// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RFC 7306 atomics from user verbs, values checked (issue 20): run by
 * rnic-user-pair.sh as the "atomics" tool, the server on guest 1, the client
 * on guest 2, over librdmacm like any application.
 *
 *   rnic-atomic-check server ADDR PORT
 *   rnic-atomic-check client ADDR PORT
 *
 * The server registers three 64-bit words with REMOTE_ATOMIC (0x1111...,
 * 100, 2^64 - 1) and accepts with their address and rkey as private data.
 * The client checks ibv_query_device's atomic_cap (HCA), then a CompareSwap
 * that matches (swaps, returns the old value), one that does not (returns the
 * current value, swaps nothing), two FetchAdds (100 + 5 + 7) and one that
 * wraps 2^64, an RDMA Read of the three words after them, and that a FetchAdd
 * to an address not 8-byte aligned is refused by ibv_post_send (EINVAL).
 * Then it sends "done" and the server checks its own memory. Each prints one
 * line per check and exits 1 if any failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define CAS_OLD   0x1111111111111111ull
#define CAS_NEW   0x2222222222222222ull
#define CAS_OTHER 0x3333333333333333ull

struct peer_mem {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

static int failed;

static void check(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "ok  " : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failed++;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static struct rdma_cm_id *make_ep(const char *addr, const char *port,
				  int passive)
{
	struct rdma_addrinfo hints = {}, *res;
	struct ibv_qp_init_attr attr = {};
	struct rdma_cm_id *id;

	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 8;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	return id;
}

/* One signaled work request's completion on the id's send CQ. */
static int wait_send(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	int n;

	do {
		n = ibv_poll_cq(id->send_cq, 1, wc);
	} while (n == 0);
	return n < 0 ? -1 : 0;
}

static int server(const char *addr, const char *port)
{
	struct rdma_cm_id *lid, *id;
	struct rdma_conn_param cp = {};
	struct peer_mem pm;
	struct ibv_mr *mr, *rmr;
	struct ibv_wc wc;
	uint64_t *w;
	char msg[16] = "";

	w = aligned_alloc(4096, 4096);
	if (!w)
		die("aligned_alloc");
	memset(w, 0, 4096);
	w[0] = CAS_OLD;
	w[1] = 100;
	w[2] = UINT64_MAX;
	lid = make_ep(addr, port, 1);
	if (rdma_listen(lid, 1))
		die("rdma_listen");
	if (rdma_get_request(lid, &id))
		die("rdma_get_request");
	mr = ibv_reg_mr(id->pd, w, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		die("ibv_reg_mr REMOTE_ATOMIC");
	rmr = rdma_reg_msgs(id, msg, sizeof(msg));
	if (!rmr || rdma_post_recv(id, NULL, msg, sizeof(msg), rmr))
		die("post_recv");
	pm.addr = (uintptr_t)w;
	pm.rkey = mr->rkey;
	cp.private_data = &pm;
	cp.private_data_len = sizeof(pm);
	cp.responder_resources = cp.initiator_depth = 4;
	if (rdma_accept(id, &cp))
		die("rdma_accept");
	if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
		die("waiting for the client's done");
	check("server-memory", w[0] == CAS_NEW && w[1] == 112 && w[2] == 1 &&
	      w[3] == 0, "words %#" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	      ", want %#llx 112 1 0", w[0], w[1], w[2], w[3], CAS_NEW);
	rdma_disconnect(id);
	rdma_dereg_mr(rmr);
	ibv_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(lid);
	free(w);
	return failed ? 1 : 0;
}

/* One atomic; returns the original value the responder sent back. */
static int atomic(struct rdma_cm_id *id, struct ibv_mr *mr, uint64_t *res,
		  enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
		  uint64_t cmp_add, uint64_t swap, struct ibv_wc *wc)
{
	struct ibv_sge sge = { (uintptr_t)res, 8, mr->lkey };
	struct ibv_send_wr wr = {}, *bad = NULL;
	int err;

	*res = 0xdeadbeefdeadbeefull;
	wr.wr_id = 7;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	err = ibv_post_send(id->qp, &wr, &bad);
	if (err)
		return err;
	if (wait_send(id, wc))
		return EIO;
	return wc->status == IBV_WC_SUCCESS &&
	       wc->opcode == (op == IBV_WR_ATOMIC_CMP_AND_SWP ?
			      IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD) ? 0 : EIO;
}

static int client(const char *addr, const char *port)
{
	struct rdma_conn_param cp = {};
	struct ibv_device_attr da;
	const struct peer_mem *pm;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint64_t *buf, raddr;
	uint32_t rkey;
	int err;

	buf = aligned_alloc(4096, 4096);
	if (!buf)
		die("aligned_alloc");
	memset(buf, 0, 4096);
	id = make_ep(addr, port, 0);
	err = ibv_query_device(id->verbs, &da);
	check("atomic-cap", !err && da.atomic_cap == IBV_ATOMIC_HCA,
	      "atomic_cap %d (IBV_ATOMIC_HCA is %d)", err ? -1 : (int)da.atomic_cap,
	      IBV_ATOMIC_HCA);
	cp.responder_resources = cp.initiator_depth = 4;
	if (rdma_connect(id, &cp))
		die("rdma_connect");
	if (!id->event || id->event->param.conn.private_data_len < sizeof(*pm))
		die("no private data from the server");
	pm = id->event->param.conn.private_data;
	raddr = pm->addr;
	rkey = pm->rkey;
	mr = ibv_reg_mr(id->pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");

	err = atomic(id, mr, &buf[0], IBV_WR_ATOMIC_CMP_AND_SWP, raddr, rkey,
		     CAS_OLD, CAS_NEW, &wc);
	check("cas-match", !err && buf[0] == CAS_OLD,
	      "err %d status %d, returned %#" PRIx64 " (want %#llx)", err,
	      wc.status, buf[0], CAS_OLD);
	err = atomic(id, mr, &buf[0], IBV_WR_ATOMIC_CMP_AND_SWP, raddr, rkey,
		     CAS_OLD, CAS_OTHER, &wc);
	check("cas-mismatch", !err && buf[0] == CAS_NEW,
	      "err %d, returned %#" PRIx64 " (want %#llx, nothing swapped)",
	      err, buf[0], CAS_NEW);
	err = atomic(id, mr, &buf[1], IBV_WR_ATOMIC_FETCH_AND_ADD, raddr + 8,
		     rkey, 5, 0, &wc);
	check("faa-5", !err && buf[1] == 100, "err %d, returned %" PRIu64
	      " (want 100)", err, buf[1]);
	err = atomic(id, mr, &buf[1], IBV_WR_ATOMIC_FETCH_AND_ADD, raddr + 8,
		     rkey, 7, 0, &wc);
	check("faa-7", !err && buf[1] == 105, "err %d, returned %" PRIu64
	      " (want 105)", err, buf[1]);
	err = atomic(id, mr, &buf[2], IBV_WR_ATOMIC_FETCH_AND_ADD, raddr + 16,
		     rkey, 2, 0, &wc);
	check("faa-wrap", !err && buf[2] == UINT64_MAX, "err %d, returned %#"
	      PRIx64 " (want 2^64 - 1)", err, buf[2]);
	err = atomic(id, mr, &buf[3], IBV_WR_ATOMIC_FETCH_AND_ADD, raddr + 4,
		     rkey, 1, 0, &wc);
	check("faa-unaligned", err == EINVAL,
	      "ibv_post_send returned %d (want EINVAL %d)", err, EINVAL);

	memset(&buf[8], 0xaa, 32);
	err = rdma_post_read(id, NULL, &buf[8], 32, mr, 0, raddr, rkey);
	if (!err)
		err = wait_send(id, &wc) || wc.status != IBV_WC_SUCCESS;
	check("read-back", !err && buf[8] == CAS_NEW && buf[9] == 112 &&
	      buf[10] == 1 && buf[11] == 0, "err %d, words %#" PRIx64 " %"
	      PRIu64 " %" PRIu64 " %" PRIu64 " (want %#llx 112 1 0)", err,
	      buf[8], buf[9], buf[10], buf[11], CAS_NEW);

	memcpy(&buf[16], "done", 5);
	err = rdma_post_send(id, NULL, &buf[16], 5, mr, IBV_SEND_SIGNALED);
	if (err || wait_send(id, &wc) || wc.status != IBV_WC_SUCCESS)
		check("send-done", 0, "err %d status %d", err, wc.status);
	rdma_disconnect(id);
	ibv_dereg_mr(mr);
	rdma_destroy_ep(id);
	free(buf);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s server|client ADDR PORT\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "server"))
		return server(argv[2], argv[3]);
	if (!strcmp(argv[1], "client"))
		return client(argv[2], argv[3]);
	fprintf(stderr, "usage: %s server|client ADDR PORT\n", argv[0]);
	return 2;
}
