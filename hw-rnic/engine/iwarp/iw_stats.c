/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The protocol counters of QUERY_STATS: the offload TCP engines' own
 * (struct rne_tcp_stats, one engine per local address, plus those of
 * engines already freed) and the iWARP layer's event counts (struct
 * rne_iw_stats, each bumped on one line where its event happens).
 */
#include <string.h>
#include "iw.h"
#include "wire/iwarp_term.h"
#include "wire/le.h"

/* QUERY_QP's tcp_state is the engine's state number. */
RNIC_STATIC_ASSERT((int)RNE_TCP_CLOSED == (int)RNIC_TCPS_CLOSED &&
                   (int)RNE_TCP_ESTABLISHED == (int)RNIC_TCPS_ESTABLISHED &&
                   (int)RNE_TCP_TIME_WAIT == (int)RNIC_TCPS_TIME_WAIT,
                   "TCP state numbers of hw.h and tcp.h differ");

void rne_iw_count_mpa_err(struct rne_dev *d, uint8_t code)
{
    if (code == RNE_MPA_EC_CRC) {
        d->iw->st.mpa_crc_err++;
    } else {
        d->iw->st.mpa_frame_err++;
    }
}

bool rne_iw_count_fpdu_tx(struct rne_dev *d, bool ok)
{
    d->iw->st.fpdu_tx += ok;
    return ok;
}

static void tcp_add(struct rne_tcp_stats *sum, const struct rne_tcp_stats *s)
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

void rne_iw_stats_fold(struct rne_dev *d, const struct rne_tcp *tcp)
{
    tcp_add(&d->iw->st.tcp_gone, rne_tcp_get_stats(tcp));
}

void rne_iw_query_stats(struct rne_dev *d, struct rnic_proto_stats *out)
{
    const struct rne_iw_stats *st = &d->iw->st;
    struct rne_tcp_stats t = st->tcp_gone;
    uint32_t i;

    for (i = 0; i < d->iw->neng; i++) {
        tcp_add(&t, rne_tcp_get_stats(d->iw->eng[i].tcp));
    }
    memset(out, 0, sizeof(*out));
    out->tcp_tx_segs = rne_cpu_to_le64(t.tx_frames);
    out->tcp_rx_segs = rne_cpu_to_le64(t.rx_frames);
    out->tcp_tx_data_segs = rne_cpu_to_le64(t.tx_data_segs);
    out->tcp_rexmit_segs = rne_cpu_to_le64(t.tx_rexmit_segs);
    out->tcp_rto = rne_cpu_to_le64(t.rto_fired);
    out->tcp_fast_rexmit = rne_cpu_to_le64(t.fast_rexmit);
    out->tcp_rx_csum_err = rne_cpu_to_le64(t.rx_csum_err);
    out->tcp_rx_bad = rne_cpu_to_le64(t.rx_bad);
    out->tcp_rx_ooo = rne_cpu_to_le64(t.rx_ooo);
    out->tcp_rx_dup = rne_cpu_to_le64(t.rx_dup);
    out->tcp_rx_no_conn = rne_cpu_to_le64(t.rx_no_conn);
    out->tcp_tx_rst = rne_cpu_to_le64(t.tx_rst);
    out->tcp_paws_drop = rne_cpu_to_le64(t.paws_drop);
    out->tcp_conns_opened = rne_cpu_to_le64(t.conns_open);
    out->mpa_crc_err = rne_cpu_to_le64(st->mpa_crc_err);
    out->mpa_frame_err = rne_cpu_to_le64(st->mpa_frame_err);
    out->mpa_neg_fail = rne_cpu_to_le64(st->mpa_neg_fail);
    out->term_tx = rne_cpu_to_le64(st->term_tx);
    out->term_rx = rne_cpu_to_le64(st->term_rx);
    out->fpdu_tx = rne_cpu_to_le64(st->fpdu_tx);
    out->fpdu_rx = rne_cpu_to_le64(st->fpdu_rx);
    out->conns_rts = rne_cpu_to_le64(st->conns_rts);
}
