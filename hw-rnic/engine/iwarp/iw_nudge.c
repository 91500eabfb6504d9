/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The initiator's nudge for a Linux siw responder that missed our first
 * FPDUs (see rne_iw_nudge_start).
 */
#include "iw.h"

/*
 * Linux siw as responder (6.12 siw_accept) is in RDMA mode when it sends
 * its Reply, but hooks the socket to the QP (or its RTR handler) only
 * after that: FPDUs of ours arriving in between are TCP-acked and left
 * unread until more data comes, so a request/response ULP waits forever.
 * Nothing on the wire tells us, so the initiator nudges: while the
 * responder has sent no FPDU, we sent some since its Reply, all of it is
 * acked and our SQ is between messages, a zero-length RDMA Write every
 * 50 ms, 100 ms, ... for 5 s. RFC 5040 zero-length Writes name no buffer
 * and place nothing (no STag check, siw's siw_proc_write returns at once);
 * their arrival makes the peer read all that waits in its socket.
 */
void rne_iw_nudge_start(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_tcp_info ti;
    uint64_t now = rne_iw_now(d);

    rne_tcp_get_info(c->tc, &ti);
    c->nudge_seq = ti.snd_nxt;
    c->nudge_gap = RNE_IW_NUDGE_FIRST_NS;
    c->nudge_end = now + RNE_IW_NUDGE_SPAN_NS;
    rne_iw_set_deadline(d->iw, c, now + c->nudge_gap);
}

/* In RTS the deadline is the nudge's; later states own it. */
void rne_iw_nudge_stop(struct rne_dev *d, struct rne_iw_conn *c)
{
    if (c->nudge_end && c->state == IWC_RTS) {
        rne_iw_set_deadline(d->iw, c, UINT64_MAX);
    }
    c->nudge_end = 0;
}

void rne_iw_nudge_timer(struct rne_dev *d, struct rne_iw_conn *c,
                        uint64_t now)
{
    struct rne_qp *qp = rne_qp_get(d, c->qpn);
    struct rne_tcp_info ti;

    if (!c->nudge_end || !c->tc || c->fin_sent || !qp || !qp->iw ||
        qp->iw != c->iq) {
        rne_iw_nudge_stop(d, c);
        return;
    }
    rne_tcp_get_info(c->tc, &ti);
    if (ti.snd_una != c->nudge_seq && !ti.unacked && !ti.unsent &&
        !c->iq->cur_active) {
        /* The Write "RTR" is exactly a zero-length Write (STag 1, TO 0). */
        rne_iw_send_rtr(d, qp, RNE_MPA_RTR_WRITE);
    }
    c->nudge_gap *= 2;
    if (now + c->nudge_gap > c->nudge_end) {
        rne_iw_nudge_stop(d, c);
        return;
    }
    rne_iw_set_deadline(d->iw, c, now + c->nudge_gap);
}
