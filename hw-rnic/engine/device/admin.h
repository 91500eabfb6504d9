/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Admin queue: bring-up from the BAR0 registers, command fetch, dispatch
 * and completion (docs/hardware-interface.md section 5).
 */
#ifndef RNE_ENGINE_ADMIN_H
#define RNE_ENGINE_ADMIN_H

#include "core/dev.h"

/* DEV_CTRL.ENABLE was set: load the rings from the latched registers. */
void rne_admin_enable(struct rne_dev *d);
/* Run every command posted, as far as the completion ring has room. */
void rne_admin_process(struct rne_dev *d);
/* Execute one command that has already been copied into device memory. */
unsigned rne_admin_execute(struct rne_dev *d,
                           const struct rnic_admin_cmd *cmd,
                           struct rnic_admin_cqe *cqe);

#endif
