// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over the iWARP receive path: MPA Request/Reply receiver,
 * the streaming FPDU parser (CRC, markers) and DDP/RDMAP decode, as a peer's
 * bytes would reach them from in-order TCP delivery.
 *
 * Input: cfg octet, then the stream.
 *   cfg bit 0 CRC, bit 1 markers, bit 2 RFC 7306, bit 3 an MPA Request comes
 *   first, bits 4-7 seed the chunking of the stream.
 *
 * Beyond "no crash / no sanitizer report" it checks: the parser fed in random
 * chunks and fed octet by octet gives the same FPDUs and the same error at the
 * same offset; every decoded segment re-encodes to its own header (reserved
 * bits aside); every rejected one yields a Terminate that decodes back to the
 * same cause; a decoded Request/Reply re-encodes and decodes identically.
 */
#include <stdlib.h>
#include <string.h>
#include "wire/crc32c.h"
#include "wire/mpa.h"
#include "wire/rdmap.h"

#define MAXF 4096

struct trace {
    size_t n;
    uint32_t sum[MAXF];         /* CRC32c of each ULPDU delivered, with its length */
    uint16_t len[MAXF];
    int err;
    size_t err_at;
};

static uint8_t buf_a[65535], buf_b[65535];

static void check_segment(const uint8_t *u, size_t len, unsigned flags)
{
    struct rne_rdmap_msg m, t;
    struct rne_term_cause c, c2;
    if (rne_rdmap_decode(u, len, flags, &m, &c) == 0) {
        uint8_t h[RNE_RDMAP_TERM_MAX + 64];
        size_t hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
        if (!hl || hl > len || (m.payload && (m.payload < u || m.payload + m.payload_len > u + len))) {
            abort();
        }
        /* reserved bits are not kept: DDP Rsvd, RDMAP Rsvd, Atomic reserved */
        uint8_t o[RNE_RDMAP_TERM_MAX + 64];
        memcpy(o, u, hl);
        o[0] &= (uint8_t)~RNE_DDP_RSVD_MASK;
        o[1] &= (uint8_t)~RNE_RDMAP_RSVD_MASK;
        if (m.opcode == RNE_RDMAP_ATOMIC_REQ) {
            memset(o + RNE_DDP_UNTAGGED_HLEN, 0, 3);
            o[RNE_DDP_UNTAGGED_HLEN + 3] &= 0x0f;
        }
        if (memcmp(o, h, hl) != 0) {
            abort();
        }
        return;
    }
    uint8_t tb[RNE_RDMAP_TERM_MAX];
    size_t tl = rne_rdmap_term_build(tb, sizeof(tb), 1, &c, u, len);
    if (!tl || rne_rdmap_decode(tb, tl, 0, &t, &c2) != 0 || t.opcode != RNE_RDMAP_TERMINATE ||
        t.u.term.layer != c.layer || t.u.term.etype != c.etype || t.u.term.code != c.code ||
        (t.u.term.d && memcmp(t.u.term.ddp_hdr, u, t.u.term.ddp_hdr_len) != 0)) {
        abort();
    }
}

static void run(struct rne_mpa_rx *rx, const uint8_t *s, size_t len, uint32_t seed, int mode,
                unsigned flags, struct trace *tr)
{
    size_t at = 0;
    memset(tr, 0, sizeof(*tr));
    while (at < len) {
        size_t chunk = 1;
        if (mode) {
            seed = seed * 1103515245u + 12345u;
            chunk = 1 + (seed >> 16) % 1600;
        }
        chunk = chunk < len - at ? chunk : len - at;
        size_t left = chunk;
        while (left) {
            struct rne_mpa_rx_ev ev;
            size_t n = rne_mpa_rx_feed(rx, s + at, left, &ev);
            if (n > left) {
                abort();
            }
            at += n;
            left -= n;
            if (ev.type == RNE_MPA_RX_FPDU) {
                if (tr->n < MAXF) {
                    tr->sum[tr->n] = rne_crc32c(0, ev.ulpdu, ev.len);
                    tr->len[tr->n] = ev.len;
                }
                tr->n++;
                if (mode) {
                    check_segment(ev.ulpdu, ev.len, flags);
                }
            } else if (ev.type == RNE_MPA_RX_ERROR) {
                tr->err = ev.code;
                tr->err_at = at;
                struct rne_mpa_rx_ev again;
                if (rne_mpa_rx_feed(rx, s, len, &again) != 0 || again.type != RNE_MPA_RX_ERROR) {
                    abort();        /* errors are sticky */
                }
                return;
            } else if (left) {
                abort();            /* NONE means: all of it taken */
            }
        }
    }
}

static void check_rr(const uint8_t *d, size_t len)
{
    struct rne_mpa_rr a, b;
    int r = rne_mpa_rr_decode(d, len, &a);
    if (r <= 0) {
        return;
    }
    if ((size_t)r > len || a.pd_len > RNE_MPA_PD_MAX || (a.pd && (a.pd < d || a.pd + a.pd_len > d + r))) {
        abort();
    }
    uint8_t e[RNE_MPA_RR_MAX];
    a.res = 0;
    int n = rne_mpa_rr_encode(&a, e, sizeof(e));
    if (n != r || rne_mpa_rr_decode(e, (size_t)n, &b) != n) {
        abort();
    }
    b.pd = a.pd;
    if (memcmp(&a, &b, sizeof(a)) != 0) {
        abort();
    }
}

static struct trace ta, tb;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t cfg = data[0];
    const uint8_t *s = data + 1;
    size_t len = size - 1;
    bool crc = cfg & 1, mk = cfg & 2;
    unsigned flags = (cfg & 4) ? RNE_RDMAP_F_RFC7306 : 0;

    check_rr(s, len);
    if (cfg & 8) {
        struct rne_mpa_rr_rx rr;
        struct rne_mpa_rr req;
        size_t used = 0, got;
        int r = 0;
        rne_mpa_rr_rx_init(&rr, false);
        while (used < len && r == 0) {
            r = rne_mpa_rr_rx_feed(&rr, s + used, (len - used) < 7 ? len - used : 7, &got, &req);
            used += got;
        }
        if (r != 1) {
            return 0;
        }
        s += used;
        len -= used;
    }
    /* a receive buffer that is sometimes smaller than the largest ULPDU */
    uint32_t cap = (cfg & 0x30) == 0x30 ? 300 : sizeof(buf_a);
    struct rne_mpa_rx a, b;
    rne_mpa_rx_init(&a, crc, mk, buf_a, cap);
    rne_mpa_rx_init(&b, crc, mk, buf_b, cap);
    run(&a, s, len, cfg >> 4, 1, flags, &ta);
    run(&b, s, len, 0, 0, flags, &tb);
    size_t k = ta.n < MAXF ? ta.n : MAXF;
    if (ta.n != tb.n || ta.err != tb.err || ta.err_at != tb.err_at ||
        memcmp(ta.sum, tb.sum, k * sizeof(ta.sum[0])) != 0 ||
        memcmp(ta.len, tb.len, k * sizeof(ta.len[0])) != 0) {
        abort();
    }
    /* every delivered ULPDU segment also goes through the decoder raw */
    check_segment(s, len < 80 ? len : 80, flags);
    return 0;
}
