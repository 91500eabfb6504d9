// SPDX-License-Identifier: GPL-2.0-or-later
/* CRC32c through ISA-L. See crc32c.h. */
#include <limits.h>
#include <isa-l/crc.h>
#include "crc32c.h"

uint32_t rnic_crc32c(uint32_t crc, const void *data, size_t len)
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
