// SPDX-License-Identifier: GPL-2.0-or-later
/* MPA (RFC 5044 + RFC 6581) codecs, negotiation and FPDU framing. See mpa.h. */
#include <stdint.h>
#include <string.h>
#include "be.h"
#include "crc32c.h"
#include "mpa.h"

const uint8_t rne_mpa_key_req[RNE_MPA_KEY_LEN] = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
    'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e'
};
const uint8_t rne_mpa_key_rep[RNE_MPA_KEY_LEN] = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
    'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e'
};

/* ---- Request / Reply ---- */

int rne_mpa_rr_encode(const struct rne_mpa_rr *rr, uint8_t *buf, size_t cap)
{
    bool v2 = rr->enhanced;
    size_t pd_total = (size_t)rr->pd_len + (v2 ? RNE_MPA_V2_LEN : 0);

    if (rr->rev != 1 && rr->rev != 2) {
        return -RNE_MPA_E_REV;
    }
    if (v2 && rr->rev != 2) {
        return -RNE_MPA_E_REV;
    }
    if (pd_total > RNE_MPA_PD_MAX || (rr->pd_len && !rr->pd)) {
        return -RNE_MPA_E_PD_LEN;
    }
    if (v2 && (rr->ird > RNE_MPA_V2_MASK || rr->ord > RNE_MPA_V2_MASK ||
               (!rr->p2p && rr->rtr) || (rr->rtr & ~7))) {
        return -RNE_MPA_E_IRD_ORD;
    }
    if (cap < RNE_MPA_RR_HLEN + pd_total) {
        return -RNE_MPA_E_SPACE;
    }
    memcpy(buf, rr->reply ? rne_mpa_key_rep : rne_mpa_key_req,
           RNE_MPA_KEY_LEN);
    buf[16] = (uint8_t)((rr->markers ? RNE_MPA_FLAG_M : 0) |
                        (rr->crc ? RNE_MPA_FLAG_C : 0) |
                        (rr->reply && rr->reject ? RNE_MPA_FLAG_R : 0) |
                        (v2 ? RNE_MPA_FLAG_E : 0) |
                        (rr->x7306 ? (rr->reply ? RNE_MPA_FLAG_X7306_ACCEPT :
                                      RNE_MPA_FLAG_X7306_OFFER) : 0));
    buf[17] = rr->rev;
    rne_st_be16(buf + 18, (uint16_t)pd_total);
    uint8_t *p = buf + RNE_MPA_RR_HLEN;
    if (v2) {
        uint16_t ird = rr->ird, ord = rr->ord;
        if (rr->p2p) {
            ird |= RNE_MPA_V2_IRD_P;
            ird |= (rr->rtr & RNE_MPA_RTR_SEND) ? RNE_MPA_V2_IRD_SEND : 0;
            ord |= (rr->rtr & RNE_MPA_RTR_WRITE) ? RNE_MPA_V2_ORD_WRITE : 0;
            ord |= (rr->rtr & RNE_MPA_RTR_READ) ? RNE_MPA_V2_ORD_READ : 0;
        }
        rne_st_be16(p, ird);
        rne_st_be16(p + 2, ord);
        p += RNE_MPA_V2_LEN;
    }
    if (rr->pd_len) {
        memcpy(p, rr->pd, rr->pd_len);
    }
    return (int)(RNE_MPA_RR_HLEN + pd_total);
}

int rne_mpa_rr_decode(const uint8_t *buf, size_t len, struct rne_mpa_rr *rr)
{
    memset(rr, 0, sizeof(*rr));
    if (len == 0) {
        return 0;
    }
    /* Judge the key on whatever prefix is here: garbage fails fast. */
    size_t k = len < RNE_MPA_KEY_LEN ? len : RNE_MPA_KEY_LEN;
    bool is_req = memcmp(buf, rne_mpa_key_req, k) == 0;
    bool is_rep = memcmp(buf, rne_mpa_key_rep, k) == 0;
    if (!is_req && !is_rep) {
        return -RNE_MPA_E_KEY;
    }
    if (len < RNE_MPA_RR_HLEN) {
        return 0;
    }
    uint8_t fl = buf[16];
    uint16_t pd_total = rne_ld_be16(buf + 18);
    rr->reply = is_rep;
    rr->markers = fl & RNE_MPA_FLAG_M;
    rr->crc = fl & RNE_MPA_FLAG_C;
    rr->reject = is_rep && (fl & RNE_MPA_FLAG_R);
    rr->rev = buf[17];
    uint8_t x7306 = is_rep ? RNE_MPA_FLAG_X7306_ACCEPT :
                    RNE_MPA_FLAG_X7306_OFFER;
    rr->x7306 = fl & x7306;
    rr->res = fl & RNE_MPA_FLAG_RES & ~x7306;
    if (pd_total > RNE_MPA_PD_MAX) {
        return -RNE_MPA_E_PD_LEN;
    }
    if (rr->rev != 1 && rr->rev != 2) {
        return -RNE_MPA_E_REV;
    }
    rr->enhanced = rr->rev == 2 && (fl & RNE_MPA_FLAG_E);
    if (rr->rev == 1 && (fl & RNE_MPA_FLAG_E)) {
        rr->res |= RNE_MPA_FLAG_E;
    }
    if (rr->enhanced && pd_total < RNE_MPA_V2_LEN) {
        return -RNE_MPA_E_PD_LEN;
    }
    if (len < (size_t)RNE_MPA_RR_HLEN + pd_total) {
        return 0;
    }
    const uint8_t *p = buf + RNE_MPA_RR_HLEN;
    rr->pd_len = pd_total;
    if (rr->enhanced) {
        uint16_t ird = rne_ld_be16(p), ord = rne_ld_be16(p + 2);
        rr->p2p = ird & RNE_MPA_V2_IRD_P;
        rr->ird = ird & RNE_MPA_V2_MASK;
        rr->ord = ord & RNE_MPA_V2_MASK;
        if (rr->p2p) {
            rr->rtr = (uint8_t)(
                ((ird & RNE_MPA_V2_IRD_SEND) ? RNE_MPA_RTR_SEND : 0) |
                ((ord & RNE_MPA_V2_ORD_WRITE) ? RNE_MPA_RTR_WRITE : 0) |
                ((ord & RNE_MPA_V2_ORD_READ) ? RNE_MPA_RTR_READ : 0));
        }
        p += RNE_MPA_V2_LEN;
        rr->pd_len = (uint16_t)(pd_total - RNE_MPA_V2_LEN);
    }
    rr->pd = rr->pd_len ? p : NULL;
    return (int)(RNE_MPA_RR_HLEN + pd_total);
}

void rne_mpa_rr_rx_init(struct rne_mpa_rr_rx *s, bool want_reply)
{
    s->want_reply = want_reply;
    s->have = 0;
}

int rne_mpa_rr_rx_feed(struct rne_mpa_rr_rx *s, const uint8_t *data,
                       size_t len,
                       size_t *consumed, struct rne_mpa_rr *rr)
{
    /*
     * Take the header first, then exactly PD_Length more: never past the frame.
     */
    size_t want = RNE_MPA_RR_HLEN;
    size_t used = 0;
    *consumed = 0;
    for (;;) {
        if (s->have >= RNE_MPA_RR_HLEN) {
            uint16_t pd = rne_ld_be16(s->buf + 18);
            want = RNE_MPA_RR_HLEN + (pd > RNE_MPA_PD_MAX ? 0 : pd);
        }
        if (s->have < want) {
            size_t n = want - s->have;
            n = n < len - used ? n : len - used;
            if (n) {
                memcpy(s->buf + s->have, data + used, n);
            }
            s->have = (uint16_t)(s->have + n);
            used += n;
        }
        int r = rne_mpa_rr_decode(s->buf, s->have, rr);
        *consumed = used;
        if (r < 0) {
            return r;
        }
        if (r > 0) {
            return rr->reply == s->want_reply ? 1 : -RNE_MPA_E_KEY;
        }
        if (used == len) {
            return 0;
        }
    }
}

/* ---- negotiation ---- */

static uint16_t clip14(uint16_t v)
{
    return v > RNE_MPA_V2_MASK ? RNE_MPA_V2_MASK : v;
}

void rne_mpa_make_request(const struct rne_mpa_local *loc,
                          struct rne_mpa_rr *req)
{
    memset(req, 0, sizeof(*req));
    req->rev = loc->rev == 1 ? 1 : 2;
    req->crc = loc->crc;
    req->markers = loc->markers;
    req->x7306 = loc->rfc7306;
    if (req->rev == 2) {
        req->enhanced = true;
        req->ird = clip14(loc->ird);
        req->ord = clip14(loc->ord);
        req->p2p = loc->p2p && (loc->rtr_caps & 7);
        req->rtr = req->p2p ? (loc->rtr_caps & 7) : 0;
        /* A Read RTR needs one outbound read credit (RFC 6581). */
        if (req->rtr == RNE_MPA_RTR_READ && req->ord == 0) {
            req->ord = 1;
        }
    }
}

int rne_mpa_make_reply(const struct rne_mpa_rr *req,
                       const struct rne_mpa_local *loc,
                       struct rne_mpa_rr *rep)
{
    memset(rep, 0, sizeof(*rep));
    rep->reply = true;
    rep->rev = (req->rev >= 2 && loc->rev >= 2) ? 2 : 1;
    rep->crc = req->crc || loc->crc;
    rep->markers = loc->markers;
    rep->x7306 = req->x7306 && loc->rfc7306;
    if (rep->rev == 2 && req->enhanced) {
        rep->enhanced = true;
        rep->ird = clip14(loc->ird);
        rep->ord = clip14(loc->ord);
        /* Our outbound reads must fit the initiator's inbound queue. */
        if (rep->ord > req->ird) {
            rep->ord = req->ird;
        }
        if (req->p2p && loc->p2p) {
            uint8_t common = req->rtr & loc->rtr_caps;
            rep->p2p = true;
            rep->rtr = (common & RNE_MPA_RTR_READ) ? RNE_MPA_RTR_READ :
                       (common & RNE_MPA_RTR_WRITE) ? RNE_MPA_RTR_WRITE :
                       (common & RNE_MPA_RTR_SEND) ? RNE_MPA_RTR_SEND : 0;
            if (!rep->rtr) {
                rep->reject = true;
                rep->p2p = false;
                return RNE_MPA_EC_NO_MATCHING_RTR;
            }
            if (rep->rtr == RNE_MPA_RTR_READ && rep->ird == 0) {
                rep->ird = 1;       /* the RTR itself is an inbound read */
            }
        }
    }
    return 0;
}

void rne_mpa_responder_neg(const struct rne_mpa_rr *req,
                           const struct rne_mpa_rr *rep,
                           struct rne_mpa_neg *neg)
{
    memset(neg, 0, sizeof(*neg));
    neg->rev = rep->rev;
    neg->crc = req->crc || rep->crc;
    neg->markers_tx = req->markers;
    neg->markers_rx = rep->markers;
    neg->rfc7306 = req->x7306 && rep->x7306;
    if (req->enhanced && rep->enhanced) {
        neg->ird_ord_known = true;
        neg->ird = rep->ird;
        neg->ord = rep->ord < req->ird ? rep->ord : req->ird;
        neg->rtr = (req->p2p && rep->p2p) ? rep->rtr : RNE_MPA_RTR_NONE;
    }
}

int rne_mpa_check_reply(const struct rne_mpa_rr *req,
                        const struct rne_mpa_rr *rep,
                        struct rne_mpa_neg *neg)
{
    memset(neg, 0, sizeof(*neg));
    if (rep->reject) {
        return -1;
    }
    /*
     * The responder answers with the Request's revision or a lower one, and an
     * enhanced Request gets an enhanced Reply or a Rev 1 one.
     */
    if (rep->rev > req->rev || (rep->enhanced && !req->enhanced)) {
        return RNE_MPA_EC_INVALID_REQ_REP;
    }
    neg->rev = rep->rev;
    neg->crc = req->crc || rep->crc;
    neg->markers_tx = rep->markers;
    neg->markers_rx = req->markers;
    /* An agreement we did not ask for is ignored: off. */
    neg->rfc7306 = req->x7306 && rep->x7306;
    if (req->enhanced && rep->enhanced) {
        neg->ird_ord_known = true;
        if (rep->ord > req->ird) {
            return RNE_MPA_EC_INSUFFICIENT_IRD;
        }
        neg->ird = req->ird;
        neg->ord = req->ord < rep->ird ? req->ord : rep->ird;
        if (req->p2p && rep->p2p) {
            uint8_t r = rep->rtr;
            if (r == 0 || (r & (r - 1)) || !(r & req->rtr)) {
                return RNE_MPA_EC_NO_MATCHING_RTR;
            }
            neg->rtr = r;
        }
    }
    return 0;
}

/* ---- FPDU ---- */

uint32_t rne_mpa_mulpdu(uint32_t emss, bool markers)
{
    uint32_t ovh = 6 + emss % 4;
    if (markers) {
        ovh += 4 * ((emss + RNE_MPA_MARKER_INTERVAL - 1) /
                    RNE_MPA_MARKER_INTERVAL);
    }
    if (emss <= ovh) {
        return 0;
    }
    return emss - ovh > RNE_MPA_ULPDU_MAX ? RNE_MPA_ULPDU_MAX : emss - ovh;
}

uint32_t rne_mpa_markers_in(uint32_t pos, uint32_t fpdu_len)
{
    /*
     * Walk the stream: a marker goes wherever an octet of the FPDU would land
     * on a 512 boundary (the one after the last octet belongs to the next).
     */
    uint32_t n = 0, left = fpdu_len;
    while (left) {
        uint32_t off = pos % RNE_MPA_MARKER_INTERVAL;
        if (off == 0) {
            n++;
            pos += RNE_MPA_MARKER_LEN;
            off = RNE_MPA_MARKER_LEN;
        }
        uint32_t run = RNE_MPA_MARKER_INTERVAL - off;
        run = run < left ? run : left;
        pos += run;
        left -= run;
    }
    return n;
}

void rne_mpa_tx_init(struct rne_mpa_tx *tx, bool crc, bool markers)
{
    tx->crc = crc;
    tx->markers = markers;
    tx->pos = 0;
}

uint32_t rne_mpa_tx_size(const struct rne_mpa_tx *tx, uint32_t ulpdu_len)
{
    uint32_t len = rne_mpa_fpdu_len(ulpdu_len);
    return tx->markers ?
           len + RNE_MPA_MARKER_LEN * rne_mpa_markers_in(tx->pos, len) : len;
}

/* Output cursor that inserts markers at the stream's 512-octet grid. */
struct mk_writer {
    uint8_t *out;
    size_t n;               /* octets written */
    uint32_t pos;           /* stream offset of out[n] */
    uint32_t hdr_pos;       /* stream offset of the ULPDU_Length field */
    bool markers, hdr_seen;
};

static void mk_put(struct mk_writer *w, const uint8_t *src, size_t len)
{
    while (len) {
        if (w->markers && w->pos % RNE_MPA_MARKER_INTERVAL == 0) {
            uint16_t ptr = w->hdr_seen ? (uint16_t)(w->pos - w->hdr_pos) : 0;
            uint8_t *m = w->out + w->n;
            m[0] = m[1] = 0;
            rne_st_be16(m + 2, ptr);
            w->n += RNE_MPA_MARKER_LEN;
            w->pos += RNE_MPA_MARKER_LEN;
        }
        if (!w->hdr_seen) {
            w->hdr_seen = true;
            w->hdr_pos = w->pos;
        }
        size_t run = len;
        if (w->markers) {
            uint32_t room = RNE_MPA_MARKER_INTERVAL -
                            w->pos % RNE_MPA_MARKER_INTERVAL;
            run = run < room ? run : room;
        }
        if (src) {
            memcpy(w->out + w->n, src, run);
            src += run;
        } else {
            memset(w->out + w->n, 0, run);
        }
        w->n += run;
        w->pos += (uint32_t)run;
        len -= run;
    }
}

uint32_t rne_mpa_fpdu_build(struct rne_mpa_tx *tx, uint8_t *out, size_t cap,
                            const uint8_t *hdr, size_t hlen,
                            const uint8_t *payload, size_t plen)
{
    if (hlen > RNE_MPA_ULPDU_MAX || plen > RNE_MPA_ULPDU_MAX - hlen) {
        return 0;
    }
    uint32_t ulen = (uint32_t)(hlen + plen);
    uint32_t total = rne_mpa_tx_size(tx, ulen);
    if (cap < total) {
        return 0;
    }
    struct mk_writer w = { .out = out, .pos = tx->pos, .markers = tx->markers };
    uint8_t lenb[2];
    rne_st_be16(lenb, (uint16_t)ulen);
    mk_put(&w, lenb, 2);
    if (hlen) {
        mk_put(&w, hdr, hlen);
    }
    if (plen) {
        mk_put(&w, payload, plen);
    }
    mk_put(&w, NULL, rne_mpa_pad(ulen));
    /*
     * The CRC field is 4-aligned in the stream like every marker, so it is
     * never split: a marker due here lands in front of it, covered by it.
     */
    mk_put(&w, NULL, RNE_MPA_CRC_LEN);
    size_t crc_off = w.n - RNE_MPA_CRC_LEN;
    rne_crc32c_put(out + crc_off, tx->crc ? rne_crc32c(0, out, crc_off) : 0);
    tx->pos = w.pos;
    return (uint32_t)w.n;
}

uint32_t rne_mpa_fpdu_frame(struct rne_mpa_tx *tx,
                            const struct rne_mpa_piece *pieces,
                            int npieces, uint8_t prefix[2], uint8_t trailer[7])
{
    size_t ulen = 0;
    if (tx->markers || npieces < 0) {
        return 0;
    }
    for (int i = 0; i < npieces; i++) {
        if (pieces[i].len > RNE_MPA_ULPDU_MAX - ulen) {
            return 0;
        }
        ulen += pieces[i].len;
    }
    uint32_t pad = rne_mpa_pad((uint32_t)ulen);
    rne_st_be16(prefix, (uint16_t)ulen);
    memset(trailer, 0, pad);
    uint32_t crc = 0;
    if (tx->crc) {
        crc = rne_crc32c(0, prefix, 2);
        for (int i = 0; i < npieces; i++) {
            crc = rne_crc32c(crc, pieces[i].base, pieces[i].len);
        }
        crc = rne_crc32c(crc, trailer, pad);
    }
    rne_crc32c_put(trailer + pad, crc);
    tx->pos += rne_mpa_fpdu_len((uint32_t)ulen);
    return pad + RNE_MPA_CRC_LEN;
}

uint32_t rne_mpa_fpdu_seal(struct rne_mpa_tx *tx,
                           const struct rne_span room[2], uint32_t ulen)
{
    static const uint8_t zero[3];
    uint32_t pad = rne_mpa_pad(ulen), len, crc = 0;
    uint8_t b[4];
    size_t k;

    if (tx->markers || ulen > RNE_MPA_ULPDU_MAX) {
        return 0;
    }
    len = rne_mpa_fpdu_len(ulen);
    if (room[0].len + room[1].len != len) {
        return 0;
    }
    rne_st_be16(b, (uint16_t)ulen);
    rne_span_put(room, 0, b, 2);
    rne_span_put(room, 2 + ulen, zero, pad);
    if (tx->crc) {
        /* prefix, ULPDU and pad: contiguous in each part */
        k = room[0].len < len - 4 ? room[0].len : len - 4;
        crc = rne_crc32c(0, room[0].base, k);
        if (k < len - 4) {
            crc = rne_crc32c(crc, room[1].base, len - 4 - k);
        }
    }
    rne_crc32c_put(b, crc);
    rne_span_put(room, len - 4, b, 4);
    tx->pos += len;
    return len;
}

/* ---- streaming receive ---- */

enum { RX_LEN, RX_ULPDU, RX_PAD, RX_CRC };

void rne_mpa_rx_init(struct rne_mpa_rx *rx, bool crc, bool markers,
                     uint8_t *buf, uint32_t cap)
{
    memset(rx, 0, sizeof(*rx));
    rx->crc = crc;
    rx->markers = markers;
    rx->buf = buf;
    rx->cap = cap > RNE_MPA_ULPDU_MAX ? RNE_MPA_ULPDU_MAX : cap;
    rx->state = RX_LEN;
}

static size_t rx_fail(struct rne_mpa_rx *rx, uint8_t code, size_t used,
                      struct rne_mpa_rx_ev *ev)
{
    rx->err = code;
    ev->type = RNE_MPA_RX_ERROR;
    ev->code = code;
    return used;
}

static void rx_begin(struct rne_mpa_rx *rx)
{
    if (!rx->in_fpdu) {
        rx->in_fpdu = true;
        rx->crc_run = 0;
    }
}

/*
 * The whole FPDU is in the chunk and no marker can be in it: verify in place.
 */
static bool rx_fast(struct rne_mpa_rx *rx, const uint8_t *p, size_t len,
                    size_t *used,
                    struct rne_mpa_rx_ev *ev)
{
    uint16_t ulen = rne_ld_be16(p);
    uint32_t total = rne_mpa_fpdu_len(ulen);
    if (ulen > rx->cap || len < total) {
        return false;
    }
    uint32_t body = total - RNE_MPA_CRC_LEN;
    if (rx->crc && rne_crc32c(0, p, body) != rne_crc32c_get(p + body)) {
        rx->pos += total;       /* where the stream died, for diagnostics */
        *used = rx_fail(rx, RNE_MPA_EC_CRC, total, ev);
        return true;
    }
    rx->pos += total;
    rx->fpdus++;
    ev->type = RNE_MPA_RX_FPDU;
    ev->ulpdu = p + 2;
    ev->len = ulen;
    *used = total;
    return true;
}

size_t rne_mpa_rx_feed(struct rne_mpa_rx *rx, const uint8_t *data, size_t len,
                       struct rne_mpa_rx_ev *ev)
{
    size_t i = 0;
    memset(ev, 0, sizeof(*ev));
    if (rx->err) {
        ev->type = RNE_MPA_RX_ERROR;
        ev->code = rx->err;
        return 0;
    }
    if (!rx->markers && rx->state == RX_LEN && !rx->in_fpdu && len >= 2) {
        size_t used;
        if (rx_fast(rx, data, len, &used, ev)) {
            return used;
        }
    }
    /*
     * The CRC covers, in wire order, every octet of the FPDU before its CRC
     * field (markers included). Those octets are a contiguous span of this
     * call's input, so the CRC runs once per call over [crc_from, first CRC
     * field octet) instead of once per field or marker: ISA-L's per-call
     * cost dwarfs small pieces.
     */
    size_t crc_from = (rx->state == RX_CRC && rx->got > 0) ? SIZE_MAX : 0;
    while (i < len) {
        uint32_t off = rx->pos % RNE_MPA_MARKER_INTERVAL;
        if (rx->markers && off < RNE_MPA_MARKER_LEN) {
            /* marker octets: into the FPDU's CRC, then check FPDUPTR */
            rx_begin(rx);
            size_t n = RNE_MPA_MARKER_LEN - off;
            n = n < len - i ? n : len - i;
            memcpy(rx->mk + off, data + i, n);
            i += n;
            rx->pos += (uint32_t)n;
            if (off + n == RNE_MPA_MARKER_LEN) {
                uint32_t mpos = rx->pos - RNE_MPA_MARKER_LEN;
                bool before_hdr = rx->state == RX_LEN && rx->got == 0;
                uint16_t want = before_hdr ? 0 : (uint16_t)(mpos - rx->hdr_pos);
                if ((rne_ld_be16(rx->mk + 2) & ~3u) != (want & ~3u)) {
                    return rx_fail(rx, RNE_MPA_EC_MARKER_MISMATCH, i, ev);
                }
            }
            continue;
        }
        /* a run of FPDU octets up to the next marker or end of field */
        size_t n = len - i;
        if (rx->markers) {
            size_t room = RNE_MPA_MARKER_INTERVAL - off;
            n = n < room ? n : room;
        }
        const uint8_t *p = data + i;
        switch (rx->state) {
        case RX_LEN:
            rx_begin(rx);
            if (rx->got == 0) {
                rx->hdr_pos = rx->pos;
            }
            n = n < 2 - rx->got ? n : 2 - rx->got;
            memcpy(rx->lenb + rx->got, p, n);
            rx->got += (uint32_t)n;
            if (rx->got == 2) {
                rx->ulpdu_len = rne_ld_be16(rx->lenb);
                if (rx->ulpdu_len > rx->cap) {
                    return rx_fail(rx, RNE_MPA_EC_MARKER_MISMATCH, i + n, ev);
                }
                rx->got = 0;
                /* pad(0) == 2 */
                rx->state = rx->ulpdu_len ? RX_ULPDU : RX_PAD;
            }
            break;
        case RX_ULPDU:
            n = n < rx->ulpdu_len - rx->got ? n : rx->ulpdu_len - rx->got;
            memcpy(rx->buf + rx->got, p, n);
            rx->got += (uint32_t)n;
            if (rx->got == rx->ulpdu_len) {
                rx->got = 0;
                rx->state = rne_mpa_pad(rx->ulpdu_len) ? RX_PAD : RX_CRC;
            }
            break;
        case RX_PAD:
            n = n < rne_mpa_pad(rx->ulpdu_len) - rx->got ?
                n : rne_mpa_pad(rx->ulpdu_len) - rx->got;
            rx->got += (uint32_t)n;
            if (rx->got == rne_mpa_pad(rx->ulpdu_len)) {
                rx->got = 0;
                rx->state = RX_CRC;
            }
            break;
        default: /* RX_CRC */
            if (rx->got == 0 && crc_from != SIZE_MAX) {
                rx->crc_run = rne_crc32c(rx->crc_run, data + crc_from,
                                         i - crc_from);
                crc_from = SIZE_MAX;
            }
            n = n < RNE_MPA_CRC_LEN - rx->got ? n : RNE_MPA_CRC_LEN - rx->got;
            memcpy(rx->crcb + rx->got, p, n);
            rx->got += (uint32_t)n;
            break;
        }
        i += n;
        rx->pos += (uint32_t)n;
        if (rx->state == RX_CRC && rx->got == RNE_MPA_CRC_LEN) {
            if (rx->crc && rx->crc_run != rne_crc32c_get(rx->crcb)) {
                return rx_fail(rx, RNE_MPA_EC_CRC, i, ev);
            }
            rx->state = RX_LEN;
            rx->got = 0;
            rx->in_fpdu = false;
            rx->fpdus++;
            ev->type = RNE_MPA_RX_FPDU;
            ev->ulpdu = rx->buf;
            ev->len = rx->ulpdu_len;
            return i;
        }
    }
    if (crc_from != SIZE_MAX) {
        rx->crc_run = rne_crc32c(rx->crc_run, data + crc_from, i - crc_from);
    }
    return i;
}
