// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rdma-core provider's verbs glue (the provider sources compiled as they are)
 * with libibverbs' private entry points played by this file: the "kernel"
 * checks each udata the way guest-driver/ does and answers, the doorbell
 * page is a memfd the test watches, and CQEs are written into the CQ memory
 * the provider allocated.  What goes to the kernel, what the provider
 * accepts back, and the whole post/doorbell/poll/arm cycle through the ops
 * table libibverbs would call.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rnic.h"
#include "rnic_abi.h"
#include "check.h"

/* ---- the kernel side, as guest-driver/ answers ---- */

#define DB_KEY          (3 * 4096)
#define MAX_QP_WR       4096
#define MAX_CQE_HW      32768

static struct {
    const struct verbs_device_ops *dev_ops;
    const struct verbs_context_ops *ops;
    uint32_t driver_id, provider_abi;
    struct rnic_alloc_ucontext_resp uresp;
    enum ibv_atomic_cap atomic_cap;
    uint32_t cq_depth_bias;         /* answer a deeper CQ than fits (bug) */
    uint32_t resize_carried;        /* RESIZE_CQ's result0 */
    bool resize_busy;               /* RESIZE_CQ refused (BAD_STATE) */
    uint32_t rereg_flags;
    uint64_t rereg_iova;
    unsigned dontfork, dofork, destroyed_cq, destroyed_qp, logged, dealloced_mw;
    uint32_t next_obj;
    /* the last queue memory handed over */
    uint64_t cq_buf, cq_len, cq_dbrec, sq_va, sq_len, rq_va, rq_len, srq_va, srq_len;
} k;

void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
    k.dev_ops = ops;
}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
                                    struct verbs_context *context_offset, uint32_t driver_id)
{
    uint8_t *p = calloc(1, alloc_size);
    struct verbs_context *v = (struct verbs_context *)(p + (uintptr_t)context_offset);

    v->context.device = device;
    v->context.cmd_fd = cmd_fd;
    k.driver_id = driver_id;
    return p;
}

void verbs_uninit_context(struct verbs_context *context)
{
    (void)context;
}

void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)
{
    (void)vctx;
    k.ops = ops;
}

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
{
    va_list ap;

    (void)ctx;
    (void)level;
    k.logged++;
    va_start(ap, fmt);
    fprintf(stderr, "  provider says: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

int ibv_dontfork_range(void *base, size_t size)
{
    (void)base;
    (void)size;
    k.dontfork++;
    return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
    (void)base;
    (void)size;
    k.dofork++;
    return 0;
}

int ibv_cmd_get_context(struct verbs_context *context, struct ibv_get_context *cmd,
                        size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
                        size_t resp_size)
{
    struct rnic_ucmd_alloc_context *c = (void *)cmd;
    struct rnic_ucmd_alloc_context_resp *r = (void *)resp;

    (void)context;
    CHECK(cmd_size == sizeof(*c) && resp_size == sizeof(*r));
    k.provider_abi = c->drv_payload.provider_abi;
    r->drv_payload = k.uresp;
    return 0;
}

int ibv_cmd_query_device_any(struct ibv_context *context,
                             const struct ibv_query_device_ex_input *input,
                             struct ibv_device_attr_ex *attr, size_t attr_size,
                             struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size)
{
    (void)context;
    (void)input;
    (void)resp_size;
    memset(attr, 0, attr_size);
    memset(resp, 0, sizeof(*resp));
    resp->base.fw_ver = (1u << 16) | 0;
    attr->orig_attr.max_qp_wr = MAX_QP_WR;
    attr->orig_attr.max_cqe = MAX_CQE_HW - 1;
    attr->orig_attr.max_srq_wr = MAX_QP_WR;
    attr->orig_attr.atomic_cap = k.atomic_cap;
    return 0;
}

int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
                       struct ibv_port_attr *port_attr, struct ibv_query_port *cmd,
                       size_t cmd_size)
{
    (void)context;
    (void)port_num;
    (void)cmd;
    (void)cmd_size;
    memset(port_attr, 0, sizeof(*port_attr));
    port_attr->state = IBV_PORT_ACTIVE;
    return 0;
}

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
                     size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
    struct rnic_ucmd_alloc_pd_resp *r = (void *)resp;

    (void)cmd;
    (void)cmd_size;
    CHECK(resp_size == sizeof(*r));
    pd->context = context;
    pd->handle = ++k.next_obj;
    r->drv_payload.pdn = pd->handle;
    return 0;
}

int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
    (void)pd;
    return 0;
}

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
                   struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size,
                   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size)
{
    (void)hca_va;
    (void)access;
    (void)cmd;
    (void)cmd_size;
    (void)resp;
    (void)resp_size;
    vmr->ibv_mr.context = pd->context;
    vmr->ibv_mr.pd = pd;
    vmr->ibv_mr.addr = addr;
    vmr->ibv_mr.length = length;
    vmr->ibv_mr.lkey = vmr->ibv_mr.rkey = 0x4200 + ++k.next_obj;
    return 0;
}

int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
    (void)vmr;
    return 0;
}

/* guest-driver's rnic_alloc_mw: no udata either way, an STag index + key. */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
                     struct ibv_alloc_mw *cmd, size_t cmd_size,
                     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)
{
    (void)cmd;
    (void)resp;
    (void)resp_size;
    if (cmd_size != sizeof(*cmd)) {
        return EINVAL;
    }
    mw->context = pd->context;
    mw->pd = pd;
    mw->type = type;
    mw->rkey = RNIC_STAG(0x40 + ++k.next_obj, 0xff);
    return 0;
}

int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
    (void)mw;
    k.dealloced_mw++;
    return 0;
}

/* guest-driver's rnic_umem_ring_get(): the depth is what the pages hold. */
static uint32_t ring_depth(uint64_t va, uint64_t len, uint32_t entry, uint32_t max)
{
    uint64_t n;
    uint32_t d = 1;

    if (!va || (va & 4095) || !len || (len & 4095)) {
        return 0;
    }
    n = len / entry;
    while ((uint64_t)d * 2 <= n && d * 2 <= max) {
        d *= 2;
    }
    return d < 2 ? 0 : d;
}

int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
                      int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd,
                      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp, size_t resp_size)
{
    struct rnic_ucmd_create_cq *c = (void *)cmd;
    struct rnic_ucmd_create_cq_resp *r = (void *)resp;
    uint32_t depth;

    (void)channel;
    (void)comp_vector;
    CHECK(cmd_size == sizeof(*c) && resp_size == sizeof(*r));
    k.cq_buf = c->drv_payload.buf_va;
    k.cq_len = c->drv_payload.buf_len;
    k.cq_dbrec = c->drv_payload.dbrec_va;
    depth = ring_depth(k.cq_buf, k.cq_len, RNIC_CQE_SIZE, MAX_CQE_HW);
    if (cqe < 1 || cqe >= MAX_CQE_HW || !depth || depth < (uint32_t)cqe || !k.cq_dbrec) {
        return EINVAL;
    }
    cq->context = context;
    cq->handle = ++k.next_obj;
    cq->cqe = depth;
    r->drv_payload.cqn = 40 + k.next_obj;
    r->drv_payload.depth = depth << k.cq_depth_bias;
    return 0;
}

/* guest-driver's rnic_resize_cq: pins the new ring, the device carries. */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
                      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)
{
    struct rnic_ucmd_resize_cq *c = (void *)cmd;
    struct rnic_ucmd_resize_cq_resp *r = (void *)resp;
    uint32_t depth;

    CHECK(cmd_size == sizeof(*c) && resp_size == sizeof(*r));
    k.cq_buf = c->drv_payload.buf_va;
    k.cq_len = c->drv_payload.buf_len;
    k.cq_dbrec = c->drv_payload.dbrec_va;
    depth = ring_depth(k.cq_buf, k.cq_len, RNIC_CQE_SIZE, MAX_CQE_HW);
    if (cqe < 1 || cqe >= MAX_CQE_HW || !depth || depth < (uint32_t)cqe || !k.cq_dbrec) {
        return EINVAL;
    }
    if (k.resize_busy) {
        return EPERM;   /* RNIC_STS_BAD_STATE: more CQEs waiting */
    }
    cq->cqe = depth;
    r->drv_payload.depth = depth << k.cq_depth_bias;
    r->drv_payload.carried = k.resize_carried;
    return 0;
}

int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length,
                     uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
                     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz)
{
    (void)access;
    (void)cmd;
    (void)cmd_sz;
    (void)resp;
    (void)resp_sz;
    k.rereg_flags = flags;
    k.rereg_iova = hca_va;
    if (flags & IBV_REREG_MR_CHANGE_PD) {
        vmr->ibv_mr.pd = pd;
    }
    if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
        vmr->ibv_mr.addr = addr;
        vmr->ibv_mr.length = length;
    }
    vmr->ibv_mr.lkey = vmr->ibv_mr.rkey = vmr->ibv_mr.lkey + 1;
    return 0;
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
    (void)cq;
    k.destroyed_cq++;
    return 0;
}

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
                      struct ibv_create_qp *cmd, size_t cmd_size,
                      struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
    struct rnic_ucmd_create_qp *c = (void *)cmd;
    struct rnic_ucmd_create_qp_resp *r = (void *)resp;
    struct ibv_qp_cap *cap = &attr->cap;
    uint32_t sq, rq = 0;

    CHECK(cmd_size == sizeof(*c) && resp_size == sizeof(*r));
    k.sq_va = c->drv_payload.sq_va;
    k.sq_len = c->drv_payload.sq_len;
    k.rq_va = c->drv_payload.rq_va;
    k.rq_len = c->drv_payload.rq_len;
    if (attr->qp_type != IBV_QPT_RC || !cap->max_send_wr || cap->max_send_wr > MAX_QP_WR ||
        cap->max_send_sge > k.uresp.max_send_sge || cap->max_inline_data > k.uresp.max_inline) {
        return EINVAL;
    }
    sq = ring_depth(k.sq_va, k.sq_len, RNIC_SQ_WQE_SIZE, MAX_QP_WR);
    if (!sq || sq < cap->max_send_wr) {
        return EINVAL;
    }
    if (!attr->srq) {
        if (!cap->max_recv_wr || cap->max_recv_sge > k.uresp.max_recv_sge) {
            return EINVAL;
        }
        rq = ring_depth(k.rq_va, k.rq_len, RNIC_RQ_WQE_SIZE, MAX_QP_WR);
        if (!rq || rq < cap->max_recv_wr) {
            return EINVAL;
        }
    }
    qp->context = pd->context;
    qp->pd = pd;
    qp->send_cq = attr->send_cq;
    qp->recv_cq = attr->recv_cq;
    qp->srq = attr->srq;
    qp->qp_type = attr->qp_type;
    qp->handle = ++k.next_obj;
    qp->qp_num = 100 + k.next_obj;
    cap->max_send_wr = sq;
    cap->max_recv_wr = rq;
    cap->max_send_sge = cap->max_send_sge ? cap->max_send_sge : 1;
    cap->max_recv_sge = attr->srq ? 0 : (cap->max_recv_sge ? cap->max_recv_sge : 1);
    r->drv_payload.qpn = qp->qp_num;
    r->drv_payload.sq_depth = sq;
    r->drv_payload.rq_depth = rq;
    r->drv_payload.max_inline = cap->max_inline_data;
    return 0;
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
                      struct ibv_modify_qp *cmd, size_t cmd_size)
{
    (void)cmd;
    (void)cmd_size;
    if (attr_mask & IBV_QP_STATE) {
        qp->state = attr->qp_state;
    }
    return 0;
}

int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
                     struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd,
                     size_t cmd_size)
{
    (void)attr_mask;
    (void)qp_init_attr;
    (void)cmd;
    (void)cmd_size;
    qp_attr->qp_state = qp->state;
    return 0;
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
    (void)qp;
    k.destroyed_qp++;
    return 0;
}

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
                       struct ibv_create_srq *cmd, size_t cmd_size,
                       struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
{
    struct rnic_ucmd_create_srq *c = (void *)cmd;
    struct rnic_ucmd_create_srq_resp *r = (void *)resp;
    uint32_t depth;

    CHECK(cmd_size == sizeof(*c) && resp_size == sizeof(*r));
    k.srq_va = c->drv_payload.buf_va;
    k.srq_len = c->drv_payload.buf_len;
    depth = ring_depth(k.srq_va, k.srq_len, RNIC_RQ_WQE_SIZE, MAX_QP_WR);
    if (!depth || depth < attr->attr.max_wr || attr->attr.max_sge > k.uresp.max_recv_sge) {
        return EINVAL;
    }
    srq->context = pd->context;
    srq->pd = pd;
    srq->handle = ++k.next_obj;
    attr->attr.max_wr = depth;
    r->drv_payload.srqn = 7;
    r->drv_payload.depth = depth;
    return 0;
}

int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
                       struct ibv_modify_srq *cmd, size_t cmd_size)
{
    (void)srq;
    (void)srq_attr;
    (void)srq_attr_mask;
    (void)cmd;
    (void)cmd_size;
    return 0;
}

int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
                      struct ibv_query_srq *cmd, size_t cmd_size)
{
    (void)srq;
    (void)cmd;
    (void)cmd_size;
    memset(srq_attr, 0, sizeof(*srq_attr));
    return 0;
}

int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
    (void)srq;
    return 0;
}

/* ---- helpers ---- */

static const volatile uint64_t *db_view;    /* the doorbell page, as the device sees it */

static uint64_t db(uint32_t off)
{
    return db_view[off / 8];
}

static void default_uresp(void)
{
    memset(&k.uresp, 0, sizeof(k.uresp));
    k.uresp.db_mmap_key = DB_KEY;
    k.uresp.db_page_size = RNIC_DB_PAGE_SIZE;
    k.uresp.uctx = 5;
    k.uresp.hw_version = RNIC_HW_VERSION;
    k.uresp.sq_wqe_size = RNIC_SQ_WQE_SIZE;
    k.uresp.rq_wqe_size = RNIC_RQ_WQE_SIZE;
    k.uresp.cqe_size = RNIC_CQE_SIZE;
    k.uresp.max_send_sge = 12;
    k.uresp.max_recv_sge = 7;
    k.uresp.max_inline = 192;
    k.uresp.features = RNIC_FEAT_RDMA | RNIC_FEAT_SRQ | RNIC_FEAT_IMM | RNIC_FEAT_ATOMICS;
}

/* The device writes one CQE at the next slot of a CQ (owner last). */
static void dev_cqe(struct ibv_cq *cq, uint32_t idx, uint64_t wr_id, uint8_t opcode,
                    uint32_t qpn, uint16_t wqe_idx)
{
    struct rnic_cqe *ring = (void *)(uintptr_t)k.cq_buf;
    uint32_t depth = (uint32_t)cq->cqe;
    struct rnic_cqe *e = &ring[idx & (depth - 1)];

    memset(e, 0, sizeof(*e));
    e->wr_id = htole64(wr_id);
    e->qpn = htole32(qpn);
    e->wqe_idx = htole16(wqe_idx);
    e->opcode = opcode;
    e->byte_len = htole32(64);
    e->owner = ((idx / depth) & 1) ? 0 : RNIC_CQE_PHASE;
}

/* ---- the tests ---- */

static struct ibv_context *open_ctx(int fd)
{
    struct verbs_device *vdev = k.dev_ops->alloc_device(NULL);
    struct verbs_context *v;

    strcpy(vdev->device.name, "rnic0");
    v = k.dev_ops->alloc_context(&vdev->device, fd, NULL);
    if (!v) {
        k.dev_ops->uninit_device(vdev);
        return NULL;
    }
    return &v->context;
}

static void close_ctx(struct ibv_context *ctx)
{
    struct ibv_device *dev = ctx->device;

    k.ops->free_context(ctx);
    k.dev_ops->uninit_device(container_of(dev, struct verbs_device, device));
}

static void test_device_ops(int fd)
{
    const struct verbs_match_ent *m;
    struct ibv_context *ctx;

    CHECK(k.dev_ops != NULL);
    if (!k.dev_ops) {
        return;
    }
    CHECK(!strcmp(k.dev_ops->name, "rnic"));
    CHECK(k.dev_ops->match_min_abi_version == RNIC_UVERBS_ABI_VERSION);
    CHECK(k.dev_ops->match_max_abi_version == RNIC_UVERBS_ABI_VERSION);
    m = k.dev_ops->match_table;
    CHECK(m[0].kind == VERBS_MATCH_PCI && m[0].vendor == 0x1af4 && m[0].device == 0x10f5);
    CHECK(m[1].kind == VERBS_MATCH_SENTINEL);

    /* A driver whose queue layout differs is refused. */
    default_uresp();
    k.uresp.cqe_size = 64;
    errno = 0;
    CHECK(open_ctx(fd) == NULL && errno == EPROTO);
    CHECK(k.logged == 1);
    default_uresp();
    k.uresp.hw_version = 2u << 16;
    CHECK(open_ctx(fd) == NULL);

    default_uresp();
    ctx = open_ctx(fd);
    CHECK(ctx != NULL);
    CHECK(k.driver_id == RNIC_UVERBS_DRIVER_ID && k.provider_abi == RNIC_UVERBS_ABI_VERSION);
    if (ctx) {
        struct ibv_device_attr_ex attr;

        CHECK(k.ops->query_device_ex(ctx, NULL, &attr, sizeof(attr)) == 0);
        CHECK(!strcmp(attr.orig_attr.fw_ver, "1.0"));
        /* no atomic_cap from query_device: atomics off whatever the bits say */
        CHECK(to_rnic_ctx(ctx)->features == (k.uresp.features & ~RNIC_FEAT_ATOMICS));
        close_ctx(ctx);
    }
    /* atomics need atomic_cap as well as the feature bit */
    k.atomic_cap = IBV_ATOMIC_HCA;
    ctx = open_ctx(fd);
    CHECK(ctx && (to_rnic_ctx(ctx)->features & RNIC_FEAT_ATOMICS));
    if (ctx) {
        close_ctx(ctx);
    }
    k.atomic_cap = IBV_ATOMIC_NONE;
}

static void test_cq(struct ibv_context *ctx)
{
    struct ibv_cq *cq;

    /* 10 entries -> a 16-deep ring in one page; the driver uses the page. */
    cq = k.ops->create_cq(ctx, 10, NULL, 0);
    CHECK(cq != NULL);
    if (!cq) {
        return;
    }
    CHECK((k.cq_buf & 4095) == 0 && k.cq_len == 4096 && k.cq_dbrec == k.cq_buf + 4096);
    CHECK(cq->cqe == 128);
    CHECK(k.ops->destroy_cq(cq) == 0);

    errno = 0;
    CHECK(k.ops->create_cq(ctx, MAX_CQE_HW, NULL, 0) == NULL && errno == EINVAL);
    CHECK(k.ops->create_cq(ctx, 0, NULL, 0) == NULL);
    /* A driver answering a depth beyond the ring: refused, object destroyed. */
    k.cq_depth_bias = 1;
    errno = 0;
    k.destroyed_cq = 0;
    CHECK(k.ops->create_cq(ctx, 100, NULL, 0) == NULL && errno == EPROTO);
    CHECK(k.destroyed_cq == 1);
    k.cq_depth_bias = 0;

    /* resize: a new ring and record, the consumer back at 0. */
    cq = k.ops->create_cq(ctx, 10, NULL, 0);
    CHECK(cq != NULL);
    if (!cq) {
        return;
    }
    {
        struct rnic_cq *rcq = to_rnic_cq(cq);
        void *old = rcq->mem.buf;

        rcq->ring.cons = 77;
        k.resize_carried = 3;
        CHECK(k.ops->resize_cq(cq, 1000) == 0);
        CHECK(cq->cqe == 1024 && rcq->ring.depth == 1024 && rcq->ring.cons == 0);
        CHECK((uintptr_t)rcq->ring.cqe == k.cq_buf && k.cq_len == 1024 * RNIC_CQE_SIZE);
        CHECK((uintptr_t)rcq->ring.dbrec == k.cq_dbrec && k.cq_dbrec == k.cq_buf + k.cq_len);
        CHECK(rcq->mem.buf != old);
        /* Refused or answered wrongly: the old ring stays in use. */
        old = rcq->mem.buf;
        rcq->ring.cons = 5;
        k.resize_busy = true;
        CHECK(k.ops->resize_cq(cq, 10) == EPERM);
        k.resize_busy = false;
        CHECK(rcq->mem.buf == old && rcq->ring.cons == 5 && cq->cqe == 1024);
        CHECK(k.ops->resize_cq(cq, 0) == EINVAL);
        CHECK(k.ops->resize_cq(cq, MAX_CQE_HW + 1) == EINVAL);
        k.resize_carried = 129;     /* more than a 128-deep ring holds */
        CHECK(k.ops->resize_cq(cq, 10) == EPROTO);
        k.resize_carried = 0;
        CHECK(rcq->mem.buf == old && rcq->ring.cons == 5);
        /* The ring the device was handed is left allocated: free it here. */
        {
            struct rnic_queue_mem left = {
                .buf = (void *)(uintptr_t)k.cq_buf, .size = k.cq_len + 4096,
            };

            rnic_free_queue_mem(&left);
        }
    }
    CHECK(k.ops->destroy_cq(cq) == 0);
}

static void test_rereg(struct ibv_context *ctx)
{
    struct ibv_pd *pd = k.ops->alloc_pd(ctx), *pd2 = k.ops->alloc_pd(ctx);
    static uint8_t buf[8192];
    struct ibv_mr *mr;
    uint32_t key;

    CHECK(pd && pd2);
    if (!pd || !pd2) {
        return;
    }
    mr = k.ops->reg_mr(pd, buf, 4096, (uintptr_t)buf, IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr != NULL);
    if (!mr) {
        return;
    }
    key = mr->rkey;
    CHECK(k.ops->rereg_mr(verbs_get_mr(mr), IBV_REREG_MR_CHANGE_TRANSLATION |
                          IBV_REREG_MR_CHANGE_PD, pd2, buf + 4096, 4096,
                          IBV_ACCESS_LOCAL_WRITE) == 0);
    CHECK(k.rereg_iova == (uintptr_t)(buf + 4096));
    CHECK(mr->addr == buf + 4096 && mr->pd == pd2 && mr->rkey == key + 1);
    CHECK(k.ops->dereg_mr(verbs_get_mr(mr)) == 0);
    CHECK(k.ops->dealloc_pd(pd) == 0);
    CHECK(k.ops->dealloc_pd(pd2) == 0);
}

/*
 * Memory windows: refused without RNIC_FEAT_MW; ibv_bind_mw of a type 1
 * window is a BIND_MW WQE with the window's next key (ibv_inc_rkey), rung
 * at once; zero-based windows are refused.
 */
static void test_mw(int fd)
{
    struct ibv_qp_init_attr ia;
    struct ibv_context *ctx;
    struct ibv_mw_bind b;
    struct rnic_sq_wqe *w;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    struct ibv_mw *mw;
    uint32_t key;

    default_uresp();
    ctx = open_ctx(fd);
    CHECK(ctx != NULL);
    if (!ctx) {
        return;
    }
    pd = k.ops->alloc_pd(ctx);
    errno = 0;
    CHECK(k.ops->alloc_mw(pd, IBV_MW_TYPE_1) == NULL && errno == EOPNOTSUPP);
    CHECK(k.ops->dealloc_pd(pd) == 0);
    close_ctx(ctx);

    k.uresp.features |= RNIC_FEAT_MW;
    ctx = open_ctx(fd);
    CHECK(ctx != NULL);
    if (!ctx) {
        return;
    }
    pd = k.ops->alloc_pd(ctx);
    mr = k.ops->reg_mr(pd, (void *)0x20000, 8192, 0x20000,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
    mw = k.ops->alloc_mw(pd, IBV_MW_TYPE_1);
    cq = k.ops->create_cq(ctx, 16, NULL, 0);
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = ia.recv_cq = cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = 4;
    ia.cap.max_recv_wr = 4;
    qp = pd && mr && mw && cq ? k.ops->create_qp(pd, &ia) : NULL;
    CHECK(qp != NULL);
    if (!qp) {
        return;
    }
    key = mw->rkey;
    memset(&b, 0, sizeof(b));
    b.wr_id = 77;
    b.send_flags = IBV_SEND_SIGNALED;
    b.bind_info.mr = mr;
    b.bind_info.addr = 0x21000;
    b.bind_info.length = 4096;
    b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    CHECK(k.ops->bind_mw(qp, mw, &b) == 0);
    CHECK(mw->rkey == ((key & ~0xffu) | ((key + 1) & 0xff)));
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 1));
    w = (struct rnic_sq_wqe *)(uintptr_t)k.sq_va;
    CHECK(w->hdr.opcode == RNIC_WR_BIND_MW && w->hdr.count == 0);
    CHECK(w->hdr.flags == RNIC_WQE_SIGNALED && le64toh(w->hdr.wr_id) == 77);
    CHECK(le32toh(w->op.bind_mw.mw_stag) == mw->rkey);
    CHECK(le32toh(w->op.bind_mw.mr_stag) == mr->lkey);
    CHECK(le64toh(w->op.bind_mw.va) == 0x21000);
    CHECK(le64toh(w->op.bind_mw.length) == 4096);
    CHECK(le32toh(w->op.bind_mw.access) ==
          (RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE));
    /* Zero-based windows, or a length without an MR: refused, nothing rung. */
    key = mw->rkey;
    b.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
    CHECK(k.ops->bind_mw(qp, mw, &b) == EINVAL && mw->rkey == key);
    b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
    b.bind_info.mr = NULL;
    CHECK(k.ops->bind_mw(qp, mw, &b) == EINVAL && mw->rkey == key);
    /* Unbind: length 0, no MR; then LOCAL_INV may be posted (type 2). */
    b.bind_info.length = 0;
    b.bind_info.addr = 0;
    CHECK(k.ops->bind_mw(qp, mw, &b) == 0);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 2));
    w = (struct rnic_sq_wqe *)(uintptr_t)(k.sq_va + 256);
    CHECK(w->hdr.opcode == RNIC_WR_BIND_MW && w->op.bind_mw.mr_stag == 0);
    CHECK(k.ops->dealloc_mw(mw) == 0 && k.dealloced_mw == 1);
    CHECK(k.ops->destroy_qp(qp) == 0);
    CHECK(k.ops->destroy_cq(cq) == 0);
    CHECK(k.ops->dereg_mr(verbs_get_mr(mr)) == 0);
    CHECK(k.ops->dealloc_pd(pd) == 0);
    close_ctx(ctx);
    default_uresp();
}

static void test_data_path(struct ibv_context *ctx)
{
    struct ibv_qp_init_attr ia;
    struct ibv_send_wr swr[40], *bad;
    struct ibv_recv_wr rwr, *rbad;
    struct ibv_sge s = { .addr = 0x10000, .length = 64, .lkey = 9 };
    struct ibv_wc wc[8];
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct rnic_qp *rq;
    struct ibv_mr *mr;
    uint32_t cqn, depth, qpn;
    int n;

    pd = k.ops->alloc_pd(ctx);
    mr = k.ops->reg_mr(pd, (void *)0x10000, 4096, 0x10000, IBV_ACCESS_LOCAL_WRITE);
    CHECK(pd && mr && mr->lkey);
    cq = k.ops->create_cq(ctx, 64, NULL, 0);
    CHECK(cq != NULL);
    if (!pd || !mr || !cq) {
        return;
    }
    cqn = to_rnic_cq(cq)->cqn;

    memset(&ia, 0, sizeof(ia));
    ia.send_cq = ia.recv_cq = cq;
    ia.qp_type = IBV_QPT_UD;
    ia.cap.max_send_wr = 10;
    ia.cap.max_recv_wr = 20;
    ia.cap.max_send_sge = 2;
    errno = 0;
    CHECK(k.ops->create_qp(pd, &ia) == NULL && errno == EOPNOTSUPP);
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = MAX_QP_WR + 1;
    CHECK(k.ops->create_qp(pd, &ia) == NULL && errno == EINVAL);
    ia.cap.max_send_wr = 10;
    ia.cap.max_inline_data = 193;
    CHECK(k.ops->create_qp(pd, &ia) == NULL && errno == EINVAL);
    ia.cap.max_inline_data = 0;
    qp = k.ops->create_qp(pd, &ia);
    CHECK(qp != NULL);
    if (!qp) {
        return;
    }
    rq = to_rnic_qp(qp);
    /* 16 x 256 B = one page of SQ, then 32 x 128 B = one page of RQ */
    CHECK((k.sq_va & 4095) == 0 && k.sq_len == 4096);
    CHECK(k.rq_va == k.sq_va + 4096 && k.rq_len == 4096);
    CHECK(ia.cap.max_send_wr == 16 && ia.cap.max_recv_wr == 32);
    CHECK(ia.cap.max_send_sge == 12 && ia.cap.max_recv_sge == 7);
    CHECK(ia.cap.max_inline_data == 192);

    /* Two Sends: one doorbell with producer 2 at the SQ offset. */
    memset(swr, 0, sizeof(swr));
    for (int i = 0; i < 40; i++) {
        swr[i].wr_id = 1000 + i;
        swr[i].sg_list = &s;
        swr[i].num_sge = 1;
        swr[i].opcode = IBV_WR_SEND;
        swr[i].next = i < 39 ? &swr[i + 1] : NULL;
    }
    swr[1].next = NULL;
    swr[1].send_flags = IBV_SEND_SIGNALED;
    CHECK(k.ops->post_send(qp, swr, &bad) == 0);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 2));
    CHECK(((uint8_t *)(uintptr_t)k.sq_va)[256 + 8] == RNIC_WR_SEND);
    /* A bad request after a good one: the good one is rung, bad_wr set. */
    swr[2].next = &swr[3];
    swr[3].next = NULL;
    swr[3].num_sge = 13;
    bad = NULL;
    CHECK(k.ops->post_send(qp, &swr[2], &bad) == EINVAL && bad == &swr[3]);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 3));
    swr[3].num_sge = 1;
    swr[3].next = &swr[4];
    /* Fill the 16-deep SQ: 13 more fit, then ENOMEM. */
    CHECK(k.ops->post_send(qp, &swr[3], &bad) == ENOMEM && bad == &swr[16]);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 16));

    /* Receives: producer at the RQ offset. */
    rwr = (struct ibv_recv_wr){ .wr_id = 77, .sg_list = &s, .num_sge = 1 };
    CHECK(k.ops->post_recv(qp, &rwr, &rbad) == 0);
    CHECK(db(RNIC_DB_RQ) == RNIC_DB_VAL(qp->qp_num, 0, 1));

    /* Completions: slot 1 of the SQ frees two WQEs, a receive one RQE, a
     * completion of an unknown QP is reported and frees nothing. */
    depth = (uint32_t)cq->cqe;
    CHECK(k.ops->poll_cq(cq, 8, wc) == 0);
    dev_cqe(cq, 0, 1001, RNIC_WC_SEND, qp->qp_num, 1);
    dev_cqe(cq, 1, 77, RNIC_WC_RECV, qp->qp_num, 0);
    dev_cqe(cq, 2, 5, RNIC_WC_SEND, 4242, 0);
    n = k.ops->poll_cq(cq, 8, wc);
    CHECK(n == 3);
    CHECK(wc[0].wr_id == 1001 && wc[0].opcode == IBV_WC_SEND && wc[0].qp_num == qp->qp_num);
    CHECK(wc[1].wr_id == 77 && wc[1].opcode == IBV_WC_RECV && wc[1].byte_len == 64);
    CHECK(wc[2].qp_num == 4242);
    CHECK(rnic_wq_outstanding(&rq->sq) == 14 && rnic_wq_outstanding(&rq->rq) == 0);
    CHECK(le32toh(*to_rnic_cq(cq)->ring.dbrec) == 3);
    /* two slots free again */
    swr[17].next = NULL;
    CHECK(k.ops->post_send(qp, &swr[16], &bad) == 0);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 18));

    /* Arming: consumer index and the ARM flag in the CQ doorbell. */
    CHECK(k.ops->req_notify_cq(cq, 0) == 0);
    CHECK(db(RNIC_DB_CQ) == RNIC_DB_VAL(cqn, RNIC_DB_ARM, 3));
    CHECK(k.ops->req_notify_cq(cq, 1) == 0);
    CHECK(db(RNIC_DB_CQ) == RNIC_DB_VAL(cqn, RNIC_DB_ARM_SOLICITED, 3));
    CHECK(depth == 128);

    /* The CQE of the last WQE (index 17, slot 1) frees the whole SQ. */
    dev_cqe(cq, 3, 1017, RNIC_WC_SEND, qp->qp_num, 17 & 15);
    CHECK(k.ops->poll_cq(cq, 8, wc) == 1 && wc[0].wr_id == 1017);
    CHECK(rnic_wq_outstanding(&rq->sq) == 0);
    /* This context has no atomic_cap: atomics are refused at post time. */
    swr[20].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    swr[20].sg_list = &s;
    s.length = 8;
    swr[20].next = NULL;
    bad = NULL;
    CHECK(k.ops->post_send(qp, &swr[20], &bad) == EINVAL && bad == &swr[20]);
    CHECK(db(RNIC_DB_SQ) == RNIC_DB_VAL(qp->qp_num, 0, 18));

    {
        struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
        struct ibv_qp_init_attr qi;

        CHECK(k.ops->modify_qp(qp, &qa, IBV_QP_STATE) == 0);
        memset(&qa, 0, sizeof(qa));
        CHECK(k.ops->query_qp(qp, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_ERR);
    }
    qpn = qp->qp_num;
    CHECK(rnic_find_qp(to_rnic_ctx(ctx), qpn) == rq);
    CHECK(k.ops->destroy_qp(qp) == 0);
    /* after destroy its completions find no QP */
    CHECK(rnic_find_qp(to_rnic_ctx(ctx), qpn) == NULL);
    CHECK(k.ops->destroy_cq(cq) == 0);
    CHECK(k.ops->dereg_mr(verbs_get_mr(mr)) == 0);
    CHECK(k.ops->dealloc_pd(pd) == 0);
}

static void test_srq(struct ibv_context *ctx)
{
    struct ibv_srq_init_attr sa = { .attr = { .max_wr = 100, .max_sge = 3 } };
    struct ibv_qp_init_attr ia;
    struct ibv_sge s = { .addr = 0x2000, .length = 16, .lkey = 3 };
    struct ibv_recv_wr r[3], *bad;
    struct ibv_srq_attr mod = { .max_wr = 10 };
    struct ibv_wc wc[2];
    struct ibv_pd *pd = k.ops->alloc_pd(ctx);
    struct ibv_cq *cq = k.ops->create_cq(ctx, 16, NULL, 0);
    struct ibv_srq *srq;
    struct ibv_qp *qp;

    CHECK(pd && cq);
    srq = k.ops->create_srq(pd, &sa);
    CHECK(srq != NULL);
    if (!srq || !pd || !cq) {
        return;
    }
    /* 128 x 128 B = 4 pages */
    CHECK((k.srq_va & 4095) == 0 && k.srq_len == 16384);
    CHECK(sa.attr.max_wr == 128 && sa.attr.max_sge == 7);
    memset(r, 0, sizeof(r));
    for (int i = 0; i < 3; i++) {
        r[i].wr_id = 300 + i;
        r[i].sg_list = &s;
        r[i].num_sge = 1;
        r[i].next = i < 2 ? &r[i + 1] : NULL;
    }
    CHECK(k.ops->post_srq_recv(srq, r, &bad) == 0);
    CHECK(db(RNIC_DB_SRQ) == RNIC_DB_VAL(7, 0, 3));
    CHECK(k.ops->modify_srq(srq, &mod, IBV_SRQ_MAX_WR) == EINVAL);
    CHECK(k.ops->modify_srq(srq, &mod, IBV_SRQ_LIMIT) == 0);

    memset(&ia, 0, sizeof(ia));
    ia.send_cq = ia.recv_cq = cq;
    ia.srq = srq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = 4;
    qp = k.ops->create_qp(pd, &ia);
    CHECK(qp != NULL);
    if (qp) {
        CHECK(k.rq_va == 0 && k.rq_len == 0 && ia.cap.max_recv_wr == 0);
        bad = NULL;
        CHECK(k.ops->post_recv(qp, r, &bad) == EINVAL && bad == r);
        dev_cqe(cq, 0, 300, RNIC_WC_RECV, qp->qp_num, 0);
        CHECK(k.ops->poll_cq(cq, 2, wc) == 1 && wc[0].wr_id == 300);
        CHECK(rnic_wq_outstanding(&to_rnic_srq(srq)->wq) == 2);
        CHECK(k.ops->destroy_qp(qp) == 0);
    }
    CHECK(k.ops->destroy_srq(srq) == 0);
    CHECK(k.ops->destroy_cq(cq) == 0);
    CHECK(k.ops->dealloc_pd(pd) == 0);
}

int main(void)
{
    int fd = memfd_create("rnic-doorbells", 0);
    struct ibv_context *ctx;
    void *view;

    if (fd < 0 || ftruncate(fd, DB_KEY + 4096)) {
        perror("memfd");
        return 1;
    }
    view = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, DB_KEY);
    if (view == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    db_view = view;

    test_device_ops(fd);
    test_mw(fd);
    default_uresp();
    ctx = open_ctx(fd);
    CHECK(ctx != NULL);
    if (ctx) {
        test_cq(ctx);
        test_rereg(ctx);
        test_data_path(ctx);
        test_srq(ctx);
        close_ctx(ctx);
    }
    /* every queue buffer went back to fork-able memory */
    CHECK(k.dontfork == k.dofork && k.dontfork > 0);
    munmap(view, 4096);
    close(fd);
    return check_report("test-provider-verbs");
}
