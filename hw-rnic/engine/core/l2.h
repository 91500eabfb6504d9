/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NIC path: TX and RX descriptor rings in guest memory.
 */
#ifndef RNIC_ENGINE_L2_H
#define RNIC_ENGINE_L2_H

#include "dev.h"

unsigned rnic_l2q_create(struct rnic_dev *d, bool rx,
                         const struct rnic_cmd_create_l2q *c);
unsigned rnic_l2q_destroy(struct rnic_dev *d, bool rx, uint32_t qid);

/* Apply a latched TX doorbell: send every complete frame posted. */
void rnic_l2_tx_doorbell(struct rnic_dev *d, uint32_t qid);
/*
 * The guest has sent from IPv4 address addr on VLAN vid (0: untagged)
 * through L2 TX (recent ones).
 */
bool rnic_l2_addr_owned(const struct rnic_dev *d, const uint8_t *addr,
                        uint16_t vid);
/* The frame is addressed to the port's own MAC (loopback, dev.c). */
bool rnic_l2_to_self(const struct rnic_dev *d, const uint8_t *frame,
                     size_t len);
/* Apply a latched RX doorbell: accept newly posted buffers. */
void rnic_l2_rx_doorbell(struct rnic_dev *d, uint32_t qid);

/* Deliver one frame into RX queue 0; false if no buffer is posted. */
bool rnic_l2_rx_frame(struct rnic_dev *d, const uint8_t *frame, size_t len);

/* Largest frame (no FCS) the port sends or accepts at its MTU. */
static inline uint32_t rnic_l2_max_frame(const struct rnic_dev *d)
{
    return d->port.mtu + RNIC_L2_HDR_ROOM;
}

#endif
