/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Receive classifier: decides for every frame from the wire whether it
 * belongs to the offload engine (TCP to an offloaded listener or connection),
 * to the guest's L2 RX ring, or nowhere (not addressed to this port).
 */
#ifndef RNE_ENGINE_CLASSIFY_H
#define RNE_ENGINE_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RNE_STEER_MAX_LISTEN    64
#define RNE_STEER_CONN_SLOTS    8192    /* open addressing, <= half full */
#define RNE_STEER_MAX_CONN      (RNE_STEER_CONN_SLOTS / 2)

enum rne_rx_class {
    RNE_RX_TO_L2,           /* the guest's network stack */
    RNE_RX_TO_ENGINE,       /* offloaded TCP: *id is the listener/conn */
    RNE_RX_FILTERED,        /* not for us: drop */
};

/* Which addresses the port answers to at L2. */
struct rne_rx_filter {
    uint8_t mac[6];
    bool promisc;
};

/*
 * A TCP endpoint pair seen from this port: local = our side.  vlan is the
 * 802.1Q VID the flow lives on, 0 untagged (or priority-tagged, VID 0).
 */
struct rne_flow_key {
    uint8_t family;         /* RNIC_AF_IPV4 / RNIC_AF_IPV6 */
    uint16_t vlan;
    uint8_t laddr[16];      /* network order; IPv4 in bytes 0..3 */
    uint8_t raddr[16];
    uint16_t lport;
    uint16_t rport;
};

struct rne_steer_listener {
    bool used;
    uint8_t family;
    uint16_t vlan;          /* VID; an any-address listener takes every one */
    uint8_t addr[16];       /* all zero: any local address */
    uint16_t port;
    uint32_t id;
};

struct rne_steer_conn {
    bool used;
    struct rne_flow_key key;
    uint32_t id;
};

struct rne_steer {
    struct rne_steer_listener listen[RNE_STEER_MAX_LISTEN];
    struct rne_steer_conn conn[RNE_STEER_CONN_SLOTS];
    uint32_t nconn;
};

void rne_steer_clear(struct rne_steer *s);
/* 0 on success, -1 when full or the address/port is already taken. */
int rne_steer_add_listener(struct rne_steer *s, uint32_t id, uint8_t family,
                           const uint8_t *addr, uint16_t port);
/* The same on VLAN vid (0: untagged); the address must not be any. */
int rne_steer_add_listener_vlan(struct rne_steer *s, uint32_t id,
                                uint8_t family, const uint8_t *addr,
                                uint16_t port, uint16_t vid);
int rne_steer_del_listener(struct rne_steer *s, uint32_t id);
int rne_steer_add_conn(struct rne_steer *s, const struct rne_flow_key *k,
                       uint32_t id);
int rne_steer_del_conn(struct rne_steer *s, const struct rne_flow_key *k);

/*
 * Parse just enough of the frame (Ethernet, one optional 802.1Q tag,
 * IPv4 without fragmentation or IPv6 without extension headers, TCP ports)
 * to classify it: a flow matches on (VID, 4-tuple), so a tagged frame is
 * never taken by a flow of another VLAN or of none.  Malformed IP/TCP goes
 * to L2: the guest's stack judges it.
 * For RNE_RX_TO_ENGINE, *id is the endpoint and *k the frame's flow key
 * (the engine's own demux starts from it instead of parsing again).
 */
enum rne_rx_class rne_classify(const struct rne_steer *s,
                               const struct rne_rx_filter *f,
                               const uint8_t *frame, size_t len,
                               uint32_t *id, struct rne_flow_key *k);

/* Extract the TCP flow key of a frame; false if it is not plain TCP/IP. */
bool rne_classify_flow(const uint8_t *frame, size_t len,
                       struct rne_flow_key *k);

#endif
