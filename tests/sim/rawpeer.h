/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A raw iWARP peer on a simlink port: the offload TCP engine (tcp.h) plus the
 * MPA/DDP/RDMAP codecs, with nothing of an RNIC's rules.  It connects, sends
 * an MPA Request, checks the Reply, and from then on sends whatever FPDUs
 * (or raw bytes) its user builds; what it receives is parsed into FPDUs and
 * decoded, the first Terminate kept.  Used to attack a simulated rnic.
 */
#ifndef RAWPEER_H
#define RAWPEER_H

#include "wire/mpa.h"
#include "wire/rdmap.h"
#include "simlink.h"
#include "tcp/tcp.h"

#define RP_MAX_EXTRA    16

struct rawpeer {
    struct simlink *sl;
    int side;
    struct rne_tcp *t;
    struct rne_tcp_conn *c;
    bool connected, closed, reset;
    struct rne_mpa_rr req;
    uint8_t req_copy[RNE_MPA_RR_MAX];   /* rp_connect_raw: its private data */
    size_t req_len;
    /* rp_open_extra: more connections, MPA Request sent, data discarded */
    struct rne_tcp_conn *extra[RP_MAX_EXTRA];
    unsigned nextra;
    struct rne_mpa_rr_rx rr_rx;
    bool have_reply;
    struct rne_mpa_rr rep;
    struct rne_mpa_neg neg;
    struct rne_mpa_tx tx;
    struct rne_mpa_rx rx;
    uint8_t rxbuf[65536];
    bool hold_window;           /* do not return receive window */
    size_t unread;
    unsigned fpdus;
    bool got_term;
    struct rne_rdmap_term term;
    unsigned read_resp_segs;
    char err[200];
};

/* Attach to port `side` of sl with this MAC/IPv4; rcvbuf 0: default. */
bool rp_init(struct rawpeer *p, struct simlink *sl, int side,
             const uint8_t mac[6], const uint8_t ip[4], uint32_t rcvbuf);
void rp_fini(struct rawpeer *p);
/*
 * TCP connect to ip:port (next hop mac) from lport, then send an MPA Request
 * (rev, C, M = we want markers, IRD/ORD 4/4, 8 bytes of private data).  The
 * Reply is taken when it arrives (have_reply; err on a bad one).
 */
bool rp_connect(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                const uint8_t mac[6], uint16_t lport, uint8_t rev, bool crc,
                bool want_markers);
/*
 * TCP connect as rp_connect, then send req (the fuzzer's bytes) as the MPA
 * Request and whatever follows it; the Reply is checked against what the
 * bytes parse to.
 */
bool rp_connect_raw(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                    const uint8_t mac[6], uint16_t lport,
                    const uint8_t *req, size_t len);
/*
 * One more connection (after rp_connect) sending the same MPA Request;
 * the device's answer on it is read and discarded.
 */
bool rp_open_extra(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                   const uint8_t mac[6], uint16_t lport);
/* One record of raw stream bytes. */
bool rp_send(struct rawpeer *p, const uint8_t *buf, size_t len);
/*
 * One FPDU around hdr + payload, framed as negotiated; corrupt 1 flips a
 * CRC bit, 2 the FPDUPTR of a marker at the FPDU's start.
 */
bool rp_fpdu(struct rawpeer *p, const uint8_t *hdr, size_t hlen,
             const uint8_t *pay, size_t plen, int corrupt);

/*
 * Headers come from the engine's encoders (wire/rdmap.h): segment headers
 * from rne_rdmap_seg_tagged/untagged, which write any field as given, and
 * this Read Request (DV/RV 1, sink 0x12345601 at 0x1000) from
 * rne_rdmap_hdr_encode; the attack may then damage the bytes.   Returns the
 * header length.
 */
size_t rp_hdr_read_req(uint8_t *buf, uint32_t msn, uint32_t src_stag,
                       uint64_t src_to, uint32_t size);

#endif
