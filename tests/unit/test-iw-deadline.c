// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The connections' MPA-timer heap (hw-rnic/engine/iwarp/iw_deadline.c):
 * random deadlines set, moved, cleared and connections unlisted, against
 * a plain scan of every connection after each step: the top is the
 * earliest deadline, each listed connection with a deadline is in the heap
 * exactly once at the index it records, and one without is in none.
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iwarp/iw.h"
#include "splitmix64.h"

#define NCONN 512

static struct rne_iw iw;
static struct rne_iw_conn conns[NCONN];

/* The heap against a scan: one CHECK per property, not per connection. */
static void check_heap(void)
{
    uint64_t min = UINT64_MAX;
    uint32_t n = 0, i;
    bool idx_ok = true, order_ok = true, out_ok = true;

    for (i = 0; i < NCONN; i++) {
        struct rne_iw_conn *c = &conns[i];

        if (iw.conn[i] != c || c->deadline == UINT64_MAX) {
            out_ok &= c->dl_idx == RNE_IW_NO_DL;
            continue;
        }
        n++;
        min = c->deadline < min ? c->deadline : min;
        idx_ok &= c->dl_idx < iw.dl_n && iw.dl_heap[c->dl_idx] == c;
    }
    for (i = 1; i < iw.dl_n; i++) {
        order_ok &= iw.dl_heap[(i - 1) / 2]->deadline <=
                    iw.dl_heap[i]->deadline;
    }
    CHECK(n == iw.dl_n);
    CHECK(idx_ok);
    CHECK(out_ok);
    CHECK(order_ok);
    CHECK(rne_iw_next_deadline(&iw) == min);
}

int main(void)
{
    struct rne_iw_conn *slot[NCONN], *heap[NCONN];
    uint64_t rng = 18;
    uint32_t i, step;

    memset(&iw, 0, sizeof(iw));
    iw.conn = slot;
    iw.dl_heap = heap;
    for (i = 0; i < NCONN; i++) {
        conns[i].id = i;
        conns[i].deadline = UINT64_MAX;
        conns[i].dl_idx = RNE_IW_NO_DL;
        slot[i] = &conns[i];
    }
    CHECK(rne_iw_next_deadline(&iw) == UINT64_MAX);
    for (step = 0; step < 20000; step++) {
        uint64_t r = splitmix64_next(&rng);
        struct rne_iw_conn *c = &conns[r % NCONN];
        /* few distinct values: ties are the common case of a burst */
        uint64_t when = 1000 + (r >> 32) % 64;

        switch ((r >> 16) % 8) {
        case 0:
        case 1:
            rne_iw_set_deadline(&iw, c, UINT64_MAX);
            break;
        case 2:
            /* unlisted (freed, still held by a handler): left out */
            if (iw.conn[c->id] == c) {
                rne_iw_set_deadline(&iw, c, UINT64_MAX);
                iw.conn[c->id] = NULL;
            } else {
                iw.conn[c->id] = c;
            }
            rne_iw_set_deadline(&iw, c, when);
            break;
        default:
            rne_iw_set_deadline(&iw, c, when);
            break;
        }
        check_heap();
        if (fails) {
            break;
        }
    }
    /* drain in order: each top is the minimum, then cleared */
    {
        uint64_t last = 0;
        bool sorted = true;

        while (iw.dl_n) {
            struct rne_iw_conn *c = iw.dl_heap[0];

            sorted &= c->deadline >= last;
            last = c->deadline;
            rne_iw_set_deadline(&iw, c, UINT64_MAX);
        }
        CHECK(sorted);
        check_heap();
    }
    return check_report("test-iw-deadline");
}
