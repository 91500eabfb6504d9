// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DDP: Direct Data Placement over MPA (RFC 5041) segment headers. A DDP
 * segment is the ULPDU of one MPA FPDU:
 *
 *   tagged (14 octets):   ctrl | RsvdULP[0:7] | STag(32) | TO(64)
 *   untagged (18 octets): ctrl | RsvdULP[0:39] | QN(32) | MSN(32) | MO(32)
 *   ctrl = T(0x80) L(0x40) Rsvd(0x3c) DV(0x03, = 1)
 *
 * RsvdULP belongs to the ULP (RDMAP): octet 1 is the RDMAP control byte,
 * untagged octets 2-5 carry the Invalidate STag of Send with Invalidate.
 * Pure codecs, all lengths checked; big-endian on the wire.
 */
#ifndef RNE_DDP_H
#define RNE_DDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "be.h"
#include "iwarp_term.h"

#define RNE_DDP_TAGGED_HLEN     14
#define RNE_DDP_UNTAGGED_HLEN   18
#define RNE_DDP_F_TAGGED        0x80
#define RNE_DDP_F_LAST          0x40
#define RNE_DDP_RSVD_MASK       0x3c    /* 0 on TX, ignored on RX */
#define RNE_DDP_DV_MASK         0x03
#define RNE_DDP_VERSION         1

struct rne_ddp_hdr {
    bool tagged, last;
    uint8_t dv;                 /* DDP version: RNE_DDP_VERSION */
    uint8_t ulp_ctrl;           /* RsvdULP[0:7] (the RDMAP control byte) */
    /* untagged RsvdULP[8:39] (Invalidate STag or 0) */
    uint32_t ulp_word;
    uint32_t stag;              /* tagged */
    uint64_t to;
    uint32_t qn, msn, mo;       /* untagged */
};

static inline size_t rne_ddp_hlen(bool tagged)
{
    return tagged ? RNE_DDP_TAGGED_HLEN : RNE_DDP_UNTAGGED_HLEN;
}

/* Write the header; returns its length, or 0 if cap is too small. */
size_t rne_ddp_encode(const struct rne_ddp_hdr *h, uint8_t *buf, size_t cap);
/*
 * The encoder itself, from the fields: writes them as given (a DV other
 * than 1 included, for the tests' hostile peer) into buf, which must hold
 * RNE_DDP_TAGGED_HLEN / RNE_DDP_UNTAGGED_HLEN octets; returns that length.
 */
size_t rne_ddp_put_tagged(uint8_t *buf, bool last, uint8_t dv,
                          uint8_t ulp_ctrl, uint32_t stag, uint64_t to);
size_t rne_ddp_put_untagged(uint8_t *buf, bool last, uint8_t dv,
                            uint8_t ulp_ctrl, uint32_t ulp_word, uint32_t qn,
                            uint32_t msn, uint32_t mo);
/*
 * Read and validate the header at the start of a DDP segment of len octets.
 * Returns the header length, or 0 with *cause set: segment shorter than its
 * header (DDP local catastrophic) or DV != 1 (tagged 0x04 / untagged 0x06
 * "Invalid DDP version", RFC 5041).
 */
size_t rne_ddp_decode(const uint8_t *buf, size_t len, struct rne_ddp_hdr *h,
                      struct rne_term_cause *cause);

/*
 * Tagged placement: true if TO + len passes 2^64 (DDP tagged 0x03 "TO wrap").
 */
static inline bool rne_ddp_to_wraps(uint64_t to, uint64_t len)
{
    return len && to + len - 1 < to;
}

#endif
