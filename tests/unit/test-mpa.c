// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: MPA (RFC 5044 / RFC 6581) Request/Reply codec, negotiation,
 * MULPDU, FPDU framing with and without markers, and the streaming parser.
 * Golden bytes are assembled by hand from the RFC layouts; CRCs in them come
 * from a bitwise CRC32c reference, not from the code under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/crc32c.h"
#include "wire/mpa.h"

#include "check.h"
#include "crc32c-ref.h"


static uint64_t rng = 0x1234567;
static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

#define KEYREQ "MPA ID Req Frame"
#define KEYREP "MPA ID Rep Frame"

/* ---- Request / Reply ---- */

static void test_rr_golden(void)
{
    uint8_t buf[RNE_MPA_RR_MAX];
    struct rne_mpa_rr rr, d;

    /* siw default Request: Rev 2, E, IRD = ORD = 1, no P2P, no ULP data */
    memset(&rr, 0, sizeof(rr));
    rr.rev = 2;
    rr.enhanced = true;
    rr.ird = 1;
    rr.ord = 1;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 24);
    CHECK(memcmp(buf, KEYREQ "\x10\x02\x00\x04\x00\x01\x00\x01", 24) == 0);
    CHECK(rne_mpa_rr_decode(buf, 24, &d) == 24);
    CHECK(!d.reply && d.rev == 2 && d.enhanced && !d.crc && !d.markers && !d.p2p);
    CHECK(d.ird == 1 && d.ord == 1 && d.pd_len == 0 && d.pd == NULL);

    /* cxgb4-like: C, P2P offering the Read RTR */
    rr.crc = true;
    rr.p2p = true;
    rr.rtr = RNE_MPA_RTR_READ;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 24);
    CHECK(memcmp(buf, KEYREQ "\x50\x02\x00\x04\x80\x01\x40\x01", 24) == 0);
    /* irdma-like: Write|Read offered; and all three plus large IRD/ORD */
    rr.rtr = RNE_MPA_RTR_READ | RNE_MPA_RTR_WRITE;
    rne_mpa_rr_encode(&rr, buf, sizeof(buf));
    CHECK(memcmp(buf, KEYREQ "\x50\x02\x00\x04\x80\x01\xc0\x01", 24) == 0);
    rr.rtr = 7;
    rr.ird = 0x3fff;
    rr.ord = 0x1234;
    rne_mpa_rr_encode(&rr, buf, sizeof(buf));
    CHECK(memcmp(buf + 20, "\xff\xff\xd2\x34", 4) == 0);
    CHECK(rne_mpa_rr_decode(buf, 24, &d) == 24);
    CHECK(d.p2p && d.rtr == 7 && d.ird == 0x3fff && d.ord == 0x1234);

    /* Reply choosing Read, C on, with ULP private data after the block */
    memset(&rr, 0, sizeof(rr));
    rr.reply = true;
    rr.rev = 2;
    rr.enhanced = true;
    rr.crc = true;
    rr.p2p = true;
    rr.rtr = RNE_MPA_RTR_READ;
    rr.ird = 1;
    rr.ord = 1;
    rr.pd = (const uint8_t *)"hi!";
    rr.pd_len = 3;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 27);
    CHECK(memcmp(buf, KEYREP "\x50\x02\x00\x07\x80\x01\x40\x01hi!", 27) == 0);
    CHECK(rne_mpa_rr_decode(buf, 27, &d) == 27);
    CHECK(d.reply && d.pd_len == 3 && memcmp(d.pd, "hi!", 3) == 0 && d.rtr == RNE_MPA_RTR_READ);

    /* Rev 1 Request, M and C, 3 octets of PD: no IRD/ORD block */
    memset(&rr, 0, sizeof(rr));
    rr.rev = 1;
    rr.markers = rr.crc = true;
    rr.pd = (const uint8_t *)"abc";
    rr.pd_len = 3;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 23);
    CHECK(memcmp(buf, KEYREQ "\xc0\x01\x00\x03" "abc", 23) == 0);
    CHECK(rne_mpa_rr_decode(buf, 23, &d) == 23);
    CHECK(d.rev == 1 && !d.enhanced && d.markers && d.crc && d.pd_len == 3);

    /* Rev 1 reject Reply; R in a Request is not sent */
    memset(&rr, 0, sizeof(rr));
    rr.reply = rr.reject = true;
    rr.rev = 1;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 20);
    CHECK(memcmp(buf, KEYREP "\x20\x01\x00\x00", 20) == 0);
    CHECK(rne_mpa_rr_decode(buf, 20, &d) == 20 && d.reject);
    rr.reply = false;
    rne_mpa_rr_encode(&rr, buf, sizeof(buf));
    CHECK(buf[16] == 0x00);

    /* 512 octets of PD is the limit, inclusive, in both directions */
    static uint8_t pd[600];
    memset(&rr, 0, sizeof(rr));
    rr.rev = 1;
    rr.pd = pd;
    rr.pd_len = 512;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 532);
    CHECK(rne_mpa_rr_decode(buf, 532, &d) == 532 && d.pd_len == 512);
    rr.pd_len = 513;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_PD_LEN);
    rr.rev = 2;
    rr.enhanced = true;
    rr.pd_len = 509;    /* 4-octet block + 509 > 512 */
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_PD_LEN);
    rr.pd_len = 508;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == 532);
    CHECK(rne_mpa_rr_encode(&rr, buf, 531) == -RNE_MPA_E_SPACE);
    rr.ird = 0x4000;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_IRD_ORD);
    rr.ird = 0;
    rr.rtr = RNE_MPA_RTR_WRITE;     /* RTR without P */
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_IRD_ORD);
    rr.rtr = 0;
    rr.rev = 1;                     /* E needs Rev 2 */
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_REV);
    rr.enhanced = false;
    rr.rev = 3;
    CHECK(rne_mpa_rr_encode(&rr, buf, sizeof(buf)) == -RNE_MPA_E_REV);
}

static void test_rr_reject_paths(void)
{
    uint8_t f[RNE_MPA_RR_MAX + 8];
    struct rne_mpa_rr d;

    memcpy(f, KEYREQ "\x40\x01\x00\x00", 20);
    CHECK(rne_mpa_rr_decode(f, 20, &d) == 20);
    for (size_t n = 0; n < 20; n++) {
        CHECK(rne_mpa_rr_decode(f, n, &d) == 0);            /* prefix: need more */
    }
    f[9] = 'x';                                             /* bad key */
    CHECK(rne_mpa_rr_decode(f, 10, &d) == -RNE_MPA_E_KEY);       /* known early */
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_KEY);
    f[9] = 'q';
    f[0] = 'm';
    CHECK(rne_mpa_rr_decode(f, 1, &d) == -RNE_MPA_E_KEY);
    f[0] = 'M';
    f[17] = 0;
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_REV);
    f[17] = 3;
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_REV);
    f[17] = 0xff;
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_REV);
    f[17] = 1;
    f[18] = 0x02;
    f[19] = 0x01;                                           /* PD_Length 513 */
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_PD_LEN);
    f[18] = 0xff;
    f[19] = 0xff;
    CHECK(rne_mpa_rr_decode(f, 20, &d) == -RNE_MPA_E_PD_LEN);
    f[18] = 0x02;
    f[19] = 0x00;                                           /* 512: fine, needs the PD */
    CHECK(rne_mpa_rr_decode(f, 20, &d) == 0);
    memset(f + 20, 0, 512);
    CHECK(rne_mpa_rr_decode(f, 532, &d) == 532);
    /* E with Rev 2 but no room for the block */
    memcpy(f, KEYREP "\x10\x02\x00\x02\x00\x00", 22);
    CHECK(rne_mpa_rr_decode(f, 22, &d) == -RNE_MPA_E_PD_LEN);
    /* E with Rev 1 is a reserved bit: PD is plain ULP data */
    memcpy(f, KEYREP "\x1f\x01\x00\x04\x80\x01\x40\x01", 24);
    CHECK(rne_mpa_rr_decode(f, 24, &d) == 24);
    CHECK(!d.enhanced && d.res == 0x1d && d.x7306 && d.pd_len == 4 && !d.p2p);
    /* R in a Request is ignored */
    memcpy(f, KEYREQ "\x20\x01\x00\x00", 20);
    CHECK(rne_mpa_rr_decode(f, 20, &d) == 20 && !d.reject);
    /* Rev 2 without E: accepted, no IRD/ORD */
    memcpy(f, KEYREQ "\x00\x02\x00\x00", 20);
    CHECK(rne_mpa_rr_decode(f, 20, &d) == 20 && d.rev == 2 && !d.enhanced);
}

static void test_rr_rx(void)
{
    uint8_t stream[64];
    struct rne_mpa_rr_rx s;
    struct rne_mpa_rr d;
    size_t used;
    /* Request with 4 octets of PD, then two octets of the first FPDU */
    memcpy(stream, KEYREQ "\x50\x02\x00\x08\x80\x05\x40\x06PDPD\x00\x0e", 30);

    rne_mpa_rr_rx_init(&s, false);
    CHECK(rne_mpa_rr_rx_feed(&s, stream, 30, &used, &d) == 1);
    CHECK(used == 28 && d.ird == 5 && d.ord == 6 && d.pd_len == 4 && !memcmp(d.pd, "PDPD", 4));

    rne_mpa_rr_rx_init(&s, false);
    size_t at = 0;
    int r = 0;
    while (at < 30 && r == 0) {
        r = rne_mpa_rr_rx_feed(&s, stream + at, 1, &used, &d);
        at += used;
    }
    CHECK(r == 1 && at == 28 && d.p2p && d.rtr == RNE_MPA_RTR_READ);

    rne_mpa_rr_rx_init(&s, false);          /* nothing yet */
    CHECK(rne_mpa_rr_rx_feed(&s, NULL, 0, &used, &d) == 0 && used == 0);
    CHECK(rne_mpa_rr_decode(NULL, 0, &d) == 0);
    rne_mpa_rr_rx_init(&s, true);           /* wanted a Reply, got a Request */
    CHECK(rne_mpa_rr_rx_feed(&s, stream, 30, &used, &d) == -RNE_MPA_E_KEY);
    rne_mpa_rr_rx_init(&s, false);          /* garbage fails at the first octet */
    CHECK(rne_mpa_rr_rx_feed(&s, (const uint8_t *)"GET / HTTP/1.1\r\n", 16, &used, &d) ==
          -RNE_MPA_E_KEY);
}

static void test_negotiation(void)
{
    struct rne_mpa_local ini = { .rev = 2, .crc = false, .ird = 16, .ord = 8, .p2p = true,
                                  .rtr_caps = RNE_MPA_RTR_WRITE | RNE_MPA_RTR_READ };
    struct rne_mpa_local rsp = { .rev = 2, .crc = false, .ird = 4, .ord = 32, .p2p = true,
                                  .rtr_caps = 7 };
    struct rne_mpa_rr req, rep;
    struct rne_mpa_neg ni, nr;

    /* CRC: on if either asks; markers per direction */
    for (int c = 0; c < 4; c++) {
        for (int m = 0; m < 4; m++) {
            ini.crc = c & 1;
            rsp.crc = c & 2;
            ini.markers = m & 1;
            rsp.markers = m & 2;
            rne_mpa_make_request(&ini, &req);
            CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0);
            CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0);
            rne_mpa_responder_neg(&req, &rep, &nr);
            CHECK(ni.crc == (c != 0) && nr.crc == (c != 0));
            CHECK(rep.crc == (c != 0));     /* a C=1 Request gets a C=1 Reply */
            CHECK(ni.markers_rx == (bool)(m & 1) && nr.markers_tx == (bool)(m & 1));
            CHECK(ni.markers_tx == (bool)(m & 2) && nr.markers_rx == (bool)(m & 2));
        }
    }
    /* IRD/ORD: responder ORD clipped to initiator IRD, initiator ORD to responder IRD */
    ini.crc = rsp.crc = true;
    ini.markers = rsp.markers = false;
    rne_mpa_make_request(&ini, &req);
    rne_mpa_make_reply(&req, &rsp, &rep);
    CHECK(rep.ord == 16 && rep.ird == 4);
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0);
    rne_mpa_responder_neg(&req, &rep, &nr);
    CHECK(ni.ird_ord_known && ni.ird == 16 && ni.ord == 4);
    CHECK(nr.ird == 4 && nr.ord == 16);
    /* RTR: Read preferred, then Write; the initiator accepts what it offered */
    CHECK(rep.p2p && rep.rtr == RNE_MPA_RTR_READ && ni.rtr == RNE_MPA_RTR_READ &&
          nr.rtr == RNE_MPA_RTR_READ);
    ini.rtr_caps = RNE_MPA_RTR_WRITE;
    rne_mpa_make_request(&ini, &req);
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0 && rep.rtr == RNE_MPA_RTR_WRITE);
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0 && ni.rtr == RNE_MPA_RTR_WRITE);
    rsp.rtr_caps = RNE_MPA_RTR_READ;        /* nothing in common: reject */
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == RNE_MPA_EC_NO_MATCHING_RTR && rep.reject);
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == -1);
    /* Read RTR forces one read credit each way */
    ini.rtr_caps = RNE_MPA_RTR_READ;
    ini.ord = 0;
    rsp.ird = 0;
    rne_mpa_make_request(&ini, &req);
    CHECK(req.ord == 1);
    rne_mpa_make_reply(&req, &rsp, &rep);
    CHECK(rep.ird == 1);
    /* Initiator-side checks of a hostile or broken Reply */
    rne_mpa_make_request(&ini, &req);
    rne_mpa_make_reply(&req, &rsp, &rep);
    rep.ord = (uint16_t)(req.ird + 1);
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_INSUFFICIENT_IRD);
    rep.ord = req.ird;
    rep.rtr = RNE_MPA_RTR_READ | RNE_MPA_RTR_WRITE;          /* two chosen */
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_NO_MATCHING_RTR);
    rep.rtr = RNE_MPA_RTR_WRITE;                            /* not offered */
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_NO_MATCHING_RTR);
    rep.rtr = 0;                                            /* P set, none chosen */
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_NO_MATCHING_RTR);
    rep.p2p = false;                                        /* declined P2P: no RTR */
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0 && ni.rtr == RNE_MPA_RTR_NONE);
    rep.rev = 3;
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_INVALID_REQ_REP);
    /* Rev 1 peer (cxgb4 fallback): Rev 1 Reply, no IRD/ORD */
    struct rne_mpa_local v1 = { .rev = 1, .crc = true };
    rne_mpa_make_request(&v1, &req);
    CHECK(req.rev == 1 && !req.enhanced);
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0 && rep.rev == 1 && !rep.enhanced);
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0 && !ni.ird_ord_known && ni.crc);
    /* a Rev 2 enhanced Reply to a Rev 1 Request is invalid */
    rep.rev = 2;
    rep.enhanced = true;
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == RNE_MPA_EC_INVALID_REQ_REP);
    /* siw as initiator: Rev 2, E, no P: we answer without RTR */
    struct rne_mpa_local siw = { .rev = 2, .ird = 1, .ord = 1 };
    rsp.rtr_caps = 7;
    rne_mpa_make_request(&siw, &req);
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0 && rep.rev == 2 && rep.enhanced &&
          !rep.p2p && rep.rtr == 0);
}

/*
 * rnic's RFC 7306 negotiation: offer bit 0x04 in a Request, accept bit 0x02
 * in a Reply, on only when both are present; siw's Reply (a copy of the
 * Request's flag octet) must not turn it on.
 */
static void test_rfc7306_bits(void)
{
    struct rne_mpa_local ini = { .rev = 2, .crc = true, .ird = 4, .ord = 4,
                                  .rfc7306 = true };
    struct rne_mpa_local rsp = ini;
    struct rne_mpa_rr req, rep, d;
    struct rne_mpa_neg ni, nr;
    uint8_t buf[RNE_MPA_RR_MAX];
    int n;

    /* both ask: bits on the wire, on at both ends */
    rne_mpa_make_request(&ini, &req);
    n = rne_mpa_rr_encode(&req, buf, sizeof(buf));
    CHECK(n == 24 && buf[16] == (RNE_MPA_FLAG_C | RNE_MPA_FLAG_E | 0x04));
    CHECK(rne_mpa_rr_decode(buf, (size_t)n, &d) == n && d.x7306 && !d.res);
    CHECK(rne_mpa_make_reply(&d, &rsp, &rep) == 0 && rep.x7306);
    n = rne_mpa_rr_encode(&rep, buf, sizeof(buf));
    CHECK(n == 24 && buf[16] == (RNE_MPA_FLAG_C | RNE_MPA_FLAG_E | 0x02));
    CHECK(rne_mpa_rr_decode(buf, (size_t)n, &d) == n && d.x7306 && !d.res);
    CHECK(rne_mpa_check_reply(&req, &d, &ni) == 0 && ni.rfc7306);
    rne_mpa_responder_neg(&req, &rep, &nr);
    CHECK(nr.rfc7306);

    /* the responder does not ask: no accept bit, off at both ends */
    rsp.rfc7306 = false;
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0 && !rep.x7306);
    n = rne_mpa_rr_encode(&rep, buf, sizeof(buf));
    CHECK(n == 24 && !(buf[16] & 0x0f));
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0 && !ni.rfc7306);
    rne_mpa_responder_neg(&req, &rep, &nr);
    CHECK(!nr.rfc7306);

    /* the initiator does not ask: an rnic responder cannot agree */
    ini.rfc7306 = false;
    rsp.rfc7306 = true;
    rne_mpa_make_request(&ini, &req);
    CHECK(rne_mpa_make_reply(&req, &rsp, &rep) == 0 && !rep.x7306);
    rne_mpa_responder_neg(&req, &rep, &nr);
    CHECK(!nr.rfc7306);
    /* and a Reply claiming agreement to what we did not offer is ignored */
    rep.x7306 = true;
    CHECK(rne_mpa_check_reply(&req, &rep, &ni) == 0 && !ni.rfc7306);

    /* siw as responder: its Reply is our Request's octet 16, key swapped */
    ini.rfc7306 = true;
    rne_mpa_make_request(&ini, &req);
    n = rne_mpa_rr_encode(&req, buf, sizeof(buf));
    memcpy(buf, KEYREP, 16);
    CHECK(rne_mpa_rr_decode(buf, (size_t)n, &d) == n && !d.x7306 &&
          d.res == 0x04);
    CHECK(rne_mpa_check_reply(&req, &d, &ni) == 0 && !ni.rfc7306);

    /* siw as initiator (flags C|E, or with its GSO bit 0x08): no offer */
    memcpy(buf, KEYREQ "\x58\x02\x00\x04\x00\x01\x00\x01", 24);
    CHECK(rne_mpa_rr_decode(buf, 24, &d) == 24 && !d.x7306 && d.res == 0x08);
    CHECK(rne_mpa_make_reply(&d, &rsp, &rep) == 0 && !rep.x7306);
}

/* ---- MULPDU ---- */

static void test_mulpdu(void)
{
    CHECK(rne_mpa_mulpdu(1460, false) == 1454);
    CHECK(rne_mpa_mulpdu(1448, false) == 1442);     /* MTU 1500 + TCP timestamps */
    CHECK(rne_mpa_mulpdu(1450, false) == 1442);
    CHECK(rne_mpa_mulpdu(1460, true) == 1442);      /* 3 markers */
    CHECK(rne_mpa_mulpdu(1448, true) == 1430);
    CHECK(rne_mpa_mulpdu(536, true) == 522);        /* 2 markers */
    CHECK(rne_mpa_mulpdu(512, true) == 502);
    CHECK(rne_mpa_mulpdu(8948, false) == 8942);
    CHECK(rne_mpa_mulpdu(6, false) == 0);
    CHECK(rne_mpa_mulpdu(200000, false) == 65535);
    /* The formula is tight enough: an FPDU of MULPDU octets fits the EMSS
     * wherever in the marker grid it starts (positions stay 4-aligned). */
    int over = 0;
    for (uint32_t emss = 24; emss <= 9000; emss += 7) {
        for (int mk = 0; mk < 2; mk++) {
            uint32_t mul = rne_mpa_mulpdu(emss, mk);
            for (uint32_t pos = 0; pos < 512; pos += 4) {
                struct rne_mpa_tx tx = { .markers = mk, .pos = pos };
                over += rne_mpa_tx_size(&tx, mul) > emss;
            }
        }
    }
    CHECK(over == 0);
}

/* ---- FPDUs ---- */

/* Expected FPDU without markers, assembled by hand: len, ULPDU, zero pad, LE CRC. */
static size_t hand_fpdu(uint8_t *o, const uint8_t *ulpdu, size_t ulen, bool crc)
{
    size_t pad = (4 - (ulen + 2) % 4) % 4;
    o[0] = (uint8_t)(ulen >> 8);
    o[1] = (uint8_t)ulen;
    memcpy(o + 2, ulpdu, ulen);
    memset(o + 2 + ulen, 0, pad);
    uint32_t c = crc ? ref_crc32c(o, 2 + ulen + pad) : 0;
    uint8_t *t = o + 2 + ulen + pad;
    t[0] = (uint8_t)c;
    t[1] = (uint8_t)(c >> 8);
    t[2] = (uint8_t)(c >> 16);
    t[3] = (uint8_t)(c >> 24);
    return 2 + ulen + pad + 4;
}

static void test_fpdu_golden(void)
{
    uint8_t out[256];
    struct rne_mpa_tx tx;

    /* E: zero-length RDMA Write RTR (STag 1, TO 0) */
    static const uint8_t e_hdr[14] = { 0xc1, 0x40, 0, 0, 0, 1 };
    static const uint8_t e_wire[20] = { 0x00, 0x0e, 0xc1, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0xeb, 0xd3, 0x4c, 0x5f };
    rne_mpa_tx_init(&tx, true, false);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), e_hdr, 14, NULL, 0) == 20);
    CHECK(memcmp(out, e_wire, 20) == 0 && tx.pos == 20);
    CHECK(ref_crc32c(e_wire, 16) == 0x5f4cd3eb);
    rne_mpa_tx_init(&tx, false, false);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), e_hdr, 14, NULL, 0) == 20);
    CHECK(memcmp(out, e_wire, 16) == 0 && !memcmp(out + 16, "\0\0\0\0", 4));

    /* H: Send "hello", MSN 1: ULPDU 23, pad 3 */
    static const uint8_t h_hdr[18] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    static const uint8_t h_wire[32] = {
        0x00, 0x17, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
        'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0xb9, 0x90, 0xb1, 0x0c };
    rne_mpa_tx_init(&tx, true, false);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), h_hdr, 18, (const uint8_t *)"hello", 5) == 32);
    CHECK(memcmp(out, h_wire, 32) == 0);
    CHECK(rne_mpa_fpdu_build(&tx, out, 31, h_hdr, 18, (const uint8_t *)"hello", 5) == 0);
    CHECK(tx.pos == 32);

    /* J: RDMA Write de ad be ef to STag 0x12345678 TO 0x1000 (pad 0) */
    static const uint8_t j_wire[24] = {
        0x00, 0x12, 0xc1, 0x40, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0x10, 0x00,
        0xde, 0xad, 0xbe, 0xef, 0xad, 0xc0, 0x69, 0x61 };
    rne_mpa_tx_init(&tx, true, false);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), j_wire + 2, 14, j_wire + 16, 4) == 24);
    CHECK(memcmp(out, j_wire, 24) == 0);

    /* pad 0..3 and CRC on/off against the hand assembly */
    uint8_t u[64], want[96];
    for (int i = 0; i < 64; i++) {
        u[i] = (uint8_t)(0xa0 + i);
    }
    for (int crc = 0; crc < 2; crc++) {
        for (uint32_t ul = 14; ul <= 21; ul++) {
            rne_mpa_tx_init(&tx, crc, false);
            size_t n = hand_fpdu(want, u, ul, crc);
            CHECK(n % 4 == 0 && n - 6 - ul == rne_mpa_pad(ul));
            CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), u, 10, u + 10, ul - 10) == n);
            CHECK(memcmp(out, want, n) == 0);
        }
    }
    CHECK(rne_mpa_pad(14) == 0 && rne_mpa_pad(15) == 3 && rne_mpa_pad(16) == 2 &&
          rne_mpa_pad(17) == 1);
    /* F, G, I from the reference notes: zero-length Read Request RTR, zero-length
     * Read Response, Terminate LLP/MPA/CRC (RFC bit layout) */
    static const uint8_t f_u[46] = { 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    static const uint8_t g_u[14] = { 0xc1, 0x42 };
    static const uint8_t i_u[22] = { 0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0,
                                     0x20, 0x02, 0, 0 };
    rne_mpa_tx_init(&tx, true, false);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), f_u, 46, NULL, 0) == 52);
    CHECK(out[0] == 0 && out[1] == 46 && rne_crc32c_get(out + 48) == 0xc9e310ba);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), g_u, 14, NULL, 0) == 20);
    CHECK(rne_crc32c_get(out + 16) == 0xcad67569);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), i_u, 22, NULL, 0) == 28);
    CHECK(rne_crc32c_get(out + 24) == 0x8525e47f && ref_crc32c(out, 24) == 0x8525e47f);

    /* zero-copy framing gives the same octets as the builder */
    int zc_bad = 0;
    for (int crc = 0; crc < 2; crc++) {
        for (uint32_t ul = 14; ul <= 60; ul++) {
            struct rne_mpa_tx t1, t2;
            rne_mpa_tx_init(&t1, crc, false);
            rne_mpa_tx_init(&t2, crc, false);
            uint32_t n = rne_mpa_fpdu_build(&t1, out, sizeof(out), u, 14, u + 14, ul - 14);
            struct rne_mpa_piece pc[3] = { { u, 5 }, { u + 5, 9 }, { u + 14, ul - 14 } };
            uint8_t pre[2], tr[7];
            uint32_t tl = rne_mpa_fpdu_frame(&t2, pc, 3, pre, tr);
            zc_bad += tl < 4 || tl > 7 || 2 + ul + tl != n || memcmp(out, pre, 2) ||
                      memcmp(out + 2, u, ul) || memcmp(out + 2 + ul, tr, tl) || t1.pos != t2.pos;
        }
    }
    CHECK(zc_bad == 0);
    /* in-place framing: the same octets, wherever the ring wraps */
    int seal_bad = 0;
    for (int crc = 0; crc < 2; crc++) {
        for (uint32_t ul = 14; ul <= 40; ul++) {
            struct rne_mpa_tx t1;
            rne_mpa_tx_init(&t1, crc, false);
            uint32_t n = rne_mpa_fpdu_build(&t1, out, sizeof(out), u, ul, NULL, 0);
            for (uint32_t cut = 1; cut <= n; cut++) {
                struct rne_mpa_tx t2;
                uint8_t ring[128];
                struct rne_span room[2] = { { ring + 128 - cut, cut },
                                                 { ring, n - cut } };
                rne_mpa_tx_init(&t2, crc, false);
                memset(ring, 0xee, sizeof(ring));
                for (uint32_t i = 0; i < ul; i++) {     /* the ULPDU at 2 */
                    uint32_t o = 2 + i;
                    *(o < cut ? room[0].base + o : room[1].base + o - cut) = u[i];
                }
                uint8_t got[128];
                seal_bad += rne_mpa_fpdu_seal(&t2, room, ul) != n;
                memcpy(got, room[0].base, cut);
                memcpy(got + cut, room[1].base, n - cut);
                seal_bad += memcmp(got, out, n) != 0 || t2.pos != t1.pos;
            }
        }
    }
    CHECK(seal_bad == 0);
    {
        struct rne_mpa_tx tm;
        uint8_t ring[64];
        struct rne_span room[2] = { { ring, 20 }, { ring + 20, 0 } };
        rne_mpa_tx_init(&tm, true, true);
        CHECK(rne_mpa_fpdu_seal(&tm, room, 14) == 0);       /* markers */
        rne_mpa_tx_init(&tm, true, false);
        room[0].len = 21;                                   /* room != 20 */
        CHECK(rne_mpa_fpdu_seal(&tm, room, 14) == 0 && tm.pos == 0);
        room[0].len = 20;
        CHECK(rne_mpa_fpdu_seal(&tm, room, 14) == 20 && tm.pos == 20);
    }
    {
        struct rne_mpa_tx tm;
        uint8_t pre[2], tr[7];
        struct rne_mpa_piece pc[2] = { { u, 14 }, { u, 65535 - 13 } };
        rne_mpa_tx_init(&tm, true, true);
        CHECK(rne_mpa_fpdu_frame(&tm, pc, 1, pre, tr) == 0);       /* markers: not zero-copy */
        rne_mpa_tx_init(&tm, true, false);
        CHECK(rne_mpa_fpdu_frame(&tm, pc, 2, pre, tr) == 0 && tm.pos == 0);
    }
    /* ULPDU limit */
    static uint8_t big[70000], src[70000];
    rne_mpa_tx_init(&tx, false, false);
    CHECK(rne_mpa_fpdu_build(&tx, big, sizeof(big), u, 14, src, 65535 - 14 + 1) == 0);
    CHECK(rne_mpa_fpdu_build(&tx, big, sizeof(big), u, 14, src, 65535 - 14) == 65535 + 2 + 3 + 4);
}

/* Hand-assembled marked stream: insert a marker whenever the output offset is
 * a multiple of 512; FPDUPTR 0 in front of a header, else offset - header. */
struct hand_mk {
    uint8_t *o;
    size_t n;
    size_t hdr;
    bool seen;
};

static void hm_put(struct hand_mk *h, const uint8_t *src, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (h->n % 512 == 0) {
            uint16_t ptr = h->seen ? (uint16_t)(h->n - h->hdr) : 0;
            h->o[h->n++] = 0;
            h->o[h->n++] = 0;
            h->o[h->n++] = (uint8_t)(ptr >> 8);
            h->o[h->n++] = (uint8_t)ptr;
        }
        if (!h->seen) {
            h->seen = true;
            h->hdr = h->n;
        }
        h->o[h->n++] = src ? src[i] : 0;
    }
}

/* Append one marked FPDU to h (stream offset = h->n). */
static void hand_marked_fpdu(struct hand_mk *h, const uint8_t *ulpdu, size_t ulen, bool crc)
{
    size_t start = h->n;
    uint8_t lenb[2] = { (uint8_t)(ulen >> 8), (uint8_t)ulen };
    h->seen = false;
    hm_put(h, lenb, 2);
    hm_put(h, ulpdu, ulen);
    hm_put(h, NULL, (4 - (ulen + 2) % 4) % 4);
    hm_put(h, NULL, 4);
    uint32_t c = crc ? ref_crc32c(h->o + start, h->n - 4 - start) : 0;
    h->o[h->n - 4] = (uint8_t)c;
    h->o[h->n - 3] = (uint8_t)(c >> 8);
    h->o[h->n - 2] = (uint8_t)(c >> 16);
    h->o[h->n - 1] = (uint8_t)(c >> 24);
}

static void test_markers_golden(void)
{
    static uint8_t want[8192], out[8192], u[4096];
    struct rne_mpa_tx tx;
    for (size_t i = 0; i < sizeof(u); i++) {
        u[i] = (uint8_t)(i * 7 + 3);
    }
    /* First FPDU: the marker precedes it with FPDUPTR 0 and is under its CRC */
    static const uint8_t j[18] = { 0xc1, 0x40, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0x10, 0,
                                   0xde, 0xad, 0xbe, 0xef };
    uint8_t w[28] = { 0, 0, 0, 0, 0x00, 0x12 };
    memcpy(w + 6, j, 18);
    uint32_t c = ref_crc32c(w, 24);
    w[24] = (uint8_t)c;
    w[25] = (uint8_t)(c >> 8);
    w[26] = (uint8_t)(c >> 16);
    w[27] = (uint8_t)(c >> 24);
    rne_mpa_tx_init(&tx, true, true);
    CHECK(rne_mpa_tx_size(&tx, 18) == 28);
    CHECK(rne_mpa_fpdu_build(&tx, out, sizeof(out), j, 14, j + 14, 4) == 28);
    CHECK(memcmp(out, w, 28) == 0 && tx.pos == 28);

    /*
     * A sequence that puts FPDUs at the interesting offsets:
     *   #1 at 0 (leading marker), 508 octets -> ends at 508
     *   #2 at 508: length + 2 octets, marker at 512 (FPDUPTR 4), 100-octet ULPDU
     *   #3 ends at 1024 exactly, #4 starts on the marker at 1024 (FPDUPTR 0),
     *   #5 (pad 1) has the marker at 1536 between its pad and its CRC,
     *   #6 and #10 are > 1024 octets with several markers inside.
     */
    struct hand_mk h = { .o = want };
    size_t used = 0;
    const uint32_t ulens[] = { 498, 100, 398, 14, 485, 1400, 17, 15, 16, 2500, 14 };
    rne_mpa_tx_init(&tx, true, true);
    size_t starts[16];
    for (size_t k = 0; k < sizeof(ulens) / sizeof(ulens[0]); k++) {
        starts[k] = h.n;
        hand_marked_fpdu(&h, u, ulens[k], true);
        CHECK(rne_mpa_tx_size(&tx, ulens[k]) == h.n - used);
        uint32_t n = rne_mpa_fpdu_build(&tx, out + used, sizeof(out) - used, u, 14, u + 14,
                                        ulens[k] - 14);
        CHECK(n == h.n - used);
        used += n;
    }
    CHECK(used == h.n && memcmp(out, want, used) == 0);
    CHECK(starts[1] == 508);                        /* spans the 512 marker */
    CHECK(out[512] == 0 && out[513] == 0 && out[514] == 0 && out[515] == 4);
    /* check the interesting cases are really covered */
    int at_marker = 0, crc_after_marker = 0, three = 0;
    for (size_t k = 0; k + 1 < sizeof(ulens) / sizeof(ulens[0]); k++) {
        at_marker += starts[k] % 512 == 0;
        crc_after_marker += (starts[k + 1] - 8) % 512 == 0;   /* marker right before CRC */
        three += rne_mpa_markers_in((uint32_t)starts[k], rne_mpa_fpdu_len(ulens[k])) >= 3;
    }
    CHECK(at_marker >= 2 && crc_after_marker >= 1 && three >= 1);
    /* every 512th octet is a marker whose FPDUPTR lands on a length field */
    int badptr = 0;
    for (size_t m = 0; m + 4 <= used; m += 512) {
        uint16_t ptr = (uint16_t)(out[m + 2] << 8 | out[m + 3]);
        size_t hdr = ptr ? m - ptr : m + 4;
        int found = 0;
        for (size_t k = 0; k < sizeof(ulens) / sizeof(ulens[0]); k++) {
            size_t hk = starts[k] % 512 == 0 ? starts[k] + 4 : starts[k];
            found |= hk == hdr;
        }
        badptr += !found || out[m] || out[m + 1];
    }
    CHECK(badptr == 0);
    CHECK(rne_mpa_markers_in(0, 20) == 1 && rne_mpa_markers_in(4, 508) == 0 &&
          rne_mpa_markers_in(4, 509) == 1 && rne_mpa_markers_in(508, 1100) == 3);
}

/* ---- streaming receive ---- */

struct log {
    size_t n;
    uint32_t len[512];
    uint8_t data[1 << 20];
    size_t used;
    int err;
    size_t err_at;
    int bad;            /* feed contract violations */
};

static void feed_all(struct rne_mpa_rx *rx, const uint8_t *s, size_t len, size_t chunk_mode,
                     struct log *lg)
{
    size_t at = 0;
    memset(lg, 0, sizeof(*lg));
    while (at < len) {
        size_t c = chunk_mode == 0 ? len - at : chunk_mode == 1 ? 1 : 1 + rnd() % 700;
        c = c < len - at ? c : len - at;
        const uint8_t *p = s + at;
        size_t left = c;
        while (left) {
            struct rne_mpa_rx_ev ev;
            size_t n = rne_mpa_rx_feed(rx, p, left, &ev);
            lg->bad += n > left;
            p += n;
            left -= n;
            at += n;
            if (ev.type == RNE_MPA_RX_FPDU) {
                lg->len[lg->n++] = ev.len;
                memcpy(lg->data + lg->used, ev.ulpdu, ev.len);
                lg->used += ev.len;
            } else if (ev.type == RNE_MPA_RX_ERROR) {
                lg->err = ev.code;
                lg->err_at = at;
                return;
            } else {
                lg->bad += left != 0;   /* NONE only when all input was taken */
            }
        }
    }
}

static void test_rx_stream(void)
{
    static uint8_t stream[1 << 20], ulp[70000], buf[65535];
    static struct log a, b, c, want;
    struct rne_mpa_rx rx;
    for (int mode = 0; mode < 4; mode++) {
        bool crc = mode & 1, mk = mode & 2;
        struct rne_mpa_tx tx;
        rne_mpa_tx_init(&tx, crc, mk);
        size_t len = 0;
        memset(&want, 0, sizeof(want));
        for (int k = 0; k < 200; k++) {
            uint32_t ul = k % 17 == 16 ? 2000 + rnd() % 6000 : k % 5 == 4 ? 14 + rnd() % 4 :
                          14 + rnd() % 1500;
            for (uint32_t i = 0; i < ul; i++) {
                ulp[i] = (uint8_t)rnd();
            }
            uint32_t n = rne_mpa_fpdu_build(&tx, stream + len, sizeof(stream) - len, ulp, 14,
                                            ulp + 14, ul - 14);
            CHECK(n == rne_mpa_tx_size(&(struct rne_mpa_tx){ .markers = mk,
                                                             .pos = (uint32_t)len }, ul));
            len += n;
            want.len[want.n++] = ul;
            memcpy(want.data + want.used, ulp, ul);
            want.used += ul;
        }
        rne_mpa_rx_init(&rx, crc, mk, buf, sizeof(buf));
        feed_all(&rx, stream, len, 0, &a);
        rne_mpa_rx_init(&rx, crc, mk, buf, sizeof(buf));
        feed_all(&rx, stream, len, 1, &b);
        rne_mpa_rx_init(&rx, crc, mk, buf, sizeof(buf));
        feed_all(&rx, stream, len, 2, &c);
        CHECK(rx.pos == len && rx.fpdus == 200);
        CHECK(a.err == 0 && b.err == 0 && c.err == 0);
        CHECK(a.bad == 0 && b.bad == 0 && c.bad == 0);
        CHECK(a.n == 200 && b.n == 200 && c.n == 200);
        CHECK(!memcmp(a.len, want.len, sizeof(a.len)) && !memcmp(b.len, want.len, sizeof(b.len)) &&
              !memcmp(c.len, want.len, sizeof(c.len)));
        CHECK(a.used == want.used && !memcmp(a.data, want.data, want.used));
        CHECK(b.used == want.used && !memcmp(b.data, want.data, want.used));
        CHECK(c.used == want.used && !memcmp(c.data, want.data, want.used));
    }
    /* ULPDU_Length above the receiver's limit */
    uint8_t small[32];
    struct rne_mpa_tx tx;
    rne_mpa_tx_init(&tx, true, false);
    uint8_t fp[128];
    uint32_t n = rne_mpa_fpdu_build(&tx, fp, sizeof(fp), ulp, 14, ulp, 40);
    rne_mpa_rx_init(&rx, true, false, small, sizeof(small));
    feed_all(&rx, fp, n, 1, &a);
    CHECK(a.err == RNE_MPA_EC_MARKER_MISMATCH && a.n == 0 && a.err_at == 2);
    struct rne_mpa_rx_ev ev;
    CHECK(rne_mpa_rx_feed(&rx, fp, n, &ev) == 0 && ev.type == RNE_MPA_RX_ERROR);    /* sticky */
    /* CRC off: the CRC field's content is not looked at */
    rne_mpa_tx_init(&tx, false, false);
    n = rne_mpa_fpdu_build(&tx, fp, sizeof(fp), ulp, 14, ulp, 3);
    memcpy(fp + n - 4, "\xde\xad\xbe\xef", 4);
    rne_mpa_rx_init(&rx, false, false, buf, sizeof(buf));
    feed_all(&rx, fp, n, 0, &a);
    CHECK(a.err == 0 && a.n == 1 && a.len[0] == 17);
}

/* Flip every bit of the first FPDU of a stream: the parser must fail before
 * delivering anything (CRC on), whatever was hit: length, ULPDU, pad, marker, CRC. */
static void test_bitflips(void)
{
    static uint8_t stream[8192], rxbuf[2048];
    static struct log lg;
    uint8_t ulp[600];
    for (int i = 0; i < 600; i++) {
        ulp[i] = (uint8_t)(i * 13);
    }
    for (int mk = 0; mk < 2; mk++) {
        for (uint32_t first = 15; first <= 18; first++) {          /* pads 3, 2, 1, 0 */
            struct rne_mpa_tx tx;
            rne_mpa_tx_init(&tx, true, mk);
            size_t len = rne_mpa_fpdu_build(&tx, stream, sizeof(stream), ulp, 14, ulp + 14,
                                            first - 14);
            size_t first_len = len;
            while (len < 6000) {                /* enough to expose any reframing */
                len += rne_mpa_fpdu_build(&tx, stream + len, sizeof(stream) - len, ulp, 14,
                                          ulp + 14, 400);
            }
            int missed = 0;
            for (size_t bit = 0; bit < first_len * 8; bit++) {
                stream[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                struct rne_mpa_rx rx;
                rne_mpa_rx_init(&rx, true, mk, rxbuf, sizeof(rxbuf));
                feed_all(&rx, stream, len, bit % 3, &lg);
                missed += lg.n != 0 || lg.err == 0 || lg.bad;
                stream[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            }
            CHECK(missed == 0);
            struct rne_mpa_rx rx;
            rne_mpa_rx_init(&rx, true, mk, rxbuf, sizeof(rxbuf));
            feed_all(&rx, stream, len, 2, &lg);
            CHECK(lg.err == 0 && lg.n > 10);
        }
    }
    /* a bad marker is "Marker and ULPDU Length mismatch", named as such */
    struct rne_mpa_tx tx;
    rne_mpa_tx_init(&tx, false, true);
    size_t len = 0;
    while (len < 2000) {
        len += rne_mpa_fpdu_build(&tx, stream + len, sizeof(stream) - len, ulp, 14, ulp + 14, 300);
    }
    stream[1024 + 3] ^= 0x10;                                    /* FPDUPTR of marker 2 */
    struct rne_mpa_rx rx;
    rne_mpa_rx_init(&rx, false, true, rxbuf, sizeof(rxbuf));
    feed_all(&rx, stream, len, 1, &lg);
    CHECK(lg.err == RNE_MPA_EC_MARKER_MISMATCH && lg.err_at == 1028);
    stream[1024 + 3] ^= 0x10;
    stream[1024 + 3] ^= 0x01;                                    /* low bits: ignored */
    stream[1024 + 0] ^= 0x80;                                    /* reserved: ignored */
    rne_mpa_rx_init(&rx, false, true, rxbuf, sizeof(rxbuf));
    feed_all(&rx, stream, len, 0, &lg);
    CHECK(lg.err == 0 && lg.n >= 5);
}

int main(void)
{
    test_rr_golden();
    test_rr_reject_paths();
    test_rr_rx();
    test_negotiation();
    test_rfc7306_bits();
    test_mulpdu();
    test_fpdu_golden();
    test_markers_golden();
    test_rx_stream();
    test_bitflips();
    return check_report("test-mpa");
}
