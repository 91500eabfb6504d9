// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iWARP error causes as carried in the RDMAP Terminate message: Layer,
 * Error Type and Error Code (RFC 5040, RFC 5041, RFC 5044, RFC 6581; IANA
 * "RDDP" registry). Shared by the MPA, DDP and RDMAP codecs
 * so that every validation failure names the Terminate it must produce.
 */
#ifndef RNE_IWARP_TERM_H
#define RNE_IWARP_TERM_H

#include <stdbool.h>
#include <stdint.h>

/* Layer (Terminate Control bits 0-3) */
enum {
    RNE_TERM_LAYER_RDMAP = 0x0,
    RNE_TERM_LAYER_DDP = 0x1,
    RNE_TERM_LAYER_LLP = 0x2,           /* MPA (or SCTP adaptation) */
};

/* RDMAP error types and codes (RFC 5040) */
enum {
    RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC = 0x0,
    RNE_RDMAP_ETYPE_REMOTE_PROTECTION = 0x1,
    RNE_RDMAP_ETYPE_REMOTE_OPERATION = 0x2,
};
enum {
    /* Remote Protection Error */
    RNE_RDMAP_EC_INVALID_STAG = 0x00,
    RNE_RDMAP_EC_BASE_BOUNDS = 0x01,
    RNE_RDMAP_EC_ACCESS_RIGHTS = 0x02,
    /* STag not associated with RDMAP Stream */
    RNE_RDMAP_EC_STAG_NOT_ASSOC = 0x03,
    RNE_RDMAP_EC_TO_WRAP = 0x04,
    /* Remote Operation Error */
    RNE_RDMAP_EC_INVALID_VERSION = 0x05,
    RNE_RDMAP_EC_UNEXPECTED_OPCODE = 0x06,
    /* localized to the RDMAP Stream */
    RNE_RDMAP_EC_CATASTROPHIC_STREAM = 0x07,
    RNE_RDMAP_EC_CATASTROPHIC_GLOBAL = 0x08,
    /* Remote Protection (Send with Invalidate) and Remote Operation */
    RNE_RDMAP_EC_CANNOT_INVALIDATE = 0x09,
    RNE_RDMAP_EC_UNSPECIFIED = 0xff,
    /* Local Catastrophic Error: the code is unspecified, 0 is sent */
    RNE_RDMAP_EC_LOCAL_CATASTROPHIC = 0x00,
};

/* DDP error types and codes (RFC 5041) */
enum {
    RNE_DDP_ETYPE_LOCAL_CATASTROPHIC = 0x0,
    RNE_DDP_ETYPE_TAGGED = 0x1,
    RNE_DDP_ETYPE_UNTAGGED = 0x2,
    /* reserved for the LLP (cxgb4 sends MPA errors here) */
    RNE_DDP_ETYPE_RSVD_LLP = 0x3,
};
enum {
    RNE_DDP_EC_LOCAL_CATASTROPHIC = 0x00,
    /* Tagged Buffer Error */
    RNE_DDP_EC_T_INVALID_STAG = 0x00,
    RNE_DDP_EC_T_BASE_BOUNDS = 0x01,
    /* STag not associated with DDP Stream */
    RNE_DDP_EC_T_STAG_NOT_ASSOC = 0x02,
    RNE_DDP_EC_T_TO_WRAP = 0x03,
    RNE_DDP_EC_T_INVALID_VERSION = 0x04,
    /* Untagged Buffer Error */
    RNE_DDP_EC_U_INVALID_QN = 0x01,
    RNE_DDP_EC_U_INVALID_MSN_NOBUF = 0x02, /* no buffer available */
    RNE_DDP_EC_U_INVALID_MSN_RANGE = 0x03, /* MSN range is not valid */
    RNE_DDP_EC_U_INVALID_MO = 0x04,
    /* message too long for available buffer */
    RNE_DDP_EC_U_TOO_LONG = 0x05,
    RNE_DDP_EC_U_INVALID_VERSION = 0x06,
};

/* LLP = MPA error type and codes (RFC 5044, RFC 6581) */
enum {
    RNE_LLP_ETYPE_MPA = 0x0,
};
enum {
    /* TCP connection closed, terminated or lost */
    RNE_MPA_EC_TCP_LOST = 0x01,
    RNE_MPA_EC_CRC = 0x02,
    /* Marker and ULPDU Length field mismatch */
    RNE_MPA_EC_MARKER_MISMATCH = 0x03,
    /* invalid MPA Request or Reply frame */
    RNE_MPA_EC_INVALID_REQ_REP = 0x04,
    RNE_MPA_EC_LOCAL_CATASTROPHIC = 0x05,   /* RFC 6581 */
    RNE_MPA_EC_INSUFFICIENT_IRD = 0x06,     /* RFC 6581 */
    RNE_MPA_EC_NO_MATCHING_RTR = 0x07,      /* RFC 6581 */
};

/*
 * A Terminate cause, plus which headers of the offending segment the
 * Terminate should carry (RFC 5040 Header Control bits): hdr_ddp sets D
 * (and M, the DDP Segment Length is then known), hdr_rdma sets R (the
 * offending segment was an RDMA Read Request: its 28-byte header goes along).
 */
struct rne_term_cause {
    uint8_t layer, etype, code;
    bool hdr_ddp, hdr_rdma;
};

static inline struct rne_term_cause rne_term_cause(uint8_t layer,
                                                   uint8_t etype,
                                                   uint8_t code,
                                                   bool hdr_ddp,
                                                   bool hdr_rdma)
{
    struct rne_term_cause c = { layer, etype, code, hdr_ddp, hdr_rdma };
    return c;
}

#endif
