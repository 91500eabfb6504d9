// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes a pcap of synthetic iWARP conversations built with the engine's own
 * MPA/DDP/RDMAP encoders, for Wireshark's dissectors to judge:
 *
 *   conn 1: TCP handshake, MPA Rev 2 (CRC on, P2P with Read RTR), zero-length
 *           Read RTR and Read Response, Sends (plain, with Invalidate, with SE,
 *           two FPDUs in one segment), a 3000-octet RDMA Write in MULPDU
 *           segments, Read Request and a 5000-octet Read Response, a Terminate
 *           carrying the offending Read Request's headers, FIN.
 *   conn 2: the same traffic with markers in both directions (M=1 each way).
 *   conn 3 (--rfc7306): Atomic Request/Response.
 *
 * --retry CASE writes instead a lab client's retried attempt for pcap-check:
 * conn 1 to port 18522 whose first Send meets a DDP "no buffer" Terminate,
 * the lab's UDP retry marker for port 18522, conn 2 (the retry) running clean.
 * CASE changes one thing: ok (as said), late (conn 2 also gets the Terminate),
 * none (no marker), port (the marker names 18523), rdmap (conn 1's Terminate
 * is an RDMAP one), early (the marker comes before conn 1), icmp (no marker,
 * only an ICMP error quoting one), siw (conn 1's Terminate in siw's
 * little-endian bit layout, as Linux siw on x86 sends it), answer (as siw,
 * and the initiator answers it with a Terminate of its own: DDP "too long",
 * what rnic's engine sent for a Terminate it could not parse).
 *
 * Ethernet/IPv4/TCP with correct checksums and consistent seq/ack; one FPDU
 * per segment except where said (MPA-aware sender, EMSS 1448).
 *
 * --one-way-markers writes instead conn 1's traffic without RTR where only
 * the initiator asks for markers (M=1 in the Request, 0 in the Reply): the
 * responder marks what it sends, the initiator does not (RFC 5044 7.1.2).
 *
 *   iwarp-pcap OUT.pcap [--corrupt-crc N] [--rfc7306 | --retry CASE |
 *                        --one-way-markers]
 * --corrupt-crc N flips a bit of the CRC of the Nth FPDU (1-based) overall.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/crc32c.h"
#include "wire/mpa.h"
#include "wire/net.h"
#include "wire/rdmap.h"

#define EMSS 1448

struct end {
    uint8_t mac[6], ip[4];
    uint16_t port;
    uint32_t seq;
    struct rne_mpa_tx tx;
    uint32_t mulpdu;
    uint32_t msn[4];            /* last MSN sent per QN */
};

struct conv {
    struct end e[2];            /* 0 = initiator (client), 1 = responder */
};

static FILE *out;
static uint32_t ts_usec;
static uint16_t ipid = 1;
static long corrupt_nth, fpdu_count;

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void pcap_header(void)
{
    uint8_t h[24] = { 0 };
    put_le32(h, 0xa1b2c3d4);
    h[4] = 2;
    h[6] = 4;
    put_le32(h + 16, 65535);
    put_le32(h + 20, 1);        /* LINKTYPE_ETHERNET */
    fwrite(h, 1, sizeof(h), out);
}

static void pcap_frame(const uint8_t *f, size_t len)
{
    uint8_t h[16];
    ts_usec += 100;
    put_le32(h, 1700000000u + ts_usec / 1000000);
    put_le32(h + 4, ts_usec % 1000000);
    put_le32(h + 8, (uint32_t)len);
    put_le32(h + 12, (uint32_t)len);
    fwrite(h, 1, sizeof(h), out);
    fwrite(f, 1, len, out);
}

enum { FIN = 0x01, SYN = 0x02, PSH = 0x08, ACK = 0x10 };

static void seg(struct conv *c, int from, uint8_t flags, const uint8_t *pl, size_t len)
{
    static uint8_t f[2048];
    struct end *s = &c->e[from], *d = &c->e[!from];
    size_t thl = (flags & SYN) ? 24 : 20;
    size_t o = rne_ip4_build(f, d->mac, s->mac, s->ip, d->ip, RNE_IPPROTO_TCP,
                             (uint16_t)(thl + len), ipid++);
    uint8_t *t = f + o;
    memset(t, 0, thl);
    rne_st_be16(t, s->port);
    rne_st_be16(t + 2, d->port);
    rne_st_be32(t + 4, s->seq);
    rne_st_be32(t + 8, (flags & ACK) ? d->seq : 0);
    t[12] = (uint8_t)((thl / 4) << 4);
    t[13] = flags;
    rne_st_be16(t + 14, 65535);
    if (flags & SYN) {
        t[20] = 2;              /* MSS */
        t[21] = 4;
        rne_st_be16(t + 22, EMSS);
    }
    memcpy(t + thl, pl, len);
    uint32_t sum = rne_csum_pseudo4(s->ip, d->ip, RNE_IPPROTO_TCP, (uint16_t)(thl + len));
    rne_st_be16(t + 16, rne_csum_fold(rne_csum_add(sum, t, thl + len)));
    pcap_frame(f, o + thl + len);
    s->seq += (uint32_t)len + ((flags & (SYN | FIN)) ? 1 : 0);
}

/* Build one FPDU into buf (the CRC of the --corrupt-crc one is damaged). */
static uint32_t fpdu(struct conv *c, int from, uint8_t *buf, size_t cap, const uint8_t *hdr,
                     size_t hlen, const uint8_t *pay, size_t plen)
{
    uint32_t n = rne_mpa_fpdu_build(&c->e[from].tx, buf, cap, hdr, hlen, pay, plen);
    if (!n) {
        fprintf(stderr, "iwarp-pcap: FPDU build failed\n");
        exit(2);
    }
    if (++fpdu_count == corrupt_nth) {
        buf[n - 1] ^= 0x20;
    }
    return n;
}

/*
 * tshark 4.0 counts a marker at the very end of a segment as part of that
 * segment's FPDU (number_of_markers() is floor((len - off) / 512) + 1), but
 * by RFC 5044 - and by tshark's own handling of the next FPDU - a marker
 * on an FPDU boundary precedes the next FPDU. To keep the capture decodable
 * the DDP segmenter here avoids ending an FPDU on the marker grid (segment
 * sizes are the sender's choice); test-mpa covers that case for our parser.
 */
static size_t grid_safe(const struct end *e, size_t hlen, size_t n)
{
    if (e->tx.markers && n >= 4 &&
        (e->tx.pos + rne_mpa_tx_size(&e->tx, (uint32_t)(hlen + n))) %
            RNE_MPA_MARKER_INTERVAL == 0) {
        return n - 4;       /* the 4 octets go into one more segment */
    }
    return n;
}

static void send_fpdu(struct conv *c, int from, const uint8_t *hdr, size_t hlen,
                      const uint8_t *pay, size_t plen)
{
    if (c->e[from].tx.markers &&
        (c->e[from].tx.pos + rne_mpa_tx_size(&c->e[from].tx, (uint32_t)(hlen + plen))) %
            RNE_MPA_MARKER_INTERVAL == 0) {
        fprintf(stderr, "iwarp-pcap: an FPDU would end on the marker grid (see grid_safe)\n");
        exit(2);
    }
    static uint8_t buf[4096];
    uint32_t n = fpdu(c, from, buf, sizeof(buf), hdr, hlen, pay, plen);
    if (n > EMSS) {
        fprintf(stderr, "iwarp-pcap: FPDU of %u octets exceeds the EMSS\n", n);
        exit(2);
    }
    seg(c, from, PSH | ACK, buf, n);
}

static void init_msg(struct rne_rdmap_msg *m, uint8_t op)
{
    memset(m, 0, sizeof(*m));
    m->opcode = op;
    m->rv = RNE_RDMAP_VERSION;
    m->ddp.dv = RNE_DDP_VERSION;
}

/* Untagged message (Send family): QN 0, next MSN, MO advancing, MULPDU segments. */
static void send_msg(struct conv *c, int from, uint8_t op, uint32_t inv, const uint8_t *d,
                     size_t len)
{
    struct end *e = &c->e[from];
    struct rne_rdmap_msg m;
    uint8_t h[64];
    init_msg(&m, op);
    m.ddp.qn = RNE_RDMAP_QN_SEND;
    m.ddp.msn = ++e->msn[RNE_RDMAP_QN_SEND];
    m.ddp.ulp_word = inv;
    size_t max = e->mulpdu - RNE_DDP_UNTAGGED_HLEN, off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        n = grid_safe(e, RNE_DDP_UNTAGGED_HLEN, n);
        m.ddp.mo = (uint32_t)off;
        m.ddp.last = off + n == len;
        size_t hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
        send_fpdu(c, from, h, hl, d + off, n);
        off += n;
    } while (off < len);
}

/* Tagged message (Write, Read Response). */
static void tagged_msg(struct conv *c, int from, uint8_t op, uint32_t stag, uint64_t to,
                       const uint8_t *d, size_t len)
{
    struct end *e = &c->e[from];
    struct rne_rdmap_msg m;
    uint8_t h[64];
    init_msg(&m, op);
    m.ddp.stag = stag;
    size_t max = e->mulpdu - RNE_DDP_TAGGED_HLEN, off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        n = grid_safe(e, RNE_DDP_TAGGED_HLEN, n);
        m.ddp.to = to + off;
        m.ddp.last = off + n == len;
        size_t hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
        send_fpdu(c, from, h, hl, d + off, n);
        off += n;
    } while (off < len);
}

static size_t read_req(struct conv *c, int from, uint8_t *h, uint32_t sink, uint64_t sink_to,
                       uint32_t size, uint32_t src, uint64_t src_to)
{
    struct rne_rdmap_msg m;
    init_msg(&m, RNE_RDMAP_READ_REQ);
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = ++c->e[from].msn[RNE_RDMAP_QN_READ_REQ];
    m.u.rr = (struct rne_rdmap_read_req){ sink, sink_to, size, src, src_to };
    size_t hl = rne_rdmap_hdr_encode(&m, h, 64);
    send_fpdu(c, from, h, hl, NULL, 0);
    return hl;
}

static void handshake(struct conv *c, const struct rne_mpa_local *li,
                      const struct rne_mpa_local *lr)
{
    uint8_t f[RNE_MPA_RR_MAX];
    struct rne_mpa_rr req, rep;
    struct rne_mpa_neg ni, nr;

    seg(c, 0, SYN, NULL, 0);
    seg(c, 1, SYN | ACK, NULL, 0);
    seg(c, 0, ACK, NULL, 0);
    rne_mpa_make_request(li, &req);
    req.pd = (const uint8_t *)"rnic conformance";
    req.pd_len = 16;
    int n = rne_mpa_rr_encode(&req, f, sizeof(f));
    seg(c, 0, PSH | ACK, f, (size_t)n);
    seg(c, 1, ACK, NULL, 0);
    if (rne_mpa_make_reply(&req, lr, &rep) != 0) {
        fprintf(stderr, "iwarp-pcap: responder rejected\n");
        exit(2);
    }
    n = rne_mpa_rr_encode(&rep, f, sizeof(f));
    seg(c, 1, PSH | ACK, f, (size_t)n);
    if (rne_mpa_check_reply(&req, &rep, &ni) != 0) {
        fprintf(stderr, "iwarp-pcap: initiator refused the reply\n");
        exit(2);
    }
    rne_mpa_responder_neg(&req, &rep, &nr);
    rne_mpa_tx_init(&c->e[0].tx, ni.crc, ni.markers_tx);
    rne_mpa_tx_init(&c->e[1].tx, nr.crc, nr.markers_tx);
    c->e[0].mulpdu = rne_mpa_mulpdu(EMSS, ni.markers_tx);
    c->e[1].mulpdu = rne_mpa_mulpdu(EMSS, nr.markers_tx);
    /* RTR: the initiator's first FPDU, the responder answers a Read RTR */
    uint8_t h[64];
    if (ni.rtr == RNE_MPA_RTR_READ) {
        read_req(c, 0, h, 0, 0, 0, 1, 0);
        tagged_msg(c, 1, RNE_RDMAP_READ_RESP, 0, 0, NULL, 0);
    } else if (ni.rtr == RNE_MPA_RTR_WRITE) {
        tagged_msg(c, 0, RNE_RDMAP_WRITE, 1, 0, NULL, 0);
    }
}

static void traffic(struct conv *c)
{
    static uint8_t data[8192];
    for (size_t i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)(i * 31 + 7);
    }
    send_msg(c, 0, RNE_RDMAP_SEND, 0, (const uint8_t *)"hello iWARP", 11);
    send_msg(c, 0, RNE_RDMAP_SEND_INV, 0x00abcd01, data, 100);
    send_msg(c, 0, RNE_RDMAP_SEND_SE, 0, data, 2);
    send_msg(c, 0, RNE_RDMAP_SEND_SE_INV, 0x00abcd02, data, 0);
    /* two small FPDUs sharing one segment */
    {
        uint8_t seg2[256], h[64];
        struct rne_rdmap_msg m;
        size_t n = 0;
        for (int k = 0; k < 2; k++) {
            init_msg(&m, RNE_RDMAP_SEND);
            m.ddp.last = true;
            m.ddp.msn = ++c->e[0].msn[RNE_RDMAP_QN_SEND];
            size_t hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
            n += fpdu(c, 0, seg2 + n, sizeof(seg2) - n, h, hl, data, 13 + k);
        }
        if (!c->e[0].tx.markers) {
            seg(c, 0, PSH | ACK, seg2, n);
        } else {
            /* Wireshark locates markers from the segment's sequence number
             * for every FPDU in it: on marked streams give each its own. */
            size_t first = n / 2 - 2;       /* 13- and 14-octet Sends: 36 + 36 */
            seg(c, 0, PSH | ACK, seg2, first);
            seg(c, 0, PSH | ACK, seg2 + first, n - first);
        }
    }
    tagged_msg(c, 0, RNE_RDMAP_WRITE, 0x1234500, 0x10000, data, 3000);
    seg(c, 1, ACK, NULL, 0);
    uint8_t rr[64];
    read_req(c, 0, rr, 0x2200, 0x8000, 5000, 0x3300, 0x0);
    tagged_msg(c, 1, RNE_RDMAP_READ_RESP, 0x2200, 0x8000, data, 5000);
    send_msg(c, 1, RNE_RDMAP_SEND, 0, data + 7, 1500);      /* two segments */
    seg(c, 0, ACK, NULL, 0);
    /* the responder refuses a Read Request with a bad source STag */
    size_t rl = read_req(c, 0, rr, 0x2201, 0, 64, 0xdead00, 0);
    uint8_t t[RNE_RDMAP_TERM_MAX];
    struct rne_term_cause cause = rne_term_cause(RNE_TERM_LAYER_RDMAP,
        RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_INVALID_STAG, true, true);
    size_t tl = rne_rdmap_term_build(t, sizeof(t), 1, &cause, rr, rl);
    send_fpdu(c, 1, t, tl, NULL, 0);
    seg(c, 1, FIN | ACK, NULL, 0);
    seg(c, 0, FIN | ACK, NULL, 0);
    seg(c, 1, ACK, NULL, 0);
}

static void atomics(struct conv *c)
{
    struct rne_rdmap_msg m;
    uint8_t h[128];
    init_msg(&m, RNE_RDMAP_ATOMIC_REQ);
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = ++c->e[0].msn[RNE_RDMAP_QN_READ_REQ];
    m.u.areq = (struct rne_rdmap_atomic_req){ RNE_RDMAP_ATOMIC_FETCH_ADD, 1, 0x4400, 0x100,
                                               5, ~0ull, 0, 0 };
    send_fpdu(c, 0, h, rne_rdmap_hdr_encode(&m, h, sizeof(h)), NULL, 0);
    init_msg(&m, RNE_RDMAP_ATOMIC_RESP);
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_ATOMIC_RESP;
    m.ddp.msn = ++c->e[1].msn[RNE_RDMAP_QN_ATOMIC_RESP];
    m.u.aresp.req_id = 1;
    m.u.aresp.orig = 41;
    send_fpdu(c, 1, h, rne_rdmap_hdr_encode(&m, h, sizeof(h)), NULL, 0);
    init_msg(&m, RNE_RDMAP_ATOMIC_REQ);
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = ++c->e[0].msn[RNE_RDMAP_QN_READ_REQ];
    m.u.areq = (struct rne_rdmap_atomic_req){ RNE_RDMAP_ATOMIC_CMP_SWAP, 2, 0x4400, 0x108,
                                               7, ~0ull, 46, ~0ull };
    send_fpdu(c, 0, h, rne_rdmap_hdr_encode(&m, h, sizeof(h)), NULL, 0);
    seg(c, 0, FIN | ACK, NULL, 0);
    seg(c, 1, FIN | ACK, NULL, 0);
    seg(c, 0, ACK, NULL, 0);
}

static void conv_init(struct conv *c, uint16_t cport, uint16_t sport, uint32_t iss0, uint32_t iss1)
{
    memset(c, 0, sizeof(*c));
    memcpy(c->e[0].mac, "\x02\x00\x00\x00\x00\x01", 6);
    memcpy(c->e[1].mac, "\x02\x00\x00\x00\x00\x02", 6);
    memcpy(c->e[0].ip, "\x0a\x00\x00\x01", 4);
    memcpy(c->e[1].ip, "\x0a\x00\x00\x02", 4);
    c->e[0].port = cport;
    c->e[1].port = sport;
    c->e[0].seq = iss0;
    c->e[1].seq = iss1;
}

/* The lab's retry marker (tests/vm/guest/lib.sh): a UDP datagram to port 9;
 * with icmp, only the peer's ICMP port unreachable quoting one. */
static void retry_marker(struct conv *c, uint16_t port, bool icmp)
{
    static uint8_t f[256], e[320];
    char text[80];
    int n = snprintf(text, sizeof(text), "rnic-lab-retried port=%u name=read_lat.5 attempt=1\n",
                     port);
    size_t o = rne_ip4_build(f, c->e[1].mac, c->e[0].mac, c->e[0].ip, c->e[1].ip,
                             17 /* UDP */, (uint16_t)(8 + n), ipid++);
    rne_st_be16(f + o, 45000);
    rne_st_be16(f + o + 2, 9);
    rne_st_be16(f + o + 4, (uint16_t)(8 + n));
    rne_st_be16(f + o + 6, 0);    /* no UDP checksum (IPv4) */
    memcpy(f + o + 8, text, (size_t)n);
    if (!icmp) {
        pcap_frame(f, o + 8 + (size_t)n);
        return;
    }
    size_t q = o - 14 + 8 + (size_t)n;          /* the quoted IP datagram */
    size_t eo = rne_ip4_build(e, c->e[0].mac, c->e[1].mac, c->e[1].ip, c->e[0].ip,
                              1 /* ICMP */, (uint16_t)(8 + q), ipid++);
    memset(e + eo, 0, 8);
    e[eo] = 3;                  /* destination unreachable */
    e[eo + 1] = 3;              /* port unreachable */
    memcpy(e + eo + 8, f + 14, q);
    rne_st_be16(e + eo + 2, rne_csum_fold(rne_csum_add(0, e + eo, 8 + q)));
    pcap_frame(e, eo + 8 + q);
}

/*
 * Linux siw's Terminate control word on a little-endian host: its struct
 * iwarp_terminate declares layer:4, etype:4, ecode:8, flag_m:1, flag_d:1,
 * flag_r:1 as __LITTLE_ENDIAN_BITFIELD members, so byte 0 carries etype in
 * its high nibble and layer in its low one, and M/D/R are bits 0/1/2 of
 * byte 2 (RFC 5040: layer high, M/D/R bits 7/6/5). t: a Terminate's ULPDU.
 */
static void siw_term_layout(uint8_t *t)
{
    uint8_t *ctl = t + RNE_DDP_UNTAGGED_HLEN;
    uint8_t f = ctl[2];

    ctl[0] = (uint8_t)(ctl[0] << 4 | ctl[0] >> 4);
    ctl[2] = (uint8_t)((f & RNE_RDMAP_TERM_M ? 1 : 0) | (f & RNE_RDMAP_TERM_D ? 2 : 0) |
                       (f & RNE_RDMAP_TERM_R ? 4 : 0) | (f & 0x1f));
}

/* A perftest-like exchange: the initiator's Send, then either the responder's
 * Terminate for it (cause; in siw's layout with siw, answered by the
 * initiator's own Terminate with answer) or its own Send back; FIN both ways. */
static void send_or_terminate(struct conv *c, const struct rne_term_cause *cause, bool siw,
                              bool answer)
{
    static const uint8_t data[64] = "perftest exchange";
    send_msg(c, 0, RNE_RDMAP_SEND, 0, data, sizeof(data));
    if (cause) {
        struct rne_rdmap_msg m;
        uint8_t h[64], t[RNE_RDMAP_TERM_MAX];
        init_msg(&m, RNE_RDMAP_SEND);
        m.ddp.qn = RNE_RDMAP_QN_SEND;
        m.ddp.msn = c->e[0].msn[RNE_RDMAP_QN_SEND];
        m.ddp.last = true;
        size_t hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
        size_t tl = rne_rdmap_term_build(t, sizeof(t), 1, cause, h, hl);
        if (siw) {
            siw_term_layout(t);
        }
        send_fpdu(c, 1, t, tl, NULL, 0);
        if (answer) {
            struct rne_term_cause too_long = rne_term_cause(RNE_TERM_LAYER_DDP,
                RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_TOO_LONG, true, false);
            tl = rne_rdmap_term_build(t, sizeof(t), 1, &too_long, h, hl);
            send_fpdu(c, 0, t, tl, NULL, 0);
        }
    } else {
        send_msg(c, 1, RNE_RDMAP_SEND, 0, data, sizeof(data));
    }
    seg(c, 1, FIN | ACK, NULL, 0);
    seg(c, 0, FIN | ACK, NULL, 0);
    seg(c, 1, ACK, NULL, 0);
}

static int retry_case(const char *name)
{
    struct conv c;
    struct rne_mpa_local l = { .rev = 2, .crc = true, .ird = 1, .ord = 1 };
    struct rne_term_cause nobuf = rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED,
                                                 RNE_DDP_EC_U_INVALID_MSN_NOBUF, true, false);
    struct rne_term_cause rdmap = rne_term_cause(RNE_TERM_LAYER_RDMAP,
        RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_INVALID_STAG, true, false);
    bool late = !strcmp(name, "late"), answer = !strcmp(name, "answer");
    bool siw = answer || !strcmp(name, "siw");

    if (strcmp(name, "ok") && !late && strcmp(name, "none") && strcmp(name, "port") &&
        strcmp(name, "rdmap") && strcmp(name, "early") && strcmp(name, "icmp") && !siw) {
        fprintf(stderr, "iwarp-pcap: unknown --retry case %s\n", name);
        return 2;
    }
    conv_init(&c, 40010, 18522, 0x70000000, 0x71000000);
    if (!strcmp(name, "early")) {
        retry_marker(&c, 18522, false);
    }
    handshake(&c, &l, &l);
    send_or_terminate(&c, !strcmp(name, "rdmap") ? &rdmap : &nobuf, siw, answer);
    if (strcmp(name, "none") && strcmp(name, "early")) {
        retry_marker(&c, !strcmp(name, "port") ? 18523 : 18522, !strcmp(name, "icmp"));
    }
    conv_init(&c, 40011, 18522, 0x72000000, 0x73000000);
    handshake(&c, &l, &l);
    send_or_terminate(&c, late ? &nobuf : NULL, false, false);
    return 0;
}

int main(int argc, char **argv)
{
    bool rfc7306 = false, one_way = false;
    const char *retry = NULL;
    if (argc < 2) {
        fprintf(stderr, "usage: iwarp-pcap OUT.pcap [--corrupt-crc N] [--rfc7306 | --retry CASE | "
                "--one-way-markers]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--corrupt-crc") && i + 1 < argc) {
            corrupt_nth = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--rfc7306")) {
            rfc7306 = true;
        } else if (!strcmp(argv[i], "--one-way-markers")) {
            one_way = true;
        } else if (!strcmp(argv[i], "--retry") && i + 1 < argc) {
            retry = argv[++i];
        } else {
            fprintf(stderr, "iwarp-pcap: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    out = fopen(argv[1], "wb");
    if (!out) {
        perror(argv[1]);
        return 2;
    }
    pcap_header();

    if (one_way) {
        /* The initiator asks for markers (M=1 in the Request), the
         * responder does not: only the responder's FPDUs carry them. */
        struct conv c;
        struct rne_mpa_local ini = { .rev = 2, .crc = true, .markers = true,
                                      .ird = 16, .ord = 16 };
        struct rne_mpa_local rsp = { .rev = 2, .crc = true, .ird = 8, .ord = 8 };
        conv_init(&c, 40004, 7205, 0x70000000, 0x78000000);
        handshake(&c, &ini, &rsp);
        traffic(&c);
    } else if (retry) {
        int rc = retry_case(retry);
        if (fclose(out) != 0) {
            perror(argv[1]);
            return 2;
        }
        return rc;
    }

    if (one_way) {
        if (fclose(out) != 0) {
            perror(argv[1]);
            return 2;
        }
        printf("iwarp-pcap: %s: %ld FPDUs, markers from the responder only\n",
               argv[1], fpdu_count);
        return 0;
    }
    struct conv c;
    struct rne_mpa_local ini = { .rev = 2, .crc = true, .p2p = true, .ird = 16, .ord = 16,
                                  .rtr_caps = RNE_MPA_RTR_READ | RNE_MPA_RTR_WRITE };
    struct rne_mpa_local rsp = { .rev = 2, .crc = true, .p2p = true, .ird = 8, .ord = 8,
                                  .rtr_caps = RNE_MPA_RTR_READ | RNE_MPA_RTR_WRITE };
    conv_init(&c, 40001, 7174, 0x10000000, 0x20000000);
    handshake(&c, &ini, &rsp);
    traffic(&c);

    /* markers both ways; Write RTR this time */
    ini.markers = rsp.markers = true;
    ini.rtr_caps = rsp.rtr_caps = RNE_MPA_RTR_WRITE;
    conv_init(&c, 40002, 7174, 0x30000000, 0x40000000);
    handshake(&c, &ini, &rsp);
    traffic(&c);

    if (rfc7306) {
        ini.markers = rsp.markers = false;
        conv_init(&c, 40003, 7174, 0x50000000, 0x60000000);
        handshake(&c, &ini, &rsp);
        atomics(&c);
    }
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 2;
    }
    printf("iwarp-pcap: %s: %ld FPDUs%s\n", argv[1], fpdu_count,
           corrupt_nth ? " (one CRC corrupted)" : "");
    return 0;
}
