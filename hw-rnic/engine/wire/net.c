// SPDX-License-Identifier: GPL-2.0-or-later
/* Ethernet / IPv4 parse and build, Internet checksum (RFC 1071). */
#include <string.h>
#include "net.h"

void rne_ipaddr_v4(struct rne_ipaddr *a, uint8_t b0, uint8_t b1, uint8_t b2,
                   uint8_t b3)
{
    memset(a, 0, sizeof(*a));
    a->family = RNE_AF_INET;
    a->u.v4[0] = b0; a->u.v4[1] = b1; a->u.v4[2] = b2; a->u.v4[3] = b3;
}

bool rne_ipaddr_eq(const struct rne_ipaddr *a, const struct rne_ipaddr *b)
{
    if (a->family != b->family) {
        return false;
    }
    return a->family == RNE_AF_INET ? !memcmp(a->u.v4, b->u.v4, 4)
                                     : !memcmp(a->u.v6, b->u.v6, 16);
}

/*
 * Checksums run over every payload byte twice per frame (TX build, RX
 * verify), so the bulk is summed 32 octets at a time: with AVX2 where the
 * CPU has it (checked at run time), else with 64-bit scalar words. Both add
 * 32-bit words in native byte order into 64-bit lanes (carries pile up in
 * the high halves, no data-dependent branches); csum_tail() folds and swaps.
 * dst, if not NULL, gets a copy of the octets in the same pass.
 */
#ifdef RNE_CSUM_AVX2          /* x86-64, set by meson */
#include <immintrin.h>

__attribute__((target("avx2")))
static uint64_t words_avx2(uint8_t *dst, const uint8_t *src, size_t n)
{
    __m256i z = _mm256_setzero_si256(), a0 = z, a1 = z;
    uint64_t t[4];
    size_t i;

    if (dst) {
        for (i = 0; i < n; i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
            _mm256_storeu_si256((__m256i *)(dst + i), v);
            a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(v, z));
            a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(v, z));
        }
    } else {
        for (i = 0; i < n; i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
            a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(v, z));
            a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(v, z));
        }
    }
    _mm256_storeu_si256((__m256i *)t, _mm256_add_epi64(a0, a1));
    return t[0] + t[1] + t[2] + t[3];
}
#define HAVE_AVX2() __builtin_cpu_supports("avx2")
#else
#define HAVE_AVX2() 0
static uint64_t words_avx2(uint8_t *dst, const uint8_t *src, size_t n)
{
    (void)dst; (void)src; (void)n;
    return 0;
}
#endif

static uint64_t words_scalar(uint8_t *dst, const uint8_t *src, size_t n)
{
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t i;

    for (i = 0; i < n; i += 32) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, src + i, 8); memcpy(&w1, src + i + 8, 8);
        memcpy(&w2, src + i + 16, 8); memcpy(&w3, src + i + 24, 8);
        if (dst) {
            memcpy(dst + i, &w0, 8); memcpy(dst + i + 8, &w1, 8);
            memcpy(dst + i + 16, &w2, 8); memcpy(dst + i + 24, &w3, 8);
        }
        a0 += (w0 & 0xffffffffu) + (w0 >> 32);
        a1 += (w1 & 0xffffffffu) + (w1 >> 32);
        a2 += (w2 & 0xffffffffu) + (w2 >> 32);
        a3 += (w3 & 0xffffffffu) + (w3 >> 32);
    }
    return a0 + a1 + a2 + a3;
}

/* The sum (plus sum) of all len octets; bulk first, then the tail. */
static uint32_t csum_run(uint32_t sum, uint8_t *dst, const uint8_t *p,
                         size_t len)
{
    size_t bulk = len & ~(size_t)31;
    uint64_t nat = !bulk ? 0 : HAVE_AVX2() ? words_avx2(dst, p, bulk) :
                   words_scalar(dst, p, bulk);    /* headers: often none */
    uint64_t acc = sum;

    p += bulk;
    dst = dst ? dst + bulk : NULL;
    len -= bulk;
    while (len >= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        if (dst) {
            memcpy(dst, &w, 4);
            dst += 4;
        }
        nat += w;
        p += 4; len -= 4;
    }
    /*
     * nat holds a native-order sum; one's-complement sums are byte-order
     * independent up to a final swap, so fold to 16 bits and swap if we are
     * little-endian.
     */
    {
        uint16_t x = (uint16_t)rne_csum_fold16(nat);
        const uint8_t *xb = (const uint8_t *)&x;
        acc += (uint16_t)(xb[0] << 8 | xb[1]);
    }
    while (len >= 2) {
        if (dst) {
            dst[0] = p[0];
            dst[1] = p[1];
            dst += 2;
        }
        acc += (uint16_t)(p[0] << 8 | p[1]);
        p += 2; len -= 2;
    }
    if (len) {
        if (dst) {
            dst[0] = p[0];
        }
        acc += (uint16_t)(p[0] << 8);
    }
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffffffu) + (acc >> 32);
    return (uint32_t)acc;
}

uint32_t rne_csum_add(uint32_t sum, const void *data, size_t len)
{
    return csum_run(sum, NULL, data, len);
}

uint32_t rne_csum_copy(void *dst, const void *src, size_t len)
{
    return csum_run(0, dst, src, len);
}

uint16_t rne_csum_fold(uint32_t sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

uint32_t rne_csum_pseudo4(const uint8_t *src, const uint8_t *dst,
                          uint8_t proto, uint16_t len)
{
    uint32_t s = 0;
    s += rne_ld_be16(src) + rne_ld_be16(src + 2);
    s += rne_ld_be16(dst) + rne_ld_be16(dst + 2);
    s += proto;
    s += len;
    return s;
}

enum rne_ip4_err rne_ip4_parse(const uint8_t *frame, size_t len,
                               struct rne_ip4_pkt *out)
{
    size_t l2 = RNE_ETH_HLEN;
    uint16_t tci = 0;
    bool tagged = false;

    if (len < RNE_ETH_HLEN) {
        return RNE_IP4_SHORT;
    }
    if (rne_ld_be16(frame + 12) == RNE_ETHERTYPE_VLAN) {
        if (len < RNE_ETH_HLEN + RNE_VLAN_HLEN) {
            return RNE_IP4_SHORT;
        }
        tagged = true;
        tci = rne_ld_be16(frame + 14);
        l2 += RNE_VLAN_HLEN;
    }
    if (rne_ld_be16(frame + l2 - 2) != RNE_ETHERTYPE_IP) {
        return RNE_IP4_NOT_IP;
    }
    const uint8_t *ip = frame + l2;
    size_t avail = len - l2;
    if (avail < RNE_IP4_HLEN) {
        return RNE_IP4_SHORT;
    }
    if ((ip[0] >> 4) != 4) {
        return RNE_IP4_BAD_VERSION;
    }
    size_t hlen = (size_t)(ip[0] & 0xf) * 4;
    if (hlen < RNE_IP4_HLEN || hlen > avail) {
        return RNE_IP4_BAD_HLEN;
    }
    size_t tot = rne_ld_be16(ip + 2);
    /*
     * Ethernet may pad short frames, so the frame may exceed total length,
     * never the reverse.
     */
    if (tot < hlen || tot > avail) {
        return RNE_IP4_BAD_LEN;
    }
    if (rne_csum_fold(rne_csum_add(0, ip, hlen)) != 0) {
        return RNE_IP4_BAD_CSUM;
    }
    uint16_t frag = rne_ld_be16(ip + 6);
    if (frag & 0x3fff) {        /* MF set or offset != 0 */
        return RNE_IP4_FRAGMENT;
    }
    if (ip[12] >= 224 ||
        (ip[12] == 0 && ip[13] == 0 && ip[14] == 0 && ip[15] == 0) ||
        (ip[12] == 255 && ip[13] == 255 && ip[14] == 255 && ip[15] == 255) ||
        ip[16] >= 224) {
        return RNE_IP4_BAD_ADDR;
    }
    out->eth = frame;
    out->ip = ip;
    out->l4 = ip + hlen;
    out->l4_len = (uint16_t)(tot - hlen);
    out->proto = ip[9];
    memcpy(out->src, ip + 12, 4);
    memcpy(out->dst, ip + 16, 4);
    memcpy(out->src_mac, frame + 6, RNE_ETH_ALEN);
    out->tagged = tagged;
    out->tci = tci;
    return RNE_IP4_OK;
}

size_t rne_ip4_build(uint8_t *frame, const uint8_t *dmac, const uint8_t *smac,
                     const uint8_t *src, const uint8_t *dst, uint8_t proto,
                     uint16_t l4_len, uint16_t id)
{
    return rne_ip4_build_vlan(frame, dmac, smac, RNE_NO_VLAN, src, dst,
                              proto, l4_len, id);
}

size_t rne_ip4_build_vlan(uint8_t *frame, const uint8_t *dmac,
                          const uint8_t *smac, int32_t tci,
                          const uint8_t *src, const uint8_t *dst,
                          uint8_t proto, uint16_t l4_len, uint16_t id)
{
    size_t l2 = RNE_ETH_HLEN;

    memcpy(frame, dmac, RNE_ETH_ALEN);
    memcpy(frame + 6, smac, RNE_ETH_ALEN);
    if (tci != RNE_NO_VLAN) {
        rne_st_be16(frame + 12, RNE_ETHERTYPE_VLAN);
        rne_st_be16(frame + 14, (uint16_t)tci);
        l2 += RNE_VLAN_HLEN;
    }
    rne_st_be16(frame + l2 - 2, RNE_ETHERTYPE_IP);
    uint8_t *ip = frame + l2;
    /*
     * The header's 16-bit words, written and summed from these values, not
     * read back: loads spanning the stores just made cannot be forwarded and
     * stall (once per frame).
     */
    uint16_t ver_tos = 0x45 << 8, tot = (uint16_t)(RNE_IP4_HLEN + l4_len);
    uint16_t frag = 0x4000;     /* DF: we do PMTU via EMSS, never fragment */
    uint16_t ttl_proto = (uint16_t)(64 << 8 | proto);
    uint32_t sum = (uint32_t)ver_tos + tot + id + frag + ttl_proto +
                   rne_ld_be16(src) + rne_ld_be16(src + 2) +
                   rne_ld_be16(dst) + rne_ld_be16(dst + 2);

    rne_st_be16(ip, ver_tos);
    rne_st_be16(ip + 2, tot);
    rne_st_be16(ip + 4, id);
    rne_st_be16(ip + 6, frag);
    rne_st_be16(ip + 8, ttl_proto);
    rne_st_be16(ip + 10, rne_csum_fold(sum));
    memcpy(ip + 12, src, 4);
    memcpy(ip + 16, dst, 4);
    return l2 + RNE_IP4_HLEN;
}
