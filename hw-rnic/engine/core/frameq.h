/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded FIFO of Ethernet frames in one byte ring allocated once: the
 * device core's egress queue and its backlog of frames that arrived while
 * it was busy (dev.c).  A frame is stored whole (never split at the ring's
 * end); putting never overwrites the frame at the head, so a frame being
 * handed to the host stays valid while new ones are queued behind it.
 */
#ifndef RNIC_ENGINE_FRAMEQ_H
#define RNIC_ENGINE_FRAMEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rnic_frameq {
    uint8_t *buf;
    uint32_t size;              /* bytes of buf */
    uint32_t head, tail;        /* byte offsets of the first/next record */
    uint32_t wrap_at;           /* end of the records before a wrap to 0 */
    uint32_t count, max;        /* frames held, most allowed */
};

/* 0 on success, -1 without memory. */
int rnic_frameq_init(struct rnic_frameq *q, uint32_t size, uint32_t max);
void rnic_frameq_fini(struct rnic_frameq *q);
void rnic_frameq_clear(struct rnic_frameq *q);
/* Whether a frame of len bytes fits now. */
bool rnic_frameq_room(const struct rnic_frameq *q, size_t len);
/* false (nothing queued) if it does not fit. */
bool rnic_frameq_put(struct rnic_frameq *q, const void *frame, size_t len);
/* The oldest frame, or NULL if empty; it stays queued until _pop. */
const uint8_t *rnic_frameq_peek(const struct rnic_frameq *q, size_t *len);
void rnic_frameq_pop(struct rnic_frameq *q);
/*
 * The frame after the one at *pos (UINT32_MAX: start at the oldest), for
 * walking the queue without taking from it (the state stream); NULL after
 * the newest.  n counts the frames seen so far (start at 0).
 */
const uint8_t *rnic_frameq_walk(const struct rnic_frameq *q, uint32_t *pos,
                                uint32_t *n, size_t *len);

#endif
