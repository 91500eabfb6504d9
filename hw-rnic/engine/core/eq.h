/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event queues: entries with phase bits, one MSI-X vector each, interrupts
 * only while armed.
 */
#ifndef RNE_ENGINE_EQ_H
#define RNE_ENGINE_EQ_H

#include "dev.h"

/* Post an event to EQ eqn (which must be live); false if it was lost. */
bool rne_eq_post(struct rne_dev *d, uint32_t eqn, struct rnic_eqe *e);
/* Post an async event to the async EQ, if the driver created one. */
void rne_eq_post_async(struct rne_dev *d, uint8_t code, uint32_t obj,
                       uint32_t info);
/* Apply a latched EQ doorbell (consumer index, arm). */
void rne_eq_doorbell(struct rne_dev *d, uint32_t eqn);

unsigned rne_eq_create(struct rne_dev *d, const struct rnic_cmd_create_eq *c);
unsigned rne_eq_destroy(struct rne_dev *d, uint32_t eqn);

#endif
