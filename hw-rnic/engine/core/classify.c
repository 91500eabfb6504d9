/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Receive classifier and the steering tables of offloaded TCP endpoints.
 */
#include <string.h>
#include "rnic/hw.h"
#include "classify.h"

#define ETH_HLEN        14
#define ETYPE_IPV4      0x0800
#define ETYPE_IPV6      0x86dd
#define ETYPE_VLAN      0x8100
#define PROTO_TCP       6

static uint16_t get_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Runs once per received frame: the key is mixed eight octets at a time
 * (multiply, xor-shift) rather than octet by octet.
 */
static uint32_t flow_hash(const struct rne_flow_key *k)
{
    const uint64_t mul = 0x9e3779b97f4a7c15ull;
    uint64_t h = (uint64_t)k->vlan << 40 | (uint64_t)k->family << 32 |
                 (uint32_t)k->lport << 16 | k->rport;
    uint64_t w;
    int i, n = k->family == RNIC_AF_IPV4 ? 8 : 16;  /* v4: zeros past 4 */

    for (i = 0; i < n; i += 8) {
        memcpy(&w, k->laddr + i, 8);
        h = (h ^ w) * mul;
        h ^= h >> 29;
        memcpy(&w, k->raddr + i, 8);
        h = (h ^ w) * mul;
        h ^= h >> 29;
    }
    h *= mul;
    return (uint32_t)(h >> 32);
}

static bool flow_eq(const struct rne_flow_key *a,
                    const struct rne_flow_key *b)
{
    if (a->family != b->family || a->lport != b->lport ||
        a->rport != b->rport || a->vlan != b->vlan) {
        return false;
    }
    if (a->family == RNIC_AF_IPV4) {      /* constant sizes: inlined */
        return !memcmp(a->laddr, b->laddr, 4) &&
               !memcmp(a->raddr, b->raddr, 4);
    }
    return !memcmp(a->laddr, b->laddr, 16) && !memcmp(a->raddr, b->raddr, 16);
}

void rne_steer_clear(struct rne_steer *s)
{
    memset(s, 0, sizeof(*s));
}

static bool addr_is_any(const uint8_t *addr)
{
    static const uint8_t zero[16];

    return !memcmp(addr, zero, 16);
}

int rne_steer_add_listener(struct rne_steer *s, uint32_t id, uint8_t family,
                           const uint8_t *addr, uint16_t port)
{
    return rne_steer_add_listener_vlan(s, id, family, addr, port, 0);
}

int rne_steer_add_listener_vlan(struct rne_steer *s, uint32_t id,
                                uint8_t family, const uint8_t *addr,
                                uint16_t port, uint16_t vid)
{
    struct rne_steer_listener *free_slot = NULL;
    int i;

    for (i = 0; i < RNE_STEER_MAX_LISTEN; i++) {
        struct rne_steer_listener *l = &s->listen[i];

        if (!l->used) {
            free_slot = free_slot ? free_slot : l;
            continue;
        }
        if (l->id == id) {
            return -1;
        }
        /*
         * One owner per port: a wildcard conflicts with every address, an
         * address with itself on the same VLAN.
         */
        if (l->family == family && l->port == port &&
            (addr_is_any(l->addr) || addr_is_any(addr) ||
             (!memcmp(l->addr, addr, 16) && l->vlan == vid))) {
            return -1;
        }
    }
    if (!free_slot || (vid && addr_is_any(addr))) {
        return -1;
    }
    free_slot->used = true;
    free_slot->id = id;
    free_slot->family = family;
    free_slot->port = port;
    free_slot->vlan = vid;
    memcpy(free_slot->addr, addr, 16);
    return 0;
}

int rne_steer_del_listener(struct rne_steer *s, uint32_t id)
{
    int i;

    for (i = 0; i < RNE_STEER_MAX_LISTEN; i++) {
        if (s->listen[i].used && s->listen[i].id == id) {
            memset(&s->listen[i], 0, sizeof(s->listen[i]));
            return 0;
        }
    }
    return -1;
}

static int conn_find(const struct rne_steer *s, const struct rne_flow_key *k)
{
    uint32_t mask = RNE_STEER_CONN_SLOTS - 1;
    uint32_t i = flow_hash(k) & mask;

    while (s->conn[i].used) {
        if (flow_eq(&s->conn[i].key, k)) {
            return (int)i;
        }
        i = (i + 1) & mask;
    }
    return -1;
}

int rne_steer_add_conn(struct rne_steer *s, const struct rne_flow_key *k,
                       uint32_t id)
{
    uint32_t mask = RNE_STEER_CONN_SLOTS - 1;
    uint32_t i;

    if (s->nconn >= RNE_STEER_MAX_CONN || conn_find(s, k) >= 0) {
        return -1;
    }
    for (i = flow_hash(k) & mask; s->conn[i].used; i = (i + 1) & mask) {
        continue;
    }
    s->conn[i].used = true;
    s->conn[i].key = *k;
    s->conn[i].id = id;
    s->nconn++;
    return 0;
}

int rne_steer_del_conn(struct rne_steer *s, const struct rne_flow_key *k)
{
    uint32_t mask = RNE_STEER_CONN_SLOTS - 1;
    int found = conn_find(s, k);
    uint32_t hole, j;

    if (found < 0) {
        return -1;
    }
    /* Backward-shift deletion keeps probe chains intact without tombstones. */
    hole = (uint32_t)found;
    j = hole;
    for (;;) {
        uint32_t home;

        j = (j + 1) & mask;
        if (!s->conn[j].used) {
            break;
        }
        home = flow_hash(&s->conn[j].key) & mask;
        /* Move j into the hole unless its home lies in (hole, j]. */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            s->conn[hole] = s->conn[j];
            hole = j;
        }
    }
    memset(&s->conn[hole], 0, sizeof(s->conn[hole]));
    s->nconn--;
    return 0;
}

bool rne_classify_flow(const uint8_t *frame, size_t len,
                       struct rne_flow_key *k)
{
    size_t l3 = ETH_HLEN, l4;
    uint16_t etype, vid = 0;

    if (len < ETH_HLEN) {
        return false;
    }
    etype = get_be16(frame + 12);
    if (etype == ETYPE_VLAN) {
        if (len < ETH_HLEN + 4) {
            return false;
        }
        vid = get_be16(frame + 14) & 0x0fff;
        etype = get_be16(frame + 16);
        l3 += 4;
    }
    memset(k, 0, sizeof(*k));
    k->vlan = vid;
    if (etype == ETYPE_IPV4) {
        const uint8_t *ip = frame + l3;
        size_t ihl;

        if (len < l3 + 20 || (ip[0] >> 4) != 4) {
            return false;
        }
        ihl = (size_t)(ip[0] & 0xf) * 4;
        /* Fragments (MF set or offset != 0) are never offloaded. */
        if (ihl < 20 || ip[9] != PROTO_TCP || (get_be16(ip + 6) & 0x3fff)) {
            return false;
        }
        l4 = l3 + ihl;
        k->family = RNIC_AF_IPV4;
        /*
         * Each address with its zero tail as one 8-octet store: flow_hash
         * reads the key back in 8-octet words at once, and a load spanning
         * several stores cannot be forwarded (a stall per frame).
         */
        {
            uint8_t w[8] = { 0 };

            memcpy(w, ip + 12, 4);
            memcpy(k->raddr, w, 8);
            memcpy(w, ip + 16, 4);
            memcpy(k->laddr, w, 8);
        }
    } else if (etype == ETYPE_IPV6) {
        const uint8_t *ip = frame + l3;

        if (len < l3 + 40 || (ip[0] >> 4) != 6 || ip[6] != PROTO_TCP) {
            return false;
        }
        l4 = l3 + 40;
        k->family = RNIC_AF_IPV6;
        memcpy(k->raddr, ip + 8, 16);
        memcpy(k->laddr, ip + 24, 16);
    } else {
        return false;
    }
    if (len < l4 + 4) {
        return false;
    }
    k->rport = get_be16(frame + l4);
    k->lport = get_be16(frame + l4 + 2);
    return true;
}

static const struct rne_steer_listener *
listener_find(const struct rne_steer *s, const struct rne_flow_key *k)
{
    int i;

    for (i = 0; i < RNE_STEER_MAX_LISTEN; i++) {
        const struct rne_steer_listener *l = &s->listen[i];

        if (l->used && l->family == k->family && l->port == k->lport &&
            (addr_is_any(l->addr) ||
             (!memcmp(l->addr, k->laddr, 16) && l->vlan == k->vlan))) {
            return l;
        }
    }
    return NULL;
}

enum rne_rx_class rne_classify(const struct rne_steer *s,
                               const struct rne_rx_filter *f,
                               const uint8_t *frame, size_t len,
                               uint32_t *id, struct rne_flow_key *k)
{
    bool unicast_to_us;

    if (len < ETH_HLEN) {
        return RNE_RX_FILTERED;
    }
    unicast_to_us = !memcmp(frame, f->mac, 6);
    /* Offloaded endpoints only ever see frames addressed to our MAC. */
    if (unicast_to_us && rne_classify_flow(frame, len, k)) {
        const struct rne_steer_listener *l;
        int c = conn_find(s, k);

        if (c >= 0) {
            *id = s->conn[c].id;
            return RNE_RX_TO_ENGINE;
        }
        l = listener_find(s, k);
        if (l) {
            *id = l->id;
            return RNE_RX_TO_ENGINE;
        }
    }
    if (unicast_to_us || f->promisc || (frame[0] & 1)) {
        return RNE_RX_TO_L2;
    }
    return RNE_RX_FILTERED;
}
