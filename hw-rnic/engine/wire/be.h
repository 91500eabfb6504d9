/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Big-endian (network order) loads and stores of the wire's headers
 * (Ethernet, IPv4, TCP, MPA, DDP, RDMAP).  The wire is unaligned, so they go
 * through bytes.  Fields of include/rnic/hw.h are little-endian: le.h.
 */
#ifndef RNE_ENGINE_BE_H
#define RNE_ENGINE_BE_H

#include <stdint.h>

static inline uint16_t rne_ld_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rne_ld_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static inline uint64_t rne_ld_be64(const uint8_t *p)
{
    return (uint64_t)rne_ld_be32(p) << 32 | rne_ld_be32(p + 4);
}

static inline void rne_st_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = (uint8_t)v;
}

static inline void rne_st_be32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void rne_st_be64(uint8_t *p, uint64_t v)
{
    rne_st_be32(p, (uint32_t)(v >> 32));
    rne_st_be32(p + 4, (uint32_t)v);
}

#endif
