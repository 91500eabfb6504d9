/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event queues (see eq.h and docs/hardware-interface.md section 6).
 */
#include <string.h>
#include "eq.h"
#include "wire/le.h"

static void eq_notify(struct rne_dev *d, uint32_t eqn)
{
    d->eq[eqn].armed = false;
    d->host.ops->notify(d->host.opaque, eqn);
}

bool rne_eq_post(struct rne_dev *d, uint32_t eqn, struct rnic_eqe *e)
{
    struct rne_eq *eq = &d->eq[eqn];

    if (rne_ring_used(eq->pidx, eq->cidx) >= eq->ring.depth) {
        rne_guest_error(&d->host, "event queue full", eqn, e->type);
        /* Report the loss elsewhere; never recurse into a full async EQ. */
        if (eqn != d->async_eqn) {
            rne_eq_post_async(d, RNIC_ASYNC_EQ_OVERFLOW, eqn, e->type);
        }
        return false;
    }
    e->flags = 0;
    if (rne_ring_publish(&eq->ring, &d->host, eq->pidx, e,
                         offsetof(struct rnic_eqe, flags))) {
        rne_guest_error(&d->host, "event queue DMA failed", eqn, eq->pidx);
        return false;
    }
    eq->pidx++;
    if (eq->armed) {
        eq_notify(d, eqn);
    }
    return true;
}

void rne_eq_post_async(struct rne_dev *d, uint8_t code, uint32_t obj,
                       uint32_t info)
{
    struct rnic_eqe e;

    if (!d->async_eqn) {
        return;
    }
    memset(&e, 0, sizeof(e));
    e.type = RNIC_EQE_ASYNC;
    e.code = code;
    e.obj = rne_cpu_to_le32(obj);
    e.u.async.info = rne_cpu_to_le32(info);
    rne_eq_post(d, d->async_eqn, &e);
}

void rne_eq_doorbell(struct rne_dev *d, uint32_t eqn)
{
    struct rne_eq *eq = &d->eq[eqn];
    bool arm = eq->db_arm;

    eq->db_arm = false;
    if (!eq->live) {
        rne_guest_error(&d->host, "doorbell for a missing EQ", eqn, 0);
        rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, eqn, RNIC_DB_EQ);
        return;
    }
    /* The consumer can only move forward, and not past the producer. */
    if (rne_ring_used(eq->pidx, eq->db_idx) >
        rne_ring_used(eq->pidx, eq->cidx)) {
        rne_guest_error(&d->host, "EQ consumer index out of range",
                        eqn, eq->db_idx);
        rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, eqn, RNIC_DB_EQ);
        return;
    }
    eq->cidx = eq->db_idx;
    if (arm) {
        eq->armed = true;
        /* Entries the driver has not consumed yet: interrupt again now. */
        if (eq->pidx != eq->cidx) {
            eq_notify(d, eqn);
        }
    }
}

unsigned rne_eq_create(struct rne_dev *d, const struct rnic_cmd_create_eq *c)
{
    uint32_t eqn = rne_le32_to_cpu(c->eqn);
    struct rne_eq eq;
    uint32_t depth;
    unsigned sts;

    if (eqn == 0 || eqn > d->cfg.max_eq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (d->eq[eqn].live) {
        return RNIC_STS_EXISTS;
    }
    if (c->rsvd || (c->flags & ~(RNIC_EQ_F_ASYNC | RNIC_EQ_F_CM)) ||
        c->log_depth < 1 || c->log_depth > RNE_ENG_MAX_EQ_LOG) {
        return RNIC_STS_BAD_PARAM;
    }
    if (((c->flags & RNIC_EQ_F_ASYNC) && d->async_eqn) ||
        ((c->flags & RNIC_EQ_F_CM) && d->cm_eqn)) {
        return RNIC_STS_BAD_STATE;
    }
    depth = 1u << c->log_depth;
    memset(&eq, 0, sizeof(eq));
    sts = rne_ring_load_pbl(&eq.ring, &d->host, &c->ring, depth,
                            RNIC_EQE_SIZE);
    if (sts) {
        return sts;
    }
    if (c->flags & RNIC_EQ_F_CM) {
        sts = depth > RNIC_CM_EQ_MAX_DEPTH ? RNIC_STS_BAD_PARAM :
              rne_ring_load_pbl(&eq.pdata, &d->host, &c->pdata, depth,
                                RNIC_CM_PDATA_SLOT);
    } else if (c->pdata.addr || c->pdata.nentries) {
        sts = RNIC_STS_BAD_PARAM;
    }
    if (sts) {
        rne_ring_free(&eq.ring);
        return sts;
    }
    eq.live = true;
    eq.flags = c->flags;
    d->eq[eqn] = eq;
    if (c->flags & RNIC_EQ_F_ASYNC) {
        d->async_eqn = eqn;
        d->link_reported = !d->port.link_up;
        d->pending |= RNE_PEND_LINK;      /* tell the new EQ the link state */
    }
    if (c->flags & RNIC_EQ_F_CM) {
        d->cm_eqn = eqn;
    }
    return RNIC_STS_OK;
}

unsigned rne_eq_destroy(struct rne_dev *d, uint32_t eqn)
{
    if (eqn == 0 || eqn > d->cfg.max_eq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->eq[eqn].live) {
        return RNIC_STS_NOT_FOUND;
    }
    if (d->eq[eqn].users) {
        return RNIC_STS_BUSY;
    }
    if (d->async_eqn == eqn) {
        d->async_eqn = 0;
    }
    if (d->cm_eqn == eqn) {
        d->cm_eqn = 0;
    }
    rne_ring_free(&d->eq[eqn].ring);
    rne_ring_free(&d->eq[eqn].pdata);
    memset(&d->eq[eqn], 0, sizeof(d->eq[eqn]));
    d->eq_db_pending &= ~(1ull << eqn);
    return RNIC_STS_OK;
}
