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

void rnic_st_save_ring(struct rnic_sw *w, const struct rnic_ring *ring)
{
    uint32_t i;

    rnic_sw_u32(w, ring->pages ? ring->depth : 0);
    rnic_sw_u32(w, ring->pages ? ring->npages : 0);
    for (i = 0; ring->pages && i < ring->npages; i++) {
        rnic_sw_u64(w, ring->pages[i]);
    }
}

bool rnic_st_load_ring(struct rnic_st_ld *ld, struct rnic_ring *ring,
                       uint32_t entry_size, uint32_t max_depth,
                       uint64_t max_pages, bool may_be_absent,
                       const char *what)
{
    struct rnic_sr *r = ld->r;
    uint32_t depth, npages, i;
    uint64_t *pages;

    memset(ring, 0, sizeof(*ring));
    if (!rnic_sr_u32(r, &depth) || !rnic_sr_u32(r, &npages)) {
        return false;
    }
    if (!depth) {
        if (!may_be_absent || npages) {
            return rnic_sr_fail(r, "%s: ring missing", what);
        }
        return true;
    }
    if (!rnic_is_pow2(depth) || depth < 2 || depth > max_depth) {
        return rnic_sr_fail(r, "%s: ring depth %u (a power of two, 2..%u)",
                            what, depth, max_depth);
    }
    if (npages != rnic_ring_pages_needed(depth, entry_size)) {
        return rnic_sr_fail(r, "%s: %u ring pages for depth %u (needs %u)",
                            what, npages, depth,
                            rnic_ring_pages_needed(depth, entry_size));
    }
    if (npages > max_pages) {
        return rnic_sr_fail(r, "%s: %u ring pages beyond the %llu allowed",
                            what, npages, (unsigned long long)max_pages);
    }
    if (rnic_sr_left(r) / 8 < npages) {
        return rnic_sr_fail(r, "%s: truncated page list", what);
    }
    pages = calloc(npages, sizeof(*pages));
    if (!pages) {
        return rnic_sr_fail(r, "%s: no memory for %u ring pages", what,
                            npages);
    }
    for (i = 0; i < npages; i++) {
        uint64_t pa;
        const char *bad = NULL;

        rnic_sr_u64(r, &pa);
        if (pa & (RNIC_PAGE_SIZE - 1)) {
            bad = "is not 4 KiB aligned";
        } else if (rnic_dma_check_ram(&ld->d->host, pa, RNIC_PAGE_SIZE)) {
            bad = "is not guest RAM";
        }
        if (bad) {
            free(pages);
            return rnic_sr_fail(r, "%s: ring page %u at 0x%llx %s", what, i,
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

#define CFG_FIELD(f, name) { name, offsetof(struct rnic_dev_config, f) }

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

static uint32_t cfg_get(const struct rnic_dev_config *c, size_t i)
{
    return *(const uint32_t *)((const char *)c + cfg_fields[i].off);
}

void rnic_st_save_config(struct rnic_dev *d, struct rnic_sw *w)
{
    const struct rnic_dev_config *c = &d->cfg;
    size_t i;

    rnic_sw_begin(w, RNIC_SEC_CONFIG, RNIC_SEC_VERSION);
    rnic_sw_bytes(w, c->mac, sizeof(c->mac));
    for (i = 0; i < sizeof(cfg_fields) / sizeof(cfg_fields[0]); i++) {
        rnic_sw_u32(w, cfg_get(c, i));
    }
    rnic_sw_u8(w, c->ack_batch);
    rnic_sw_end(w);
}

bool rnic_st_load_config(struct rnic_st_ld *ld)
{
    const struct rnic_dev_config *c = &ld->d->cfg;
    struct rnic_sr *r = ld->r;
    uint8_t mac[6];
    uint32_t v;
    size_t i;
    bool ack;

    if (!rnic_sr_bytes(r, mac, sizeof(mac))) {
        return false;
    }
    if (memcmp(mac, c->mac, sizeof(mac))) {
        return rnic_sr_fail(r, "configuration differs: mac");
    }
    for (i = 0; i < sizeof(cfg_fields) / sizeof(cfg_fields[0]); i++) {
        if (!rnic_sr_u32(r, &v)) {
            return false;
        }
        if (v != cfg_get(c, i)) {
            return rnic_sr_fail(r, "configuration differs: %s is %u in the "
                                "stream, %u here", cfg_fields[i].name, v,
                                cfg_get(c, i));
        }
    }
    if (!rnic_sr_bool(r, &ack)) {
        return false;
    }
    if (ack != c->ack_batch) {
        return rnic_sr_fail(r, "configuration differs: ack batching");
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Registers, latches, port, counters, contexts                      */

void rnic_st_save_dev(struct rnic_dev *d, struct rnic_sw *w)
{
    const struct rnic_counters *s = &d->stats;
    uint32_t i;

    rnic_sw_begin(w, RNIC_SEC_DEV, RNIC_SEC_VERSION);
    rnic_sw_u32(w, d->ctrl);
    rnic_sw_u32(w, d->status);
    rnic_sw_u32(w, d->error);
    rnic_sw_u64(w, d->admq_sq_pbl);
    rnic_sw_u64(w, d->admq_cq_pbl);
    rnic_sw_u32(w, d->admq_cfg);
    rnic_sw_u32(w, d->admq_db_tail);
    rnic_sw_u32(w, d->admq_db_cq_head);
    rnic_sw_u32(w, d->pending);
    rnic_sw_u64(w, d->eq_db_pending);
    rnic_sw_u32(w, d->txq_db_pending);
    rnic_sw_u32(w, d->rxq_db_pending);
    rnic_sw_u32(w, d->db_err_obj);
    rnic_sw_u32(w, d->db_err_off);
    for (i = 1; i <= d->cfg.max_eq; i++) {
        rnic_sw_u32(w, d->eq[i].db_idx);
        rnic_sw_u8(w, d->eq[i].db_arm);
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        rnic_sw_u32(w, d->txq[i].db_idx);
        rnic_sw_u8(w, d->txq[i].db_arm);
        rnic_sw_u32(w, d->rxq[i].db_idx);
        rnic_sw_u8(w, d->rxq[i].db_arm);
    }
    rnic_sw_u32(w, d->n_own_addr);
    rnic_sw_u32(w, d->own_addr_next);
    rnic_sw_bytes(w, d->own_addr, sizeof(d->own_addr));
    rnic_sw_u8(w, d->link_reported);
    rnic_sw_u8(w, d->tx_paused);
    rnic_sw_u8(w, d->tx_full);
    rnic_sw_u8(w, d->rx_resume_owed);
    rnic_sw_bytes(w, d->port.mac, sizeof(d->port.mac));
    rnic_sw_u32(w, d->port.mtu);
    rnic_sw_u32(w, d->port.flags);
    rnic_sw_u8(w, d->port.link_up);
    rnic_sw_u64(w, s->tx_frames);
    rnic_sw_u64(w, s->tx_bytes);
    rnic_sw_u64(w, s->tx_errors);
    rnic_sw_u64(w, s->rx_frames);
    rnic_sw_u64(w, s->rx_bytes);
    rnic_sw_u64(w, s->rx_no_buffer);
    rnic_sw_u64(w, s->rx_too_long);
    rnic_sw_u64(w, s->rx_filtered);
    rnic_sw_u64(w, s->rx_offload);
    rnic_sw_u64(w, s->rx_errors);
    rnic_sw_u64(w, d->loop_frames);
    rnic_sw_u64(w, d->loop_dropped);
    rnic_sw_u64(w, d->tx_held);
    rnic_sw_u64(w, d->tx_dropped);
    for (i = 0; i <= d->cfg.max_uctx; i++) {
        rnic_sw_u8(w, d->uctx_live[i]);
        rnic_sw_u8(w, d->db_err_sent[i]);
    }
    rnic_sw_end(w);
}

#define DEV_STATUS_KNOWN    (RNIC_STATUS_READY | RNIC_STATUS_FATAL | \
                             RNIC_STATUS_RESETTING | RNIC_STATUS_LINK_UP)
#define DEV_PEND_KNOWN      (RNIC_PEND_RESET | RNIC_PEND_ENABLE | \
                             RNIC_PEND_ADMIN | RNIC_PEND_LINK | \
                             RNIC_PEND_DB_ERROR)

/* The registers; what only another section can confirm waits for check. */
static bool load_regs(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    uint64_t eq_mask = ((2ull << d->cfg.max_eq) - 1) & ~1ull;
    uint32_t l2_mask = (1u << d->cfg.max_l2q) - 1;

    rnic_sr_u32(r, &d->ctrl);
    rnic_sr_u32(r, &d->status);
    rnic_sr_u32(r, &d->error);
    rnic_sr_u64(r, &d->admq_sq_pbl);
    rnic_sr_u64(r, &d->admq_cq_pbl);
    rnic_sr_u32(r, &d->admq_cfg);
    rnic_sr_u32(r, &d->admq_db_tail);
    rnic_sr_u32(r, &d->admq_db_cq_head);
    rnic_sr_u32(r, &d->pending);
    rnic_sr_u64(r, &d->eq_db_pending);
    rnic_sr_u32(r, &d->txq_db_pending);
    rnic_sr_u32(r, &d->rxq_db_pending);
    rnic_sr_u32(r, &d->db_err_obj);
    if (!rnic_sr_u32(r, &d->db_err_off)) {
        return false;
    }
    if (d->ctrl & ~RNIC_CTRL_ENABLE) {
        return rnic_sr_fail(r, "DEV_CTRL 0x%x (only ENABLE may stay set)",
                            d->ctrl);
    }
    if (d->status & ~DEV_STATUS_KNOWN) {
        return rnic_sr_fail(r, "DEV_STATUS 0x%x has unknown bits",
                            d->status);
    }
    /* dev.c sets both at once, and the reset clears both. */
    if (!!(d->status & RNIC_STATUS_RESETTING) !=
        !!(d->pending & RNIC_PEND_RESET)) {
        return rnic_sr_fail(r, "DEV_STATUS RESETTING without the reset "
                            "latched, or the reverse");
    }
    if ((d->status & RNIC_STATUS_READY) && !(d->ctrl & RNIC_CTRL_ENABLE)) {
        return rnic_sr_fail(r, "DEV_STATUS READY on a disabled device");
    }
    if (d->error > RNIC_DEVERR_ADMQ_DMA) {
        return rnic_sr_fail(r, "DEV_ERROR %u unknown", d->error);
    }
    if (d->pending & ~DEV_PEND_KNOWN) {
        return rnic_sr_fail(r, "latched work 0x%x has unknown bits",
                            d->pending);
    }
    if ((d->eq_db_pending & ~eq_mask) || (d->txq_db_pending & ~l2_mask) ||
        (d->rxq_db_pending & ~l2_mask)) {
        return rnic_sr_fail(r, "a doorbell latched for an EQ or L2 queue "
                            "beyond max-eq/max-l2q");
    }
    return true;
}

static bool load_latches(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    uint32_t i;

    for (i = 1; i <= d->cfg.max_eq; i++) {
        rnic_sr_u32(r, &d->eq[i].db_idx);
        rnic_sr_bool(r, &d->eq[i].db_arm);
    }
    for (i = 0; i < d->cfg.max_l2q; i++) {
        rnic_sr_u32(r, &d->txq[i].db_idx);
        rnic_sr_bool(r, &d->txq[i].db_arm);
        rnic_sr_u32(r, &d->rxq[i].db_idx);
        rnic_sr_bool(r, &d->rxq[i].db_arm);
    }
    return !r->failed;
}

static bool load_port(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    struct rnic_counters *s = &d->stats;

    rnic_sr_u32(r, &d->n_own_addr);
    rnic_sr_u32(r, &d->own_addr_next);
    rnic_sr_bytes(r, d->own_addr, sizeof(d->own_addr));
    rnic_sr_bool(r, &d->link_reported);
    rnic_sr_bool(r, &d->tx_paused);
    rnic_sr_bool(r, &d->tx_full);
    rnic_sr_bool(r, &d->rx_resume_owed);
    rnic_sr_bytes(r, d->port.mac, sizeof(d->port.mac));
    rnic_sr_u32(r, &d->port.mtu);
    rnic_sr_u32(r, &d->port.flags);
    rnic_sr_bool(r, &d->port.link_up);
    rnic_sr_u64(r, &s->tx_frames);
    rnic_sr_u64(r, &s->tx_bytes);
    rnic_sr_u64(r, &s->tx_errors);
    rnic_sr_u64(r, &s->rx_frames);
    rnic_sr_u64(r, &s->rx_bytes);
    rnic_sr_u64(r, &s->rx_no_buffer);
    rnic_sr_u64(r, &s->rx_too_long);
    rnic_sr_u64(r, &s->rx_filtered);
    rnic_sr_u64(r, &s->rx_offload);
    rnic_sr_u64(r, &s->rx_errors);
    rnic_sr_u64(r, &d->loop_frames);
    rnic_sr_u64(r, &d->loop_dropped);
    rnic_sr_u64(r, &d->tx_held);
    if (!rnic_sr_u64(r, &d->tx_dropped)) {
        return false;
    }
    if (d->n_own_addr > RNIC_DEV_MAX_OWN_ADDR ||
        d->own_addr_next >= RNIC_DEV_MAX_OWN_ADDR) {
        return rnic_sr_fail(r, "own addresses: %u, next %u (at most %u)",
                            d->n_own_addr, d->own_addr_next,
                            RNIC_DEV_MAX_OWN_ADDR);
    }
    /* As SET_PORT (admin.c) allows. */
    if (d->port.mtu < RNIC_MIN_MTU || d->port.mtu > d->cfg.max_mtu) {
        return rnic_sr_fail(r, "port MTU %u outside %u..%u", d->port.mtu,
                            RNIC_MIN_MTU, d->cfg.max_mtu);
    }
    if (d->port.flags & ~(RNIC_PORT_PROMISC | RNIC_PORT_ALLMULTI)) {
        return rnic_sr_fail(r, "port flags 0x%x unknown", d->port.flags);
    }
    if (d->port.mac[0] & 1) {
        return rnic_sr_fail(r, "port MAC is not unicast");
    }
    if (!!(d->status & RNIC_STATUS_LINK_UP) != d->port.link_up) {
        return rnic_sr_fail(r, "DEV_STATUS LINK_UP disagrees with the port");
    }
    return true;
}

static bool load_uctx(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    uint32_t i;
    bool live, sent;

    for (i = 0; i <= d->cfg.max_uctx; i++) {
        rnic_sr_bool(r, &live);
        if (!rnic_sr_bool(r, &sent)) {
            return false;
        }
        /* Context 0, the kernel's, is never allocated nor muted. */
        if (!i && (live || sent)) {
            return rnic_sr_fail(r, "context 0 marked allocated or muted");
        }
        d->uctx_live[i] = live;
        d->db_err_sent[i] = sent;
    }
    return true;
}

bool rnic_st_load_dev(struct rnic_st_ld *ld)
{
    return load_regs(ld) && load_latches(ld) && load_port(ld) &&
           load_uctx(ld);
}

/* ---------------------------------------------------------------- */
/* Admin queue                                                       */

void rnic_st_save_admq(struct rnic_dev *d, struct rnic_sw *w)
{
    const struct rnic_admq *aq = &d->admq;

    rnic_sw_begin(w, RNIC_SEC_ADMQ, RNIC_SEC_VERSION);
    rnic_sw_u8(w, aq->live);
    rnic_sw_u32(w, aq->sq_head);
    rnic_sw_u32(w, aq->sq_tail);
    rnic_sw_u32(w, aq->cq_tail);
    rnic_sw_u32(w, aq->cq_head);
    rnic_st_save_ring(w, &aq->sq);
    rnic_st_save_ring(w, &aq->cq);
    rnic_sw_end(w);
}

bool rnic_st_load_admq(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_admq *aq = &d->admq;
    struct rnic_sr *r = ld->r;
    uint32_t sq_log = RNIC_ADMQ_CFG_GET_SQ_LOG(d->admq_cfg);
    uint32_t cq_log = RNIC_ADMQ_CFG_GET_CQ_LOG(d->admq_cfg);
    uint32_t max = 1u << RNIC_ENG_MAX_ADMQ_LOG;

    rnic_sr_bool(r, &aq->live);
    rnic_sr_u32(r, &aq->sq_head);
    rnic_sr_u32(r, &aq->sq_tail);
    rnic_sr_u32(r, &aq->cq_tail);
    if (!rnic_sr_u32(r, &aq->cq_head) ||
        !rnic_st_load_ring(ld, &aq->sq, RNIC_ADMIN_CMD_SIZE, max,
                           RNIC_RING_MAX_PAGES, !aq->live, "admin SQ") ||
        !rnic_st_load_ring(ld, &aq->cq, RNIC_ADMIN_CQE_SIZE, max,
                           RNIC_RING_MAX_PAGES, !aq->live, "admin CQ")) {
        return false;
    }
    if (!aq->live) {
        if (aq->sq.pages || aq->cq.pages || aq->sq_head || aq->sq_tail ||
            aq->cq_tail || aq->cq_head) {
            return rnic_sr_fail(r, "admin queue not live but has rings or "
                                "indices");
        }
        return true;
    }
    /* The rings admin.c loaded at enable, from ADMQ_CFG. */
    if (sq_log > RNIC_ENG_MAX_ADMQ_LOG || cq_log > RNIC_ENG_MAX_ADMQ_LOG ||
        aq->sq.depth != 1u << sq_log || aq->cq.depth != 1u << cq_log) {
        return rnic_sr_fail(r, "admin queue depths differ from ADMQ_CFG");
    }
    if (rnic_ring_used(aq->sq_tail, aq->sq_head) > aq->sq.depth ||
        rnic_ring_used(aq->cq_tail, aq->cq_head) > aq->cq.depth) {
        return rnic_sr_fail(r, "admin queue indices beyond its depth "
                            "(SQ %u..%u, CQ %u..%u)", aq->sq_head,
                            aq->sq_tail, aq->cq_head, aq->cq_tail);
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Event queues                                                      */

void rnic_st_save_eqs(struct rnic_dev *d, struct rnic_sw *w)
{
    uint32_t i;

    for (i = 1; i <= d->cfg.max_eq; i++) {
        const struct rnic_eq *eq = &d->eq[i];

        if (!eq->live) {
            continue;
        }
        rnic_sw_begin(w, RNIC_SEC_EQ, RNIC_SEC_VERSION);
        rnic_sw_u32(w, i);
        rnic_sw_u8(w, eq->flags);
        rnic_sw_u8(w, eq->armed);
        rnic_sw_u32(w, eq->pidx);
        rnic_sw_u32(w, eq->cidx);
        rnic_st_save_ring(w, &eq->ring);
        rnic_st_save_ring(w, &eq->pdata);
        rnic_sw_end(w);
    }
}

bool rnic_st_load_eq(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    struct rnic_eq eq;
    uint32_t eqn;
    bool cm;

    memset(&eq, 0, sizeof(eq));
    if (!rnic_sr_u32(r, &eqn)) {
        return false;
    }
    if (eqn == 0 || eqn > d->cfg.max_eq || (int64_t)eqn <= ld->last_obj) {
        return rnic_sr_fail(r, "EQ %u: number out of range or out of order",
                            eqn);
    }
    ld->last_obj = eqn;
    rnic_sr_u8(r, &eq.flags);
    rnic_sr_bool(r, &eq.armed);
    rnic_sr_u32(r, &eq.pidx);
    if (!rnic_sr_u32(r, &eq.cidx)) {
        return false;
    }
    if (eq.flags & ~(RNIC_EQ_F_ASYNC | RNIC_EQ_F_CM)) {
        return rnic_sr_fail(r, "EQ %u: flags 0x%x unknown", eqn, eq.flags);
    }
    if (((eq.flags & RNIC_EQ_F_ASYNC) && d->async_eqn) ||
        ((eq.flags & RNIC_EQ_F_CM) && d->cm_eqn)) {
        return rnic_sr_fail(r, "EQ %u: a second async or CM EQ", eqn);
    }
    cm = eq.flags & RNIC_EQ_F_CM;
    if (!rnic_st_load_ring(ld, &eq.ring, RNIC_EQE_SIZE,
                           cm ? RNIC_CM_EQ_MAX_DEPTH :
                                1u << RNIC_ENG_MAX_EQ_LOG,
                           RNIC_RING_MAX_PAGES, false, "EQ")) {
        return false;
    }
    if (!rnic_st_load_ring(ld, &eq.pdata, RNIC_CM_PDATA_SLOT,
                           RNIC_CM_EQ_MAX_DEPTH, RNIC_RING_MAX_PAGES, !cm,
                           "CM EQ private data") ||
        (cm && eq.pdata.depth != eq.ring.depth) || (!cm && eq.pdata.pages)) {
        rnic_ring_free(&eq.ring);
        rnic_ring_free(&eq.pdata);
        return r->failed ? false :
               rnic_sr_fail(r, "EQ %u: private data slots do not match its "
                            "entries", eqn);
    }
    if (rnic_ring_used(eq.pidx, eq.cidx) > eq.ring.depth) {
        rnic_sr_fail(r, "EQ %u: %u entries pending in a ring of %u", eqn,
                     rnic_ring_used(eq.pidx, eq.cidx), eq.ring.depth);
        rnic_ring_free(&eq.ring);
        rnic_ring_free(&eq.pdata);
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

static void save_l2q(struct rnic_sw *w, bool rx, uint32_t qid,
                     const struct rnic_l2q *q)
{
    rnic_sw_begin(w, RNIC_SEC_L2Q, RNIC_SEC_VERSION);
    rnic_sw_u8(w, rx);
    rnic_sw_u32(w, qid);
    rnic_sw_u32(w, q->eqn);
    rnic_sw_u8(w, q->armed);
    rnic_sw_u32(w, q->pidx);
    rnic_sw_u32(w, q->cidx);
    rnic_sw_u32(w, q->ev_idx);
    rnic_st_save_ring(w, &q->ring);
    rnic_sw_end(w);
}

void rnic_st_save_l2qs(struct rnic_dev *d, struct rnic_sw *w)
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

bool rnic_st_load_l2q(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    struct rnic_l2q q, *slot;
    uint32_t qid;
    bool rx;

    memset(&q, 0, sizeof(q));
    rnic_sr_bool(r, &rx);
    if (!rnic_sr_u32(r, &qid)) {
        return false;
    }
    if (qid >= d->cfg.max_l2q ||
        (int64_t)(rx * RNIC_ENG_MAX_L2Q + qid) <= ld->last_obj) {
        return rnic_sr_fail(r, "L2 queue %u: out of range or out of order",
                            qid);
    }
    ld->last_obj = rx * RNIC_ENG_MAX_L2Q + qid;
    rnic_sr_u32(r, &q.eqn);
    rnic_sr_bool(r, &q.armed);
    rnic_sr_u32(r, &q.pidx);
    rnic_sr_u32(r, &q.cidx);
    if (!rnic_sr_u32(r, &q.ev_idx)) {
        return false;
    }
    if (q.eqn == 0 || q.eqn > d->cfg.max_eq || !d->eq[q.eqn].live) {
        return rnic_sr_fail(r, "L2 queue %u: EQ %u is not live", qid, q.eqn);
    }
    if (!rnic_st_load_ring(ld, &q.ring, RNIC_L2_DESC_SIZE,
                           1u << RNIC_ENG_MAX_L2Q_LOG, RNIC_RING_MAX_PAGES,
                           false, "L2 queue")) {
        return false;
    }
    if (rnic_ring_used(q.pidx, q.cidx) > q.ring.depth) {
        rnic_sr_fail(r, "L2 queue %u: %u descriptors posted in a ring of %u",
                     qid, rnic_ring_used(q.pidx, q.cidx), q.ring.depth);
        rnic_ring_free(&q.ring);
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

void rnic_st_save_pds(struct rnic_dev *d, struct rnic_sw *w)
{
    uint32_t i, n = 0;

    for (i = 0; i < d->cfg.max_pd; i++) {
        n += !!d->pd_owner[i];
    }
    rnic_sw_begin(w, RNIC_SEC_PD, RNIC_SEC_VERSION);
    rnic_sw_u32(w, n);
    for (i = 0; i < d->cfg.max_pd; i++) {
        if (d->pd_owner[i]) {
            rnic_sw_u32(w, i);
            rnic_sw_u16(w, d->pd_owner[i]);
        }
    }
    rnic_sw_end(w);
}

bool rnic_st_load_pds(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;
    int64_t last = -1;
    uint32_t n, pdn;
    uint16_t owner;

    if (!rnic_sr_u32(r, &n)) {
        return false;
    }
    if (n > d->cfg.max_pd) {
        return rnic_sr_fail(r, "%u PDs (max-pd %u)", n, d->cfg.max_pd);
    }
    while (n--) {
        rnic_sr_u32(r, &pdn);
        if (!rnic_sr_u16(r, &owner)) {
            return false;
        }
        if (pdn >= d->cfg.max_pd || (int64_t)pdn <= last) {
            return rnic_sr_fail(r, "PD %u: out of range or out of order",
                                pdn);
        }
        last = pdn;
        /* Context + 1: the kernel's (1) or an allocated one. */
        if (owner == 0 || owner - 1u > d->cfg.max_uctx ||
            (owner > 1 && !d->uctx_live[owner - 1])) {
            return rnic_sr_fail(r, "PD %u: owner context %d not allocated",
                                pdn, owner - 1);
        }
        d->pd_owner[pdn] = owner;
    }
    return true;
}

/* ---------------------------------------------------------------- */
/* Frames queued between passes                                      */

static void save_frameq(struct rnic_sw *w, const struct rnic_frameq *q)
{
    uint32_t pos = UINT32_MAX, n = 0;
    const uint8_t *f;
    size_t len;

    rnic_sw_u32(w, q->count);
    while ((f = rnic_frameq_walk(q, &pos, &n, &len))) {
        rnic_sw_u32(w, (uint32_t)len);
        rnic_sw_bytes(w, f, len);
    }
}

void rnic_st_save_frames(struct rnic_dev *d, struct rnic_sw *w)
{
    rnic_sw_begin(w, RNIC_SEC_FRAMES, RNIC_SEC_VERSION);
    save_frameq(w, &d->backlog);
    save_frameq(w, &d->egress);
    save_frameq(w, &d->loop);
    rnic_sw_end(w);
}

static bool load_frameq(struct rnic_st_ld *ld, struct rnic_frameq *q,
                        const char *what)
{
    struct rnic_sr *r = ld->r;
    uint32_t max = (ld->d->cfg.max_mtu > 1500 ? ld->d->cfg.max_mtu : 1500) +
                   RNIC_L2_HDR_ROOM;
    uint32_t n, len;

    if (!rnic_sr_u32(r, &n)) {
        return false;
    }
    if (n > q->max) {
        return rnic_sr_fail(r, "%s: %u frames (at most %u)", what, n,
                            q->max);
    }
    while (n--) {
        if (!rnic_sr_u32(r, &len)) {
            return false;
        }
        if (len < 14 || len > max) {
            return rnic_sr_fail(r, "%s: a frame of %u bytes (14..%u)", what,
                                len, max);
        }
        if (rnic_sr_left(r) < len) {
            return rnic_sr_fail(r, "%s: truncated frame", what);
        }
        if (!rnic_frameq_put(q, r->p + r->pos, len)) {
            return rnic_sr_fail(r, "%s: frames beyond the queue's room",
                                what);
        }
        r->pos += len;
    }
    return true;
}

bool rnic_st_load_frames(struct rnic_st_ld *ld)
{
    return load_frameq(ld, &ld->d->backlog, "backlog") &&
           load_frameq(ld, &ld->d->egress, "egress queue") &&
           load_frameq(ld, &ld->d->loop, "loopback queue");
}

bool rnic_st_check_dev(struct rnic_st_ld *ld)
{
    struct rnic_dev *d = ld->d;
    struct rnic_sr *r = ld->r;

    /* admin.c: READY exactly while the admin queue is live. */
    if (!!(d->status & RNIC_STATUS_READY) != d->admq.live) {
        return rnic_sr_fail(r, "DEV_STATUS READY disagrees with the admin "
                            "queue");
    }
    if (d->admq.live && (d->status & RNIC_STATUS_FATAL)) {
        return rnic_sr_fail(r, "a live admin queue on a failed device");
    }
    return true;
}
