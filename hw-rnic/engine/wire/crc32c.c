// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CRC32c for MPA. See crc32c.h. ISA-L's crc32_iscsi (SIMD, dispatched at run
 * time) by default; built with RNE_CRC32C_QEMU (QEMU without libisal) it is
 * QEMU's own table-driven crc32c() from util/crc32c.c.
 */
#ifndef RNE_CRC32C_QEMU
#include <isa-l/crc.h>
#endif
#include <limits.h>
#include "crc32c.h"

#ifdef RNE_CRC32C_QEMU
uint32_t rne_crc32c(uint32_t crc, const void *data, size_t len)
{
    /*
     * QEMU's crc32c() takes the raw register (callers start it at ~0) and
     * returns it inverted; keep the register here between chunks.
     */
    const uint8_t *p = data;
    uint32_t reg = ~crc;

    while (len > 0) {
        unsigned int n = len > UINT_MAX ? UINT_MAX : (unsigned int)len;

        reg = ~crc32c(reg, p, n);
        p += n;
        len -= n;
    }
    return ~reg;
}
#else
uint32_t rne_crc32c(uint32_t crc, const void *data, size_t len)
{
    /*
     * crc32_iscsi() neither pre- nor post-inverts: it runs the reflected
     * register from init_crc and returns it. The CRC-32C convention starts
     * the register at ~0 and inverts the result, so invert around it; a
     * finished value fed back in restores the register (chaining).
     */
    /* ISA-L takes non-const */
    unsigned char *p = (unsigned char *)(uintptr_t)data;
    uint32_t reg = ~crc;

    while (len > 0) {
        int n = len > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)len;
        reg = crc32_iscsi(p, n, reg);
        p += n;
        len -= (size_t)n;
    }
    return ~reg;
}
#endif
