// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests: Internet checksum and Ethernet/IPv4 parse/build (net.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/net.h"

#include "check.h"

/* Straightforward RFC 1071 reference. */
static uint16_t ref_csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    }
    if (n & 1) {
        s += (uint32_t)(p[n - 1] << 8);
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return (uint16_t)~s;
}

static void test_csum(void)
{
    static const uint8_t v[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
    CHECK(rne_csum_fold(rne_csum_add(0, v, 8)) == 0x220d);      /* RFC 1071 §3 example */
    uint8_t buf[4096 + 8];
    uint64_t r = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(r >> 56);
    }
    int bad = 0;
    for (size_t off = 0; off < 8; off++) {               /* unaligned starts */
        for (size_t n = 0; n <= 4096; n += (n < 80 ? 1 : 61)) {
            if (rne_csum_fold(rne_csum_add(0, buf + off, n)) != ref_csum(buf + off, n)) {
                bad++;
            }
            /* split at an even boundary gives the same result */
            size_t k = (n / 3) & ~(size_t)1;
            uint32_t s = rne_csum_add(rne_csum_add(0, buf + off, k), buf + off + k, n - k);
            if (rne_csum_fold(s) != ref_csum(buf + off, n)) {
                bad++;
            }
        }
    }
    CHECK(bad == 0);
    memset(buf, 0xff, 64);                              /* all-ones carries */
    CHECK(rne_csum_fold(rne_csum_add(0, buf, 64)) == ref_csum(buf, 64));
}

/*
 * rne_csum_copy copies exactly n octets and sums like rne_csum_add; pieces
 * summed alone combine through rne_csum_at at any (odd) offset, as the TCP
 * send ring does for records and ring wraps.
 */
static void test_csum_copy(void)
{
    uint8_t src[2048 + 8], dst[2048 + 16];
    uint64_t r = 99;
    int bad = 0;

    for (size_t i = 0; i < sizeof(src); i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        src[i] = (uint8_t)(r >> 56);
    }
    memset(src, 0xff, 40);                              /* all-ones carries */
    for (size_t off = 0; off < 8; off++) {
        for (size_t n = 0; n <= 2048; n += (n < 100 ? 1 : 37)) {
            memset(dst, 0xa5, sizeof(dst));
            uint32_t s = rne_csum_copy(dst + 1, src + off, n);
            if (rne_csum_fold(s) != ref_csum(src + off, n) ||
                memcmp(dst + 1, src + off, n) || dst[0] != 0xa5 ||
                dst[n + 1] != 0xa5) {
                bad++;
            }
            /* three pieces, the middle one at an odd offset when k is odd */
            size_t k = n / 3, m = n - n / 4;
            uint64_t t = rne_csum_at(rne_csum_copy(dst, src + off, k), 0) +
                rne_csum_at(rne_csum_copy(dst, src + off + k, m - k), k) +
                rne_csum_at(rne_csum_copy(dst, src + off + m, n - m), m);
            if (rne_csum_fold(rne_csum_fold16(t)) !=
                ref_csum(src + off, n)) {
                bad++;
            }
        }
    }
    CHECK(bad == 0);
}

static size_t mkframe(uint8_t *f, uint16_t l4len)
{
    uint8_t d[6] = { 2, 0, 0, 0, 0, 1 }, s[6] = { 2, 0, 0, 0, 0, 2 };
    uint8_t si[4] = { 10, 0, 0, 2 }, di[4] = { 10, 0, 0, 1 };
    size_t h = rne_ip4_build(f, d, s, si, di, RNE_IPPROTO_TCP, l4len, 7);
    memset(f + h, 0xab, l4len);
    return h + l4len;
}

static void reip(uint8_t *f)
{
    uint8_t *ip = f + 14;
    size_t hl = (size_t)(ip[0] & 0xf) * 4;
    rne_st_be16(ip + 10, 0);
    rne_st_be16(ip + 10, rne_csum_fold(rne_csum_add(0, ip, hl)));
}

static void test_ip4(void)
{
    uint8_t f[200];
    struct rne_ip4_pkt p;
    size_t n = mkframe(f, 40);
    CHECK(n == 74);
    CHECK(rne_ip4_parse(f, n, &p) == RNE_IP4_OK);
    CHECK(p.l4 == f + 34 && p.l4_len == 40 && p.proto == RNE_IPPROTO_TCP);
    CHECK(p.src[3] == 2 && p.dst[3] == 1 && p.src_mac[5] == 2);
    CHECK((f[20] & 0x40) != 0);                         /* DF set */
    /* Ethernet padding after the IP packet is fine */
    CHECK(rne_ip4_parse(f, n + 10, &p) == RNE_IP4_OK && p.l4_len == 40);
    /* truncated */
    CHECK(rne_ip4_parse(f, 10, &p) == RNE_IP4_SHORT);
    CHECK(rne_ip4_parse(f, 30, &p) == RNE_IP4_SHORT);
    CHECK(rne_ip4_parse(f, n - 1, &p) == RNE_IP4_BAD_LEN);
    /* not IPv4 */
    uint8_t g[200];
    memcpy(g, f, n);
    rne_st_be16(g + 12, RNE_ETHERTYPE_ARP);
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_NOT_IP);
    memcpy(g, f, n);
    g[14] = 0x65;
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_BAD_VERSION);
    memcpy(g, f, n);
    g[14] = 0x44;                                       /* IHL 4 < 5 */
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_BAD_HLEN);
    memcpy(g, f, n);
    g[14] = 0x4f;                                       /* 60-byte header, packet 60 bytes */
    rne_st_be16(g + 16, 60);
    reip(g);
    CHECK(rne_ip4_parse(g, 14 + 59, &p) == RNE_IP4_BAD_HLEN);
    memcpy(g, f, n);
    rne_st_be16(g + 16, 10);                              /* total < header */
    reip(g);
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_BAD_LEN);
    memcpy(g, f, n);
    g[22] ^= 1;                                         /* TTL changed, checksum stale */
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_BAD_CSUM);
    memcpy(g, f, n);
    rne_st_be16(g + 20, 0x2000);                          /* MF */
    reip(g);
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_FRAGMENT);
    memcpy(g, f, n);
    rne_st_be16(g + 20, 0x0010);                          /* offset 128 */
    reip(g);
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_FRAGMENT);
    memcpy(g, f, n);
    g[26] = 224;                                        /* multicast source */
    reip(g);
    CHECK(rne_ip4_parse(g, n, &p) == RNE_IP4_BAD_ADDR);
    /* options are skipped: IHL 6 with a 4-byte NOP option */
    memcpy(g, f, 34);
    g[14] = 0x46;
    rne_st_be16(g + 16, 24 + 40);
    memset(g + 34, 1, 4);
    memset(g + 38, 0xcd, 40);
    reip(g);
    CHECK(rne_ip4_parse(g, 78, &p) == RNE_IP4_OK && p.l4 == g + 38 && p.l4_len == 40);
}

static void test_addr(void)
{
    struct rne_ipaddr a, b;
    rne_ipaddr_v4(&a, 10, 0, 0, 1);
    rne_ipaddr_v4(&b, 10, 0, 0, 1);
    CHECK(rne_ipaddr_eq(&a, &b));
    b.u.v4[3] = 2;
    CHECK(!rne_ipaddr_eq(&a, &b));
    b = a;
    b.family = RNE_AF_INET6;
    CHECK(!rne_ipaddr_eq(&a, &b));
}

int main(void)
{
    test_csum();
    test_csum_copy();
    test_ip4();
    test_addr();
    return check_report("test-net");
}
