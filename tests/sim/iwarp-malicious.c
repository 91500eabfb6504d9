// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A malicious iWARP peer against a simulated rnic.  The attacker is a raw
 * offload TCP engine (tcp.h) plus the MPA/DDP/RDMAP encoders: it opens a
 * connection to the victim device, negotiates MPA like any initiator, and
 * then sends one hostile message (forged or foreign STags, missing rights,
 * out-of-range offsets, bad MSN/QN, too long Sends, unknown opcodes, an
 * RFC 7306 atomic on a connection that did not negotiate it, bad
 * CRCs, garbage lengths, lying markers, Sends with nothing posted, Read
 * Requests beyond IRD).  For each case:
 *   - the victim answers with a Terminate whose Layer/EType/Code are the
 *     RFC's (decoded from the bytes the attacker received);
 *   - the victim's QP ends in ERROR and every posted receive is flushed
 *     (WR_FLUSH_ERR CQEs), and a Send posted afterwards flushes too;
 *   - not one byte of the victim's guest memory changed outside the
 *     attacked region and the queues the device writes by design, and no
 *     guard byte anywhere changed.
 * A "control" case sends the same kind of traffic legally and must get no
 * Terminate: it proves the attacker speaks correct MPA.  A "peer-term" case
 * sends a Terminate the victim cannot parse (Linux siw's bit layout): the QP
 * must end as for any Terminate received, and with no Terminate in answer.
 *
 *   iwarp-malicious [--case NAME]... [--mode as-listed|markers|nocrc-rev1]
 *                   [--list] [--pcap DIR] [-v]
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rawpeer.h"

#define VPORT       6000
#define APORT       41000
#define RQ_BUFS     4
#define RQ_BUF_LEN  256
#define T_LEN       65536
#define T_IOVA      0x100000000ull

enum { MR_T = 0, MR_RO, MR_WO, MR_OTHER_PD, MR_INV, MR_RBUF, MR__N };

struct expect {
    uint8_t layer, etype, code;
};

struct mcase;

/* The victim: one device, one QP, MRs of every kind. */
struct victim {
    struct simdev *sd;
    struct sd_cq scq, rcq;
    struct sd_qp qp;
    struct sd_mr mr[MR__N];
    uint32_t conn_id;
    bool established;
    unsigned posted_recvs;
};

struct world {
    struct simlink sl;
    struct victim v;
    struct rawpeer a;
    const struct mcase *mc;
    int verbose;
};

struct mcase {
    const char *name;
    const char *what;
    bool crc, markers_to_victim;        /* victim wants markers from us */
    uint8_t rev;
    uint8_t ird;                        /* victim's IRD (CM_ACCEPT) */
    bool no_recv;                       /* post no receive WQEs */
    bool hold_window;
    int target;                         /* MR index attacked, -1 none */
    bool (*attack)(struct world *w);
    struct expect exp, alt;             /* alt.layer 0xff: none */
    bool control;                       /* legal traffic: no Terminate */
};

/* exp of a case that terminates: the QP ends, no Terminate answers ours */
#define NOANSWER { 0xfe, 0, 0 }
#define PEER_TERM(mc) ((mc)->exp.layer == 0xfe)

static const uint8_t a_ip[4] = { 10, 0, 0, 1 }, v_ip[4] = { 10, 0, 0, 2 };
static const uint8_t a_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

/* ---- attacks ---- */

static uint8_t payload[2048];

static bool write_to(struct world *w, uint32_t stag, uint64_t to, size_t len)
{
    uint8_t h[64];
    size_t hl = rne_rdmap_seg_tagged(h, RNE_RDMAP_WRITE, stag, to, true);

    return rp_fpdu(&w->a, h, hl, payload, len, 0);
}

static bool send_msg(struct world *w, uint32_t msn, size_t len, int corrupt)
{
    uint8_t h[64];
    size_t hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND,
                                       msn, 0, true, 0);

    return rp_fpdu(&w->a, h, hl, payload, len, corrupt);
}

static bool at_control(struct world *w)
{
    uint8_t h[64];
    size_t hl = rp_hdr_read_req(h, 1, w->v.mr[MR_T].stag, T_IOVA + 100, 300);

    return write_to(w, w->v.mr[MR_T].stag, T_IOVA + 1000, 700) &&
           rp_fpdu(&w->a, h, hl, NULL, 0, 0) && send_msg(w, 1, 200, 0);
}

static bool at_forged_stag(struct world *w)
{
    return write_to(w, RNIC_STAG(0xabcd, 0x5a), T_IOVA, 64);
}

static bool at_wrong_key(struct world *w)
{
    uint32_t s = w->v.mr[MR_T].stag;

    return write_to(w, RNIC_STAG(RNIC_STAG_INDEX(s), RNIC_STAG_KEY(s) + 1),
                    T_IOVA, 64);
}

static bool at_invalidated(struct world *w)
{
    return write_to(w, w->v.mr[MR_INV].stag, w->v.mr[MR_INV].iova, 64);
}

static bool at_other_pd(struct world *w)
{
    return write_to(w, w->v.mr[MR_OTHER_PD].stag, w->v.mr[MR_OTHER_PD].iova,
                    64);
}

static bool at_write_ro(struct world *w)
{
    return write_to(w, w->v.mr[MR_RO].stag, w->v.mr[MR_RO].iova, 64);
}

static bool at_read_nonreadable(struct world *w)
{
    uint8_t h[64];
    size_t hl = rp_hdr_read_req(h, 1, w->v.mr[MR_WO].stag, w->v.mr[MR_WO].iova,
                             64);

    return rp_fpdu(&w->a, h, hl, NULL, 0, 0);
}

static bool at_to_bounds(struct world *w)
{
    return write_to(w, w->v.mr[MR_T].stag, T_IOVA + T_LEN - 10, 100);
}

static bool at_to_below(struct world *w)
{
    return write_to(w, w->v.mr[MR_T].stag, T_IOVA - 32, 64);
}

static bool at_to_wrap(struct world *w)
{
    return write_to(w, w->v.mr[MR_T].stag, UINT64_MAX - 15, 64);
}

static bool at_read_bounds(struct world *w)
{
    uint8_t h[64];
    size_t hl = rp_hdr_read_req(h, 1, w->v.mr[MR_T].stag, T_IOVA + T_LEN - 8,
                             4096);

    return rp_fpdu(&w->a, h, hl, NULL, 0, 0);
}

static bool at_read_wrap(struct world *w)
{
    uint8_t h[64];
    size_t hl = rp_hdr_read_req(h, 1, w->v.mr[MR_T].stag, UINT64_MAX - 7, 64);

    return rp_fpdu(&w->a, h, hl, NULL, 0, 0);
}

static bool at_bad_msn(struct world *w)
{
    return send_msg(w, 1000, 32, 0);
}

static bool at_bad_qn(struct world *w)
{
    uint8_t h[64];
    /* QN 7: no such queue */
    size_t hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, 7, 1, 0, true, 0);

    return rp_fpdu(&w->a, h, hl, payload, 32, 0);
}

static bool at_send_too_long(struct world *w)
{
    return send_msg(w, 1, RQ_BUF_LEN + 1, 0);
}

static bool at_send_too_long_multi(struct world *w)
{
    uint8_t h[64];
    size_t hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND,
                                       1, 0, false, 0);

    if (!rp_fpdu(&w->a, h, hl, payload, 200, 0)) {
        return false;
    }
    hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND, 1,
                                200, true, 0);
    return rp_fpdu(&w->a, h, hl, payload, 200, 0);
}

static bool at_bad_mo(struct world *w)
{
    uint8_t h[64];
    size_t hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND,
                                       1, 0, false, 0);

    if (!rp_fpdu(&w->a, h, hl, payload, 64, 0)) {
        return false;
    }
    hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND, 1,
                                100, true, 0);
    return rp_fpdu(&w->a, h, hl, payload, 64, 0);
}

static bool at_unknown_opcode(struct world *w)
{
    uint8_t h[64];
    size_t hl = rne_rdmap_seg_untagged(h, 0x0c, RNE_RDMAP_QN_SEND, 1, 0,
                                       true, 0);

    return rp_fpdu(&w->a, h, hl, payload, 16, 0);
}

/*
 * FetchAdd on a connection whose Request did not offer RFC 7306, to a
 * victim that asked for it (CM_ACCEPT with RNIC_MPA_RFC7306), an MR and a
 * QP with REMOTE_ATOMIC: only the negotiation stands in the way.
 */
static bool at_atomic_unnegotiated(struct world *w)
{
    struct rne_rdmap_msg m;
    uint8_t h[128];
    size_t hl;

    memset(&m, 0, sizeof(m));
    m.opcode = RNE_RDMAP_ATOMIC_REQ;
    m.rv = RNE_RDMAP_VERSION;
    m.ddp.dv = RNE_DDP_VERSION;
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = 1;
    m.u.areq.op = RNE_RDMAP_ATOMIC_FETCH_ADD;
    m.u.areq.req_id = 1;
    m.u.areq.stag = w->v.mr[MR_T].stag;
    m.u.areq.to = T_IOVA + 64;
    m.u.areq.add_swap = 5;
    hl = rne_rdmap_hdr_encode(&m, h, sizeof(h));
    return hl && rp_fpdu(&w->a, h, hl, NULL, 0, 0);
}

static bool at_bad_crc(struct world *w)
{
    return send_msg(w, 1, 100, 1);
}

static bool at_garbage_len(struct world *w)
{
    static uint8_t junk[65528];
    size_t i;

    for (i = 0; i < sizeof(junk); i++) {
        junk[i] = (uint8_t)(i * 131 + 7);
    }
    junk[0] = 0xff;             /* ULPDU_Length 0xfff0 */
    junk[1] = 0xf0;
    return rp_send(&w->a, junk, sizeof(junk));
}

static bool at_bad_marker(struct world *w)
{
    if (!w->a.tx.markers) {
        snprintf(w->a.err, sizeof(w->a.err), "markers were not negotiated "
                 "towards the victim");
        return false;
    }
    return send_msg(w, 1, 100, 2);
}

static bool at_no_rq(struct world *w)
{
    return send_msg(w, 1, 32, 0);
}

/*
 * Linux siw's "no buffer" Terminate as an x86 host sends it (captured in
 * the lab): siw declares the control word as little-endian bitfields, so
 * byte 0 is EType << 4 | Layer and M/D are bits 0/1 of byte 2, while the
 * 20 octets of the Send's headers that the D bit meant to announce follow.
 */
static bool at_siw_terminate(struct world *w)
{
    uint8_t h[64], body[4 + 2 + RNE_DDP_UNTAGGED_HLEN] = { 0x21, 0x02, 0x03 };
    size_t hl = rne_rdmap_seg_untagged(h, RNE_RDMAP_TERMINATE,
                                       RNE_RDMAP_QN_TERMINATE, 1, 0, true, 0);

    body[5] = 32;                               /* DDP Segment Length */
    rne_rdmap_seg_untagged(body + 6, RNE_RDMAP_SEND, RNE_RDMAP_QN_SEND, 1, 0,
                           true, 0);
    return rp_fpdu(&w->a, h, hl, body, sizeof(body), 0);
}

static bool at_beyond_ird(struct world *w)
{
    uint8_t h[64];
    unsigned i;

    /*
     * The attacker keeps its window shut, so responses cannot drain: once
     * the victim's TCP send buffer is full, requests pile up beyond IRD.
     */
    for (i = 0; i <= w->mc->ird + 8u; i++) {
        size_t hl = rp_hdr_read_req(h, i + 1, w->v.mr[MR_T].stag, T_IOVA,
                                 T_LEN);

        if (!rp_fpdu(&w->a, h, hl, NULL, 0, 0)) {
            return false;
        }
    }
    return true;
}

#define NOALT { 0xff, 0, 0 }
#define L_RDMAP RNE_TERM_LAYER_RDMAP
#define L_DDP RNE_TERM_LAYER_DDP
#define L_LLP RNE_TERM_LAYER_LLP

static const struct mcase cases[] = {
    { "control", "legal Write, Read Request and Send (no Terminate expected)",
      true, false, 2, 4, false, false, MR_T, at_control, NOALT, NOALT, true },
    { "forged-stag", "RDMA Write to an STag never registered",
      true, false, 2, 4, false, false, -1, at_forged_stag,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_STAG }, NOALT,
      false },
    { "wrong-key", "RDMA Write with a valid index but a wrong key",
      false, false, 1, 4, false, false, MR_T, at_wrong_key,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_STAG }, NOALT,
      false },
    { "invalidated-stag", "RDMA Write to a locally invalidated STag",
      true, false, 2, 4, false, false, MR_INV, at_invalidated,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_STAG }, NOALT,
      false },
    { "other-pd-stag", "RDMA Write to an MR of another PD",
      true, false, 2, 4, false, false, MR_OTHER_PD, at_other_pd,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_STAG_NOT_ASSOC },
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_STAG_NOT_ASSOC }, false },
    { "write-readonly", "RDMA Write to an MR without REMOTE_WRITE",
      true, false, 2, 4, false, false, MR_RO, at_write_ro,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_INVALID_STAG },
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_ACCESS_RIGHTS }, false },
    { "read-nonreadable", "Read Request from an MR without REMOTE_READ",
      true, false, 2, 4, false, false, MR_WO, at_read_nonreadable,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_ACCESS_RIGHTS },
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_INVALID_STAG }, false },
    { "to-beyond-end", "RDMA Write running 90 bytes past the end of the MR",
      true, false, 2, 4, false, false, MR_T, at_to_bounds,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_BASE_BOUNDS }, NOALT,
      false },
    { "to-below-base", "RDMA Write starting 32 bytes below the MR",
      false, false, 2, 4, false, false, MR_T, at_to_below,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_BASE_BOUNDS }, NOALT,
      false },
    { "to-wrap", "RDMA Write whose TO + length wraps 2^64",
      true, false, 2, 4, false, false, MR_T, at_to_wrap,
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_TO_WRAP },
      { L_DDP, RNE_DDP_ETYPE_TAGGED, RNE_DDP_EC_T_BASE_BOUNDS }, false },
    { "read-beyond-end", "Read Request past the end of the source MR",
      true, false, 2, 4, false, false, MR_T, at_read_bounds,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_BASE_BOUNDS }, NOALT, false },
    { "read-to-wrap", "Read Request whose source TO + size wraps 2^64",
      true, false, 2, 4, false, false, MR_T, at_read_wrap,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION, RNE_RDMAP_EC_TO_WRAP },
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
        RNE_RDMAP_EC_BASE_BOUNDS }, false },
    { "bad-msn", "Send with MSN 1000 (1 expected)",
      true, false, 2, 4, false, false, MR_RBUF, at_bad_msn,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MSN_RANGE },
      NOALT, false },
    { "bad-qn", "untagged Send on QN 7",
      true, false, 2, 4, false, false, MR_RBUF, at_bad_qn,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_QN }, NOALT,
      false },
    { "send-too-long", "Send one byte longer than the posted buffer",
      true, false, 2, 4, false, false, MR_RBUF, at_send_too_long,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_TOO_LONG }, NOALT,
      false },
    { "send-too-long-multiseg", "two-segment Send (400 B) into a 256 B buffer",
      false, false, 1, 4, false, false, MR_RBUF, at_send_too_long_multi,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_TOO_LONG }, NOALT,
      false },
    { "bad-mo", "second Send segment with MO 100 after 64 bytes",
      true, false, 2, 4, false, false, MR_RBUF, at_bad_mo,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MO }, NOALT,
      false },
    { "unknown-opcode", "RDMAP opcode 0xc (reserved)",
      true, false, 2, 4, false, false, -1, at_unknown_opcode,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION,
        RNE_RDMAP_EC_UNEXPECTED_OPCODE }, NOALT, false },
    { "atomic-unnegotiated", "RFC 7306 FetchAdd, RFC 7306 not negotiated",
      true, false, 2, 4, false, false, MR_T, at_atomic_unnegotiated,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION,
        RNE_RDMAP_EC_UNEXPECTED_OPCODE }, NOALT, false },
    { "bad-crc", "Send with a corrupted MPA CRC",
      true, false, 2, 4, false, false, -1, at_bad_crc,
      { L_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_CRC }, NOALT, false },
    { "garbage-length", "MPA ULPDU_Length 0xfff0 followed by junk",
      true, false, 2, 4, false, false, -1, at_garbage_len,
      { L_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_CRC },
      { L_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_MARKER_MISMATCH }, false },
    { "bad-marker", "marker whose FPDUPTR points outside the FPDU",
      true, true, 2, 4, false, false, -1, at_bad_marker,
      { L_LLP, RNE_LLP_ETYPE_MPA, RNE_MPA_EC_MARKER_MISMATCH }, NOALT,
      false },
    { "send-no-rq", "Send with no receive WQE posted",
      true, false, 2, 4, true, false, -1, at_no_rq,
      { L_DDP, RNE_DDP_ETYPE_UNTAGGED, RNE_DDP_EC_U_INVALID_MSN_NOBUF },
      NOALT, false },
    { "peer-term", "Terminate in siw's little-endian layout (no answer)",
      true, false, 2, 4, false, false, -1, at_siw_terminate, NOANSWER, NOALT,
      false },
    { "read-beyond-ird", "IRD + 9 Read Requests while responses cannot drain",
      true, false, 2, 2, false, true, -1, at_beyond_ird,
      { L_RDMAP, RNE_RDMAP_ETYPE_REMOTE_OPERATION,
        RNE_RDMAP_EC_CATASTROPHIC_STREAM }, NOALT, false },
};

/* ---- victim set-up ---- */

static bool victim_setup(struct world *w, const struct mcase *mc, char *err,
                         size_t errlen)
{
    struct victim *v = &w->v;
    struct simdev *sd = v->sd;
    unsigned i;
    int s = 0;

    s = sd_enable(sd, 1500);
    if (!s) {
        s = sd_announce(sd, v_ip);
    }
    if (!s) {
        s = sd_create_pd(sd, 1);
    }
    if (!s) {
        s = sd_create_pd(sd, 2);
    }
    if (!s) {
        s = sd_create_cq(sd, &v->scq, 0, 6);
    }
    if (!s) {
        s = sd_create_cq(sd, &v->rcq, 1, 6);
    }
    if (!s) {
        s = sd_create_qp(sd, &v->qp, 1, 1, &v->scq, &v->rcq, NULL, 5, 5);
    }
    if (!s) {
        s = sd_modify_qp_access(sd, 1, RNIC_ACCESS_REMOTE_READ |
                                RNIC_ACCESS_REMOTE_WRITE |
                                RNIC_ACCESS_REMOTE_ATOMIC);
    }
    if (!s) {
        s = sd_reg_mr(sd, &v->mr[MR_T], RNIC_STAG(10, 0x31), 1,
                      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
                      RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC,
                      T_IOVA, T_LEN, 1);
    }
    if (!s) {
        s = sd_reg_mr(sd, &v->mr[MR_RO], RNIC_STAG(11, 0x32), 1,
                      RNIC_ACCESS_REMOTE_READ, 0x200000000ull, 8192, 1);
    }
    if (!s) {
        s = sd_reg_mr(sd, &v->mr[MR_WO], RNIC_STAG(12, 0x33), 1,
                      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE,
                      0x300000000ull, 8192, 1);
    }
    if (!s) {
        s = sd_reg_mr(sd, &v->mr[MR_OTHER_PD], RNIC_STAG(13, 0x34), 2,
                      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
                      RNIC_ACCESS_REMOTE_READ, 0x400000000ull, 8192, 1);
    }
    if (!s) {
        s = sd_reg_mr(sd, &v->mr[MR_RBUF], RNIC_STAG(15, 0x36), 1,
                      RNIC_ACCESS_LOCAL_WRITE, 0x600000000ull,
                      RQ_BUFS * RQ_BUF_LEN, 1);
    }
    if (!s) {
        s = sd_alloc_mr(sd, &v->mr[MR_INV], RNIC_STAG(14, 0x01), 1, 2);
    }
    if (s) {
        snprintf(err, errlen, "victim set-up: %s", sd->err);
        return false;
    }
    for (i = 0; i < RQ_BUFS && !mc->no_recv; i++) {
        struct rnic_rq_wqe r;

        memset(&r, 0, sizeof(r));
        r.wr_id = 0x100 + i;
        r.num_sge = 1;
        r.sge[0].addr = v->mr[MR_RBUF].iova + i * RQ_BUF_LEN;
        r.sge[0].length = RQ_BUF_LEN;
        r.sge[0].lkey = v->mr[MR_RBUF].stag;
        sd_post_recv(sd, &v->qp, &r);
        v->posted_recvs++;
    }
    s = sd_cm_listen(sd, 0, VPORT);
    if (s) {
        snprintf(err, errlen, "victim: %s", sd->err);
        return false;
    }
    return true;
}

/* Once in RTS: fast-register the FRMR, then invalidate it locally. */
static bool victim_invalidate(struct world *w, char *err, size_t errlen)
{
    struct victim *v = &w->v;
    struct simdev *sd = v->sd;
    struct rnic_sq_wqe wqe;
    struct rnic_cqe cqe;
    unsigned i;

    /* fast-register the FRMR, then invalidate it locally */
    sd_wqe_fastreg(sd, &v->mr[MR_INV], 0x02, RNIC_ACCESS_LOCAL_WRITE |
                   RNIC_ACCESS_REMOTE_WRITE, 0x500000000ull, 8192, &wqe);
    wqe.hdr.wr_id = 0xf1;
    sd_post_send(sd, &v->qp, &wqe);
    memset(&wqe, 0, sizeof(wqe));
    wqe.hdr.wr_id = 0xf2;
    wqe.hdr.opcode = RNIC_WR_LOCAL_INV;
    wqe.hdr.flags = RNIC_WQE_SIGNALED;
    wqe.hdr.ex = v->mr[MR_INV].stag;
    sd_post_send(sd, &v->qp, &wqe);
    for (i = 0; i < 2; i++) {
        unsigned spins = 0;

        while (!sd_poll_cq(sd, &v->scq, &cqe) && spins++ < 1000) {
            sl_step(&w->sl);
        }
        if (spins >= 1000 || cqe.status != RNIC_WC_SUCCESS ||
            cqe.wr_id != 0xf1 + i) {
            snprintf(err, errlen, "victim %s: %s", i ? "LOCAL_INV" :
                     "fast-register", spins >= 1000 ? "no completion" :
                     sd_wc_status_name(cqe.status));
            return false;
        }
    }
    return true;
}

/* ---- one case ---- */

struct wait_ctx {
    struct world *w;
    int phase;                  /* 0 connect, 1 attack result */
    unsigned flushed, recvd, errored;
    bool qp_error;
    char err[320];
};

static bool victim_events(struct wait_ctx *c)
{
    struct world *w = c->w;
    struct victim *v = &w->v;
    struct sd_cm_event ev;

    while (sd_cm_next(v->sd, &ev)) {
        if (ev.code == RNIC_CM_CONNECT_REQUEST && !v->conn_id) {
            v->conn_id = ev.conn_id;
            if (sd_cm_accept(v->sd, ev.conn_id, v->qp.qpn, w->mc->ird, 4,
                             (uint8_t)((w->mc->crc ? RNIC_MPA_CRC : 0) |
                                       (w->mc->markers_to_victim ?
                                        RNIC_MPA_MARKERS : 0) |
                                       RNIC_MPA_RFC7306), "ok", 2)) {
                snprintf(c->err, sizeof(c->err), "victim: %s", v->sd->err);
                return false;
            }
        } else if (ev.code == RNIC_CM_ESTABLISHED) {
            v->established = true;
        } else if (w->verbose) {
            printf("  victim CM event %s (status %u)\n", sd_cm_name(ev.code),
                   ev.cm.status);
        }
    }
    return true;
}

static bool wait_done(void *ctx)
{
    struct wait_ctx *c = ctx;
    struct world *w = c->w;
    struct rnic_cqe cqe;

    if (!victim_events(c) || c->err[0] || w->a.err[0]) {
        return true;
    }
    if (c->phase == 0) {
        return w->v.established && w->a.have_reply;
    }
    while (sd_poll_cq(w->v.sd, &w->v.rcq, &cqe)) {
        if (cqe.status == RNIC_WC_WR_FLUSH_ERR) {
            c->flushed++;
        } else if (cqe.status) {
            c->errored++;       /* the receive the bad message hit */
        } else {
            c->recvd++;
        }
    }
    if (w->mc->control) {
        return c->recvd == 1 && w->a.read_resp_segs > 0;
    }
    if (PEER_TERM(w->mc)) {
        return w->a.got_term ||
               c->flushed + c->recvd + c->errored >= w->v.posted_recvs;
    }
    return w->a.got_term &&
           c->flushed + c->recvd + c->errored >= w->v.posted_recvs;
}

static bool term_seen(void *ctx)
{
    struct world *w = ctx;

    return w->a.got_term;
}

static uint64_t diff_memory(struct world *w, const uint8_t *snap, int target,
                            uint64_t *target_changed, char *first, size_t n)
{
    struct simdev *sd = w->v.sd;
    uint8_t *excl = calloc(sd->mem_size / RNIC_PAGE_SIZE, 1);
    uint64_t p, bad = 0;
    uint32_t i;

    *target_changed = 0;
    if (target >= 0) {
        for (i = 0; i < w->v.mr[target].npages; i++) {
            excl[w->v.mr[target].pages[i] / RNIC_PAGE_SIZE] = 1;
        }
    }
    for (i = 0; w->mc->control && i < w->v.mr[MR_RBUF].npages; i++) {
        excl[w->v.mr[MR_RBUF].pages[i] / RNIC_PAGE_SIZE] = 1;  /* the Send */
    }
    for (p = 0; p < sd->mem_size / RNIC_PAGE_SIZE; p++) {
        uint64_t a = p * RNIC_PAGE_SIZE, k;

        if (sd->page_dev[p] ||
            !memcmp(sd->mem + a, snap + a, RNIC_PAGE_SIZE)) {
            continue;
        }
        for (k = 0; k < RNIC_PAGE_SIZE; k++) {
            if (sd->mem[a + k] == snap[a + k]) {
                continue;
            }
            if (excl[p]) {
                (*target_changed)++;
                continue;
            }
            if (!bad) {
                snprintf(first, n, "0x%" PRIx64 " changed 0x%02x -> 0x%02x",
                         a + k, snap[a + k], sd->mem[a + k]);
            }
            bad++;
        }
    }
    free(excl);
    return bad;
}

/* Whole-matrix variants: every case again with markers both ways, or
 * with MPA rev 1 and no CRC (cases that need a CRC do not apply). */
enum { MODE_AS_LISTED, MODE_MARKERS, MODE_NOCRC_REV1 };
static int mode;

static int run_case(const struct mcase *mc0, const char *pcap_dir, int verbose)
{
    struct mcase mcv = *mc0;
    const struct mcase *mc = &mcv;
    static struct world W;
    struct world *w = &W;
    struct rne_dev_config cfg;
    struct sd_env env;
    struct wait_ctx c;
    uint8_t *snap = NULL;
    struct rnic_qp_attr attr;
    char err[1024] = "", first[128] = "";
    uint64_t bad, tchanged = 0;
    int fail = 0, i;

    if (mode == MODE_MARKERS) {
        mcv.markers_to_victim = true;
    } else if (mode == MODE_NOCRC_REV1) {
        if (mc0->attack == at_bad_crc || mc0->attack == at_garbage_len) {
            printf("%-24s n/a   (needs MPA CRC)\n", mc0->name);
            return 0;
        }
        mcv.crc = false;
        mcv.rev = 1;
    }
    memset(w, 0, sizeof(*w));
    memset(&c, 0, sizeof(c));
    w->mc = mc;
    w->verbose = verbose;
    sl_init(&w->sl, 42);
    for (i = 0; i < (int)sizeof(payload); i++) {
        payload[i] = (uint8_t)(i * 7 + 1);
    }
    if (pcap_dir) {
        char path[512];

        snprintf(path, sizeof(path), "%s/malicious-%s.pcap", pcap_dir,
                 mc->name);
        sl_pcap(&w->sl, path);
    }
    env = sl_env(&w->sl);
    rne_dev_config_default(&cfg);
    cfg.mac[0] = 0x02;
    cfg.mac[5] = 0x02;
    w->v.sd = sd_new(&cfg, 16u << 20, 1, 42, &env);
    sl_port_simdev(&w->sl, 1, w->v.sd);
    rp_init(&w->a, &w->sl, 0, a_mac, a_ip, mc->hold_window ? 8192 : 0);
    w->a.hold_window = mc->hold_window;
    for (i = 0; i < 2; i++) {
        w->sl.p[i].delay_ns = 10000;
    }
    if (!victim_setup(w, mc, err, sizeof(err))) {
        fail = 1;
        goto out;
    }
    /* attacker: TCP connect, MPA Request */
    if (!rp_connect(&w->a, v_ip, VPORT, w->v.sd->mac, APORT, mc->rev, mc->crc,
                    mode == MODE_MARKERS)) {
        snprintf(err, sizeof(err), "attacker: %s", w->a.err);
        fail = 1;
        goto out;
    }
    c.w = w;
    if (!sl_run(&w->sl, wait_done, &c, 10 * SL_SEC) || c.err[0] ||
        w->a.err[0]) {
        snprintf(err, sizeof(err), "connection not established: %s%s",
                 c.err, w->a.err);
        fail = 1;
        goto out;
    }
    if (mc->markers_to_victim && !w->a.neg.markers_tx) {
        snprintf(err, sizeof(err), "victim accepted with MARKERS but its "
                 "Reply did not ask for them (M=0)");
        fail = 1;
        goto out;
    }
    if (!victim_invalidate(w, err, sizeof(err))) {
        fail = 1;
        goto out;
    }
    snap = malloc(w->v.sd->mem_size);
    memcpy(snap, w->v.sd->mem, w->v.sd->mem_size);
    /* the attack */
    if (!mc->attack(w)) {
        snprintf(err, sizeof(err), "attack not sent: %s", w->a.err);
        fail = 1;
        goto out;
    }
    c.phase = 1;
    sl_run(&w->sl, wait_done, &c, 30 * SL_SEC);
    if (mc->hold_window && w->a.c) {
        /* let what the victim queued (responses, Terminate) drain */
        w->a.hold_window = false;
        rne_tcp_recv_done(w->a.c, w->a.unread, w->sl.now);
        w->a.unread = 0;
        sl_run(&w->sl, wait_done, &c, 30 * SL_SEC);
    }
    if (c.err[0] || w->a.err[0]) {
        snprintf(err, sizeof(err), "%s%s", c.err, w->a.err);
        fail = 1;
    } else if (mc->control) {
        if (w->a.got_term || c.recvd != 1 || !w->a.read_resp_segs) {
            snprintf(err, sizeof(err), "legal traffic: Terminate %s "
                     "(%u/%u/0x%02x), %u receive completions, %u Read "
                     "Response segments", w->a.got_term ? "sent" : "not sent",
                     w->a.term.layer, w->a.term.etype, w->a.term.code,
                     c.recvd, w->a.read_resp_segs);
            fail = 1;
        } else {
            uint8_t got[700];

            sd_mr_read(w->v.sd, &w->v.mr[MR_T], 1000, got, sizeof(got));
            if (memcmp(got, payload, sizeof(got))) {
                snprintf(err, sizeof(err), "legal RDMA Write not placed");
                fail = 1;
            }
        }
    } else if (PEER_TERM(mc)) {
        /* what the victim might still send: 1 s more on the link */
        sl_run(&w->sl, term_seen, w, SL_SEC);
        if (w->a.got_term) {
            snprintf(err, sizeof(err), "the victim answered our Terminate "
                     "with one of its own (%u/%u/0x%02x)", w->a.term.layer,
                     w->a.term.etype, w->a.term.code);
            fail = 1;
        }
    } else if (!w->a.got_term) {
        snprintf(err, sizeof(err), "no Terminate received within 30 s "
                 "(TCP %s)", w->a.closed ? (w->a.reset ? "reset" : "closed") :
                 "open");
        fail = 1;
    } else {
        const struct rne_rdmap_term *t = &w->a.term;
        bool ok = (t->layer == mc->exp.layer && t->etype == mc->exp.etype &&
                   t->code == mc->exp.code) ||
                  (mc->alt.layer != 0xff && t->layer == mc->alt.layer &&
                   t->etype == mc->alt.etype && t->code == mc->alt.code);

        if (!ok) {
            snprintf(err, sizeof(err), "Terminate layer/etype/code %u/%u/"
                     "0x%02x, expected %u/%u/0x%02x", t->layer, t->etype,
                     t->code, mc->exp.layer, mc->exp.etype, mc->exp.code);
            fail = 1;
        }
    }
    /* the device's writes so far: only the attacked MR and its queues */
    bad = diff_memory(w, snap, mc->target, &tchanged, first, sizeof(first));
    if (bad && !fail) {
        snprintf(err, sizeof(err), "%" PRIu64 " bytes of guest memory outside "
                 "the attacked MR changed; first at %s", bad, first);
        fail = 1;
    }
    /* the victim's QP: flushed, in ERROR, and new work flushes at once */
    if (!fail && !mc->control) {
        struct rnic_sq_wqe wqe;
        struct rnic_cqe cqe;
        unsigned spins = 0;
        int s;

        if (c.recvd || c.errored > 1 ||
            c.flushed + c.errored != w->v.posted_recvs) {
            snprintf(err, sizeof(err), "of %u posted receives %u flushed, "
                     "%u completed with an error, %u succeeded", 
                     w->v.posted_recvs, c.flushed, c.errored, c.recvd);
            fail = 1;
        }
        s = sd_query_qp(w->v.sd, w->v.qp.qpn, &attr);
        if (!fail && (s || attr.state != RNIC_QPS_ERROR)) {
            snprintf(err, sizeof(err), "victim QP state %u (QUERY_QP %s), "
                     "expected ERROR", s ? 0xff : attr.state,
                     sd_sts_name(s));
            fail = 1;
        }
        memset(&wqe, 0, sizeof(wqe));
        wqe.hdr.wr_id = 0xabc;
        wqe.hdr.opcode = RNIC_WR_SEND;
        wqe.hdr.flags = RNIC_WQE_SIGNALED;
        sd_post_send(w->v.sd, &w->v.qp, &wqe);
        while (!sd_poll_cq(w->v.sd, &w->v.scq, &cqe) && spins++ < 100) {
            sl_step(&w->sl);
        }
        if (!fail && (spins >= 100 || cqe.wr_id != 0xabc ||
                      cqe.status != RNIC_WC_WR_FLUSH_ERR)) {
            snprintf(err, sizeof(err), "Send posted after the Terminate: %s",
                     spins >= 100 ? "no completion" :
                     sd_wc_status_name(cqe.status));
            fail = 1;
        }
    }
    bad = sd_check_guards(w->v.sd);
    if (bad && !fail) {
        snprintf(err, sizeof(err), "%" PRIu64 " guard bytes changed: %s", bad,
                 w->v.sd->err);
        fail = 1;
    }
    if (w->v.sd->st.dma_faults && !fail) {
        snprintf(err, sizeof(err), "%" PRIu64 " device DMAs outside guest "
                 "memory", w->v.sd->st.dma_faults);
        fail = 1;
    }
out:
    printf("%-24s %s  %s", mc->name, fail ? "FAIL" : "ok  ", mc->what);
    if (w->a.got_term) {
        printf("; Terminate %u/%u/0x%02x", w->a.term.layer, w->a.term.etype,
               w->a.term.code);
    }
    if (tchanged && !mc->control) {
        printf("; %" PRIu64 " bytes of the attacked MR changed", tchanged);
    }
    printf("\n");
    if (fail) {
        printf("    FAILED: %s\n", err);
    }
    free(snap);
    rp_fini(&w->a);
    sl_fini(&w->sl);
    sd_free(w->v.sd);
    return fail;
}

int main(int argc, char **argv)
{
    const char *only[64], *pcap_dir = NULL;
    int nonly = 0, verbose = 0, fails = 0, ran = 0, i;
    size_t k;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--case") && i + 1 < argc && nonly < 64) {
            only[nonly++] = argv[++i];
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            i++;
            mode = !strcmp(argv[i], "markers") ? MODE_MARKERS :
                   !strcmp(argv[i], "nocrc-rev1") ? MODE_NOCRC_REV1 :
                   !strcmp(argv[i], "as-listed") ? MODE_AS_LISTED : -1;
            if (mode < 0) {
                fprintf(stderr, "--mode as-listed|markers|nocrc-rev1\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--pcap") && i + 1 < argc) {
            pcap_dir = argv[++i];
        } else if (!strcmp(argv[i], "-v")) {
            verbose++;
        } else if (!strcmp(argv[i], "--list")) {
            for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                printf("%s\n", cases[k].name);
            }
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--case NAME]... [--mode MODE] "
                    "[--pcap DIR] [-v] [--list]\n", argv[0]);
            return 2;
        }
    }
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        bool want = !nonly;

        for (i = 0; i < nonly; i++) {
            want |= !strcmp(only[i], cases[k].name);
        }
        if (want) {
            fails += run_case(&cases[k], pcap_dir, verbose);
            ran++;
        }
    }
    if (!ran) {
        fprintf(stderr, "iwarp-malicious: no such case\n");
        return 2;
    }
    printf("iwarp-malicious: %d case(s), %d failed\n", ran, fails);
    return fails ? 1 : 0;
}
