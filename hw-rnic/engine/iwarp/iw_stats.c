/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The protocol counters of QUERY_STATS: the offload TCP engines' own
 * (struct rnic_tcp_stats, one engine per local address, plus those of
 * engines already freed) and the iWARP layer's event counts (struct
 * rnic_iw_stats, each bumped on one line where its event happens).
 */
#include <string.h>
#include "iw.h"
#include "wire/iwarp_term.h"
#include "wire/le.h"

/* QUERY_QP's tcp_state is the engine's state number. */
RNIC_STATIC_ASSERT((int)RNIC_TCP_CLOSED == (int)RNIC_TCPS_CLOSED &&
                   (int)RNIC_TCP_ESTABLISHED == (int)RNIC_TCPS_ESTABLISHED &&
                   (int)RNIC_TCP_TIME_WAIT == (int)RNIC_TCPS_TIME_WAIT,
                   "TCP state numbers of hw.h and tcp.h differ");

void rnic_iw_count_mpa_err(struct rnic_dev *d, uint8_t code)
{
    if (code == RNIC_MPA_EC_CRC) {
        d->iw->st.mpa_crc_err++;
    } else {
        d->iw->st.mpa_frame_err++;
    }
}

bool rnic_iw_count_fpdu_tx(struct rnic_dev *d, bool ok)
{
    d->iw->st.fpdu_tx += ok;
    return ok;
}

static void tcp_add(struct rnic_tcp_stats *sum, const struct rnic_tcp_stats *s)
{
    sum->rx_frames += s->rx_frames;
    sum->rx_bad += s->rx_bad;
    sum->rx_csum_err += s->rx_csum_err;
    sum->rx_no_conn += s->rx_no_conn;
    sum->rx_ooo += s->rx_ooo;
    sum->rx_dup += s->rx_dup;
    sum->tx_frames += s->tx_frames;
    sum->tx_data_segs += s->tx_data_segs;
    sum->tx_rexmit_segs += s->tx_rexmit_segs;
    sum->tx_rst += s->tx_rst;
    sum->rto_fired += s->rto_fired;
    sum->fast_rexmit += s->fast_rexmit;
    sum->paws_drop += s->paws_drop;
    sum->conns_open += s->conns_open;
}

void rnic_iw_stats_fold(struct rnic_dev *d, const struct rnic_tcp *tcp)
{
    tcp_add(&d->iw->st.tcp_gone, rnic_tcp_get_stats(tcp));
}

void rnic_iw_query_stats(struct rnic_dev *d, struct rnic_proto_stats *out)
{
    const struct rnic_iw_stats *st = &d->iw->st;
    struct rnic_tcp_stats t = st->tcp_gone;
    uint32_t i;

    for (i = 0; i < d->iw->neng; i++) {
        tcp_add(&t, rnic_tcp_get_stats(d->iw->eng[i].tcp));
    }
    memset(out, 0, sizeof(*out));
    out->tcp_tx_segs = rnic_cpu_to_le64(t.tx_frames);
    out->tcp_rx_segs = rnic_cpu_to_le64(t.rx_frames);
    out->tcp_tx_data_segs = rnic_cpu_to_le64(t.tx_data_segs);
    out->tcp_rexmit_segs = rnic_cpu_to_le64(t.tx_rexmit_segs);
    out->tcp_rto = rnic_cpu_to_le64(t.rto_fired);
    out->tcp_fast_rexmit = rnic_cpu_to_le64(t.fast_rexmit);
    out->tcp_rx_csum_err = rnic_cpu_to_le64(t.rx_csum_err);
    out->tcp_rx_bad = rnic_cpu_to_le64(t.rx_bad);
    out->tcp_rx_ooo = rnic_cpu_to_le64(t.rx_ooo);
    out->tcp_rx_dup = rnic_cpu_to_le64(t.rx_dup);
    out->tcp_rx_no_conn = rnic_cpu_to_le64(t.rx_no_conn);
    out->tcp_tx_rst = rnic_cpu_to_le64(t.tx_rst);
    out->tcp_paws_drop = rnic_cpu_to_le64(t.paws_drop);
    out->tcp_conns_opened = rnic_cpu_to_le64(t.conns_open);
    out->mpa_crc_err = rnic_cpu_to_le64(st->mpa_crc_err);
    out->mpa_frame_err = rnic_cpu_to_le64(st->mpa_frame_err);
    out->mpa_neg_fail = rnic_cpu_to_le64(st->mpa_neg_fail);
    out->term_tx = rnic_cpu_to_le64(st->term_tx);
    out->term_rx = rnic_cpu_to_le64(st->term_rx);
    out->fpdu_tx = rnic_cpu_to_le64(st->fpdu_tx);
    out->fpdu_rx = rnic_cpu_to_le64(st->fpdu_rx);
    out->conns_rts = rnic_cpu_to_le64(st->conns_rts);
}
