/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A region of a ring that may wrap: one or two parts (the second empty
 * unless it wraps).  TCP's send ring hands records out as spans
 * (rne_tcp_reserve) and MPA seals FPDUs in them (rne_mpa_fpdu_seal).
 */
#ifndef RNE_ENGINE_SPAN_H
#define RNE_ENGINE_SPAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rne_span { uint8_t *base; size_t len; };

/*
 * Where n octets at offset off of the two spans lie (off + n within them):
 * the first k (returned) at *a, the other n - k at *b.  k is 0 when they
 * start past span[0] (*a is NULL then); n - k is 0 unless they cross the wrap.
 */
static inline size_t rne_span_at(const struct rne_span span[2], size_t off,
                                 size_t n, uint8_t **a, uint8_t **b)
{
    if (off >= span[0].len) {
        *a = NULL;
        *b = span[1].base + (off - span[0].len);
        return 0;
    }
    *a = span[0].base + off;
    *b = span[1].base;
    return span[0].len - off < n ? span[0].len - off : n;
}

/*
 * Copy n octets to offset off of the two spans (off + n within them).
 * Inline, as rne_span_gather: both run several times per segment.
 */
static inline void rne_span_put(const struct rne_span span[2], size_t off,
                                const void *src, size_t n)
{
    uint8_t *a, *b;
    size_t k = rne_span_at(span, off, n, &a, &b);

    if (k) {
        memcpy(a, src, k);
    }
    if (n > k) {
        memcpy(b, (const uint8_t *)src + k, n - k);
    }
}

/*
 * The same from a source read by fill(ctx, src_off, dst, len): once for the
 * octets before the wrap, once for those after (src_off counts the octets
 * already filled).  0, or the first nonzero fill() result (then the second
 * part is not filled).
 */
typedef int (*rne_span_fill_fn)(void *ctx, size_t src_off, uint8_t *dst,
                                size_t len);
static inline int rne_span_gather(const struct rne_span span[2], size_t off,
                                  size_t n, rne_span_fill_fn fill, void *ctx)
{
    uint8_t *a, *b;
    size_t k = rne_span_at(span, off, n, &a, &b);
    int err = 0;

    if (k) {
        err = fill(ctx, 0, a, k);
    }
    if (!err && n > k) {
        err = fill(ctx, k, b, n - k);
    }
    return err;
}

#endif
