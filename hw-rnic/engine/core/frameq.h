/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded FIFO of Ethernet frames in one byte ring allocated once: the
 * device core's egress queue and its backlog of frames that arrived while
 * it was busy (dev.c).  A frame is stored whole (never split at the ring's
 * end); putting never overwrites the frame at the head, so a frame being
 * handed to the host stays valid while new ones are queued behind it.
 */
#ifndef RNE_ENGINE_FRAMEQ_H
#define RNE_ENGINE_FRAMEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rne_frameq {
    uint8_t *buf;
    uint32_t size;              /* bytes of buf */
    uint32_t head, tail;        /* byte offsets of the first/next record */
    uint32_t wrap_at;           /* end of the records before a wrap to 0 */
    uint32_t count, max;        /* frames held, most allowed */
};

/* 0 on success, -1 without memory. */
int rne_frameq_init(struct rne_frameq *q, uint32_t size, uint32_t max);
void rne_frameq_fini(struct rne_frameq *q);
void rne_frameq_clear(struct rne_frameq *q);
/* Whether a frame of len bytes fits now. */
bool rne_frameq_room(const struct rne_frameq *q, size_t len);
/* false (nothing queued) if it does not fit. */
bool rne_frameq_put(struct rne_frameq *q, const void *frame, size_t len);
/* The oldest frame, or NULL if empty; it stays queued until _pop. */
const uint8_t *rne_frameq_peek(const struct rne_frameq *q, size_t *len);
void rne_frameq_pop(struct rne_frameq *q);
/*
 * The frame after the one at *pos (UINT32_MAX: start at the oldest), for
 * walking the queue without taking from it (the state stream); NULL after
 * the newest.  n counts the frames seen so far (start at 0).
 */
const uint8_t *rne_frameq_walk(const struct rne_frameq *q, uint32_t *pos,
                               uint32_t *n, size_t *len);

#endif
