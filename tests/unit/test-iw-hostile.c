/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hostile peer against the iWARP receive path: DDP segments built from a
 * valid header of every opcode with random fields, lengths and payloads
 * are fed to a connected QP.  Nothing may crash (ASan/UBSan), guest memory
 * outside the registered buffers must not change, and the QP is either
 * still RTS or went to ERROR with a Terminate.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"
#include "wire/rdmap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static size_t make_segment(uint8_t *buf, size_t cap)
{
    uint8_t op = rnd() % 13;
    size_t hl, plen, i;
    bool tagged = op == RNE_RDMAP_WRITE || op == RNE_RDMAP_READ_RESP;

    if (tagged) {
        hl = rne_rdmap_seg_tagged(buf, op, rnd() % 4 ? 0x300 : rnd(),
                                  (rnd() % 2 ? 0x20000 :
                                   (uint64_t)rnd() << 20) + rnd() % 9000,
                                  rnd() & 1);
    } else {
        struct rne_rdmap_msg m;

        memset(&m, 0, sizeof(m));
        m.opcode = op > 11 ? RNE_RDMAP_SEND : op;
        m.rv = RNE_RDMAP_VERSION;
        m.ddp.dv = RNE_DDP_VERSION;
        m.ddp.last = rnd() & 1;
        m.ddp.qn = rnd() % 5;
        m.ddp.msn = rnd() % 4;
        m.ddp.mo = rnd() % 3 ? 0 : rnd() % 5000;
        m.u.rr.size = rnd() % 3 ? rnd() % 10000 : rnd();
        m.u.rr.src_stag = rnd() % 2 ? 0x300 : rnd();
        m.u.rr.src_to = 0x20000 + rnd() % 9000;
        m.u.areq.op = rnd() % 4;
        hl = rne_rdmap_hdr_encode(&m, buf, cap);
        if (!hl) {
            hl = RNE_DDP_UNTAGGED_HLEN;
        }
    }
    plen = rnd() % 3 ? rnd() % 64 : rnd() % 3000;
    for (i = hl; i < hl + plen && i < cap; i++) {
        buf[i] = (uint8_t)rnd();
    }
    /* sometimes flip header bits too */
    if (rnd() % 4 == 0) {
        buf[rnd() % hl] ^= (uint8_t)(1u << (rnd() % 8));
    }
    return hl + plen < cap ? hl + plen : cap;
}

int main(void)
{
    static uint8_t before[GUEST_MEM_SIZE];
    unsigned iter, terminated = 0;

    for (iter = 0; iter < 60; iter++) {
        struct pair *p = p_new();
        struct rne_dev *d = &p->b.h->dev;
        struct rnic_rq_wqe r;
        uint64_t buf;
        unsigned k, n;

        if (!p_connect_pair(p, 2, RNIC_MPA_CRC |
                            (iter & 1 ? RNIC_MPA_RFC7306 : 0))) {
            p_free(p);
            break;
        }
        buf = h_alloc(p->b.h, 4);
        CHECK_EQ(t_reg_mr(p->b.h, 0x300, 0, RNIC_ACCESS_LOCAL_WRITE |
                          RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
                          RNIC_ACCESS_REMOTE_ATOMIC, buf, 16384, buf),
                 RNIC_STS_OK);
        memset(&r, 0, sizeof(r));
        r.num_sge = 1;
        t_sge(&r.sge[0], buf, 4096, 0x300);
        t_post_recv(p->b.h, &p->b.qp, &r);
        p_ring_rq(&p->b);
        memcpy(before, p->b.h->mem, GUEST_MEM_SIZE);
        n = 1 + rnd() % 6;
        for (k = 0; k < n; k++) {
            struct rne_qp *qp = rne_qp_get(d, P_QP);
            uint8_t seg[4096];
            size_t len = make_segment(seg, sizeof(seg));

            if (!qp || !qp->iw) {
                break;
            }
            if (rne_dev_dispatch_begin(d)) {
                rne_iw_rx_ulpdu(d, qp, seg, len);
                rne_dev_dispatch_end(d);
            }
        }
        p_settle(p, 1000000000ull);
        /* only the registered buffer, rings, CQ/EQ memory may change */
        for (k = 0; k < GUEST_MEM_SIZE; k++) {
            if (p->b.h->mem[k] != before[k] &&
                !(k >= buf && k < buf + 16384) &&
                !(k < buf && k >= 0x10000)) {
                CHECK(!"write outside the registered buffer");
                break;
            }
        }
        k = p_qp_state(&p->b, P_QP);
        CHECK(k == RNIC_QPS_RTS || k == RNIC_QPS_ERROR);
        terminated += k == RNIC_QPS_ERROR;
        p_free(p);
    }
    printf("hostile segments: %u of %u connections terminated\n", terminated,
           iter);
    CHECK(terminated > 20);
    return t_report("test-iw-hostile");
}
