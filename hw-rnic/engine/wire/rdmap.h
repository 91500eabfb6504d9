// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDMAP (RFC 5040) messages over DDP, with the RFC 7306 extensions
 * (Immediate Data, Atomic Operations) as an option. Encode the DDP + RDMAP
 * headers of a segment; decode and validate a received DDP segment, naming
 * the Terminate cause (layer / error type / code) for anything malformed;
 * build and parse Terminate messages.
 *
 *   RDMAP control byte (DDP RsvdULP[0:7]):
 *     RV(0xc0, = 1) Rsvd(0x30) OpCode(0x0f)
 *
 *   op  message             DDP       QN  RDMAP header   payload
 *   0   RDMA Write          tagged    -   -              any
 *   1   RDMA Read Request   untagged  1   28             none
 *   2   RDMA Read Response  tagged    -   -              any
 *   3-6 Send [Inv] [SE]     untagged  0   - (Inv STag in RsvdULP[8:39])
 *   7   Terminate           untagged  2   4 + [2 + 14|18] + [28]
 *   8,9 Immediate Data [SE] untagged  0   -              8 octets  (RFC 7306)
 *   10  Atomic Request      untagged  1   52             none      (RFC 7306)
 *   11  Atomic Response     untagged  3   12             none      (RFC 7306)
 *
 * RFC 7306 also registers Terminate codes of its own (atomics, immediate
 * data); they are not defined here yet: an AtomicOpCode above CompareSwap is
 * reported as "Unexpected OpCode".
 *
 * Message sequencing (MSN/MO continuity), STag and buffer checks need the
 * QP's state and live in the verbs engine; this layer checks everything a
 * single segment can tell.
 */
#ifndef RNE_RDMAP_H
#define RNE_RDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ddp.h"
#include "iwarp_term.h"

#define RNE_RDMAP_VERSION       1
#define RNE_RDMAP_RV_SHIFT      6
#define RNE_RDMAP_RSVD_MASK     0x30
#define RNE_RDMAP_OP_MASK       0x0f

enum rne_rdmap_op {
    RNE_RDMAP_WRITE = 0x0,
    RNE_RDMAP_READ_REQ = 0x1,
    RNE_RDMAP_READ_RESP = 0x2,
    RNE_RDMAP_SEND = 0x3,
    RNE_RDMAP_SEND_INV = 0x4,
    RNE_RDMAP_SEND_SE = 0x5,
    RNE_RDMAP_SEND_SE_INV = 0x6,
    RNE_RDMAP_TERMINATE = 0x7,
    RNE_RDMAP_IMM_DATA = 0x8,           /* RFC 7306 */
    RNE_RDMAP_IMM_DATA_SE = 0x9,        /* RFC 7306 */
    RNE_RDMAP_ATOMIC_REQ = 0xa,         /* RFC 7306 */
    RNE_RDMAP_ATOMIC_RESP = 0xb,        /* RFC 7306 */
    RNE_RDMAP_NOPS = 0xc,
};

/* DDP untagged queues used by RDMAP (RFC 5040; QN 3 from RFC 7306) */
enum {
    RNE_RDMAP_QN_SEND = 0,              /* Send family, Immediate Data */
    RNE_RDMAP_QN_READ_REQ = 1,          /* RDMA Read Request, Atomic Request */
    RNE_RDMAP_QN_TERMINATE = 2,
    RNE_RDMAP_QN_ATOMIC_RESP = 3,
};

#define RNE_RDMAP_READ_REQ_LEN      28
#define RNE_RDMAP_TERM_CTRL_LEN     4
#define RNE_RDMAP_IMM_LEN           8
#define RNE_RDMAP_ATOMIC_REQ_LEN    52
#define RNE_RDMAP_ATOMIC_RESP_LEN   12
/*
 * Largest Terminate ULPDU: DDP + control + segment length + DDP hdr + Read
 * Request hdr
 */
#define RNE_RDMAP_TERM_MAX \
    (RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_TERM_CTRL_LEN + 2 + \
     RNE_DDP_UNTAGGED_HLEN + RNE_RDMAP_READ_REQ_LEN)

/* Terminate Control: Layer(4) EType(4) Code(8) M D R Rsvd(13), big-endian */
/* in octet 2: DDP Segment Length valid */
#define RNE_RDMAP_TERM_M        0x80
#define RNE_RDMAP_TERM_D        0x40    /* Terminated DDP Header included */
/* Terminated RDMA (Read Request) Header included */
#define RNE_RDMAP_TERM_R        0x20

/* RFC 7306 AtomicOpCode */
enum {
    RNE_RDMAP_ATOMIC_FETCH_ADD = 0x0,
    RNE_RDMAP_ATOMIC_SWAP = 0x1,
    RNE_RDMAP_ATOMIC_CMP_SWAP = 0x2,
};

/* decode flags */
#define RNE_RDMAP_F_RFC7306     0x1     /* accept opcodes 8-11 and QN 3 */

struct rne_rdmap_read_req {
    uint32_t sink_stag;
    uint64_t sink_to;
    uint32_t size;
    uint32_t src_stag;
    uint64_t src_to;
};

struct rne_rdmap_term {
    uint8_t layer, etype, code;
    bool m, d, r;
    uint16_t rsvd;              /* low 13 bits as received */
    uint16_t ddp_seg_len;       /* with d (valid if m) */
    uint8_t ddp_hdr_len;        /* 14 or 18, with d */
    uint8_t ddp_hdr[RNE_DDP_UNTAGGED_HLEN];
    uint8_t rdma_hdr[RNE_RDMAP_READ_REQ_LEN];       /* with r */
};

struct rne_rdmap_atomic_req {
    uint8_t op;                 /* RNE_RDMAP_ATOMIC_* */
    uint32_t req_id;
    uint32_t stag;
    uint64_t to;
    uint64_t add_swap, add_swap_mask;
    uint64_t compare, compare_mask;
};

struct rne_rdmap_atomic_resp {
    uint32_t req_id;
    uint64_t orig;
};

/* One DDP segment seen as RDMAP. */
struct rne_rdmap_msg {
    /* ddp.ulp_ctrl is derived from opcode/rv on encode */
    struct rne_ddp_hdr ddp;
    uint8_t opcode;
    uint8_t rv;                 /* RDMAP version */
    union {
        struct rne_rdmap_read_req rr;
        struct rne_rdmap_term term;
        struct rne_rdmap_atomic_req areq;
        struct rne_rdmap_atomic_resp aresp;
    } u;
    /* decode: the data after the headers (payload or Immediate Data) */
    const uint8_t *payload;
    uint32_t payload_len;
};

/* Static facts about an opcode. */
struct rne_rdmap_op_info {
    const char *name;
    bool tagged;
    bool rfc7306;
    uint8_t qn;                 /* untagged only */
    /* RDMAP header after the DDP header (Terminate: minimum) */
    uint8_t hdr_len;
};
/* NULL if reserved */
const struct rne_rdmap_op_info *rne_rdmap_op_info(uint8_t opcode);

/* The RDMAP control octet (DDP RsvdULP[0:7]) for version rv and opcode op. */
static inline uint8_t rne_rdmap_ctrl(uint8_t rv, uint8_t op)
{
    return (uint8_t)((rv & 3) << RNE_RDMAP_RV_SHIFT | op);
}

/*
 * The DDP and RDMAP headers of one segment of an op that has no RDMAP header
 * past the control octet: Write and Read Response (tagged), the Sends and
 * Immediate Data (untagged; inv_stag for Send with Invalidate, else 0).
 * DV and RV 1, fields as given; buf holds RNE_DDP_TAGGED_HLEN /
 * RNE_DDP_UNTAGGED_HLEN octets.   Returns the header length.  The engine's
 * transmit path and the tests' raw peer (which may then damage the bytes)
 * both write segment headers with these.
 */
size_t rne_rdmap_seg_tagged(uint8_t *buf, uint8_t op, uint32_t stag,
                            uint64_t to, bool last);
size_t rne_rdmap_seg_untagged(uint8_t *buf, uint8_t op, uint32_t qn,
                              uint32_t msn, uint32_t mo, bool last,
                              uint32_t inv_stag);

/* Length of the DDP + RDMAP headers m encodes to (0 for a reserved opcode). */
size_t rne_rdmap_hdr_len(const struct rne_rdmap_msg *m);
/*
 * Write the DDP and RDMAP headers of m (the payload, if any, follows them in
 * the ULPDU). ddp.tagged comes from the opcode, the RDMAP control byte from
 * opcode and rv; for Send with Invalidate ddp.ulp_word is the STag. Returns
 * the header length, or 0 if cap is too small or the opcode is reserved.
 */
size_t rne_rdmap_hdr_encode(const struct rne_rdmap_msg *m, uint8_t *buf,
                            size_t cap);
/*
 * Decode and validate one DDP segment (a ULPDU). Returns 0 on success, -1
 * with *cause filled on the first violation:
 *   DDP  DV != 1 (tagged 0x04 / untagged 0x06), truncated DDP header;
 *   RDMAP RV != 1 (Remote Operation 0x05); reserved or disabled opcode, or
 *        one whose DDP model (T) is wrong (0x06); RDMAP header shorter than
 *        its opcode needs (0x07, localized catastrophic);
 *   DDP  QN not valid for the opcode (untagged 0x01); Read Request, Terminate,
 *        Atomic or Immediate Data not in one segment at MO 0 (0x04 Invalid MO
 *        for MO != 0, 0x05 message too long for L = 0 or trailing octets).
 * With RNE_RDMAP_F_RFC7306 unset, opcodes 8-11 are "Unexpected OpCode".
 */
int rne_rdmap_decode(const uint8_t *ulpdu, size_t len, unsigned flags,
                     struct rne_rdmap_msg *m, struct rne_term_cause *cause);

/*
 * Build the ULPDU of a Terminate (QN 2, MO 0, L = 1, the given MSN) for
 * cause, attaching from the offending segment bad (bad_len octets, may be
 * NULL) its DDP header and segment length if cause->hdr_ddp (D, M), and its
 * Read Request header if cause->hdr_rdma and it is a complete Read Request
 * (R). Returns the ULPDU length (<= RNE_RDMAP_TERM_MAX), 0 if cap is short.
 */
size_t rne_rdmap_term_build(uint8_t *out, size_t cap, uint32_t msn,
                            const struct rne_term_cause *cause,
                            const uint8_t *bad, size_t bad_len);

#endif
