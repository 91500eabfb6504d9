// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CRC32c (Castagnoli, CRC-32/ISCSI) for the MPA FPDU CRC (RFC 5044),
 * computed by ISA-L's crc32_iscsi (SIMD/PCLMUL dispatched at run time), or by
 * QEMU's crc32c() where libisal is absent (crc32c.c, RNE_CRC32C_QEMU).
 *
 * Values are the conventional finished CRC (init ~0, reflected, xorout ~0):
 * rne_crc32c(0, "123456789", 9) == 0xe3069283. The running value chains
 * like zlib's crc32(): crc = rne_crc32c(rne_crc32c(0, a, n), b, m) is the
 * CRC of a||b. On the wire MPA stores it least significant byte first.
 */
#ifndef RNE_CRC32C_H
#define RNE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t rne_crc32c(uint32_t crc, const void *data, size_t len);

#ifdef RNE_CRC32C_QEMU
/*
 * QEMU's util/crc32c.c, declared as its include/qemu/crc32c.h does: the
 * engine includes no QEMU header (it is built outside QEMU too).
 */
uint32_t crc32c(uint32_t crc, const uint8_t *data, unsigned int length);
#endif

static inline void rne_crc32c_put(uint8_t *p, uint32_t crc)
{
    p[0] = (uint8_t)crc;
    p[1] = (uint8_t)(crc >> 8);
    p[2] = (uint8_t)(crc >> 16);
    p[3] = (uint8_t)(crc >> 24);
}

static inline uint32_t rne_crc32c_get(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

#endif
