/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The connections' MPA-layer deadlines (Request/Reply timers, the nudge,
 * TIME_WAIT's linger) in a binary min-heap: the host timer's next deadline
 * is the heap's top, and a timer pass visits only the connections that are
 * due.  Every entry point of the device ends in rne_iw_rearm, so a walk
 * over all connections there made each frame cost O(connections).
 */
#include <stdlib.h>
#include "iw.h"

static uint64_t dl_at(const struct rne_iw *iw, uint32_t i)
{
    return iw->dl_heap[i]->deadline;
}

static void dl_place(struct rne_iw *iw, uint32_t i, struct rne_iw_conn *c)
{
    iw->dl_heap[i] = c;
    c->dl_idx = i;
}

static void dl_up(struct rne_iw *iw, uint32_t i)
{
    struct rne_iw_conn *c = iw->dl_heap[i];

    while (i > 0) {
        uint32_t p = (i - 1) / 2;

        if (dl_at(iw, p) <= c->deadline) {
            break;
        }
        dl_place(iw, i, iw->dl_heap[p]);
        i = p;
    }
    dl_place(iw, i, c);
}

static void dl_down(struct rne_iw *iw, uint32_t i)
{
    struct rne_iw_conn *c = iw->dl_heap[i];

    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = l;

        if (l >= iw->dl_n) {
            break;
        }
        if (r < iw->dl_n && dl_at(iw, r) < dl_at(iw, l)) {
            m = r;
        }
        if (dl_at(iw, m) >= c->deadline) {
            break;
        }
        dl_place(iw, i, iw->dl_heap[m]);
        i = m;
    }
    dl_place(iw, i, c);
}

static void dl_remove(struct rne_iw *iw, struct rne_iw_conn *c)
{
    struct rne_iw_conn *moved;
    uint32_t i = c->dl_idx;

    c->dl_idx = RNE_IW_NO_DL;
    if (i == --iw->dl_n) {
        return;
    }
    moved = iw->dl_heap[iw->dl_n];
    dl_place(iw, i, moved);
    dl_down(iw, i);
    dl_up(iw, moved->dl_idx);
}

void rne_iw_set_deadline(struct rne_iw *iw, struct rne_iw_conn *c,
                         uint64_t when)
{
    c->deadline = when;
    /* freed (on the gone list): in no table, its memory soon gone */
    if (iw->conn[c->id] != c) {
        return;
    }
    if (when == UINT64_MAX) {
        if (c->dl_idx != RNE_IW_NO_DL) {
            dl_remove(iw, c);
        }
        return;
    }
    if (c->dl_idx == RNE_IW_NO_DL) {
        dl_place(iw, iw->dl_n++, c);
    }
    dl_down(iw, c->dl_idx);
    dl_up(iw, c->dl_idx);
}

uint64_t rne_iw_next_deadline(const struct rne_iw *iw)
{
    return iw->dl_n ? iw->dl_heap[0]->deadline : UINT64_MAX;
}

/* Every connection in the heap below i that is due at now, into out[]. */
static uint32_t dl_collect(const struct rne_iw *iw, uint32_t i, uint64_t now,
                           struct rne_iw_conn **out, uint32_t n)
{
    if (i >= iw->dl_n || dl_at(iw, i) > now) {
        return n;
    }
    out[n++] = iw->dl_heap[i];
    n = dl_collect(iw, 2 * i + 1, now, out, n);
    return dl_collect(iw, 2 * i + 2, now, out, n);
}

/* The live list's order, last first: the order the timer always used. */
static int by_live_desc(const void *a, const void *b)
{
    const struct rne_iw_conn *x = *(struct rne_iw_conn *const *)a;
    const struct rne_iw_conn *y = *(struct rne_iw_conn *const *)b;

    return x->live_idx < y->live_idx ? 1 : x->live_idx > y->live_idx ? -1 : 0;
}

void rne_iw_deadlines_run(struct rne_dev *d, uint64_t now)
{
    struct rne_iw *iw = d->iw;
    uint32_t n, i;

    n = dl_collect(iw, 0, now, iw->dl_due, 0);
    qsort(iw->dl_due, n, sizeof(*iw->dl_due), by_live_desc);
    for (i = 0; i < n; i++) {
        struct rne_iw_conn *c = iw->dl_due[i];

        /* an earlier handler may have freed c (its memory stays) or moved it */
        if (c->dl_idx == RNE_IW_NO_DL || c->deadline > now) {
            continue;
        }
        rne_iw_set_deadline(iw, c, UINT64_MAX);
        rne_iw_cm_timer(d, c, now);
    }
}
