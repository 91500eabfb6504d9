/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's whole state as a byte stream, for live migration and
 * snapshots (docs/migration.md): saved between device passes, loaded into a
 * freshly created engine of the same configuration.  The stream is
 * untrusted input on load: every value is checked as guest input is, and a
 * stream that fails leaves the target as it was created.
 */
#ifndef RNE_ENGINE_STATE_H
#define RNE_ENGINE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "core/dev.h"

/* Room for any error sentence of save or load. */
#define RNE_STATE_ERR_LEN       192

/*
 * Save d into *buf (malloc'd, the caller frees it) of *len bytes.  d must
 * not be running engine code (rne_dev_busy false).   0, or -1 with err
 * saying why (state this version cannot carry, no memory); d is unchanged
 * either way.
 */
int rne_state_save(struct rne_dev *d, uint8_t **buf, size_t *len,
                   char *err, size_t errlen);

/*
 * Load a stream into d, which rne_dev_init() just created with the
 * configuration the stream was saved with (its embedder's host ops and
 * guest memory in place).  0, or -1 with err saying why; then d holds no
 * object, ring or frame of the stream (as after rne_dev_init).   After a
 * load the embedder runs rne_dev_process() once if
 * rne_dev_work_pending() says so or work was latched when it was saved.
 */
int rne_state_load(struct rne_dev *d, const void *buf, size_t len,
                   char *err, size_t errlen);

#endif
