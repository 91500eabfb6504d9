// SPDX-License-Identifier: GPL-2.0-or-later
/* CRC32c bit at a time, straight from the definition (reflected polynomial
 * 0x82f63b78): the reference the ISA-L based engine code is judged against. */
#ifndef RNIC_TESTS_CRC32C_REF_H
#define RNIC_TESTS_CRC32C_REF_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t ref_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;

    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
        }
    }
    return ~c;
}

#endif
