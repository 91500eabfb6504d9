// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * MPA: Marker PDU Aligned framing for TCP (RFC 5044), with the enhanced
 * connection establishment of RFC 6581 (MPA revision 2: IRD/ORD, peer-to-peer
 * Ready-To-Receive). Pure codecs and small state machines over byte buffers:
 * no allocation, no global state, every length checked against its buffer.
 *
 *  - MPA Request/Reply frames: encode, decode, an incremental receiver;
 *  - negotiation: CRC (on if either side asks), markers (per direction: the M
 *    bit asks the *peer* to mark what it sends), IRD/ORD and the RTR choice;
 *  - FPDUs: build (length, markers, pad, CRC32c) and a streaming parser that
 *    takes the in-order TCP byte stream in arbitrary chunks.
 *
 * Markers (RFC 5044): with stream offset 0 = the first octet of the
 * first FPDU sent in that direction in Full Operation, a 4-octet marker
 * occupies offsets [512k, 512k+4) for every k >= 0 (so one precedes the first
 * FPDU). Markers are not counted in ULPDU_Length, pad is computed without
 * them, and the CRC covers every octet of the FPDU before the CRC field,
 * markers included. A marker that falls where an FPDU begins belongs to that
 * FPDU and has FPDUPTR 0; any other marker has FPDUPTR = its offset minus the
 * offset of the ULPDU_Length field of the FPDU it sits in.
 */
#ifndef RNE_MPA_H
#define RNE_MPA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iwarp_term.h"
#include "span.h"

#define RNE_MPA_KEY_LEN         16
#define RNE_MPA_RR_HLEN         20      /* key + flags + rev + PD_Length */
#define RNE_MPA_PD_MAX          512     /* RFC 5044 limit on PD_Length */
/* what siw and cxgb4 accept (incl. the v2 block) */
#define RNE_MPA_PD_INTEROP_MAX 256
/* RFC 6581 IRD/ORD block at the start of the PD */
#define RNE_MPA_V2_LEN          4
#define RNE_MPA_RR_MAX          (RNE_MPA_RR_HLEN + RNE_MPA_PD_MAX)

/* "MPA ID Req Frame" */
extern const uint8_t rne_mpa_key_req[RNE_MPA_KEY_LEN];
/* "MPA ID Rep Frame" */
extern const uint8_t rne_mpa_key_rep[RNE_MPA_KEY_LEN];

/* Byte 16 of a Request/Reply */
/* markers wanted by the sender of this frame */
#define RNE_MPA_FLAG_M          0x80
#define RNE_MPA_FLAG_C          0x40    /* CRC */
#define RNE_MPA_FLAG_R          0x20    /* rejected (Reply only) */
/* RFC 6581 enhanced: PD starts with IRD/ORD */
#define RNE_MPA_FLAG_E          0x10
#define RNE_MPA_FLAG_RES        0x0f
/*
 * rnic's RFC 7306 negotiation (docs/iwarp-engine.md): RFC 7306 defines none,
 * so two of RFC 5044's reserved bits (sent as 0, ignored on receipt by
 * every peer) carry it. A Request sets X7306_OFFER, a Reply that agrees sets
 * X7306_ACCEPT. Two bits, not one, because siw answers with its copy of the
 * Request's flag octet: an echoed offer must not read as agreement. 0x08 is
 * siw's GSO bit (MPA_RR_FLAG_GSO_EXP) and stays unused.
 */
#define RNE_MPA_FLAG_X7306_OFFER        0x04    /* Request only */
#define RNE_MPA_FLAG_X7306_ACCEPT       0x02    /* Reply only */

/* RFC 6581 IRD word and ORD word (big-endian u16 each) */
#define RNE_MPA_V2_IRD_P        0x8000  /* peer-to-peer */
#define RNE_MPA_V2_IRD_SEND     0x4000  /* zero-length Send (FPDU) RTR */
#define RNE_MPA_V2_ORD_WRITE    0x8000  /* zero-length RDMA Write RTR */
#define RNE_MPA_V2_ORD_READ     0x4000  /* zero-length RDMA Read Request RTR */
#define RNE_MPA_V2_MASK         0x3fff  /* the IRD or ORD value */

/* RTR types, as a bit set (offered) or a single bit (chosen) */
enum {
    RNE_MPA_RTR_NONE = 0,
    RNE_MPA_RTR_SEND = 1,
    RNE_MPA_RTR_WRITE = 2,
    RNE_MPA_RTR_READ = 4,
};

enum rne_mpa_err {
    RNE_MPA_OK = 0,
    RNE_MPA_E_KEY = 1,          /* neither key, or not the one expected */
    RNE_MPA_E_REV = 2,          /* Rev not 1 or 2 */
    /* PD_Length > 512 (or a v2 frame too short for its block) */
    RNE_MPA_E_PD_LEN = 3,
    /* IRD/ORD above 0x3fff, or RTR bits without P (encode) */
    RNE_MPA_E_IRD_ORD = 4,
    RNE_MPA_E_SPACE = 5,        /* output buffer too small */
};

/* A Request or Reply, decoded. pd points into the decoded buffer. */
struct rne_mpa_rr {
    bool reply;
    bool markers, crc, reject;
    bool enhanced;              /* E with Rev 2: the IRD/ORD block is present */
    uint8_t rev;
    /* reserved flag bits as received (sent as 0), ours below excluded */
    uint8_t res;
    /* RFC 7306: offered (Request, X7306_OFFER) or agreed (Reply, _ACCEPT) */
    bool x7306;
    /* RFC 6581 block, meaningful when enhanced */
    bool p2p;
    /* RNE_MPA_RTR_* offered (Request) or chosen (Reply) */
    uint8_t rtr;
    uint16_t ird, ord;
    /* ULP private data after the v2 block */
    const uint8_t *pd;
    uint16_t pd_len;
};

/* Encode; returns the frame length (20 + PD_Length) or -enum rne_mpa_err. */
int rne_mpa_rr_encode(const struct rne_mpa_rr *rr, uint8_t *buf, size_t cap);
/*
 * Decode one frame from the start of buf: returns its length when complete,
 * 0 if more bytes are needed, -enum rne_mpa_err if it is invalid (checked as
 * early as the bytes allow: key and PD_Length from the 20-byte header).
 * Reserved bits and, in a Request, R are ignored (RFC 5044); E with
 * Rev 1 is a reserved bit too.
 */
int rne_mpa_rr_decode(const uint8_t *buf, size_t len, struct rne_mpa_rr *rr);

/* Incremental receive of a Request (or Reply) off the TCP stream. */
struct rne_mpa_rr_rx {
    bool want_reply;
    uint16_t have;
    uint8_t buf[RNE_MPA_RR_MAX];
};
void rne_mpa_rr_rx_init(struct rne_mpa_rr_rx *s, bool want_reply);
/*
 * Takes bytes up to the end of the frame; *consumed says how many (the rest
 * is Full Operation data). Returns 1 when the frame is complete (rr->pd
 * points into s), 0 if more is needed, -enum rne_mpa_err on a bad frame.
 */
int rne_mpa_rr_rx_feed(struct rne_mpa_rr_rx *s, const uint8_t *data,
                       size_t len,
                       size_t *consumed, struct rne_mpa_rr *rr);

/* ---- negotiation ---- */

/* What this end wants. */
struct rne_mpa_local {
    uint8_t rev;                /* 1 or 2 (2: send E and the IRD/ORD block) */
    bool crc;
    bool markers;               /* we want to receive markers */
    bool p2p;                   /* use an RTR (RFC 6581) */
    /* RTR types we can send (initiator) / accept (responder) */
    uint8_t rtr_caps;
    uint16_t ird, ord;
    bool rfc7306;               /* offer / agree to RFC 7306 */
};

/* The outcome, from one end's point of view. */
struct rne_mpa_neg {
    uint8_t rev;
    bool crc;                   /* both directions */
    bool markers_tx;            /* we insert markers */
    bool markers_rx;            /* the peer inserts markers */
    bool ird_ord_known;         /* Rev 2 + E: IRD/ORD below are negotiated */
    uint16_t ird;               /* Read Requests we accept in flight */
    uint16_t ord;               /* Read Requests we may have in flight */
    uint8_t rtr;                /* the one RTR used, or NONE */
    bool rfc7306;               /* offered and agreed on the wire */
};

/* Initiator: the Request for local (pd not set). */
void rne_mpa_make_request(const struct rne_mpa_local *loc,
                          struct rne_mpa_rr *req);
/*
 * Responder: the Reply to req (pd not set). Echoes the revision the Request
 * used (capped by loc->rev), C if either side wants it, ORD clipped to the
 * initiator's IRD, for P2P the one RTR chosen from what was offered
 * (Read, else Write, else Send), and RFC 7306 agreed only if offered and
 * wanted. Returns 0, or an MPA error code
 * (RNE_MPA_EC_NO_MATCHING_RTR) meaning: reject.
 */
int rne_mpa_make_reply(const struct rne_mpa_rr *req,
                       const struct rne_mpa_local *loc,
                       struct rne_mpa_rr *rep);
/* Responder: the negotiated parameters after sending rep for req. */
void rne_mpa_responder_neg(const struct rne_mpa_rr *req,
                           const struct rne_mpa_rr *rep,
                           struct rne_mpa_neg *neg);
/*
 * Initiator: check the Reply against our Request. Returns 0 (neg filled),
 * -1 if the responder rejected (R=1), or the MPA error code to Terminate
 * with: RNE_MPA_EC_INVALID_REQ_REP (revision mismatch), _INSUFFICIENT_IRD
 * (responder ORD above our IRD), _NO_MATCHING_RTR (none or several chosen, or
 * one we did not offer).
 */
int rne_mpa_check_reply(const struct rne_mpa_rr *req,
                        const struct rne_mpa_rr *rep,
                        struct rne_mpa_neg *neg);

/* ---- FPDU ---- */

#define RNE_MPA_MARKER_INTERVAL 512
#define RNE_MPA_MARKER_LEN      4
#define RNE_MPA_CRC_LEN         4
#define RNE_MPA_ULPDU_MAX       65535

static inline uint32_t rne_mpa_pad(uint32_t ulpdu_len)
{
    return (4 - ((ulpdu_len + 2) & 3)) & 3;
}

/* FPDU length without markers: ULPDU_Length + ULPDU + pad + CRC. */
static inline uint32_t rne_mpa_fpdu_len(uint32_t ulpdu_len)
{
    return 2 + ulpdu_len + rne_mpa_pad(ulpdu_len) + RNE_MPA_CRC_LEN;
}

/*
 * Largest ULPDU for an EMSS such that an FPDU fits one TCP segment (RFC 5044):
 * EMSS - (6 + EMSS mod 4), and with markers EMSS - (6 + 4 * ceil(EMSS / 512) +
 * EMSS mod 4). 0 if the EMSS is too small.
 */
uint32_t rne_mpa_mulpdu(uint32_t emss, bool markers);

/*
 * Number of markers an FPDU of fpdu_len unmarked octets gets at stream offset
 * pos.
 */
uint32_t rne_mpa_markers_in(uint32_t pos, uint32_t fpdu_len);

/* Sender state, one per connection direction. */
struct rne_mpa_tx {
    bool crc, markers;
    uint32_t pos;               /* stream offset of the next FPDU (mod 2^32) */
};
void rne_mpa_tx_init(struct rne_mpa_tx *tx, bool crc, bool markers);
/*
 * On-wire size of the next FPDU carrying ulpdu_len octets (markers included).
 */
uint32_t rne_mpa_tx_size(const struct rne_mpa_tx *tx, uint32_t ulpdu_len);
/*
 * Build the next FPDU into out: its ULPDU is hdr (hlen) followed by payload
 * (plen), at most 65535 octets in all. Inserts markers, zero pad and the CRC
 * (zeros when CRC is off) and advances tx->pos. Returns the octets written,
 * 0 if out is too small or the ULPDU too long (tx unchanged).
 */
uint32_t rne_mpa_fpdu_build(struct rne_mpa_tx *tx, uint8_t *out, size_t cap,
                            const uint8_t *hdr, size_t hlen,
                            const uint8_t *payload, size_t plen);

/*
 * Zero-copy framing for a stream without markers: the FPDU is the 2-octet
 * prefix, then the ULPDU pieces as they are (e.g. headers and guest memory,
 * handed to rne_tcp_sendv), then the trailer (pad + CRC, 4 to 7 octets).
 * Same octets as rne_mpa_fpdu_build. Returns the trailer length and advances
 * tx->pos, or 0 if markers are on or the pieces exceed 65535 octets.
 */
struct rne_mpa_piece {
    const void *base;
    size_t len;
};
uint32_t rne_mpa_fpdu_frame(struct rne_mpa_tx *tx,
                            const struct rne_mpa_piece *pieces,
                            int npieces, uint8_t prefix[2],
                            uint8_t trailer[7]);
/*
 * The same in place, for an FPDU built in a send ring: room is its
 * rne_mpa_fpdu_len(ulen) octets as one or two spans, the ULPDU already at
 * offset 2.  Writes the
 * prefix, the pad and the CRC (one CRC32c call per part, not three per
 * FPDU) and advances tx->pos.  Returns the FPDU length, 0 if markers are on,
 * the ULPDU is too long or room does not match (nothing written).
 */
uint32_t rne_mpa_fpdu_seal(struct rne_mpa_tx *tx,
                           const struct rne_span room[2], uint32_t ulen);

/* Streaming receiver, one per connection direction. */
enum rne_mpa_rx_event {
    RNE_MPA_RX_NONE = 0,        /* all input consumed, FPDU incomplete */
    RNE_MPA_RX_FPDU = 1,        /* ev->ulpdu / ev->len: one verified ULPDU */
    /* ev->code: RNE_MPA_EC_*; the stream is dead */
    RNE_MPA_RX_ERROR = 2,
};

struct rne_mpa_rx_ev {
    int type;                   /* enum rne_mpa_rx_event */
    /* MPA error code (LLP layer) for RNE_MPA_RX_ERROR */
    uint8_t code;
    uint16_t len;
    const uint8_t *ulpdu;       /* valid until the next feed call */
};

struct rne_mpa_rx {
    bool crc, markers;
    uint8_t state;
    uint8_t err;                /* sticky MPA error code, 0 if none */
    /* some octet (maybe a marker) of the FPDU was consumed */
    bool in_fpdu;
    uint16_t ulpdu_len;
    uint32_t got;               /* octets of the current field so far */
    uint32_t pos;               /* stream offset of the next octet */
    /* stream offset of the current ULPDU_Length field */
    uint32_t hdr_pos;
    uint32_t crc_run;
    uint32_t cap;               /* largest ULPDU accepted (size of buf) */
    uint8_t *buf;
    uint8_t lenb[2], crcb[4], mk[4];
    uint64_t fpdus;             /* FPDUs delivered */
};

/*
 * buf (cap octets, at most 65535 used) holds a ULPDU that arrives in pieces
 * or with markers; it belongs to the caller and must outlive rx. An FPDU whose
 * ULPDU_Length exceeds cap is an error (RNE_MPA_EC_MARKER_MISMATCH: the
 * length field is inconsistent with the framing we accept).
 */
void rne_mpa_rx_init(struct rne_mpa_rx *rx, bool crc, bool markers,
                     uint8_t *buf, uint32_t cap);
/*
 * Consume stream octets until one FPDU is complete, the input is exhausted or
 * an error is found; returns the octets consumed. Call again with the rest.
 * A CRC failure (when CRC is on), a bad marker or an oversized ULPDU_Length
 * kills the stream: nothing of that FPDU is delivered and every later call
 * reports the same error and consumes nothing.
 */
size_t rne_mpa_rx_feed(struct rne_mpa_rx *rx, const uint8_t *data, size_t len,
                       struct rne_mpa_rx_ev *ev);

/* The Terminate cause for an MPA error code. */
static inline struct rne_term_cause rne_mpa_term_cause(uint8_t code)
{
    return rne_term_cause(RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA, code, false,
                          false);
}

#endif
