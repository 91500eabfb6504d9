/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NIC path: TX and RX descriptor rings in guest memory.
 */
#ifndef RNE_ENGINE_L2_H
#define RNE_ENGINE_L2_H

#include "dev.h"

unsigned rne_l2q_create(struct rne_dev *d, bool rx,
                        const struct rnic_cmd_create_l2q *c);
unsigned rne_l2q_destroy(struct rne_dev *d, bool rx, uint32_t qid);

/* Apply a latched TX doorbell: send every complete frame posted. */
void rne_l2_tx_doorbell(struct rne_dev *d, uint32_t qid);
/*
 * The guest has sent from IPv4 address addr on VLAN vid (0: untagged)
 * through L2 TX (recent ones).
 */
bool rne_l2_addr_owned(const struct rne_dev *d, const uint8_t *addr,
                       uint16_t vid);
/* The frame is addressed to the port's own MAC (loopback, dev.c). */
bool rne_l2_to_self(const struct rne_dev *d, const uint8_t *frame,
                    size_t len);
/* Apply a latched RX doorbell: accept newly posted buffers. */
void rne_l2_rx_doorbell(struct rne_dev *d, uint32_t qid);

/* Deliver one frame into RX queue 0; false if no buffer is posted. */
bool rne_l2_rx_frame(struct rne_dev *d, const uint8_t *frame, size_t len);

/* Largest frame (no FCS) the port sends or accepts at its MTU. */
static inline uint32_t rne_l2_max_frame(const struct rne_dev *d)
{
    return d->port.mtu + RNE_L2_HDR_ROOM;
}

#endif
