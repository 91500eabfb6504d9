// SPDX-License-Identifier: GPL-2.0-or-later
/* DDP (RFC 5041) segment header codec. See ddp.h. */
#include <string.h>
#include "net.h"
#include "ddp.h"

size_t rne_ddp_put_tagged(uint8_t *buf, bool last, uint8_t dv,
                          uint8_t ulp_ctrl, uint32_t stag, uint64_t to)
{
    buf[0] = (uint8_t)(RNE_DDP_F_TAGGED | (last ? RNE_DDP_F_LAST : 0) |
                       (dv & RNE_DDP_DV_MASK));
    buf[1] = ulp_ctrl;
    rne_st_be32(buf + 2, stag);
    rne_st_be64(buf + 6, to);
    return RNE_DDP_TAGGED_HLEN;
}

size_t rne_ddp_put_untagged(uint8_t *buf, bool last, uint8_t dv,
                            uint8_t ulp_ctrl, uint32_t ulp_word, uint32_t qn,
                            uint32_t msn, uint32_t mo)
{
    buf[0] = (uint8_t)((last ? RNE_DDP_F_LAST : 0) | (dv & RNE_DDP_DV_MASK));
    buf[1] = ulp_ctrl;
    rne_st_be32(buf + 2, ulp_word);
    rne_st_be32(buf + 6, qn);
    rne_st_be32(buf + 10, msn);
    rne_st_be32(buf + 14, mo);
    return RNE_DDP_UNTAGGED_HLEN;
}

size_t rne_ddp_encode(const struct rne_ddp_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < rne_ddp_hlen(h->tagged)) {
        return 0;
    }
    if (h->tagged) {
        return rne_ddp_put_tagged(buf, h->last, h->dv, h->ulp_ctrl, h->stag,
                                  h->to);
    }
    return rne_ddp_put_untagged(buf, h->last, h->dv, h->ulp_ctrl,
                                h->ulp_word, h->qn, h->msn, h->mo);
}

size_t rne_ddp_decode(const uint8_t *buf, size_t len, struct rne_ddp_hdr *h,
                      struct rne_term_cause *cause)
{
    memset(h, 0, sizeof(*h));
    if (len < 1) {
        *cause = rne_term_cause(RNE_TERM_LAYER_DDP,
                                RNE_DDP_ETYPE_LOCAL_CATASTROPHIC,
                                RNE_DDP_EC_LOCAL_CATASTROPHIC, false, false);
        return 0;
    }
    h->tagged = buf[0] & RNE_DDP_F_TAGGED;
    h->last = buf[0] & RNE_DDP_F_LAST;
    h->dv = buf[0] & RNE_DDP_DV_MASK;
    if (h->dv != RNE_DDP_VERSION) {
        *cause = h->tagged ?
            rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
                           RNE_DDP_EC_T_INVALID_VERSION, false, false) :
            rne_term_cause(RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED,
                           RNE_DDP_EC_U_INVALID_VERSION, false, false);
        return 0;
    }
    size_t hlen = rne_ddp_hlen(h->tagged);
    if (len < hlen) {
        /*
         * No RFC 5041 code names a truncated header; the segment cannot be
         * interpreted at all, so it is reported as a DDP catastrophic error.
         */
        *cause = rne_term_cause(RNE_TERM_LAYER_DDP,
                                RNE_DDP_ETYPE_LOCAL_CATASTROPHIC,
                                RNE_DDP_EC_LOCAL_CATASTROPHIC, false, false);
        return 0;
    }
    h->ulp_ctrl = buf[1];
    if (h->tagged) {
        h->stag = rne_ld_be32(buf + 2);
        h->to = rne_ld_be64(buf + 6);
    } else {
        h->ulp_word = rne_ld_be32(buf + 2);
        h->qn = rne_ld_be32(buf + 6);
        h->msn = rne_ld_be32(buf + 10);
        h->mo = rne_ld_be32(buf + 14);
    }
    return hlen;
}
