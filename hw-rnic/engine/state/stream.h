/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The byte format of the engine state stream (docs/migration.md): a header
 * and sections of (id, version, length), every field little-endian and
 * written one by one, never a struct's memory.  The writer grows a heap
 * buffer; the reader never reads past the bytes it was given and keeps the
 * first error as a sentence.
 */
#ifndef RNE_ENGINE_STATE_STREAM_H
#define RNE_ENGINE_STATE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RNE_ST_MAGIC            0x54534e52u     /* "RNST" little-endian */
#define RNE_ST_FORMAT           1
#define RNE_ST_HDR_BYTES        8       /* magic, format, reserved */
#define RNE_ST_SEC_BYTES        8       /* id, version, length */
/* A section with this bit may be skipped by a loader that does not know it. */
#define RNE_ST_OPTIONAL         0x8000u
/* Largest stream the writer makes (the reader takes what it is given). */
#define RNE_ST_MAX_BYTES        (1ull << 34)

struct rne_sw {
    uint8_t *buf;
    size_t len, cap;
    size_t sec;                 /* offset of the open section's header */
    bool open;
    bool failed;                /* out of memory or too large */
};

void rne_sw_init(struct rne_sw *w);
void rne_sw_free(struct rne_sw *w);
void rne_sw_u8(struct rne_sw *w, uint8_t v);
void rne_sw_u16(struct rne_sw *w, uint16_t v);
void rne_sw_u32(struct rne_sw *w, uint32_t v);
void rne_sw_u64(struct rne_sw *w, uint64_t v);
void rne_sw_bytes(struct rne_sw *w, const void *p, size_t n);
/* A section; its length is filled in by rne_sw_end. */
void rne_sw_begin(struct rne_sw *w, uint16_t id, uint16_t version);
void rne_sw_end(struct rne_sw *w);

struct rne_sr {
    const uint8_t *p;
    size_t len, pos;
    char *err;                  /* the first error, owned by the caller */
    size_t errlen;
    bool failed;
};

void rne_sr_init(struct rne_sr *r, const void *p, size_t len, char *err,
                 size_t errlen);
/* Record the first error (printf-style); always returns false. */
bool rne_sr_fail(struct rne_sr *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Each getter returns false (and *v 0) once the bytes run out. */
bool rne_sr_u8(struct rne_sr *r, uint8_t *v);
bool rne_sr_u16(struct rne_sr *r, uint16_t *v);
bool rne_sr_u32(struct rne_sr *r, uint32_t *v);
bool rne_sr_u64(struct rne_sr *r, uint64_t *v);
bool rne_sr_bool(struct rne_sr *r, bool *v);
bool rne_sr_bytes(struct rne_sr *r, void *p, size_t n);
size_t rne_sr_left(const struct rne_sr *r);
/*
 * The next section header: its payload becomes sub, which shares r's error
 * buffer.  false at the end of r's bytes (not an error) or on a truncated
 * header or payload (an error).
 */
bool rne_sr_section(struct rne_sr *r, uint16_t *id, uint16_t *version,
                    struct rne_sr *sub);

#endif
