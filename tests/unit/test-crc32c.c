// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: CRC32c against RFC 3720 B.4 and a bitwise reference. Built twice:
 * test-crc32c (ISA-L, or QEMU's without libisal), test-crc32c-qemu (QEMU's).
 */
#include <stdio.h>
#include <string.h>
#include "wire/crc32c.h"

#include "check.h"
#include "crc32c-ref.h"


static void test_rfc3720_vectors(void)
{
    uint8_t b[48];
    uint8_t wire[4];

    memset(b, 0, 32);
    CHECK(rne_crc32c(0, b, 32) == 0x8a9136aa);
    rne_crc32c_put(wire, rne_crc32c(0, b, 32));
    CHECK(memcmp(wire, "\xaa\x36\x91\x8a", 4) == 0);    /* as RFC 3720 prints it */
    memset(b, 0xff, 32);
    CHECK(rne_crc32c(0, b, 32) == 0x62a8ab43);
    for (int i = 0; i < 32; i++) {
        b[i] = (uint8_t)i;
    }
    CHECK(rne_crc32c(0, b, 32) == 0x46dd794e);
    for (int i = 0; i < 32; i++) {
        b[i] = (uint8_t)(31 - i);
    }
    CHECK(rne_crc32c(0, b, 32) == 0x113fdb5c);
    /* B.4 "An iSCSI - SCSI Read (10) Command PDU" */
    static const uint8_t pdu[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    CHECK(rne_crc32c(0, pdu, sizeof(pdu)) == 0xd9963a56);
    rne_crc32c_put(wire, rne_crc32c(0, pdu, sizeof(pdu)));
    CHECK(memcmp(wire, "\x56\x3a\x96\xd9", 4) == 0);
    CHECK(rne_crc32c_get(wire) == 0xd9963a56);
    CHECK(rne_crc32c(0, "123456789", 9) == 0xe3069283);  /* CRC-32/ISCSI check value */
    CHECK(rne_crc32c(0, NULL, 0) == 0);
}

static void test_reference_and_chaining(void)
{
    static uint8_t buf[70000];
    uint64_t r = 99;
    for (size_t i = 0; i < sizeof(buf); i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(r >> 56);
    }
    int bad = 0, badchain = 0;
    for (size_t off = 0; off < 16; off++) {
        for (size_t n = 0; n < 2000; n += (n < 100 ? 1 : 97)) {
            uint32_t want = ref_crc32c(buf + off, n);
            bad += rne_crc32c(0, buf + off, n) != want;
            size_t cut = n / 3;
            uint32_t c = rne_crc32c(0, buf + off, cut);
            c = rne_crc32c(c, buf + off + cut, n - cut);
            badchain += c != want;
        }
    }
    CHECK(bad == 0);
    CHECK(badchain == 0);
    CHECK(rne_crc32c(0, buf, sizeof(buf)) == ref_crc32c(buf, sizeof(buf)));
    /* Receiver shortcut: CRC over data + its own LE CRC is the constant residue. */
    uint8_t tmp[68];
    memcpy(tmp, buf, 64);
    rne_crc32c_put(tmp + 64, rne_crc32c(0, tmp, 64));
    CHECK(rne_crc32c(0, tmp, 68) == 0x48674bc7);
}

int main(void)
{
    test_rfc3720_vectors();
    test_reference_and_chaining();
    return check_report("test-crc32c");
}
