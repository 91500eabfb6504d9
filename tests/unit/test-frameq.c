/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's frame FIFO (engine/core/frameq.c) against a model: random puts
 * and pops of random sizes, every frame comes out whole and in order, the
 * byte and frame bounds hold, and a frame at the head is never overwritten
 * by later puts (the egress flush relies on that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/frameq.h"

static int failures;
#define CHECK(c) do { \
        if (!(c)) { \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
                    __LINE__, #c); \
            failures++; \
        } \
    } while (0)

#define MODEL_MAX 4096

static uint32_t seed = 1;

static uint32_t rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static void fill(uint8_t *b, size_t n, uint32_t id)
{
    size_t i;

    for (i = 0; i < n; i++) {
        b[i] = (uint8_t)(id * 31 + i);
    }
}

/* Bytes a frame takes in the ring: length word, frame, padding. */
static size_t rec(size_t l)
{
    return 4 + ((l + 3) & ~(size_t)3);
}

int main(void)
{
    static uint8_t buf[10000], got[10000];
    struct rne_frameq q;
    uint32_t len[MODEL_MAX], id[MODEL_MAX];
    uint32_t head = 0, n = 0, next_id = 0, step, puts = 0, fulls = 0;
    uint32_t walks = 0;
    size_t used = 0;

    CHECK(rne_frameq_init(&q, 32768, 64) == 0);
    CHECK(!rne_frameq_peek(&q, &(size_t){0}));
    for (step = 0; step < 200000; step++) {
        if (rnd() % 100 < 55) {
            size_t l = rnd() % 3 ? 1 + rnd() % 1600 : 1 + rnd() % 9300;
            bool room = rne_frameq_room(&q, l);

            fill(buf, l, next_id);
            CHECK(room == rne_frameq_put(&q, buf, l));
            if (room) {
                used += rec(l);
                len[(head + n) % MODEL_MAX] = (uint32_t)l;
                id[(head + n) % MODEL_MAX] = next_id++;
                n++;
                puts++;
                /* the head frame is intact after a put behind it */
                {
                    size_t hl = 0;
                    const uint8_t *h = rne_frameq_peek(&q, &hl);

                    fill(got, len[head], id[head]);
                    CHECK(h && hl == len[head] && !memcmp(h, got, hl));
                }
            } else {
                fulls++;
                /*
                 * Full only near the bounds: the free bytes are at most two
                 * pieces, each too small, plus what a wrap left at the end
                 * (less than one record).
                 */
                CHECK(n == 64 || used + 2 * rec(l) + rec(9300) > 32768);
            }
        } else if (n) {
            size_t l = 0;
            const uint8_t *f = rne_frameq_peek(&q, &l);

            CHECK(f && l == len[head]);
            if (f) {
                fill(got, l, id[head]);
                CHECK(!memcmp(f, got, l));
            }
            rne_frameq_pop(&q);
            used -= rec(len[head]);
            head = (head + 1) % MODEL_MAX;
            n--;
        }
        CHECK(q.count == n);
        /* Every few steps the walk sees exactly the model, oldest first. */
        if (step % 97 == 0) {
            uint32_t pos = UINT32_MAX, seen = 0;
            const uint8_t *f;
            size_t l;

            while ((f = rne_frameq_walk(&q, &pos, &seen, &l))) {
                uint32_t k = (head + seen - 1) % MODEL_MAX;

                fill(got, len[k], id[k]);
                CHECK(l == len[k] && !memcmp(f, got, l));
            }
            CHECK(seen == n);
            walks++;
        }
    }
    rne_frameq_clear(&q);
    CHECK(!q.count && rne_frameq_room(&q, 9300));
    rne_frameq_fini(&q);
    printf("test-frameq: %u frames through, %u refused as full, %u walks\n",
           puts, fulls, walks);
    if (failures) {
        printf("test-frameq: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test-frameq: all checks passed\n");
    return 0;
}
