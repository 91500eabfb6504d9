/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event queues: entries with phase bits, one MSI-X vector each, interrupts
 * only while armed.
 */
#ifndef RNIC_ENGINE_EQ_H
#define RNIC_ENGINE_EQ_H

#include "dev.h"

/* Post an event to EQ eqn (which must be live); false if it was lost. */
bool rnic_eq_post(struct rnic_dev *d, uint32_t eqn, struct rnic_eqe *e);
/* Post an async event to the async EQ, if the driver created one. */
void rnic_eq_post_async(struct rnic_dev *d, uint8_t code, uint32_t obj,
                        uint32_t info);
/* Apply a latched EQ doorbell (consumer index, arm). */
void rnic_eq_doorbell(struct rnic_dev *d, uint32_t eqn);

unsigned rnic_eq_create(struct rnic_dev *d, const struct rnic_cmd_create_eq *c);
unsigned rnic_eq_destroy(struct rnic_dev *d, uint32_t eqn);

#endif
