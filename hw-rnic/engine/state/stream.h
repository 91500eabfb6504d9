/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The byte format of the engine state stream (docs/migration.md): a header
 * and sections of (id, version, length), every field little-endian and
 * written one by one, never a struct's memory.  The writer grows a heap
 * buffer; the reader never reads past the bytes it was given and keeps the
 * first error as a sentence.
 */
#ifndef RNIC_ENGINE_STATE_STREAM_H
#define RNIC_ENGINE_STATE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RNIC_ST_MAGIC           0x54534e52u     /* "RNST" little-endian */
#define RNIC_ST_FORMAT          1
#define RNIC_ST_HDR_BYTES       8       /* magic, format, reserved */
#define RNIC_ST_SEC_BYTES       8       /* id, version, length */
/* A section with this bit may be skipped by a loader that does not know it. */
#define RNIC_ST_OPTIONAL        0x8000u
/* Largest stream the writer makes (the reader takes what it is given). */
#define RNIC_ST_MAX_BYTES       (1ull << 34)

struct rnic_sw {
    uint8_t *buf;
    size_t len, cap;
    size_t sec;                 /* offset of the open section's header */
    bool open;
    bool failed;                /* out of memory or too large */
};

void rnic_sw_init(struct rnic_sw *w);
void rnic_sw_free(struct rnic_sw *w);
void rnic_sw_u8(struct rnic_sw *w, uint8_t v);
void rnic_sw_u16(struct rnic_sw *w, uint16_t v);
void rnic_sw_u32(struct rnic_sw *w, uint32_t v);
void rnic_sw_u64(struct rnic_sw *w, uint64_t v);
void rnic_sw_bytes(struct rnic_sw *w, const void *p, size_t n);
/* A section; its length is filled in by rnic_sw_end. */
void rnic_sw_begin(struct rnic_sw *w, uint16_t id, uint16_t version);
void rnic_sw_end(struct rnic_sw *w);

struct rnic_sr {
    const uint8_t *p;
    size_t len, pos;
    char *err;                  /* the first error, owned by the caller */
    size_t errlen;
    bool failed;
};

void rnic_sr_init(struct rnic_sr *r, const void *p, size_t len, char *err,
                  size_t errlen);
/* Record the first error (printf-style); always returns false. */
bool rnic_sr_fail(struct rnic_sr *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Each getter returns false (and *v 0) once the bytes run out. */
bool rnic_sr_u8(struct rnic_sr *r, uint8_t *v);
bool rnic_sr_u16(struct rnic_sr *r, uint16_t *v);
bool rnic_sr_u32(struct rnic_sr *r, uint32_t *v);
bool rnic_sr_u64(struct rnic_sr *r, uint64_t *v);
bool rnic_sr_bool(struct rnic_sr *r, bool *v);
bool rnic_sr_bytes(struct rnic_sr *r, void *p, size_t n);
size_t rnic_sr_left(const struct rnic_sr *r);
/*
 * The next section header: its payload becomes sub, which shares r's error
 * buffer.  false at the end of r's bytes (not an error) or on a truncated
 * header or payload (an error).
 */
bool rnic_sr_section(struct rnic_sr *r, uint16_t *id, uint16_t *version,
                     struct rnic_sr *sub);

#endif
