/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded frame FIFO in one byte ring (frameq.h).  Each record is a 32-bit
 * length and the frame, padded to 4 bytes.  Records lie in [head, tail)
 * or, after a wrap, in [head, wrap_at) and then [0, tail); tail never
 * catches up with head (count tells empty from full).
 */
#include <stdlib.h>
#include <string.h>
#include "frameq.h"

static uint32_t rec_size(size_t len)
{
    return 4 + (((uint32_t)len + 3) & ~3u);
}

int rne_frameq_init(struct rne_frameq *q, uint32_t size, uint32_t max)
{
    memset(q, 0, sizeof(*q));
    q->buf = malloc(size);
    if (!q->buf) {
        return -1;
    }
    q->size = size;
    q->max = max;
    rne_frameq_clear(q);
    return 0;
}

void rne_frameq_fini(struct rne_frameq *q)
{
    free(q->buf);
    q->buf = NULL;
    q->size = 0;
    q->count = 0;
}

void rne_frameq_clear(struct rne_frameq *q)
{
    q->head = q->tail = 0;
    q->wrap_at = q->size;
    q->count = 0;
}

/* Where a record of need bytes goes, or UINT32_MAX if it does not fit. */
static uint32_t place(const struct rne_frameq *q, uint32_t need)
{
    if (q->count == q->max || need > q->size) {
        return UINT32_MAX;
    }
    if (q->tail >= q->head) {
        if (q->size - q->tail >= need) {
            return q->tail;
        }
        return need < q->head ? 0 : UINT32_MAX;
    }
    return q->head - q->tail > need ? q->tail : UINT32_MAX;
}

bool rne_frameq_room(const struct rne_frameq *q, size_t len)
{
    return len <= UINT32_MAX - 8 && place(q, rec_size(len)) != UINT32_MAX;
}

bool rne_frameq_put(struct rne_frameq *q, const void *frame, size_t len)
{
    uint32_t need, at, n = (uint32_t)len;

    if (!q->buf || len > UINT32_MAX - 8) {
        return false;
    }
    need = rec_size(len);
    at = place(q, need);
    if (at == UINT32_MAX) {
        return false;
    }
    if (at == 0 && q->tail >= q->head && q->count) {
        q->wrap_at = q->tail;
    }
    memcpy(q->buf + at, &n, 4);
    memcpy(q->buf + at + 4, frame, len);
    q->tail = at + need;
    q->count++;
    return true;
}

const uint8_t *rne_frameq_peek(const struct rne_frameq *q, size_t *len)
{
    uint32_t n;

    if (!q->count) {
        return NULL;
    }
    memcpy(&n, q->buf + q->head, 4);
    *len = n;
    return q->buf + q->head + 4;
}

void rne_frameq_pop(struct rne_frameq *q)
{
    uint32_t n;

    if (!q->count) {
        return;
    }
    memcpy(&n, q->buf + q->head, 4);
    q->head += rec_size(n);
    if (!--q->count) {
        rne_frameq_clear(q);
    } else if (q->head == q->wrap_at) {
        q->head = 0;
        q->wrap_at = q->size;
    }
}

const uint8_t *rne_frameq_walk(const struct rne_frameq *q, uint32_t *pos,
                               uint32_t *n, size_t *len)
{
    uint32_t at, rl;

    if (*n >= q->count) {
        return NULL;
    }
    if (*pos == UINT32_MAX) {
        at = q->head;
    } else {
        memcpy(&rl, q->buf + *pos, 4);
        at = *pos + rec_size(rl);
        if (at == q->wrap_at) {
            at = 0;
        }
    }
    memcpy(&rl, q->buf + at, 4);
    *pos = at;
    *len = rl;
    (*n)++;
    return q->buf + at + 4;
}
