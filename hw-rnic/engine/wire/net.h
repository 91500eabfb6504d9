// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ethernet / IPv4 framing and Internet checksums for the offload TCP.
 * Pure functions over byte buffers: no allocation, no state.
 */
#ifndef RNE_NET_H
#define RNE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "be.h"

#define RNE_ETH_HLEN       14
#define RNE_VLAN_HLEN      4           /* one 802.1Q tag */
#define RNE_ETHERTYPE_VLAN 0x8100
#define RNE_VLAN_VID(tci) ((tci) & 0x0fff)
/* no 802.1Q tag: a TCI argument beyond the 16 bits of a real one */
#define RNE_NO_VLAN        (-1)
#define RNE_ETH_ALEN       6
#define RNE_ETHERTYPE_IP   0x0800
#define RNE_ETHERTYPE_ARP 0x0806
#define RNE_ETHERTYPE_IP6 0x86dd
#define RNE_IP4_HLEN       20
#define RNE_IPPROTO_TCP    6

/*
 * Address of either family; IPv6 is parsed nowhere yet but the type is ready.
 */
struct rne_ipaddr {
    uint8_t family;             /* RNE_AF_INET or RNE_AF_INET6 */
    uint8_t pad[3];
    union {
        uint8_t v4[4];          /* network byte order */
        uint8_t v6[16];
    } u;
};
#define RNE_AF_INET   4
#define RNE_AF_INET6 6

void rne_ipaddr_v4(struct rne_ipaddr *a, uint8_t b0, uint8_t b1, uint8_t b2,
                   uint8_t b3);
bool rne_ipaddr_eq(const struct rne_ipaddr *a, const struct rne_ipaddr *b);

/*
 * One's-complement sum. rne_csum_add() returns an unfolded 32-bit partial sum
 * of the bytes taken as big-endian 16-bit words; odd-length pieces are only
 * allowed as the last piece. rne_csum_fold() gives the final checksum field.
 */
uint32_t rne_csum_add(uint32_t sum, const void *data, size_t len);
uint16_t rne_csum_fold(uint32_t sum);
/*
 * Copy len bytes from src to dst and return rne_csum_add(0, src, len): one
 * pass over the data where a copy and a checksum pass would take two.
 */
uint32_t rne_csum_copy(void *dst, const void *src, size_t len);

/* Fold a partial sum to 16 bits (not complemented). */
static inline uint32_t rne_csum_fold16(uint64_t sum)
{
    sum = (sum & 0xffffffffu) + (sum >> 32);
    sum = (sum & 0xffffffffu) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint32_t)((sum & 0xffff) + (sum >> 16));
}

/*
 * The contribution of a piece summed on its own (as if it started the data)
 * that actually starts at offset off: at an odd offset its bytes sit in the
 * other halves of the 16-bit words, which swaps the folded sum (RFC 1071).
 */
static inline uint32_t rne_csum_at(uint32_t sum, size_t off)
{
    uint32_t s;

    if (!(off & 1)) {
        return sum;
    }
    s = rne_csum_fold16(sum);
    return (s >> 8 | s << 8) & 0xffff;
}
/* Partial sum of the IPv4 pseudo header for a TCP/UDP checksum. */
uint32_t rne_csum_pseudo4(const uint8_t *src, const uint8_t *dst,
                          uint8_t proto, uint16_t len);

/* A parsed, validated IPv4 packet inside an Ethernet frame. */
struct rne_ip4_pkt {
    const uint8_t *eth;         /* start of frame */
    const uint8_t *ip;          /* IPv4 header */
    const uint8_t *l4;          /* payload after IP options */
    uint16_t l4_len;            /* from IP total length, not the frame size */
    uint8_t proto;
    uint8_t src[4], dst[4];
    uint8_t src_mac[RNE_ETH_ALEN];
    bool tagged;                /* one 802.1Q tag before the IPv4 header */
    uint16_t tci;               /* its TCI (PCP, DEI, VID); 0 untagged */
};

enum rne_ip4_err {
    RNE_IP4_OK = 0,
    RNE_IP4_SHORT,              /* frame shorter than the headers it claims */
    /* other ethertype (ARP etc.): the embedder's business */
    RNE_IP4_NOT_IP,
    RNE_IP4_BAD_VERSION,
    RNE_IP4_BAD_HLEN,
    RNE_IP4_BAD_LEN,
    RNE_IP4_BAD_CSUM,
    /* fragments are rejected: we never send DF=0 either */
    RNE_IP4_FRAGMENT,
    RNE_IP4_BAD_ADDR,           /* broadcast/multicast/zero source */
};

/*
 * Validate Ethernet (looked through one 802.1Q tag) + IPv4 headers; IP
 * options are skipped (not interpreted).
 */
enum rne_ip4_err rne_ip4_parse(const uint8_t *frame, size_t len,
                               struct rne_ip4_pkt *out);

/*
 * Write Ethernet + 20-byte IPv4 header (DF set, TTL 64) for an L4 payload of
 * l4_len bytes; returns the header length (34). id is the IP identification.
 */
size_t rne_ip4_build(uint8_t *frame, const uint8_t *dmac, const uint8_t *smac,
                     const uint8_t *src, const uint8_t *dst, uint8_t proto,
                     uint16_t l4_len, uint16_t id);
/*
 * The same with one 802.1Q tag carrying tci after the MACs (RNE_NO_VLAN:
 * none, as rne_ip4_build); returns the header length (38 tagged).
 */
size_t rne_ip4_build_vlan(uint8_t *frame, const uint8_t *dmac,
                          const uint8_t *smac, int32_t tci,
                          const uint8_t *src, const uint8_t *dst,
                          uint8_t proto, uint16_t l4_len, uint16_t id);

#endif
