// SPDX-License-Identifier: GPL-2.0-or-later
/* TCP options: MSS, window scale and timestamps (RFC 7323), SACK (RFC 2018). */
#include <string.h>
#include "tcp_int.h"

#define OPT_EOL 0
#define OPT_NOP 1
#define OPT_MSS 2
#define OPT_WS 3
#define OPT_SACKOK 4
#define OPT_SACK 5
#define OPT_TS 8

/*
 * Malformed options end parsing (what was read so far stays); they never drop
 * the segment.
 */
bool tcp_parse_options(struct tcp_seg *s, const uint8_t *o, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t kind = o[i];
        if (kind == OPT_EOL) {
            break;
        }
        if (kind == OPT_NOP) {
            i++;
            continue;
        }
        if (i + 1 >= len) {
            return false;
        }
        uint8_t ol = o[i + 1];
        if (ol < 2 || i + ol > len) {
            return false;
        }
        const uint8_t *p = o + i + 2;
        switch (kind) {
        case OPT_MSS:
            if (ol == 4 && (s->flags & TH_SYN)) {
                s->has_mss = true;
                s->mss = rne_ld_be16(p);
            }
            break;
        case OPT_WS:
            if (ol == 3 && (s->flags & TH_SYN)) {
                s->has_ws = true;
                /* RFC 7323 §2.3 */
                s->ws = p[0] > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : p[0];
            }
            break;
        case OPT_SACKOK:
            if (ol == 2 && (s->flags & TH_SYN)) {
                s->sack_ok = true;
            }
            break;
        case OPT_TS:
            if (ol == 10) {
                s->has_ts = true;
                s->tsval = rne_ld_be32(p);
                s->tsecr = rne_ld_be32(p + 4);
            }
            break;
        case OPT_SACK:
            if (ol >= 10 && (ol - 2) % 8 == 0) {
                int n = (ol - 2) / 8;
                s->nsack = 0;
                for (int k = 0; k < n && k < 4; k++) {
                    s->sack[k].s = rne_ld_be32(p + 8 * k);
                    s->sack[k].e = rne_ld_be32(p + 8 * k + 4);
                    s->nsack++;
                }
            }
            break;
        default:
            break;
        }
        i += ol;
    }
    return true;
}

uint32_t tcp_ts_now(const struct rne_tcp_conn *c)
{
    return c->t->now_ms + c->ts_offset;
}

static uint8_t *put_ts(struct rne_tcp_conn *c, uint8_t *p, bool with_nops)
{
    if (with_nops) {
        *p++ = OPT_NOP;
        *p++ = OPT_NOP;
    }
    *p++ = OPT_TS;
    *p++ = 10;
    rne_st_be32(p, tcp_ts_now(c));
    rne_st_be32(p + 4, c->ts_recent);
    return p + 8;
}

/*
 * room: option bytes that still fit the MTU next to the payload. Only SACK
 * blocks are shed to fit, so a data segment keeps its record boundaries.
 */
size_t tcp_build_options(struct rne_tcp_conn *c, uint8_t *opt, uint8_t flags,
                         size_t room)
{
    const struct rne_tcp_config *cfg = &c->t->cfg;
    uint8_t *p = opt;
    if (flags & TH_SYN) {
        bool active = !(flags & TH_ACK);
        *p++ = OPT_MSS;
        *p++ = 4;
        rne_st_be16(p, (uint16_t)(c->mtu - 40));
        p += 2;
        bool sack = active ? !cfg->no_sack : c->sack_ok;
        bool ts = active ? !cfg->no_timestamps : c->ts_ok;
        bool ws = active ? !cfg->no_wscale : c->ws_ok;
        if (sack && ts) {
            *p++ = OPT_SACKOK;
            *p++ = 2;
            p = put_ts(c, p, false);
        } else if (ts) {
            p = put_ts(c, p, true);
        } else if (sack) {
            *p++ = OPT_NOP;
            *p++ = OPT_NOP;
            *p++ = OPT_SACKOK;
            *p++ = 2;
        }
        if (ws) {
            *p++ = OPT_NOP;
            *p++ = OPT_WS;
            *p++ = 3;
            *p++ = c->rcv_ws;
        }
        return (size_t)(p - opt);
    }
    if (flags & TH_RST) {
        return 0;
    }
    if (c->ts_ok) {
        p = put_ts(c, p, true);
    }
    size_t used = (size_t)(p - opt);
    int maxb = room > used + 4 ? (int)((room - used - 4) / 8) : 0;
    if (maxb > (c->ts_ok ? 3 : 4)) {
        maxb = c->ts_ok ? 3 : 4;
    }
    if (c->sack_ok && c->n_ooo > 0 && maxb > 0) {
        struct tcp_range b[4];
        int n = tcp_ooo_sack_blocks(c, b, maxb);
        if (n > 0) {
            *p++ = OPT_NOP;
            *p++ = OPT_NOP;
            *p++ = OPT_SACK;
            *p++ = (uint8_t)(2 + 8 * n);
            for (int i = 0; i < n; i++) {
                rne_st_be32(p, b[i].s);
                rne_st_be32(p + 4, b[i].e);
                p += 8;
            }
        }
    }
    return (size_t)(p - opt);
}
