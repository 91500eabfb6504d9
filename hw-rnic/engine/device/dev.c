/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device core: configuration, registers, doorbell latching, the one
 * dispatch (backlog, deferred work, egress queue), reset and the receive
 * entry point (see dev.h).
 */
#include <stdlib.h>
#include <string.h>
#include "core/dev.h"
#include "admin.h"
#include "core/eq.h"
#include "iwarp/iw.h"
#include "core/l2.h"
#include "wire/le.h"
#include "rdma/rdma.h"

void rne_dev_config_default(struct rne_dev_config *cfg)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

    memset(cfg, 0, sizeof(*cfg));
    memcpy(cfg->mac, mac, sizeof(mac));
    cfg->max_qp = RNE_DEF_MAX_QP;
    cfg->max_cq = RNE_DEF_MAX_CQ;
    cfg->max_mr = RNE_DEF_MAX_MR;
    cfg->max_pd = RNE_DEF_MAX_PD;
    cfg->max_srq = RNE_DEF_MAX_SRQ;
    cfg->max_eq = RNE_DEF_MAX_EQ;
    cfg->max_uctx = RNE_DEF_MAX_UCTX;
    cfg->max_l2q = RNE_DEF_MAX_L2Q;
    cfg->max_ird = RNE_DEF_MAX_IRD;
    cfg->max_ord = RNE_DEF_MAX_ORD;
    cfg->max_qp_wr = RNE_DEF_MAX_QP_WR;
    cfg->max_cqe = RNE_DEF_MAX_CQE;
    cfg->max_srq_wr = RNE_DEF_MAX_SRQ_WR;
    cfg->max_mtu = RNE_DEF_MAX_MTU;
    cfg->max_listen = RNE_DEF_MAX_LISTEN;
    cfg->max_conn = RNE_DEF_MAX_CONN;
    cfg->max_mr_pages = RNE_DEF_MAX_MR_PAGES;
    cfg->ack_batch = RNE_DEF_ACK_BATCH;
    cfg->keep_idle_s = RNE_DEF_KEEP_IDLE_S;
    cfg->keep_intvl_s = RNE_DEF_KEEP_INTVL_S;
    cfg->keep_probes = RNE_DEF_KEEP_PROBES;
    cfg->tcp_window_kib = RNE_DEF_TCP_WINDOW_KIB;
}

static bool in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v >= lo && v <= hi;
}

const char *rne_dev_config_check(const struct rne_dev_config *c)
{
    if (!in_range(c->max_eq, 1, RNE_ENG_MAX_EQ)) {
        return "max-eq must be 1..63 (one MSI-X vector each, plus admin)";
    }
    if (!in_range(c->max_uctx, 1, RNE_ENG_MAX_UCTX) ||
        !rne_is_pow2(c->max_uctx + 1)) {
        return "max-uctx + 1 must be a power of two (doorbell BAR pages), "
               "at most 1024";
    }
    if (!in_range(c->max_l2q, 1, RNE_ENG_MAX_L2Q)) {
        return "max-l2q must be 1..8";
    }
    if (!in_range(c->max_mtu, 1500, RNE_MAX_MTU_LIMIT)) {
        return "max-mtu must be 1500..65000 (a frame the netdevs carry)";
    }
    if (!in_range(c->max_pd, 1, RNE_ENG_MAX_PD)) {
        return "max-pd must be 1..1048576";
    }
    if (!in_range(c->max_qp, 1, RNE_ENG_MAX_OBJ) ||
        !in_range(c->max_cq, 1, RNE_ENG_MAX_OBJ) ||
        !in_range(c->max_mr, 1, RNE_ENG_MAX_OBJ) ||
        !in_range(c->max_srq, 0, RNE_ENG_MAX_OBJ)) {
        return "max-qp, max-cq and max-mr must be 1..16777216, "
               "max-srq at most 16777216 (24-bit object numbers)";
    }
    if (!in_range(c->max_ird, 1, 255) || !in_range(c->max_ord, 1, 255)) {
        return "max-ird and max-ord must be 1..255";
    }
    if (!rne_is_pow2(c->max_qp_wr) || !rne_is_pow2(c->max_cqe) ||
        (c->max_srq_wr && !rne_is_pow2(c->max_srq_wr)) ||
        c->max_qp_wr > 32768 || c->max_cqe > 65536 || c->max_srq_wr > 32768) {
        return "max-qp-wr/max-srq-wr (<= 32768) and max-cqe (<= 65536) "
               "must be powers of two";
    }
    if (c->max_cqe < c->max_qp_wr) {
        return "max-cqe must be at least max-qp-wr (a CQ must hold one "
               "full queue)";
    }
    if (!in_range(c->max_listen, 1, RNE_STEER_MAX_LISTEN) ||
        !in_range(c->max_conn, 1, RNE_STEER_MAX_CONN)) {
        return "max-listen must be 1..64 and max-conn 1..2048";
    }
    if (!in_range(c->max_mr_pages, 1, RNE_ENG_MAX_MR_PAGES)) {
        return "max-mr-pages must be 1..268435456 (8 bytes of host memory "
               "each)";
    }
    if (!in_range(c->tcp_window_kib, 4, RNE_MAX_TCP_WINDOW_KIB)) {
        return "tcp-window must be 4..16384 (KiB per connection while data "
               "is in flight)";
    }
    if (c->keep_idle_s > RNE_MAX_KEEP_S ||
        !in_range(c->keep_intvl_s, 1, RNE_MAX_KEEP_S) ||
        !in_range(c->keep_probes, 1, RNE_MAX_KEEP_PROBES)) {
        return "tcp-keepalive-idle must be 0 (off)..32767 seconds, "
               "tcp-keepalive-interval 1..32767 seconds and "
               "tcp-keepalive-probes 1..127";
    }
    if (c->mac[0] & 1) {
        return "mac must be a unicast address";
    }
    return NULL;
}

/* Everything the guest can create or latch, back to power-on state. */
/* The page arrays of the admin queue, EQ and L2 rings. */
static void free_rings(struct rne_dev *d)
{
    unsigned i;

    rne_ring_free(&d->admq.sq);
    rne_ring_free(&d->admq.cq);
    for (i = 0; i < RNE_ENG_MAX_EQ + 1; i++) {
        rne_ring_free(&d->eq[i].ring);
        rne_ring_free(&d->eq[i].pdata);
    }
    for (i = 0; i < RNE_ENG_MAX_L2Q; i++) {
        rne_ring_free(&d->txq[i].ring);
        rne_ring_free(&d->rxq[i].ring);
    }
}

static void dev_clear(struct rne_dev *d)
{
    d->ctrl = 0;
    d->status &= RNIC_STATUS_LINK_UP;
    d->error = RNIC_DEVERR_NONE;
    d->admq_sq_pbl = 0;
    d->admq_cq_pbl = 0;
    d->admq_cfg = 0;
    d->admq_db_tail = 0;
    d->admq_db_cq_head = 0;
    d->pending = 0;
    d->eq_db_pending = 0;
    d->txq_db_pending = 0;
    d->rxq_db_pending = 0;
    d->tx_paused = false;
    d->tx_full = false;
    rne_frameq_clear(&d->backlog);
    rne_frameq_clear(&d->egress);
    rne_frameq_clear(&d->loop);
    d->egress_gen++;
    free_rings(d);
    memset(&d->admq, 0, sizeof(d->admq));
    memset(d->eq, 0, sizeof(d->eq));
    memset(d->txq, 0, sizeof(d->txq));
    memset(d->rxq, 0, sizeof(d->rxq));
    d->async_eqn = 0;
    d->cm_eqn = 0;
    d->n_own_addr = 0;
    d->own_addr_next = 0;
    memcpy(d->port.mac, d->cfg.mac, sizeof(d->port.mac));
    d->port.mtu = 1500;
    d->port.flags = 0;
    memset(&d->stats, 0, sizeof(d->stats));
    memset(d->uctx_live, 0, d->cfg.max_uctx + 1);
    memset(d->db_err_sent, 0, d->cfg.max_uctx + 1);
    memset(d->pd_owner, 0, d->cfg.max_pd * sizeof(d->pd_owner[0]));
    /*
     * Connections go first: they reference QPs, CQs and MRs.  Their peers
     * are told, in the egress queue emptied above (flushed when the
     * dispatch ends).
     */
    rne_iw_reset_peers(d);
    rne_iw_reset(d);
    rne_rdma_reset(d);
    rne_steer_clear(d->steer);
}

void rne_dev_mem_usage(struct rne_dev *d, struct rne_mem_usage *u)
{
    int k;

    memset(u, 0, sizeof(*u));
    for (k = 0; k < RNE_MEM_KINDS; k++) {
        u->kind[k] = d->mem.bytes[k];
    }
    rne_iw_mem_usage(d, &u->tcp_conn, &u->tcp_engine);
    u->conn_total = rne_mem_total(&d->mem) + u->tcp_conn;
    u->mismatch = d->mem.mismatch;
}

int rne_dev_init(struct rne_dev *d, const struct rne_dev_config *cfg,
                 const struct rne_host_ops *ops, void *opaque)
{
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    d->host.ops = ops;
    d->host.opaque = opaque;
    d->uctx_live = calloc(cfg->max_uctx + 1, 1);
    d->db_err_sent = calloc(cfg->max_uctx + 1, 1);
    d->pd_owner = calloc(cfg->max_pd, sizeof(d->pd_owner[0]));
    d->steer = calloc(1, sizeof(*d->steer));
    /* SET_PORT keeps the MTU at most max-mtu (1500 at reset). */
    d->frame = malloc((cfg->max_mtu > 1500 ? cfg->max_mtu : 1500) +
                      RNE_L2_HDR_ROOM);
    if (!d->uctx_live || !d->db_err_sent || !d->pd_owner || !d->steer ||
        !d->frame ||
        rne_frameq_init(&d->backlog, RNE_BACKLOG_BYTES,
                        RNE_BACKLOG_FRAMES) ||
        rne_frameq_init(&d->egress, RNE_EGRESS_BYTES, RNE_EGRESS_FRAMES) ||
        rne_frameq_init(&d->loop, RNE_LOOP_BYTES, RNE_LOOP_FRAMES) ||
        rne_rdma_init(d) || rne_iw_init(d)) {
        rne_dev_fini(d);
        return -1;
    }
    d->port.link_up = true;
    d->status = RNIC_STATUS_LINK_UP;
    dev_clear(d);
    return 0;
}

void rne_dev_fini(struct rne_dev *d)
{
    rne_iw_fini(d);
    rne_rdma_fini(d);
    free_rings(d);
    free(d->uctx_live);
    free(d->db_err_sent);
    free(d->pd_owner);
    free(d->steer);
    free(d->frame);
    rne_frameq_fini(&d->backlog);
    rne_frameq_fini(&d->egress);
    rne_frameq_fini(&d->loop);
    d->uctx_live = NULL;
    d->db_err_sent = NULL;
    d->pd_owner = NULL;
    d->steer = NULL;
    d->frame = NULL;
}

static void dev_reset_now(struct rne_dev *d)
{
    dev_clear(d);
    d->link_reported = d->port.link_up;
}

bool rne_dev_reset(struct rne_dev *d)
{
    if (!rne_dev_dispatch_begin(d)) {
        d->deferred |= RNE_DEFER_RESET;
        return false;
    }
    dev_reset_now(d);
    /* the RSTs to the connected peers leave now */
    rne_dev_dispatch_end(d);
    return true;
}

bool rne_dev_busy(const struct rne_dev *d)
{
    return d->dispatching || d->flushing;
}

static uint32_t cap_reg(const struct rne_dev *d, uint32_t off)
{
    const struct rne_dev_config *c = &d->cfg;

    switch (off) {
    case RNIC_REG_MAX_QP:           return c->max_qp;
    case RNIC_REG_MAX_CQ:           return c->max_cq;
    case RNIC_REG_MAX_MR:           return c->max_mr;
    case RNIC_REG_MAX_PD:           return c->max_pd;
    case RNIC_REG_MAX_SRQ:          return c->max_srq;
    case RNIC_REG_MAX_EQ:           return c->max_eq;
    case RNIC_REG_MAX_UCTX:         return c->max_uctx;
    case RNIC_REG_MAX_SEND_SGE:     return RNIC_SQ_MAX_SGE;
    case RNIC_REG_MAX_RECV_SGE:     return RNIC_RQ_MAX_SGE;
    case RNIC_REG_MAX_INLINE:       return RNIC_SQ_MAX_INLINE;
    case RNIC_REG_MAX_IRD:          return c->max_ird;
    case RNIC_REG_MAX_ORD:          return c->max_ord;
    case RNIC_REG_MAX_QP_WR:        return c->max_qp_wr;
    case RNIC_REG_MAX_CQE:          return c->max_cqe;
    case RNIC_REG_MAX_SRQ_WR:       return c->max_srq_wr;
    case RNIC_REG_PAGE_SIZES:       return (1u << 12) | (1u << 21) | (1u << 30);
    case RNIC_REG_MIN_MTU:          return RNE_MIN_MTU;
    case RNIC_REG_MAX_MTU:          return c->max_mtu;
    case RNIC_REG_MAX_MR_SIZE_LO:   return 0;
    case RNIC_REG_MAX_MR_SIZE_HI:   return 1u << 8;     /* 1 TiB */
    case RNIC_REG_MAX_MR_PAGES:     return 1u << 18;
    case RNIC_REG_MAX_L2Q:          return c->max_l2q;
    case RNIC_REG_MAX_L2Q_DEPTH:    return 1u << RNE_ENG_MAX_L2Q_LOG;
    case RNIC_REG_MAX_ADMQ_DEPTH:   return 1u << RNE_ENG_MAX_ADMQ_LOG;
    case RNIC_REG_MAX_EQ_DEPTH:     return 1u << RNE_ENG_MAX_EQ_LOG;
    case RNIC_REG_MAX_LISTEN:       return c->max_listen;
    case RNIC_REG_MAX_CONN:         return c->max_conn;
    case RNIC_REG_NUM_MSIX:         return c->max_eq + 1;
    case RNIC_REG_DB_PAGES:         return c->max_uctx + 1;
    default:                        return 0;
    }
}

uint32_t rne_dev_reg_read(struct rne_dev *d, uint32_t off)
{
    switch (off) {
    case RNIC_REG_MAGIC:            return RNIC_MAGIC;
    case RNIC_REG_VERSION:          return RNIC_HW_VERSION;
    case RNIC_REG_DEV_CTRL:         return d->ctrl;
    case RNIC_REG_DEV_STATUS:       return d->status;
    case RNIC_REG_DEV_ERROR:        return d->error;
    case RNIC_REG_MAC_LO:
        return (uint32_t)d->cfg.mac[0] | (uint32_t)d->cfg.mac[1] << 8 |
               (uint32_t)d->cfg.mac[2] << 16 | (uint32_t)d->cfg.mac[3] << 24;
    case RNIC_REG_MAC_HI:
        return (uint32_t)d->cfg.mac[4] | (uint32_t)d->cfg.mac[5] << 8;
    case RNIC_REG_FEATURES:
        /* ATOMICS/IMM: per connection, with RNIC_MPA_RFC7306 (docs) */
        return RNIC_FEAT_L2 | RNIC_FEAT_RDMA | RNIC_FEAT_CM_OFFLOAD |
               RNIC_FEAT_SRQ | RNIC_FEAT_FRMR | RNIC_FEAT_ATOMICS |
               RNIC_FEAT_IMM | RNIC_FEAT_MPA_MARKERS | RNIC_FEAT_MPA_CRC |
               RNIC_FEAT_RESIZE_CQ | RNIC_FEAT_REREG_MR | RNIC_FEAT_MW;
    case RNIC_REG_ADMQ_SQ_PBL_LO:   return (uint32_t)d->admq_sq_pbl;
    case RNIC_REG_ADMQ_SQ_PBL_HI:   return (uint32_t)(d->admq_sq_pbl >> 32);
    case RNIC_REG_ADMQ_CQ_PBL_LO:   return (uint32_t)d->admq_cq_pbl;
    case RNIC_REG_ADMQ_CQ_PBL_HI:   return (uint32_t)(d->admq_cq_pbl >> 32);
    case RNIC_REG_ADMQ_CFG:         return d->admq_cfg;
    default:
        return cap_reg(d, off);
    }
}

static void set_lo(uint64_t *r, uint32_t v)
{
    *r = (*r & ~0xffffffffull) | v;
}

static void set_hi(uint64_t *r, uint32_t v)
{
    *r = (*r & 0xffffffffull) | (uint64_t)v << 32;
}

bool rne_dev_reg_write(struct rne_dev *d, uint32_t off, uint32_t val)
{
    bool enabled = d->ctrl & RNIC_CTRL_ENABLE;

    if (d->status & RNIC_STATUS_RESETTING) {
        return false;   /* the driver must wait for the reset to finish */
    }
    switch (off) {
    case RNIC_REG_DEV_CTRL:
        if ((val & RNIC_CTRL_RESET) || (enabled && !(val & RNIC_CTRL_ENABLE))) {
            d->status |= RNIC_STATUS_RESETTING;
            d->pending |= RNE_PEND_RESET;
            return true;
        }
        if (!enabled && (val & RNIC_CTRL_ENABLE)) {
            d->ctrl = RNIC_CTRL_ENABLE;
            d->pending |= RNE_PEND_ENABLE;
            return true;
        }
        return false;
    case RNIC_REG_ADMQ_SQ_TAIL:
        d->admq_db_tail = val;
        d->pending |= RNE_PEND_ADMIN;
        return true;
    case RNIC_REG_ADMQ_CQ_HEAD:
        d->admq_db_cq_head = val;
        d->pending |= RNE_PEND_ADMIN;
        return true;
    }
    if (enabled) {
        rne_guest_error(&d->host, "register write while enabled", off, val);
        return false;
    }
    switch (off) {
    case RNIC_REG_ADMQ_SQ_PBL_LO:
        set_lo(&d->admq_sq_pbl, val);
        break;
    case RNIC_REG_ADMQ_SQ_PBL_HI:
        set_hi(&d->admq_sq_pbl, val);
        break;
    case RNIC_REG_ADMQ_CQ_PBL_LO:
        set_lo(&d->admq_cq_pbl, val);
        break;
    case RNIC_REG_ADMQ_CQ_PBL_HI:
        set_hi(&d->admq_cq_pbl, val);
        break;
    case RNIC_REG_ADMQ_CFG:
        d->admq_cfg = val;
        break;
    default:
        rne_guest_error(&d->host, "write to a read-only register", off, val);
    }
    return false;
}

bool rne_dev_db_error_once(struct rne_dev *d, int64_t uctx)
{
    if (uctx <= 0 || uctx > d->cfg.max_uctx) {
        return true;
    }
    if (d->db_err_sent[uctx]) {
        return false;
    }
    d->db_err_sent[uctx] = 1;
    return true;
}

static bool db_reject(struct rne_dev *d, uint32_t page, uint32_t off,
                      uint32_t obj)
{
    if (!rne_dev_db_error_once(d, page)) {
        return false;
    }
    rne_guest_error(&d->host, "doorbell rejected", (uint64_t)page << 32 | off,
                    obj);
    d->db_err_obj = obj;
    d->db_err_off = off;
    d->pending |= RNE_PEND_DB_ERROR;
    return true;
}

bool rne_dev_doorbell(struct rne_dev *d, uint32_t page, uint32_t off,
                      uint64_t val)
{
    uint32_t obj = RNIC_DB_GET_OBJ(val), idx = RNIC_DB_GET_IDX(val);
    bool arm = RNIC_DB_GET_FLAGS(val) & RNIC_DB_ARM;

    if (!(d->status & RNIC_STATUS_READY)) {
        return false;
    }
    if (page > d->cfg.max_uctx) {
        return db_reject(d, page, off, obj);
    }
    switch (off) {
    case RNIC_DB_EQ:
        if (page || obj == 0 || obj > d->cfg.max_eq) {
            return db_reject(d, page, off, obj);
        }
        d->eq[obj].db_idx = idx;
        d->eq[obj].db_arm |= arm;   /* an arm is never lost by coalescing */
        d->eq_db_pending |= 1ull << obj;
        return true;
    case RNIC_DB_L2_TX:
    case RNIC_DB_L2_RX: {
        bool rx = off == RNIC_DB_L2_RX;
        struct rne_l2q *q;

        if (page || obj >= d->cfg.max_l2q) {
            return db_reject(d, page, off, obj);
        }
        q = rx ? &d->rxq[obj] : &d->txq[obj];
        q->db_idx = idx;
        q->db_arm |= arm;
        if (rx) {
            d->rxq_db_pending |= 1u << obj;
        } else {
            d->txq_db_pending |= 1u << obj;
        }
        return true;
    }
    case RNIC_DB_SQ:
    case RNIC_DB_RQ:
    case RNIC_DB_SRQ:
    case RNIC_DB_CQ:
        return rne_rdma_doorbell(d, page, off, val);
    default:
        return db_reject(d, page, off, obj);
    }
}

bool rne_dev_set_link(struct rne_dev *d, bool up)
{
    d->port.link_up = up;
    if (up) {
        d->status |= RNIC_STATUS_LINK_UP;
    } else {
        d->status &= ~RNIC_STATUS_LINK_UP;
    }
    d->pending |= RNE_PEND_LINK;
    return true;
}

/* Revisit L2 TX queues with frames posted; keep newer latched doorbells. */
static void relatch_l2_tx(struct rne_dev *d)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_l2q; i++) {
        if (d->txq[i].live && d->txq[i].cidx != d->txq[i].pidx &&
            !(d->txq_db_pending & (1u << i))) {
            d->txq[i].db_idx = d->txq[i].pidx;
            d->txq_db_pending |= 1u << i;
        }
    }
}

bool rne_dev_tx_resume(struct rne_dev *d)
{
    d->tx_paused = false;
    relatch_l2_tx(d);
    /* Nested (a dispatch or a flush is running): that one sends the rest. */
    if (rne_dev_dispatch_begin(d)) {
        rne_dev_dispatch_end(d);
    }
    return d->txq_db_pending != 0;
}

static void report_link(struct rne_dev *d)
{
    if (d->link_reported == d->port.link_up || !d->async_eqn) {
        return;
    }
    d->link_reported = d->port.link_up;
    rne_eq_post_async(d, d->port.link_up ? RNIC_ASYNC_PORT_UP :
                                            RNIC_ASYNC_PORT_DOWN, 0, 0);
}

static void run_doorbells(struct rne_dev *d)
{
    uint32_t i;

    for (i = 1; i <= d->cfg.max_eq; i++) {
        if (d->eq_db_pending & (1ull << i)) {
            d->eq_db_pending &= ~(1ull << i);
            rne_eq_doorbell(d, i);
        }
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        if (d->rxq_db_pending & (1u << i)) {
            d->rxq_db_pending &= ~(1u << i);
            rne_l2_rx_doorbell(d, i);
        }
        if ((d->txq_db_pending & (1u << i)) && !d->tx_paused) {
            d->txq_db_pending &= ~(1u << i);
            rne_l2_tx_doorbell(d, i);
        }
    }
}

static void process_now(struct rne_dev *d)
{
    uint32_t pend = d->pending;

    d->pending = 0;
    if (pend & RNE_PEND_RESET) {
        dev_reset_now(d);
        /* Frames the net layer held for the old rings: deliver (drop). */
        d->rx_resume_owed = true;
        return;
    }
    if ((pend & RNE_PEND_ENABLE) && !(d->status & RNIC_STATUS_READY)) {
        rne_admin_enable(d);
    }
    if (!(d->status & RNIC_STATUS_READY)) {
        return;
    }
    rne_admin_process(d);
    if ((pend | d->pending) & RNE_PEND_LINK) {
        d->pending &= ~RNE_PEND_LINK;
        report_link(d);
    }
    if (pend & RNE_PEND_DB_ERROR) {
        rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, d->db_err_obj,
                          d->db_err_off);
    }
    run_doorbells(d);
    rne_rdma_run(d);
}

static void timer_now(struct rne_dev *d)
{
    if (d->status & RNIC_STATUS_READY) {
        rne_iw_timer(d);
    }
}

/*
 * One frame from the wire, always consumed.  An L2 frame with no RX buffer
 * is dropped and counted, never held: holding it would hold every frame
 * behind it in the net layer, the offloaded connections' too.
 */
static void receive_now(struct rne_dev *d, const uint8_t *frame, size_t len)
{
    struct rne_rx_filter f;
    struct rne_flow_key k;
    enum rne_rx_class cls;
    uint32_t id;

    if (!(d->status & RNIC_STATUS_READY)) {
        d->stats.rx_no_buffer++;
        return;
    }
    memcpy(f.mac, d->port.mac, sizeof(f.mac));
    f.promisc = d->port.flags & RNIC_PORT_PROMISC;
    cls = rne_classify(d->steer, &f, frame, len, &id, &k);
    /* no engine for its address and VLAN: the guest's */
    if (cls == RNE_RX_TO_ENGINE && !rne_iw_receive(d, frame, len, &k)) {
        cls = RNE_RX_TO_L2;
    }
    switch (cls) {
    case RNE_RX_FILTERED:
        d->stats.rx_filtered++;
        break;
    case RNE_RX_TO_ENGINE:
        d->stats.rx_offload++;
        break;
    case RNE_RX_TO_L2:
    default:
        /* an ICMP "fragmentation needed" for an offloaded flow: path MTU */
        rne_iw_icmp(d, frame, len);
        if (!rne_l2_rx_frame(d, frame, len)) {
            d->stats.rx_no_buffer++;
        }
        break;
    }
}

/*
 * A frame of our own offload engine, sent to ourselves: only the engine
 * may take it (a listener, a connection, or the engine's RST for a port
 * nobody serves), never the guest's L2 RX -- its stack would drop a packet
 * from its own address arriving on the port as a martian.
 */
static void loop_receive_now(struct rne_dev *d, const uint8_t *frame,
                             size_t len)
{
    struct rne_rx_filter f = { .promisc = false };
    struct rne_flow_key k;
    uint32_t id;

    memcpy(f.mac, d->port.mac, sizeof(f.mac));
    if (rne_classify(d->steer, &f, frame, len, &id, &k) ==
        RNE_RX_TO_ENGINE || rne_classify_flow(frame, len, &k)) {
        d->loop_frames++;
        rne_iw_receive(d, frame, len, &k);
    } else {
        d->loop_dropped++;
    }
}

static void batch_end_now(struct rne_dev *d);

/*
 * Deliver the frames looped so far, as one receive burst.  Those the
 * delivery itself loops wait for the next pass: a bulk transfer to
 * ourselves advances one window per pass instead of running to its end
 * inside one call.
 */
static void loop_deliver(struct rne_dev *d)
{
    uint32_t n = d->loop.count;
    const uint8_t *f;
    size_t len;

    if (!n || !(d->status & RNIC_STATUS_READY)) {
        return;
    }
    while (n-- && (f = rne_frameq_peek(&d->loop, &len))) {
        loop_receive_now(d, f, len);
        rne_frameq_pop(&d->loop);
    }
    batch_end_now(d);
}

bool rne_dev_ack_owed(const struct rne_dev *d)
{
    uint32_t i;

    for (i = 0; d->iw && i < d->iw->neng; i++) {
        if (rne_tcp_ack_owed(d->iw->eng[i].tcp)) {
            return true;
        }
    }
    return false;
}

static void batch_end_now(struct rne_dev *d)
{
    uint64_t now = rne_iw_now(d);
    uint32_t i;

    for (i = 0; i < d->iw->neng; i++) {
        rne_tcp_rx_batch_end(d->iw->eng[i].tcp, now);
    }
}

/* The one dispatch. */

bool rne_dev_send_wire(struct rne_dev *d, const void *frame, size_t len)
{
    return rne_frameq_put(&d->egress, frame, len);
}

bool rne_dev_send(struct rne_dev *d, const void *frame, size_t len)
{
    if (rne_l2_to_self(d, frame, len)) {
        if (rne_frameq_put(&d->loop, frame, len)) {
            return true;
        }
        d->loop_dropped++;
        return false;
    }
    return rne_frameq_put(&d->egress, frame, len);
}

bool rne_dev_tx_room(const struct rne_dev *d, size_t len)
{
    return rne_frameq_room(&d->egress, len);
}

bool rne_dev_dispatch_begin(struct rne_dev *d)
{
    if (d->dispatching) {
        return false;
    }
    d->dispatching = true;
    return true;
}

/* Everything entries queued while the dispatch ran, in arrival order. */
static void drain(struct rne_dev *d)
{
    const uint8_t *f;
    size_t len;

    for (;;) {
        if (d->deferred & RNE_DEFER_RESET) {
            d->deferred = 0;
            dev_reset_now(d);
            d->rx_resume_owed = true;
            continue;
        }
        if (d->deferred & RNE_DEFER_CQ_ERROR) {
            d->deferred &= ~RNE_DEFER_CQ_ERROR;
            rne_rdma_cq_errors(d);
            continue;
        }
        f = rne_frameq_peek(&d->backlog, &len);
        if (f) {
            receive_now(d, f, len);
            rne_frameq_pop(&d->backlog);
            continue;
        }
        if (d->deferred & RNE_DEFER_TIMER) {
            d->deferred &= ~RNE_DEFER_TIMER;
            timer_now(d);
            continue;
        }
        if (d->deferred & RNE_DEFER_BATCH_END) {
            d->deferred &= ~RNE_DEFER_BATCH_END;
            batch_end_now(d);
            continue;
        }
        if (d->deferred & RNE_DEFER_PROCESS) {
            d->deferred &= ~RNE_DEFER_PROCESS;
            process_now(d);
            continue;
        }
        return;
    }
}

/*
 * Hand the egress queue to the host.  send_frame may deliver frames back
 * at once: they run a dispatch of their own (none is running), whose frames
 * join this queue and leave from this loop.  A reset from in there empties
 * the queue (egress_gen): the frame just sent is not popped twice.
 */
static void flush(struct rne_dev *d)
{
    const uint8_t *f;
    size_t len;

    d->flushing = true;
    while (!d->tx_paused && (f = rne_frameq_peek(&d->egress, &len))) {
        uint32_t gen = d->egress_gen;
        bool sent = d->host.ops->send_frame(d->host.opaque, f, len);

        if (gen != d->egress_gen) {
            continue;
        }
        rne_frameq_pop(&d->egress);
        d->stats.tx_frames++;
        d->stats.tx_bytes += len;
        if (!sent) {
            /* queued by the wire: the rest waits for rne_dev_tx_resume */
            d->tx_paused = true;
            d->tx_held += d->egress.count;
        }
    }
    d->flushing = false;
}

void rne_dev_dispatch_end(struct rne_dev *d)
{
    for (;;) {
        drain(d);
        rne_iw_dispatch_end(d);
        d->dispatching = false;
        if (d->rx_resume_owed && d->host.ops->rx_resume) {
            d->rx_resume_owed = false;
            d->host.ops->rx_resume(d->host.opaque);
        }
        if (d->flushing) {
            return;     /* inside send_frame: the flush loop goes on */
        }
        flush(d);
        if (!d->tx_full || d->tx_paused) {
            return;
        }
        /* L2 TX stopped for room the flush has made: go on with it. */
        d->tx_full = false;
        relatch_l2_tx(d);
        d->dispatching = true;
        process_now(d);
    }
}

void rne_dev_process(struct rne_dev *d)
{
    if (!rne_dev_dispatch_begin(d)) {
        d->deferred |= RNE_DEFER_PROCESS;
        return;
    }
    process_now(d);
    loop_deliver(d);
    rne_dev_dispatch_end(d);
}

bool rne_dev_work_pending(const struct rne_dev *d)
{
    return d->pending != 0 || d->loop.count != 0;
}

void rne_dev_timer(struct rne_dev *d)
{
    rne_iw_timer_fired(d);
    if (!rne_dev_dispatch_begin(d)) {
        d->deferred |= RNE_DEFER_TIMER;
        return;
    }
    timer_now(d);
    rne_dev_dispatch_end(d);
}

bool rne_dev_receive(struct rne_dev *d, const uint8_t *frame, size_t len)
{
    if (!rne_dev_dispatch_begin(d)) {
        if (rne_frameq_put(&d->backlog, frame, len)) {
            return true;
        }
        /* offered again after rx_resume, when this dispatch is over */
        d->rx_resume_owed = true;
        return false;
    }
    receive_now(d, frame, len);
    rne_dev_dispatch_end(d);
    return true;
}

void rne_dev_rx_batch_end(struct rne_dev *d)
{
    if (!rne_dev_ack_owed(d)) {
        return;
    }
    if (!rne_dev_dispatch_begin(d)) {
        d->deferred |= RNE_DEFER_BATCH_END;
        return;
    }
    batch_end_now(d);
    rne_dev_dispatch_end(d);
}
