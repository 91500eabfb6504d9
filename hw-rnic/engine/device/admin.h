/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Admin queue: bring-up from the BAR0 registers, command fetch, dispatch
 * and completion (docs/hardware-interface.md section 5).
 */
#ifndef RNIC_ENGINE_ADMIN_H
#define RNIC_ENGINE_ADMIN_H

#include "core/dev.h"

/* DEV_CTRL.ENABLE was set: load the rings from the latched registers. */
void rnic_admin_enable(struct rnic_dev *d);
/* Run every command posted, as far as the completion ring has room. */
void rnic_admin_process(struct rnic_dev *d);
/* Execute one command that has already been copied into device memory. */
unsigned rnic_admin_execute(struct rnic_dev *d,
                            const struct rnic_admin_cmd *cmd,
                            struct rnic_admin_cqe *cqe);

#endif
