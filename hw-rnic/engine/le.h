/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Little-endian accessors for the fields of include/rnic/hw.h, so the device
 * core is correct on big-endian hosts too.
 */
#ifndef RNIC_ENGINE_LE_H
#define RNIC_ENGINE_LE_H

#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RNIC_LE16(x) __builtin_bswap16(x)
#define RNIC_LE32(x) __builtin_bswap32(x)
#define RNIC_LE64(x) __builtin_bswap64(x)
#else
#define RNIC_LE16(x) ((uint16_t)(x))
#define RNIC_LE32(x) ((uint32_t)(x))
#define RNIC_LE64(x) ((uint64_t)(x))
#endif

/* The conversions are their own inverse; two names keep call sites clear. */
static inline uint16_t rnic_ld16(uint16_t v) { return RNIC_LE16(v); }
static inline uint32_t rnic_ld32(uint32_t v) { return RNIC_LE32(v); }
static inline uint64_t rnic_ld64(uint64_t v) { return RNIC_LE64(v); }
static inline uint16_t rnic_st16(uint16_t v) { return RNIC_LE16(v); }
static inline uint32_t rnic_st32(uint32_t v) { return RNIC_LE32(v); }
static inline uint64_t rnic_st64(uint64_t v) { return RNIC_LE64(v); }

#endif
