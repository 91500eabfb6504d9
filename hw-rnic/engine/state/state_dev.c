/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device core's sections of the state stream: configuration,
 * registers and latched doorbells, the admin queue, EQs, L2 queues, PD
 * owners and the frames queued between passes (docs/migration.md).  Every
 * loaded value is checked as the admin command or register write that
 * would have produced it checks it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "state_int.h"
#include "core/l2.h"

void rne_st_save_ring(struct rne_sw *w, const struct rne_ring *ring)
{
    uint32_t i;

    rne_sw_u32(w, ring->pages ? ring->depth : 0);
    rne_sw_u32(w, ring->pages ? ring->npages : 0);
    for (i = 0; ring->pages && i < ring->npages; i++) {
        rne_sw_u64(w, ring->pages[i]);
    }
}

bool rne_st_load_ring(struct rne_st_ld *ld, struct rne_ring *ring,
                      uint32_t entry_size, uint32_t max_depth,
                      uint64_t max_pages, bool may_be_absent,
                      const char *what)
{
    struct rne_sr *r = ld->r;
    uint32_t depth, npages, i;
    uint64_t *pages;

    memset(ring, 0, sizeof(*ring));
    if (!rne_sr_u32(r, &depth) || !rne_sr_u32(r, &npages)) {
        return false;
    }
    if (!depth) {
        if (!may_be_absent || npages) {
            return rne_sr_fail(r, "%s: ring missing", what);
        }
        return true;
    }
    if (!rne_is_pow2(depth) || depth < 2 || depth > max_depth) {
        return rne_sr_fail(r, "%s: ring depth %u (a power of two, 2..%u)",
                           what, depth, max_depth);
    }
    if (npages != rne_ring_pages_needed(depth, entry_size)) {
        return rne_sr_fail(r, "%s: %u ring pages for depth %u (needs %u)",
                           what, npages, depth,
                           rne_ring_pages_needed(depth, entry_size));
    }
    if (npages > max_pages) {
        return rne_sr_fail(r, "%s: %u ring pages beyond the %llu allowed",
                           what, npages, (unsigned long long)max_pages);
    }
    if (rne_sr_left(r) / 8 < npages) {
        return rne_sr_fail(r, "%s: truncated page list", what);
    }
    pages = calloc(npages, sizeof(*pages));
    if (!pages) {
        return rne_sr_fail(r, "%s: no memory for %u ring pages", what,
                           npages);
    }
    for (i = 0; i < npages; i++) {
        uint64_t pa;
        const char *bad = NULL;

        rne_sr_u64(r, &pa);
        if (pa & (RNIC_PAGE_SIZE - 1)) {
            bad = "is not 4 KiB aligned";
        } else if (rne_dma_check_ram(&ld->d->host, pa, RNIC_PAGE_SIZE)) {
            bad = "is not guest RAM";
        }
        if (bad) {
            free(pages);
            return rne_sr_fail(r, "%s: ring page %u at 0x%llx %s", what, i,
                               (unsigned long long)pa, bad);
        }
        pages[i] = pa;
    }
    ring->depth = depth;
    ring->entry_size = entry_size;
    ring->npages = npages;
    ring->pages = pages;
    return true;
}

/* ---------------------------------------------------------------- */
/* Configuration: a stream loads only into an engine configured alike */

#define CFG_FIELD(f, name) { name, offsetof(struct rne_dev_config, f) }

/* The configuration's 32-bit limits, by property name. */
static const struct {
    const char *name;
    size_t off;
} cfg_fields[] = {
    CFG_FIELD(max_qp, "max-qp"),
    CFG_FIELD(max_cq, "max-cq"),
    CFG_FIELD(max_mr, "max-mr"),
    CFG_FIELD(max_pd, "max-pd"),
    CFG_FIELD(max_srq, "max-srq"),
    CFG_FIELD(max_eq, "max-eq"),
    CFG_FIELD(max_uctx, "max-uctx"),
    CFG_FIELD(max_l2q, "max-l2q"),
    CFG_FIELD(max_ird, "max-ird"),
    CFG_FIELD(max_ord, "max-ord"),
    CFG_FIELD(max_qp_wr, "max-qp-wr"),
    CFG_FIELD(max_cqe, "max-cqe"),
    CFG_FIELD(max_srq_wr, "max-srq-wr"),
    CFG_FIELD(max_mtu, "max-mtu"),
    CFG_FIELD(max_listen, "max-listen"),
    CFG_FIELD(max_conn, "max-conn"),
    CFG_FIELD(max_mr_pages, "max-mr-pages"),
    CFG_FIELD(keep_idle_s, "tcp-keepalive-idle"),
    CFG_FIELD(keep_intvl_s, "tcp-keepalive-interval"),
    CFG_FIELD(keep_probes, "tcp-keepalive-probes"),
};

static uint32_t cfg_get(const struct rne_dev_config *c, size_t i)
{
    return *(const uint32_t *)((const char *)c + cfg_fields[i].off);
}

void rne_st_save_config(struct rne_dev *d, struct rne_sw *w)
{
    const struct rne_dev_config *c = &d->cfg;
    size_t i;

    rne_sw_begin(w, RNE_SEC_CONFIG, RNE_SEC_VERSION);
    rne_sw_bytes(w, c->mac, sizeof(c->mac));
    for (i = 0; i < sizeof(cfg_fields) / sizeof(cfg_fields[0]); i++) {
        rne_sw_u32(w, cfg_get(c, i));
    }
    rne_sw_u8(w, c->ack_batch);
    rne_sw_end(w);
}

bool rne_st_load_config(struct rne_st_ld *ld)
{
    const struct rne_dev_config *c = &ld->d->cfg;
    struct rne_sr *r = ld->r;
    uint8_t mac[6];
    uint32_t v;
    size_t i;
    bool ack;

    if (!rne_sr_bytes(r, mac, sizeof(mac))) {
        return false;
    }
    if (memcmp(mac, c->mac, sizeof(mac))) {
        return rne_sr_fail(r, "configuration differs: mac");
    }
    for (i = 0; i < sizeof(cfg_fields) / sizeof(cfg_fields[0]); i++) {
        if (!rne_sr_u32(r, &v)) {
            return false;
        }
        if (v != cfg_get(c, i)) {
            return rne_sr_fail(r, "configuration differs: %s is %u in the "
                               "stream, %u here", cfg_fields[i].name, v,
                               cfg_get(c, i));
        }
    }
    if (!rne_sr_bool(r, &ack)) {
        return false;
    }
    if (ack != c->ack_batch) {
        return rne_sr_fail(r, "configuration differs: ack batching");
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Registers, latches, port, counters, contexts                      */

void rne_st_save_dev(struct rne_dev *d, struct rne_sw *w)
{
    const struct rne_counters *s = &d->stats;
    uint32_t i;

    rne_sw_begin(w, RNE_SEC_DEV, RNE_SEC_VERSION);
    rne_sw_u32(w, d->ctrl);
    rne_sw_u32(w, d->status);
    rne_sw_u32(w, d->error);
    rne_sw_u64(w, d->admq_sq_pbl);
    rne_sw_u64(w, d->admq_cq_pbl);
    rne_sw_u32(w, d->admq_cfg);
    rne_sw_u32(w, d->admq_db_tail);
    rne_sw_u32(w, d->admq_db_cq_head);
    rne_sw_u32(w, d->pending);
    rne_sw_u64(w, d->eq_db_pending);
    rne_sw_u32(w, d->txq_db_pending);
    rne_sw_u32(w, d->rxq_db_pending);
    rne_sw_u32(w, d->db_err_obj);
    rne_sw_u32(w, d->db_err_off);
    for (i = 1; i <= d->cfg.max_eq; i++) {
        rne_sw_u32(w, d->eq[i].db_idx);
        rne_sw_u8(w, d->eq[i].db_arm);
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        rne_sw_u32(w, d->txq[i].db_idx);
        rne_sw_u8(w, d->txq[i].db_arm);
        rne_sw_u32(w, d->rxq[i].db_idx);
        rne_sw_u8(w, d->rxq[i].db_arm);
    }
    rne_sw_u32(w, d->n_own_addr);
    rne_sw_u32(w, d->own_addr_next);
    rne_sw_bytes(w, d->own_addr, sizeof(d->own_addr));
    rne_sw_u8(w, d->link_reported);
    rne_sw_u8(w, d->tx_paused);
    rne_sw_u8(w, d->tx_full);
    rne_sw_u8(w, d->rx_resume_owed);
    rne_sw_bytes(w, d->port.mac, sizeof(d->port.mac));
    rne_sw_u32(w, d->port.mtu);
    rne_sw_u32(w, d->port.flags);
    rne_sw_u8(w, d->port.link_up);
    rne_sw_u64(w, s->tx_frames);
    rne_sw_u64(w, s->tx_bytes);
    rne_sw_u64(w, s->tx_errors);
    rne_sw_u64(w, s->rx_frames);
    rne_sw_u64(w, s->rx_bytes);
    rne_sw_u64(w, s->rx_no_buffer);
    rne_sw_u64(w, s->rx_too_long);
    rne_sw_u64(w, s->rx_filtered);
    rne_sw_u64(w, s->rx_offload);
    rne_sw_u64(w, s->rx_errors);
    rne_sw_u64(w, d->loop_frames);
    rne_sw_u64(w, d->loop_dropped);
    rne_sw_u64(w, d->tx_held);
    rne_sw_u64(w, d->tx_dropped);
    for (i = 0; i <= d->cfg.max_uctx; i++) {
        rne_sw_u8(w, d->uctx_live[i]);
        rne_sw_u8(w, d->db_err_sent[i]);
    }
    rne_sw_end(w);
}

#define DEV_STATUS_KNOWN    (RNIC_STATUS_READY | RNIC_STATUS_FATAL | \
                             RNIC_STATUS_RESETTING | RNIC_STATUS_LINK_UP)
#define DEV_PEND_KNOWN      (RNE_PEND_RESET | RNE_PEND_ENABLE | \
                             RNE_PEND_ADMIN | RNE_PEND_LINK | \
                             RNE_PEND_DB_ERROR)

/* The registers; what only another section can confirm waits for check. */
static bool load_regs(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    uint64_t eq_mask = ((2ull << d->cfg.max_eq) - 1) & ~1ull;
    uint32_t l2_mask = (1u << d->cfg.max_l2q) - 1;

    rne_sr_u32(r, &d->ctrl);
    rne_sr_u32(r, &d->status);
    rne_sr_u32(r, &d->error);
    rne_sr_u64(r, &d->admq_sq_pbl);
    rne_sr_u64(r, &d->admq_cq_pbl);
    rne_sr_u32(r, &d->admq_cfg);
    rne_sr_u32(r, &d->admq_db_tail);
    rne_sr_u32(r, &d->admq_db_cq_head);
    rne_sr_u32(r, &d->pending);
    rne_sr_u64(r, &d->eq_db_pending);
    rne_sr_u32(r, &d->txq_db_pending);
    rne_sr_u32(r, &d->rxq_db_pending);
    rne_sr_u32(r, &d->db_err_obj);
    if (!rne_sr_u32(r, &d->db_err_off)) {
        return false;
    }
    if (d->ctrl & ~RNIC_CTRL_ENABLE) {
        return rne_sr_fail(r, "DEV_CTRL 0x%x (only ENABLE may stay set)",
                           d->ctrl);
    }
    if (d->status & ~DEV_STATUS_KNOWN) {
        return rne_sr_fail(r, "DEV_STATUS 0x%x has unknown bits",
                           d->status);
    }
    /* dev.c sets both at once, and the reset clears both. */
    if (!!(d->status & RNIC_STATUS_RESETTING) !=
        !!(d->pending & RNE_PEND_RESET)) {
        return rne_sr_fail(r, "DEV_STATUS RESETTING without the reset "
                           "latched, or the reverse");
    }
    if ((d->status & RNIC_STATUS_READY) && !(d->ctrl & RNIC_CTRL_ENABLE)) {
        return rne_sr_fail(r, "DEV_STATUS READY on a disabled device");
    }
    if (d->error > RNIC_DEVERR_ADMQ_DMA) {
        return rne_sr_fail(r, "DEV_ERROR %u unknown", d->error);
    }
    if (d->pending & ~DEV_PEND_KNOWN) {
        return rne_sr_fail(r, "latched work 0x%x has unknown bits",
                           d->pending);
    }
    if ((d->eq_db_pending & ~eq_mask) || (d->txq_db_pending & ~l2_mask) ||
        (d->rxq_db_pending & ~l2_mask)) {
        return rne_sr_fail(r, "a doorbell latched for an EQ or L2 queue "
                           "beyond max-eq/max-l2q");
    }
    return true;
}

static bool load_latches(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    uint32_t i;

    for (i = 1; i <= d->cfg.max_eq; i++) {
        rne_sr_u32(r, &d->eq[i].db_idx);
        rne_sr_bool(r, &d->eq[i].db_arm);
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        rne_sr_u32(r, &d->txq[i].db_idx);
        rne_sr_bool(r, &d->txq[i].db_arm);
        rne_sr_u32(r, &d->rxq[i].db_idx);
        rne_sr_bool(r, &d->rxq[i].db_arm);
    }
    return !r->failed;
}

static bool load_port(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_counters *s = &d->stats;

    rne_sr_u32(r, &d->n_own_addr);
    rne_sr_u32(r, &d->own_addr_next);
    rne_sr_bytes(r, d->own_addr, sizeof(d->own_addr));
    rne_sr_bool(r, &d->link_reported);
    rne_sr_bool(r, &d->tx_paused);
    rne_sr_bool(r, &d->tx_full);
    rne_sr_bool(r, &d->rx_resume_owed);
    rne_sr_bytes(r, d->port.mac, sizeof(d->port.mac));
    rne_sr_u32(r, &d->port.mtu);
    rne_sr_u32(r, &d->port.flags);
    rne_sr_bool(r, &d->port.link_up);
    rne_sr_u64(r, &s->tx_frames);
    rne_sr_u64(r, &s->tx_bytes);
    rne_sr_u64(r, &s->tx_errors);
    rne_sr_u64(r, &s->rx_frames);
    rne_sr_u64(r, &s->rx_bytes);
    rne_sr_u64(r, &s->rx_no_buffer);
    rne_sr_u64(r, &s->rx_too_long);
    rne_sr_u64(r, &s->rx_filtered);
    rne_sr_u64(r, &s->rx_offload);
    rne_sr_u64(r, &s->rx_errors);
    rne_sr_u64(r, &d->loop_frames);
    rne_sr_u64(r, &d->loop_dropped);
    rne_sr_u64(r, &d->tx_held);
    if (!rne_sr_u64(r, &d->tx_dropped)) {
        return false;
    }
    if (d->n_own_addr > RNE_DEV_MAX_OWN_ADDR ||
        d->own_addr_next >= RNE_DEV_MAX_OWN_ADDR) {
        return rne_sr_fail(r, "own addresses: %u, next %u (at most %u)",
                           d->n_own_addr, d->own_addr_next,
                           RNE_DEV_MAX_OWN_ADDR);
    }
    /* As SET_PORT (admin.c) allows. */
    if (d->port.mtu < RNE_MIN_MTU || d->port.mtu > d->cfg.max_mtu) {
        return rne_sr_fail(r, "port MTU %u outside %u..%u", d->port.mtu,
                           RNE_MIN_MTU, d->cfg.max_mtu);
    }
    if (d->port.flags & ~(RNIC_PORT_PROMISC | RNIC_PORT_ALLMULTI)) {
        return rne_sr_fail(r, "port flags 0x%x unknown", d->port.flags);
    }
    if (d->port.mac[0] & 1) {
        return rne_sr_fail(r, "port MAC is not unicast");
    }
    if (!!(d->status & RNIC_STATUS_LINK_UP) != d->port.link_up) {
        return rne_sr_fail(r, "DEV_STATUS LINK_UP disagrees with the port");
    }
    return true;
}

static bool load_uctx(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    uint32_t i;
    bool live, sent;

    for (i = 0; i <= d->cfg.max_uctx; i++) {
        rne_sr_bool(r, &live);
        if (!rne_sr_bool(r, &sent)) {
            return false;
        }
        /* Context 0, the kernel's, is never allocated nor muted. */
        if (!i && (live || sent)) {
            return rne_sr_fail(r, "context 0 marked allocated or muted");
        }
        d->uctx_live[i] = live;
        d->db_err_sent[i] = sent;
    }
    return true;
}

bool rne_st_load_dev(struct rne_st_ld *ld)
{
    return load_regs(ld) && load_latches(ld) && load_port(ld) &&
           load_uctx(ld);
}

/* ---------------------------------------------------------------- */
/* Admin queue                                                       */

void rne_st_save_admq(struct rne_dev *d, struct rne_sw *w)
{
    const struct rne_admq *aq = &d->admq;

    rne_sw_begin(w, RNE_SEC_ADMQ, RNE_SEC_VERSION);
    rne_sw_u8(w, aq->live);
    rne_sw_u32(w, aq->sq_head);
    rne_sw_u32(w, aq->sq_tail);
    rne_sw_u32(w, aq->cq_tail);
    rne_sw_u32(w, aq->cq_head);
    rne_st_save_ring(w, &aq->sq);
    rne_st_save_ring(w, &aq->cq);
    rne_sw_end(w);
}

bool rne_st_load_admq(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_admq *aq = &d->admq;
    struct rne_sr *r = ld->r;
    uint32_t sq_log = RNIC_ADMQ_CFG_GET_SQ_LOG(d->admq_cfg);
    uint32_t cq_log = RNIC_ADMQ_CFG_GET_CQ_LOG(d->admq_cfg);
    uint32_t max = 1u << RNE_ENG_MAX_ADMQ_LOG;

    rne_sr_bool(r, &aq->live);
    rne_sr_u32(r, &aq->sq_head);
    rne_sr_u32(r, &aq->sq_tail);
    rne_sr_u32(r, &aq->cq_tail);
    if (!rne_sr_u32(r, &aq->cq_head) ||
        !rne_st_load_ring(ld, &aq->sq, RNIC_ADMIN_CMD_SIZE, max,
                          RNE_RING_MAX_PAGES, !aq->live, "admin SQ") ||
        !rne_st_load_ring(ld, &aq->cq, RNIC_ADMIN_CQE_SIZE, max,
                          RNE_RING_MAX_PAGES, !aq->live, "admin CQ")) {
        return false;
    }
    if (!aq->live) {
        if (aq->sq.pages || aq->cq.pages || aq->sq_head || aq->sq_tail ||
            aq->cq_tail || aq->cq_head) {
            return rne_sr_fail(r, "admin queue not live but has rings or "
                               "indices");
        }
        return true;
    }
    /* The rings admin.c loaded at enable, from ADMQ_CFG. */
    if (sq_log > RNE_ENG_MAX_ADMQ_LOG || cq_log > RNE_ENG_MAX_ADMQ_LOG ||
        aq->sq.depth != 1u << sq_log || aq->cq.depth != 1u << cq_log) {
        return rne_sr_fail(r, "admin queue depths differ from ADMQ_CFG");
    }
    if (rne_ring_used(aq->sq_tail, aq->sq_head) > aq->sq.depth ||
        rne_ring_used(aq->cq_tail, aq->cq_head) > aq->cq.depth) {
        return rne_sr_fail(r, "admin queue indices beyond its depth "
                           "(SQ %u..%u, CQ %u..%u)", aq->sq_head,
                           aq->sq_tail, aq->cq_head, aq->cq_tail);
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Event queues                                                      */

void rne_st_save_eqs(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 1; i <= d->cfg.max_eq; i++) {
        const struct rne_eq *eq = &d->eq[i];

        if (!eq->live) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_EQ, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u8(w, eq->flags);
        rne_sw_u8(w, eq->armed);
        rne_sw_u32(w, eq->pidx);
        rne_sw_u32(w, eq->cidx);
        rne_st_save_ring(w, &eq->ring);
        rne_st_save_ring(w, &eq->pdata);
        rne_sw_end(w);
    }
}

bool rne_st_load_eq(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_eq eq;
    uint32_t eqn;
    bool cm;

    memset(&eq, 0, sizeof(eq));
    if (!rne_sr_u32(r, &eqn)) {
        return false;
    }
    if (eqn == 0 || eqn > d->cfg.max_eq || (int64_t)eqn <= ld->last_obj) {
        return rne_sr_fail(r, "EQ %u: number out of range or out of order",
                           eqn);
    }
    ld->last_obj = eqn;
    rne_sr_u8(r, &eq.flags);
    rne_sr_bool(r, &eq.armed);
    rne_sr_u32(r, &eq.pidx);
    if (!rne_sr_u32(r, &eq.cidx)) {
        return false;
    }
    if (eq.flags & ~(RNIC_EQ_F_ASYNC | RNIC_EQ_F_CM)) {
        return rne_sr_fail(r, "EQ %u: flags 0x%x unknown", eqn, eq.flags);
    }
    if (((eq.flags & RNIC_EQ_F_ASYNC) && d->async_eqn) ||
        ((eq.flags & RNIC_EQ_F_CM) && d->cm_eqn)) {
        return rne_sr_fail(r, "EQ %u: a second async or CM EQ", eqn);
    }
    cm = eq.flags & RNIC_EQ_F_CM;
    if (!rne_st_load_ring(ld, &eq.ring, RNIC_EQE_SIZE,
                          cm ? RNIC_CM_EQ_MAX_DEPTH :
                                1u << RNE_ENG_MAX_EQ_LOG,
                          RNE_RING_MAX_PAGES, false, "EQ")) {
        return false;
    }
    if (!rne_st_load_ring(ld, &eq.pdata, RNIC_CM_PDATA_SLOT,
                          RNIC_CM_EQ_MAX_DEPTH, RNE_RING_MAX_PAGES, !cm,
                          "CM EQ private data") ||
        (cm && eq.pdata.depth != eq.ring.depth) || (!cm && eq.pdata.pages)) {
        rne_ring_free(&eq.ring);
        rne_ring_free(&eq.pdata);
        return r->failed ? false :
               rne_sr_fail(r, "EQ %u: private data slots do not match its "
                           "entries", eqn);
    }
    if (rne_ring_used(eq.pidx, eq.cidx) > eq.ring.depth) {
        rne_sr_fail(r, "EQ %u: %u entries pending in a ring of %u", eqn,
                    rne_ring_used(eq.pidx, eq.cidx), eq.ring.depth);
        rne_ring_free(&eq.ring);
        rne_ring_free(&eq.pdata);
        return false;
    }
    eq.live = true;
    eq.db_idx = d->eq[eqn].db_idx;
    eq.db_arm = d->eq[eqn].db_arm;
    d->eq[eqn] = eq;
    if (eq.flags & RNIC_EQ_F_ASYNC) {
        d->async_eqn = eqn;
    }
    if (cm) {
        d->cm_eqn = eqn;
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* L2 queues                                                         */

static void save_l2q(struct rne_sw *w, bool rx, uint32_t qid,
                     const struct rne_l2q *q)
{
    rne_sw_begin(w, RNE_SEC_L2Q, RNE_SEC_VERSION);
    rne_sw_u8(w, rx);
    rne_sw_u32(w, qid);
    rne_sw_u32(w, q->eqn);
    rne_sw_u8(w, q->armed);
    rne_sw_u32(w, q->pidx);
    rne_sw_u32(w, q->cidx);
    rne_sw_u32(w, q->ev_idx);
    rne_st_save_ring(w, &q->ring);
    rne_sw_end(w);
}

void rne_st_save_l2qs(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_l2q; i++) {
        if (d->txq[i].live) {
            save_l2q(w, false, i, &d->txq[i]);
        }
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        if (d->rxq[i].live) {
            save_l2q(w, true, i, &d->rxq[i]);
        }
    }
}

bool rne_st_load_l2q(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_l2q q, *slot;
    uint32_t qid;
    bool rx;

    memset(&q, 0, sizeof(q));
    rne_sr_bool(r, &rx);
    if (!rne_sr_u32(r, &qid)) {
        return false;
    }
    if (qid >= d->cfg.max_l2q ||
        (int64_t)(rx * RNE_ENG_MAX_L2Q + qid) <= ld->last_obj) {
        return rne_sr_fail(r, "L2 queue %u: out of range or out of order",
                           qid);
    }
    ld->last_obj = rx * RNE_ENG_MAX_L2Q + qid;
    rne_sr_u32(r, &q.eqn);
    rne_sr_bool(r, &q.armed);
    rne_sr_u32(r, &q.pidx);
    rne_sr_u32(r, &q.cidx);
    if (!rne_sr_u32(r, &q.ev_idx)) {
        return false;
    }
    if (q.eqn == 0 || q.eqn > d->cfg.max_eq || !d->eq[q.eqn].live) {
        return rne_sr_fail(r, "L2 queue %u: EQ %u is not live", qid, q.eqn);
    }
    if (!rne_st_load_ring(ld, &q.ring, RNIC_L2_DESC_SIZE,
                          1u << RNE_ENG_MAX_L2Q_LOG, RNE_RING_MAX_PAGES,
                          false, "L2 queue")) {
        return false;
    }
    if (rne_ring_used(q.pidx, q.cidx) > q.ring.depth) {
        rne_sr_fail(r, "L2 queue %u: %u descriptors posted in a ring of %u",
                    qid, rne_ring_used(q.pidx, q.cidx), q.ring.depth);
        rne_ring_free(&q.ring);
        return false;
    }
    slot = rx ? &d->rxq[qid] : &d->txq[qid];
    q.live = true;
    q.db_idx = slot->db_idx;
    q.db_arm = slot->db_arm;
    *slot = q;
    d->eq[q.eqn].users++;
    return true;
}

/* ---------------------------------------------------------------- */
/* PD owners                                                         */

void rne_st_save_pds(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i, n = 0;

    for (i = 0; i < d->cfg.max_pd; i++) {
        n += !!d->pd_owner[i];
    }
    rne_sw_begin(w, RNE_SEC_PD, RNE_SEC_VERSION);
    rne_sw_u32(w, n);
    for (i = 0; i < d->cfg.max_pd; i++) {
        if (d->pd_owner[i]) {
            rne_sw_u32(w, i);
            rne_sw_u16(w, d->pd_owner[i]);
        }
    }
    rne_sw_end(w);
}

bool rne_st_load_pds(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    int64_t last = -1;
    uint32_t n, pdn;
    uint16_t owner;

    if (!rne_sr_u32(r, &n)) {
        return false;
    }
    if (n > d->cfg.max_pd) {
        return rne_sr_fail(r, "%u PDs (max-pd %u)", n, d->cfg.max_pd);
    }
    while (n--) {
        rne_sr_u32(r, &pdn);
        if (!rne_sr_u16(r, &owner)) {
            return false;
        }
        if (pdn >= d->cfg.max_pd || (int64_t)pdn <= last) {
            return rne_sr_fail(r, "PD %u: out of range or out of order",
                               pdn);
        }
        last = pdn;
        /* Context + 1: the kernel's (1) or an allocated one. */
        if (owner == 0 || owner - 1u > d->cfg.max_uctx ||
            (owner > 1 && !d->uctx_live[owner - 1])) {
            return rne_sr_fail(r, "PD %u: owner context %d not allocated",
                               pdn, owner - 1);
        }
        d->pd_owner[pdn] = owner;
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Frames queued between passes                                      */

static void save_frameq(struct rne_sw *w, const struct rne_frameq *q)
{
    uint32_t pos = UINT32_MAX, n = 0;
    const uint8_t *f;
    size_t len;

    rne_sw_u32(w, q->count);
    while ((f = rne_frameq_walk(q, &pos, &n, &len))) {
        rne_sw_u32(w, (uint32_t)len);
        rne_sw_bytes(w, f, len);
    }
}

void rne_st_save_frames(struct rne_dev *d, struct rne_sw *w)
{
    rne_sw_begin(w, RNE_SEC_FRAMES, RNE_SEC_VERSION);
    save_frameq(w, &d->backlog);
    save_frameq(w, &d->egress);
    save_frameq(w, &d->loop);
    rne_sw_end(w);
}

static bool load_frameq(struct rne_st_ld *ld, struct rne_frameq *q,
                        const char *what)
{
    struct rne_sr *r = ld->r;
    uint32_t max = (ld->d->cfg.max_mtu > 1500 ? ld->d->cfg.max_mtu : 1500) +
                   RNE_L2_HDR_ROOM;
    uint32_t n, len;

    if (!rne_sr_u32(r, &n)) {
        return false;
    }
    if (n > q->max) {
        return rne_sr_fail(r, "%s: %u frames (at most %u)", what, n,
                           q->max);
    }
    while (n--) {
        if (!rne_sr_u32(r, &len)) {
            return false;
        }
        if (len < 14 || len > max) {
            return rne_sr_fail(r, "%s: a frame of %u bytes (14..%u)", what,
                               len, max);
        }
        if (rne_sr_left(r) < len) {
            return rne_sr_fail(r, "%s: truncated frame", what);
        }
        if (!rne_frameq_put(q, r->p + r->pos, len)) {
            return rne_sr_fail(r, "%s: frames beyond the queue's room",
                               what);
        }
        r->pos += len;
    }
    return true;
}

bool rne_st_load_frames(struct rne_st_ld *ld)
{
    return load_frameq(ld, &ld->d->backlog, "backlog") &&
           load_frameq(ld, &ld->d->egress, "egress queue") &&
           load_frameq(ld, &ld->d->loop, "loopback queue");
}

bool rne_st_check_dev(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;

    /* admin.c: READY exactly while the admin queue is live. */
    if (!!(d->status & RNIC_STATUS_READY) != d->admq.live) {
        return rne_sr_fail(r, "DEV_STATUS READY disagrees with the admin "
                           "queue");
    }
    if (d->admq.live && (d->status & RNIC_STATUS_FATAL)) {
        return rne_sr_fail(r, "a live admin queue on a failed device");
    }
    return true;
}
