/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * L2 TX/RX rings (docs/hardware-interface.md section 7).
 */
#include <string.h>
#include "l2.h"
#include "eq.h"
#include "wire/le.h"

#define MIN_FRAME 14    /* an Ethernet header */

unsigned rne_l2q_create(struct rne_dev *d, bool rx,
                        const struct rnic_cmd_create_l2q *c)
{
    struct rne_l2q *tab = rx ? d->rxq : d->txq;
    uint32_t qid = rne_le32_to_cpu(c->qid), eqn = rne_le32_to_cpu(c->eqn);
    struct rne_l2q q;
    unsigned sts, i;

    if (qid >= d->cfg.max_l2q) {
        return RNIC_STS_BAD_INDEX;
    }
    if (tab[qid].live) {
        return RNIC_STS_EXISTS;
    }
    for (i = 0; i < sizeof(c->rsvd); i++) {
        if (c->rsvd[i]) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    if (c->log_depth < 1 || c->log_depth > RNE_ENG_MAX_L2Q_LOG) {
        return RNIC_STS_BAD_PARAM;
    }
    if (eqn == 0 || eqn > d->cfg.max_eq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->eq[eqn].live) {
        return RNIC_STS_NOT_FOUND;
    }
    memset(&q, 0, sizeof(q));
    sts = rne_ring_load_pbl(&q.ring, &d->host, &c->ring,
                            1u << c->log_depth, RNIC_L2_DESC_SIZE);
    if (sts) {
        return sts;
    }
    q.live = true;
    q.eqn = eqn;
    tab[qid] = q;
    d->eq[eqn].users++;
    return RNIC_STS_OK;
}

unsigned rne_l2q_destroy(struct rne_dev *d, bool rx, uint32_t qid)
{
    struct rne_l2q *tab = rx ? d->rxq : d->txq;

    if (qid >= d->cfg.max_l2q) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!tab[qid].live) {
        return RNIC_STS_NOT_FOUND;
    }
    d->eq[tab[qid].eqn].users--;
    rne_ring_free(&tab[qid].ring);
    memset(&tab[qid], 0, sizeof(tab[qid]));
    if (rx) {
        d->rxq_db_pending &= ~(1u << qid);
    } else {
        d->txq_db_pending &= ~(1u << qid);
    }
    return RNIC_STS_OK;
}

/* Raise the queue's event if the driver armed it and there is progress. */
static void l2q_event(struct rne_dev *d, struct rne_l2q *q, bool rx,
                      uint32_t qid)
{
    struct rnic_eqe e;

    if (!q->armed || q->cidx == q->ev_idx) {
        return;
    }
    memset(&e, 0, sizeof(e));
    e.type = rx ? RNIC_EQE_L2_RX : RNIC_EQE_L2_TX;
    e.obj = rne_cpu_to_le32(qid);
    q->armed = false;
    q->ev_idx = q->cidx;
    rne_eq_post(d, q->eqn, &e);
}

/*
 * Accept a latched producer index: it may not run more than one ring ahead
 * of the device's consumer nor move backwards.  false if rejected.
 */
static bool l2q_take_doorbell(struct rne_dev *d, struct rne_l2q *q,
                              uint32_t qid, bool rx)
{
    uint32_t idx = q->db_idx;

    if (rne_ring_used(idx, q->cidx) > q->ring.depth ||
        rne_ring_used(idx, q->cidx) < rne_ring_used(q->pidx, q->cidx)) {
        rne_guest_error(&d->host, rx ? "RX producer index out of range" :
                        "TX producer index out of range", qid, idx);
        rne_eq_post_async(d, RNIC_ASYNC_L2_ERROR, qid,
                          RNIC_L2ERR_DB_OVERFLOW);
        return false;
    }
    q->pidx = idx;
    return true;
}

static void tx_write_status(struct rne_dev *d, struct rne_l2q *q,
                            uint32_t idx, uint8_t status)
{
    uint64_t at = rne_ring_slot(&q->ring, idx) +
                  offsetof(struct rnic_l2_tx_desc, status);

    if (rne_dma_write(&d->host, at, &status, 1)) {
        rne_guest_error(&d->host, "TX descriptor write-back failed", idx, 0);
    }
}

/*
 * Gather the frame starting at q->cidx.  Returns the number of descriptors
 * it spans (0: its last descriptor is not posted yet); *len is the frame
 * length, or 0 if the frame is bad and must be completed with an error.
 */
static uint32_t tx_gather(struct rne_dev *d, struct rne_l2q *q,
                          uint32_t qid, size_t *len, uint8_t *err)
{
    uint32_t avail = rne_ring_used(q->pidx, q->cidx);
    uint32_t max = rne_l2_max_frame(d);
    size_t total = 0;
    uint32_t n;

    *err = 0;
    for (n = 0; n < avail; n++) {
        struct rnic_l2_tx_desc desc;
        uint32_t dlen;

        if (rne_ring_read(&q->ring, &d->host, q->cidx + n, &desc)) {
            /* An unreadable descriptor ends the frame: no EOP to wait for. */
            *err = RNIC_L2ERR_DMA;
            break;
        }
        dlen = rne_le16_to_cpu(desc.len);
        if (!*err && (dlen == 0 || total + dlen > max)) {
            *err = RNIC_L2ERR_BAD_DESC;
        }
        if (!*err && rne_dma_read(&d->host, rne_le64_to_cpu(desc.addr),
                                  d->frame + total, dlen)) {
            *err = RNIC_L2ERR_DMA;
        }
        if (!*err) {
            total += dlen;
        }
        if (desc.flags & RNIC_L2_TX_EOP) {
            break;
        }
    }
    if (n == avail) {
        /* A whole ring without EOP can never complete: fail it. */
        if (avail < q->ring.depth) {
            return 0;
        }
        n = avail - 1;
        *err = RNIC_L2ERR_BAD_DESC;
    }
    if (!*err && total < MIN_FRAME) {
        *err = RNIC_L2ERR_BAD_DESC;
    }
    if (*err) {
        rne_guest_error(&d->host, "bad TX frame", qid, *err);
    }
    *len = *err ? 0 : total;
    return n + 1;
}

/*
 * A frame the guest sends through L2 TX names an IPv4 address it owns (the
 * IPv4 source, or an ARP sender address) on the VLAN of its tag (one looked
 * through): the wildcard listeners of the offload engine may then serve
 * that address there.
 */
static void note_own_addr(struct rne_dev *d, const uint8_t *f, size_t len)
{
    const uint8_t *src;
    size_t l3 = 14;
    uint16_t type, vid = 0;

    if (len < l3 + 2) {
        return;
    }
    type = (uint16_t)(f[12] << 8 | f[13]);
    if (type == 0x8100) {
        if (len < 18) {
            return;
        }
        l3 = 18;
        vid = (uint16_t)((f[14] << 8 | f[15]) & 0x0fff);
        type = (uint16_t)(f[16] << 8 | f[17]);
    }
    if (type == 0x0800 && len >= l3 + 20) {
        src = f + l3 + 12;
    } else if (type == 0x0806 && len >= l3 + 28 && f[l3 + 2] == 0x08 &&
               f[l3 + 3] == 0 && f[l3 + 5] == 4) {
        src = f + l3 + 14;
    } else {
        return;
    }
    if (!(src[0] | src[1] | src[2] | src[3]) || src[0] >= 224 ||
        rne_l2_addr_owned(d, src, vid)) {
        return;
    }
    memcpy(d->own_addr[d->own_addr_next], src, 4);
    d->own_vlan[d->own_addr_next] = vid;
    d->own_addr_next = (d->own_addr_next + 1) % RNE_DEV_MAX_OWN_ADDR;
    if (d->n_own_addr < RNE_DEV_MAX_OWN_ADDR) {
        d->n_own_addr++;
    }
}

bool rne_l2_addr_owned(const struct rne_dev *d, const uint8_t *addr,
                       uint16_t vid)
{
    uint32_t i;

    for (i = 0; i < d->n_own_addr; i++) {
        if (!memcmp(d->own_addr[i], addr, 4) && d->own_vlan[i] == vid) {
            return true;
        }
    }
    return false;
}

bool rne_l2_to_self(const struct rne_dev *d, const uint8_t *frame,
                    size_t len)
{
    return len >= 14 && !memcmp(frame, d->port.mac, sizeof(d->port.mac));
}

void rne_l2_tx_doorbell(struct rne_dev *d, uint32_t qid)
{
    struct rne_l2q *q = &d->txq[qid];
    bool arm = q->db_arm;

    q->db_arm = false;
    if (!q->live) {
        rne_guest_error(&d->host, "doorbell for a missing TX queue", qid, 0);
        rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, qid, RNIC_DB_L2_TX);
        return;
    }
    if (!l2q_take_doorbell(d, q, qid, false)) {
        return;
    }
    if (arm) {
        q->armed = true;
    }
    while (q->cidx != q->pidx && !d->tx_paused) {
        uint8_t err;
        size_t len;
        uint32_t i, n;

        if (!rne_dev_tx_room(d, rne_l2_max_frame(d))) {
            d->tx_full = true;  /* go on once the egress queue is flushed */
            break;
        }
        n = tx_gather(d, q, qid, &len, &err);
        if (!n) {
            break;      /* wait for the rest of the frame */
        }
        if (err) {
            d->stats.tx_errors++;
        } else {
            /* to the wire when this dispatch ends (dev.c) */
            note_own_addr(d, d->frame, len);
            rne_dev_send_wire(d, d->frame, len);
        }
        for (i = 0; i < n; i++) {
            tx_write_status(d, q, q->cidx + i,
                            RNIC_L2_DONE | (err ? RNIC_L2_ERR : 0));
        }
        q->cidx += n;
    }
    l2q_event(d, q, false, qid);
}

static bool rx_has_buffer(const struct rne_dev *d)
{
    const struct rne_l2q *q = &d->rxq[0];

    return q->live && q->cidx != q->pidx;
}

void rne_l2_rx_doorbell(struct rne_dev *d, uint32_t qid)
{
    struct rne_l2q *q = &d->rxq[qid];
    bool arm = q->db_arm;

    q->db_arm = false;
    if (!q->live) {
        rne_guest_error(&d->host, "doorbell for a missing RX queue", qid, 0);
        rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, qid, RNIC_DB_L2_RX);
        return;
    }

    if (!l2q_take_doorbell(d, q, qid, true)) {
        return;
    }
    if (arm) {
        q->armed = true;
        l2q_event(d, q, true, qid);
    }
}

bool rne_l2_rx_frame(struct rne_dev *d, const uint8_t *frame, size_t len)
{
    struct rne_l2q *q = &d->rxq[0];
    struct rnic_l2_rx_desc desc;
    uint64_t slot;
    uint16_t plen;
    uint8_t status = RNIC_L2_DONE;

    if (!rx_has_buffer(d)) {
        return false;
    }
    slot = rne_ring_slot(&q->ring, q->cidx);
    if (rne_dma_read(&d->host, slot, &desc, sizeof(desc))) {
        status |= RNIC_L2_ERR;
    } else if (len > rne_l2_max_frame(d) ||
               len > rne_le16_to_cpu(desc.buf_len)) {
        /* Drop it; the buffer stays posted for the next frame. */
        d->stats.rx_too_long++;
        return true;
    } else if (rne_dma_write(&d->host, rne_le64_to_cpu(desc.addr), frame,
                             len)) {
        status |= RNIC_L2_ERR;
    }
    if (status & RNIC_L2_ERR) {
        rne_guest_error(&d->host, "RX buffer not reachable", q->cidx, 0);
        d->stats.rx_errors++;
        len = 0;
    } else {
        d->stats.rx_frames++;
        d->stats.rx_bytes += len;
    }
    plen = rne_cpu_to_le16((uint16_t)len);
    rne_dma_write(&d->host, slot + offsetof(struct rnic_l2_rx_desc, pkt_len),
                  &plen, sizeof(plen));
    rne_dma_write(&d->host, slot + offsetof(struct rnic_l2_rx_desc, status),
                  &status, 1);
    q->cidx++;
    l2q_event(d, q, true, 0);
    return true;
}
