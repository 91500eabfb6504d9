/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page lists (docs/hardware-interface.md section 4) copied from the guest
 * into the device: level 1 (the pages) or level 2 (pages holding level-1
 * lists).  Each page is checked once, here; afterwards the device computes
 * addresses from its copy and never re-reads the guest's list.
 */
#ifndef RNE_ENGINE_PBL_H
#define RNE_ENGINE_PBL_H

#include <stdint.h>
#include "rnic/hw.h"
#include "host.h"

/*
 * Copy the nentries page addresses of the list at addr into out[]; every
 * page must be aligned to 1 << page_shift and inside guest RAM.  Returns an
 * RNIC_STS_* code.
 */
unsigned rne_pbl_copy(const struct rne_host *h, uint64_t addr,
                      uint32_t nentries, uint8_t levels, uint8_t page_shift,
                      uint64_t *out);

/* rne_pbl_copy() of a struct rnic_pbl that must list exactly nentries. */
unsigned rne_pbl_load(const struct rne_host *h, const struct rnic_pbl *pbl,
                      uint32_t nentries, uint64_t *out);

#endif
