/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Admin queue and the commands of the NIC and resource layer.  RDMA object
 * commands are handed to the resources (rdma_res.c), CM commands to the
 * iWARP layer (iw_cm.c).
 */
#include <string.h>
#include "admin.h"
#include "core/eq.h"
#include "core/l2.h"
#include "wire/le.h"
#include "rdma/rdma.h"
#include "iwarp/iw.h"

void rne_admin_enable(struct rne_dev *d)
{
    struct rne_admq *aq = &d->admq;
    uint32_t sq_log = RNIC_ADMQ_CFG_GET_SQ_LOG(d->admq_cfg);
    uint32_t cq_log = RNIC_ADMQ_CFG_GET_CQ_LOG(d->admq_cfg);
    unsigned sts;

    rne_ring_free(&aq->sq);
    rne_ring_free(&aq->cq);
    memset(aq, 0, sizeof(*aq));
    if (sq_log < RNIC_ADMQ_MIN_LOG || sq_log > RNE_ENG_MAX_ADMQ_LOG ||
        cq_log < RNIC_ADMQ_MIN_LOG || cq_log > RNE_ENG_MAX_ADMQ_LOG ||
        (d->admq_cfg >> 16)) {
        sts = RNIC_STS_BAD_PARAM;
    } else {
        uint32_t sq_depth = 1u << sq_log, cq_depth = 1u << cq_log;

        sts = rne_ring_load(&aq->sq, &d->host, d->admq_sq_pbl,
                            rne_ring_pages_needed(sq_depth,
                                                  RNIC_ADMIN_CMD_SIZE),
                            1, RNIC_PAGE_SHIFT, sq_depth,
                            RNIC_ADMIN_CMD_SIZE);
        if (!sts) {
            sts = rne_ring_load(&aq->cq, &d->host, d->admq_cq_pbl,
                                rne_ring_pages_needed(cq_depth,
                                                      RNIC_ADMIN_CQE_SIZE),
                                1, RNIC_PAGE_SHIFT, cq_depth,
                                RNIC_ADMIN_CQE_SIZE);
        }
    }
    if (sts) {
        rne_ring_free(&aq->sq);
        rne_guest_error(&d->host, "admin queue configuration rejected",
                        d->admq_cfg, sts);
        d->status |= RNIC_STATUS_FATAL;
        d->error = sts == RNIC_STS_DMA_ERROR ? RNIC_DEVERR_ADMQ_DMA :
                                                RNIC_DEVERR_ADMQ_CFG;
        return;
    }
    aq->live = true;
    d->status |= RNIC_STATUS_READY;
}

static bool cq_has_room(const struct rne_admq *aq)
{
    return rne_ring_used(aq->cq_tail, aq->cq_head) < aq->cq.depth;
}

static void post_completion(struct rne_dev *d, struct rnic_admin_cqe *cqe)
{
    struct rne_admq *aq = &d->admq;

    cqe->sq_head = rne_cpu_to_le16((uint16_t)aq->sq_head);
    cqe->flags = 0;
    if (rne_ring_publish(&aq->cq, &d->host, aq->cq_tail, cqe,
                         offsetof(struct rnic_admin_cqe, flags))) {
        /* The ring was reachable at enable time; the guest moved it. */
        rne_guest_error(&d->host, "admin completion DMA failed",
                        aq->cq_tail, 0);
        d->status = (d->status & ~RNIC_STATUS_READY) | RNIC_STATUS_FATAL;
        d->error = RNIC_DEVERR_ADMQ_DMA;
        aq->live = false;
        return;
    }
    aq->cq_tail++;
    d->host.ops->notify(d->host.opaque, RNIC_MSIX_ADMIN);
}

/* Take the latched doorbells; a tail beyond head + depth is refused. */
static void take_doorbells(struct rne_dev *d)
{
    struct rne_admq *aq = &d->admq;
    uint32_t head = d->admq_db_cq_head, tail = d->admq_db_tail;

    if (rne_ring_used(aq->cq_tail, head) <=
        rne_ring_used(aq->cq_tail, aq->cq_head)) {
        aq->cq_head = head;
    } else {
        rne_guest_error(&d->host, "admin CQ head out of range", head,
                        aq->cq_tail);
    }
    if (tail == aq->sq_tail) {
        return;
    }
    if (rne_ring_used(tail, aq->sq_head) > aq->sq.depth ||
        rne_ring_used(tail, aq->sq_head) <
        rne_ring_used(aq->sq_tail, aq->sq_head)) {
        struct rnic_admin_cqe cqe;

        rne_guest_error(&d->host, "admin SQ tail out of range", tail,
                        aq->sq_head);
        d->admq_db_tail = aq->sq_tail;
        if (cq_has_room(aq)) {
            memset(&cqe, 0, sizeof(cqe));
            cqe.tag = rne_cpu_to_le16(RNIC_ADMIN_TAG_NONE);
            cqe.status = RNIC_STS_RING_OVERFLOW;
            cqe.result0 = rne_cpu_to_le32(tail);
            post_completion(d, &cqe);
        }
        return;
    }
    aq->sq_tail = tail;
}

void rne_admin_process(struct rne_dev *d)
{
    struct rne_admq *aq = &d->admq;

    if (!aq->live) {
        return;
    }
    take_doorbells(d);
    aq->pass_pages = 0;
    while (aq->live && aq->sq_head != aq->sq_tail && cq_has_room(aq)) {
        struct rnic_admin_cmd cmd;
        struct rnic_admin_cqe cqe;
        unsigned sts;

        /* Bounded work under the embedder's lock: the rest next pass. */
        if (aq->pass_pages >= RNE_ADMIN_PASS_PAGES) {
            d->pending |= RNE_PEND_ADMIN;
            break;
        }

        memset(&cqe, 0, sizeof(cqe));
        /* Copy in first: the guest may rewrite the slot at any time. */
        if (rne_ring_read(&aq->sq, &d->host, aq->sq_head, &cmd)) {
            sts = RNIC_STS_DMA_ERROR;
            cqe.tag = rne_cpu_to_le16(RNIC_ADMIN_TAG_NONE);
        } else {
            cqe.tag = cmd.hdr.tag;
            cqe.opcode = cmd.hdr.opcode;
            sts = rne_admin_execute(d, &cmd, &cqe);
        }
        aq->sq_head++;
        cqe.status = (uint8_t)sts;
        if (d->host.ops->cmd_done) {
            d->host.ops->cmd_done(d->host.opaque, cqe.opcode,
                                  rne_le16_to_cpu(cqe.tag), sts);
        }
        post_completion(d, &cqe);
    }
}

/*
 * The port block alone for a buffer of the old size, with the protocol
 * counters for one that holds them; stats_len says which (hw.h).
 */
static unsigned cmd_query_stats(struct rne_dev *d,
                                const struct rnic_cmd_query_stats *c)
{
    const struct rne_counters *s = &d->stats;
    uint32_t len = rne_le32_to_cpu(c->buf_len);
    struct rnic_dev_stats out;
    struct rne_mem_usage mu;

    if (len < sizeof(out.port) || c->rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    len = len < sizeof(out) ? sizeof(out.port) : sizeof(out);
    memset(&out, 0, sizeof(out));
    out.port.tx_frames = rne_cpu_to_le64(s->tx_frames);
    out.port.tx_bytes = rne_cpu_to_le64(s->tx_bytes);
    out.port.tx_errors = rne_cpu_to_le64(s->tx_errors);
    out.port.rx_frames = rne_cpu_to_le64(s->rx_frames);
    out.port.rx_bytes = rne_cpu_to_le64(s->rx_bytes);
    out.port.rx_no_buffer = rne_cpu_to_le64(s->rx_no_buffer);
    out.port.rx_too_long = rne_cpu_to_le64(s->rx_too_long);
    out.port.rx_filtered = rne_cpu_to_le64(s->rx_filtered);
    out.port.rx_offload = rne_cpu_to_le64(s->rx_offload);
    out.port.rx_errors = rne_cpu_to_le64(s->rx_errors);
    rne_dev_mem_usage(d, &mu);
    out.port.conn_mem_bytes = rne_cpu_to_le64(mu.conn_total);
    out.port.tcp_engine_mem_bytes = rne_cpu_to_le64(mu.tcp_engine);
    out.port.stats_len = rne_cpu_to_le32(len);
    if (len == sizeof(out)) {
        rne_iw_query_stats(d, &out.proto);
    }
    if (rne_dma_write(&d->host, rne_le64_to_cpu(c->buf_addr), &out, len)) {
        return RNIC_STS_DMA_ERROR;
    }
    return RNIC_STS_OK;
}

static unsigned cmd_set_port(struct rne_dev *d,
                             const struct rnic_cmd_set_port *c)
{
    uint32_t mtu = rne_le16_to_cpu(c->mtu), flags = rne_le32_to_cpu(c->flags);

    if (mtu < RNE_MIN_MTU || mtu > d->cfg.max_mtu ||
        (flags & ~(RNIC_PORT_PROMISC | RNIC_PORT_ALLMULTI)) ||
        (c->mac[0] & 1)) {
        return RNIC_STS_BAD_PARAM;
    }
    memcpy(d->port.mac, c->mac, sizeof(d->port.mac));
    d->port.mtu = mtu;
    d->port.flags = flags;
    return RNIC_STS_OK;
}

static unsigned cmd_alloc_uctx(struct rne_dev *d, uint32_t uctx)
{
    if (uctx == 0 || uctx > d->cfg.max_uctx) {
        return RNIC_STS_BAD_INDEX;
    }
    if (d->uctx_live[uctx]) {
        return RNIC_STS_EXISTS;
    }
    d->uctx_live[uctx] = 1;
    d->db_err_sent[uctx] = 0;
    return RNIC_STS_OK;
}

static unsigned cmd_free_uctx(struct rne_dev *d, uint32_t uctx)
{
    uint32_t i;

    if (uctx == 0 || uctx > d->cfg.max_uctx) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->uctx_live[uctx]) {
        return RNIC_STS_NOT_FOUND;
    }
    for (i = 0; i < d->cfg.max_pd; i++) {
        if (d->pd_owner[i] == uctx + 1) {
            return RNIC_STS_BUSY;
        }
    }
    if (rne_rdma_uctx_busy(d, uctx)) {
        return RNIC_STS_BUSY;
    }
    d->uctx_live[uctx] = 0;
    return RNIC_STS_OK;
}

static unsigned cmd_create_pd(struct rne_dev *d,
                              const struct rnic_cmd_create_pd *c)
{
    uint32_t pdn = rne_le32_to_cpu(c->pdn), uctx = rne_le32_to_cpu(c->uctx);

    if (pdn >= d->cfg.max_pd) {
        return RNIC_STS_BAD_INDEX;
    }
    if (uctx > d->cfg.max_uctx || (uctx && !d->uctx_live[uctx])) {
        return RNIC_STS_NOT_FOUND;
    }
    if (d->pd_owner[pdn]) {
        return RNIC_STS_EXISTS;
    }
    d->pd_owner[pdn] = (uint16_t)(uctx + 1);
    return RNIC_STS_OK;
}

static unsigned cmd_destroy_pd(struct rne_dev *d, uint32_t pdn)
{
    if (pdn >= d->cfg.max_pd) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->pd_owner[pdn]) {
        return RNIC_STS_NOT_FOUND;
    }
    if (rne_rdma_pd_busy(d, pdn)) {
        return RNIC_STS_BUSY;
    }
    d->pd_owner[pdn] = 0;
    return RNIC_STS_OK;
}

static bool all_zero(const void *p, size_t len)
{
    const uint8_t *b = p;

    while (len--) {
        if (*b++) {
            return false;
        }
    }
    return true;
}

unsigned rne_admin_execute(struct rne_dev *d,
                           const struct rnic_admin_cmd *cmd,
                           struct rnic_admin_cqe *cqe)
{
    const struct rnic_cmd_obj *obj = &cmd->u.obj;
    uint32_t id = rne_le32_to_cpu(obj->id);

    if (cmd->hdr.flags || cmd->hdr.rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    switch (cmd->hdr.opcode) {
    case RNIC_CMD_NOP:
        return all_zero(&cmd->u, sizeof(cmd->u)) ? RNIC_STS_OK :
                                                   RNIC_STS_BAD_PARAM;
    case RNIC_CMD_QUERY_STATS:
        return cmd_query_stats(d, &cmd->u.query_stats);
    case RNIC_CMD_SET_PORT:
        return cmd_set_port(d, &cmd->u.set_port);
    case RNIC_CMD_CREATE_EQ:
        return rne_eq_create(d, &cmd->u.create_eq);
    case RNIC_CMD_DESTROY_EQ:
        return rne_eq_destroy(d, id);
    case RNIC_CMD_CREATE_TXQ:
    case RNIC_CMD_CREATE_RXQ:
        return rne_l2q_create(d, cmd->hdr.opcode == RNIC_CMD_CREATE_RXQ,
                              &cmd->u.create_l2q);
    case RNIC_CMD_DESTROY_TXQ:
    case RNIC_CMD_DESTROY_RXQ:
        return rne_l2q_destroy(d, cmd->hdr.opcode == RNIC_CMD_DESTROY_RXQ,
                               id);
    case RNIC_CMD_ALLOC_UCTX:
        return cmd_alloc_uctx(d, rne_le32_to_cpu(cmd->u.alloc_uctx.uctx));
    case RNIC_CMD_FREE_UCTX:
        return cmd_free_uctx(d, id);
    case RNIC_CMD_CREATE_PD:
        return cmd_create_pd(d, &cmd->u.create_pd);
    case RNIC_CMD_DESTROY_PD:
        return cmd_destroy_pd(d, id);
    case RNIC_CMD_CREATE_CQ:
    case RNIC_CMD_DESTROY_CQ:
    case RNIC_CMD_CREATE_SRQ:
    case RNIC_CMD_MODIFY_SRQ:
    case RNIC_CMD_DESTROY_SRQ:
    case RNIC_CMD_CREATE_QP:
    case RNIC_CMD_MODIFY_QP:
    case RNIC_CMD_QUERY_QP:
    case RNIC_CMD_DESTROY_QP:
    case RNIC_CMD_REG_MR:
    case RNIC_CMD_ALLOC_MR:
    case RNIC_CMD_DEREG_MR:
    case RNIC_CMD_REREG_MR:
    case RNIC_CMD_ALLOC_MW:
    case RNIC_CMD_DEALLOC_MW:
    case RNIC_CMD_RESIZE_CQ:
        return rne_rdma_admin(d, cmd, cqe);
    case RNIC_CMD_CM_LISTEN:
    case RNIC_CMD_CM_DESTROY_LISTEN:
    case RNIC_CMD_CM_CONNECT:
    case RNIC_CMD_CM_ACCEPT:
    case RNIC_CMD_CM_REJECT:
    case RNIC_CMD_CM_DISCONNECT:
    case RNIC_CMD_CM_ABORT:
        return rne_iw_admin(d, cmd, cqe);
    default:
        return RNIC_STS_BAD_OPCODE;
    }
}
