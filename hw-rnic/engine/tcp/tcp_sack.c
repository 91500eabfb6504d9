// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sender SACK scoreboard (RFC 2018) and the RFC 6675 queries over it:
 * IsLost, pipe and NextSeg. The scoreboard is a small sorted array of
 * disjoint SACKed ranges above snd_una.
 */
#include <string.h>
#include "tcp_int.h"

void tcp_sack_clear(struct rne_tcp_conn *c)
{
    c->n_sacked = 0;
}

static void sack_add(struct rne_tcp_conn *c, uint32_t s, uint32_t e)
{
    struct tcp_range *b = c->sacked;
    int n = c->n_sacked, i = 0;
    while (i < n && SEQ_LT(b[i].e, s)) {
        i++;
    }
    /* merge every range that touches [s, e) */
    int j = i;
    while (j < n && SEQ_LEQ(b[j].s, e)) {
        s = SEQ_MIN(s, b[j].s);
        e = SEQ_MAX(e, b[j].e);
        j++;
    }
    if (j == i && n == TCP_SACK_MAX) {
        /* full: forget it, the RTO still covers us */
        return;
    }
    memmove(&b[i + 1], &b[j], sizeof(*b) * (size_t)(n - j));
    b[i].s = s;
    b[i].e = e;
    c->n_sacked = n - (j - i) + 1;
}

/*
 * Take the SACK blocks of an incoming ACK; stale or bogus blocks are ignored.
 */
void tcp_sack_update(struct rne_tcp_conn *c, const struct tcp_seg *s)
{
    for (int k = 0; k < s->nsack; k++) {
        uint32_t bs = s->sack[k].s, be = s->sack[k].e;
        if (!SEQ_LT(bs, be) || !SEQ_GT(be, c->snd_una) ||
            SEQ_GT(be, c->snd_max) || be - bs > c->snd_max - c->snd_una) {
            /* D-SACK, below ack, or beyond what we sent */
            continue;
        }
        if (SEQ_LT(bs, c->snd_una)) {
            bs = c->snd_una;
        }
        sack_add(c, bs, be);
    }
}

/* snd_una moved: forget what lies below it. */
void tcp_sack_ack(struct rne_tcp_conn *c)
{
    int k = 0;
    for (int i = 0; i < c->n_sacked; i++) {
        struct tcp_range r = c->sacked[i];
        if (SEQ_LEQ(r.e, c->snd_una)) {
            continue;
        }
        if (SEQ_LT(r.s, c->snd_una)) {
            r.s = c->snd_una;
        }
        c->sacked[k++] = r;
    }
    c->n_sacked = k;
}

bool tcp_sack_is_sacked(const struct rne_tcp_conn *c, uint32_t seq,
                        uint32_t *end)
{
    for (int i = 0; i < c->n_sacked; i++) {
        if (SEQ_GEQ(seq, c->sacked[i].s) && SEQ_LT(seq, c->sacked[i].e)) {
            *end = c->sacked[i].e;
            return true;
        }
    }
    return false;
}

/*
 * RFC 6675 IsLost for a hole below sacked range i: more than
 * (DupThresh - 1) * SMSS bytes, or DupThresh ranges, SACKed above it.
 * Every byte of one hole has the same SACKed bytes above it.
 */
static bool hole_lost(const struct rne_tcp_conn *c, int i)
{
    uint32_t above = 0;
    for (int k = i; k < c->n_sacked; k++) {
        above += c->sacked[k].e - c->sacked[k].s;
    }
    return above > (TCP_DUPTHRESH - 1) * c->emss ||
        c->n_sacked - i >= TCP_DUPTHRESH;
}

bool tcp_sack_is_lost(const struct rne_tcp_conn *c, uint32_t seq)
{
    for (int i = 0; i < c->n_sacked; i++) {
        if (SEQ_LT(seq, c->sacked[i].s)) {
            return hole_lost(c, i);
        }
        if (SEQ_LT(seq, c->sacked[i].e)) {
            return false;
        }
    }
    return false;
}

/*
 * RFC 6675 pipe: octets believed in the network. Hole i lies below range i; the
 * last hole (above every range) is never lost.
 */
uint32_t tcp_sack_pipe(const struct rne_tcp_conn *c)
{
    uint32_t pipe = 0, s = c->snd_una;
    for (int i = 0; i <= c->n_sacked; i++) {
        uint32_t e = i < c->n_sacked ? c->sacked[i].s : c->snd_max;
        if (SEQ_LT(s, e)) {
            if (i == c->n_sacked || !hole_lost(c, i)) {
                pipe += e - s;
            } else if (SEQ_GT(c->high_rxt, s)) {
                /* retransmitted, in flight again */
                pipe += SEQ_MIN(e, c->high_rxt) - s;
            }
        }
        if (i < c->n_sacked) {
            s = c->sacked[i].e;
        }
    }
    return pipe;
}

/*
 * NextSeg rule 1: the first lost, not yet retransmitted octet and how much to
 * send.
 */
bool tcp_sack_next_lost(const struct rne_tcp_conn *c, uint32_t *seq,
                        uint32_t *len)
{
    uint32_t s = c->snd_una;
    for (int i = 0; i < c->n_sacked; i++) {
        uint32_t e = c->sacked[i].s;
        uint32_t from = SEQ_MAX(s, c->high_rxt);
        if (SEQ_LT(from, e) && hole_lost(c, i)) {
            uint32_t l = tcp_rexmit_len(c, from);
            if (l > e - from) {
                l = e - from;
            }
            *seq = from;
            *len = l;
            return l > 0 || (c->fin_queued && from == c->fin_seq);
        }
        s = c->sacked[i].e;
    }
    return false;
}
