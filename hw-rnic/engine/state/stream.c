/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writer and reader of the state stream's bytes (see stream.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stream.h"

void rne_sw_init(struct rne_sw *w)
{
    memset(w, 0, sizeof(*w));
}

void rne_sw_free(struct rne_sw *w)
{
    free(w->buf);
    memset(w, 0, sizeof(*w));
}

static uint8_t *sw_room(struct rne_sw *w, size_t n)
{
    size_t cap;
    uint8_t *nb;

    if (w->failed) {
        return NULL;
    }
    if (n > RNE_ST_MAX_BYTES - w->len) {
        w->failed = true;
        return NULL;
    }
    if (w->len + n > w->cap) {
        cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n) {
            cap *= 2;
        }
        nb = realloc(w->buf, cap);
        if (!nb) {
            w->failed = true;
            return NULL;
        }
        w->buf = nb;
        w->cap = cap;
    }
    w->len += n;
    return w->buf + w->len - n;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void sw_le(struct rne_sw *w, uint64_t v, unsigned n)
{
    uint8_t *p = sw_room(w, n);

    if (p) {
        put_le(p, v, n);
    }
}

void rne_sw_u8(struct rne_sw *w, uint8_t v)
{
    sw_le(w, v, 1);
}

void rne_sw_u16(struct rne_sw *w, uint16_t v)
{
    sw_le(w, v, 2);
}

void rne_sw_u32(struct rne_sw *w, uint32_t v)
{
    sw_le(w, v, 4);
}

void rne_sw_u64(struct rne_sw *w, uint64_t v)
{
    sw_le(w, v, 8);
}

void rne_sw_bytes(struct rne_sw *w, const void *p, size_t n)
{
    uint8_t *q = sw_room(w, n);

    if (q && n) {
        memcpy(q, p, n);
    }
}

void rne_sw_begin(struct rne_sw *w, uint16_t id, uint16_t version)
{
    w->sec = w->len;
    w->open = true;
    rne_sw_u16(w, id);
    rne_sw_u16(w, version);
    rne_sw_u32(w, 0);
}

void rne_sw_end(struct rne_sw *w)
{
    size_t n;

    if (!w->open) {
        w->failed = true;
        return;
    }
    w->open = false;
    if (w->failed) {
        return;
    }
    n = w->len - w->sec - RNE_ST_SEC_BYTES;
    if (n > UINT32_MAX) {
        w->failed = true;
        return;
    }
    put_le(w->buf + w->sec + 4, n, 4);
}

void rne_sr_init(struct rne_sr *r, const void *p, size_t len, char *err,
                 size_t errlen)
{
    memset(r, 0, sizeof(*r));
    r->p = p;
    r->len = p ? len : 0;
    r->err = err;
    r->errlen = errlen;
    if (err && errlen) {
        err[0] = 0;
    }
}

bool rne_sr_fail(struct rne_sr *r, const char *fmt, ...)
{
    va_list ap;

    if (!r->failed && r->err && r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    r->failed = true;
    return false;
}

size_t rne_sr_left(const struct rne_sr *r)
{
    return r->len - r->pos;
}

static bool sr_le(struct rne_sr *r, uint64_t *v, unsigned n)
{
    unsigned i;

    *v = 0;
    if (r->failed) {
        return false;
    }
    if (rne_sr_left(r) < n) {
        return rne_sr_fail(r, "truncated: %u more bytes needed at offset "
                           "%zu of %zu", n, r->pos, r->len);
    }
    for (i = 0; i < n; i++) {
        *v |= (uint64_t)r->p[r->pos + i] << (8 * i);
    }
    r->pos += n;
    return true;
}

bool rne_sr_u8(struct rne_sr *r, uint8_t *v)
{
    uint64_t x;
    bool ok = sr_le(r, &x, 1);

    *v = (uint8_t)x;
    return ok;
}

bool rne_sr_u16(struct rne_sr *r, uint16_t *v)
{
    uint64_t x;
    bool ok = sr_le(r, &x, 2);

    *v = (uint16_t)x;
    return ok;
}

bool rne_sr_u32(struct rne_sr *r, uint32_t *v)
{
    uint64_t x;
    bool ok = sr_le(r, &x, 4);

    *v = (uint32_t)x;
    return ok;
}

bool rne_sr_u64(struct rne_sr *r, uint64_t *v)
{
    return sr_le(r, v, 8);
}

bool rne_sr_bool(struct rne_sr *r, bool *v)
{
    uint8_t x;

    *v = false;
    if (!rne_sr_u8(r, &x)) {
        return false;
    }
    if (x > 1) {
        return rne_sr_fail(r, "a flag is %u at offset %zu (0 or 1)", x,
                           r->pos - 1);
    }
    *v = x;
    return true;
}

bool rne_sr_bytes(struct rne_sr *r, void *p, size_t n)
{
    if (r->failed) {
        return false;
    }
    if (rne_sr_left(r) < n) {
        memset(p, 0, n);
        return rne_sr_fail(r, "truncated: %zu more bytes needed at offset "
                           "%zu of %zu", n, r->pos, r->len);
    }
    if (n) {
        memcpy(p, r->p + r->pos, n);
    }
    r->pos += n;
    return true;
}

bool rne_sr_section(struct rne_sr *r, uint16_t *id, uint16_t *version,
                    struct rne_sr *sub)
{
    uint32_t n;

    if (r->failed || !rne_sr_left(r)) {
        return false;
    }
    if (!rne_sr_u16(r, id) || !rne_sr_u16(r, version) ||
        !rne_sr_u32(r, &n)) {
        return false;
    }
    if (rne_sr_left(r) < n) {
        return rne_sr_fail(r, "section %u: length %u beyond the stream's "
                           "end (%zu bytes left)", *id, n, rne_sr_left(r));
    }
    rne_sr_init(sub, r->p + r->pos, n, NULL, 0);
    sub->err = r->err;
    sub->errlen = r->errlen;
    r->pos += n;
    return true;
}
