/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Little-endian conversions for the fields of include/rnic/hw.h (the wire's
 * network order is be.h): rne_leN_to_cpu of a field as stored in guest
 * memory, rne_cpu_to_leN of a value to store there.   Built from bytes so
 * they are right on any host; compilers reduce them to plain loads and
 * stores on little-endian ones.
 */
#ifndef RNE_ENGINE_LE_H
#define RNE_ENGINE_LE_H

#include <stdint.h>
#include <string.h>

/* Value of a field as stored in guest memory (LE) -> host integer. */
static inline uint16_t rne_le16_to_cpu(uint16_t v)
{
    uint8_t b[2];

    memcpy(b, &v, sizeof(b));
    return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t rne_le32_to_cpu(uint32_t v)
{
    uint8_t b[4];

    memcpy(b, &v, sizeof(b));
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

static inline uint64_t rne_le64_to_cpu(uint64_t v)
{
    uint8_t b[8];
    uint64_t r = 0;
    int i;

    memcpy(b, &v, sizeof(b));
    for (i = 7; i >= 0; i--) {
        r = r << 8 | b[i];
    }
    return r;
}

/* Host integer -> value to store in a LE field. */
static inline uint16_t rne_cpu_to_le16(uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    uint16_t r;

    memcpy(&r, b, sizeof(r));
    return r;
}

static inline uint32_t rne_cpu_to_le32(uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                     (uint8_t)(v >> 24) };
    uint32_t r;

    memcpy(&r, b, sizeof(r));
    return r;
}

static inline uint64_t rne_cpu_to_le64(uint64_t v)
{
    uint8_t b[8];
    uint64_t r;
    int i;

    for (i = 0; i < 8; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
    memcpy(&r, b, sizeof(r));
    return r;
}

#endif
