// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RFC 6528 initial sequence numbers: ISN = M + F(4-tuple, secret), with M a
 * 4 µs clock taken from the caller's time and F SipHash-2-4 keyed by the
 * embedder's secret. The same keyed hash also spreads the demux table so a
 * remote peer cannot aim at one bucket.
 */
#include <string.h>
#include "tcp_int.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
    } while (0)

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

uint64_t tcp_siphash(const uint64_t key[2], const uint8_t *in, size_t len)
{
    uint64_t v0 = 0x736f6d6570736575ull ^ key[0];
    uint64_t v1 = 0x646f72616e646f6dull ^ key[1];
    uint64_t v2 = 0x6c7967656e657261ull ^ key[0];
    uint64_t v3 = 0x7465646279746573ull ^ key[1];
    uint64_t b = (uint64_t)len << 56;
    size_t i;

    for (i = 0; i + 8 <= len; i += 8) {
        uint64_t m = le64(in + i);
        v3 ^= m; SIPROUND; SIPROUND; v0 ^= m;
    }
    for (size_t j = 0; i + j < len; j++) {
        b |= (uint64_t)in[i + j] << (8 * j);
    }
    v3 ^= b; SIPROUND; SIPROUND; v0 ^= b;
    v2 ^= 0xff;
    SIPROUND; SIPROUND; SIPROUND; SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static size_t tuple_bytes(const struct rne_tcp *t, uint8_t *buf,
                          uint16_t lport,
                          const struct rne_ipaddr *raddr, uint16_t rport)
{
    size_t n = raddr->family == RNE_AF_INET ? 4 : 16;
    memcpy(buf, t->cfg.addr.u.v6, n);
    memcpy(buf + n, raddr->u.v6, n);
    rne_st_be16(buf + 2 * n, lport);
    rne_st_be16(buf + 2 * n + 2, rport);
    return 2 * n + 4;
}

uint32_t tcp_isn(struct rne_tcp *t, uint16_t lport,
                 const struct rne_ipaddr *raddr,
                 uint16_t rport)
{
    uint8_t buf[40];
    size_t n = tuple_bytes(t, buf, lport, raddr, rport);
    uint64_t key[2] = { le64(t->cfg.isn_secret), le64(t->cfg.isn_secret + 8) };
    return (uint32_t)(t->now / 4000) + (uint32_t)tcp_siphash(key, buf, n);
}

uint32_t tcp_tuple_hash(const struct rne_tcp *t,
                        const struct rne_ipaddr *raddr,
                        uint16_t lport, uint16_t rport)
{
    uint8_t buf[40];
    size_t n = tuple_bytes(t, buf, lport, raddr, rport);
    return (uint32_t)tcp_siphash(t->hash_key, buf, n);
}
