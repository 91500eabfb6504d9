// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over a whole simulated rnic's iWARP receive path: a
 * device (tests/sim/simdev) that accepted a connection from a raw peer
 * (tests/sim/rawpeer) and registered memory gets the fuzzer's bytes as the
 * peer's side of the connection, framed as FPDUs (valid CRC and markers, so
 * the input reaches DDP/RDMAP, placement and Terminate) or raw.
 *
 * Input: cfg octet, then records [flags][len hi][len lo][len octets]:
 *   cfg bit 0 MPA CRC, bit 1 the device asks for markers, bit 2 the peer
 *   asks for markers, bit 3 MPA rev 1 (else 2);
 *   flags bit 0 raw stream bytes (else one FPDU around them), bit 1 let the
 *   device run before the next record.
 *
 * Besides sanitizer reports it aborts when the device DMAs outside guest
 * memory, changes a guard byte, or changes any byte of guest memory other
 * than the remotely writable MR, the receive buffers and the queues it
 * writes by design: what a remote peer can reach, whatever it sends.
 */
#include <stdlib.h>
#include <string.h>
#include "../sim/rawpeer.h"

#define VPORT 6000
#define T_IOVA 0x100000000ull   /* STag 0x00000a31, 64 KiB, remote R/W */
#define R_IOVA 0x600000000ull   /* STag 0x00000f36, receive buffers */
#define RO_IOVA 0x200000000ull  /* STag 0x00000b32, remote read only */
#define OP_IOVA 0x400000000ull  /* STag 0x00000d34, PD 2 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t p_ip[4] = { 10, 0, 0, 1 }, v_ip[4] = { 10, 0, 0, 2 };
static const uint8_t p_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

struct fz {
    struct simlink sl;
    struct rawpeer p;
    struct simdev *sd;
    struct sd_cq scq, rcq;
    struct sd_qp qp;
    struct sd_mr t, r, ro, op;
    bool established;
    uint8_t mpa_flags;
};

static bool setup(struct fz *f)
{
    struct simdev *sd = f->sd;
    unsigned i;
    int s;

    s = sd_enable(sd, 1500);
    s = s ? s : sd_announce(sd, v_ip);
    s = s ? s : sd_create_pd(sd, 1);
    s = s ? s : sd_create_pd(sd, 2);
    s = s ? s : sd_create_cq(sd, &f->scq, 0, 6);
    s = s ? s : sd_create_cq(sd, &f->rcq, 1, 6);
    s = s ? s : sd_create_qp(sd, &f->qp, 1, 1, &f->scq, &f->rcq, NULL, 5, 5);
    s = s ? s : sd_modify_qp_access(sd, 1, RNIC_ACCESS_REMOTE_READ |
                                    RNIC_ACCESS_REMOTE_WRITE |
                                    RNIC_ACCESS_REMOTE_ATOMIC);
    s = s ? s : sd_reg_mr(sd, &f->t, RNIC_STAG(10, 0x31), 1,
                          RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
                          RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC,
                          T_IOVA, 65536, 1);
    s = s ? s : sd_reg_mr(sd, &f->ro, RNIC_STAG(11, 0x32), 1,
                          RNIC_ACCESS_REMOTE_READ, RO_IOVA, 8192, 1);
    s = s ? s : sd_reg_mr(sd, &f->op, RNIC_STAG(13, 0x34), 2,
                          RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE,
                          OP_IOVA, 8192, 1);
    s = s ? s : sd_reg_mr(sd, &f->r, RNIC_STAG(15, 0x36), 1,
                          RNIC_ACCESS_LOCAL_WRITE, R_IOVA, 4 * 4096, 1);
    s = s ? s : sd_cm_listen(sd, 0, VPORT);
    if (s) {
        return false;
    }
    for (i = 0; i < 4; i++) {
        struct rnic_rq_wqe w;

        memset(&w, 0, sizeof(w));
        w.wr_id = i;
        w.num_sge = 1;
        w.sge[0].addr = R_IOVA + i * 4096;
        w.sge[0].length = 4096;
        w.sge[0].lkey = f->r.stag;
        sd_post_recv(sd, &f->qp, &w);
    }
    return true;
}

static bool established(void *ctx)
{
    struct fz *f = ctx;
    struct sd_cm_event ev;

    while (sd_cm_next(f->sd, &ev)) {
        if (ev.code == RNIC_CM_CONNECT_REQUEST) {
            sd_cm_accept(f->sd, ev.conn_id, f->qp.qpn, 4, 4, f->mpa_flags,
                         NULL, 0);
        } else if (ev.code == RNIC_CM_ESTABLISHED) {
            f->established = true;
        }
    }
    return (f->established && f->p.have_reply) || f->p.err[0];
}

static bool idle(void *ctx)
{
    struct fz *f = ctx;
    struct rnic_cqe c;

    /* keep the CQs drained like a driver; stop once the link is quiet */
    while (sd_poll_cq(f->sd, &f->rcq, &c) || sd_poll_cq(f->sd, &f->scq, &c)) {
    }
    return sl_in_flight(&f->sl) == 0;
}

/* Pages the device may write: its queues, the R/W MR, receive buffers. */
static uint8_t *writable_pages(const struct fz *f)
{
    uint8_t *w = malloc(f->sd->mem_size / RNIC_PAGE_SIZE);
    uint32_t i;

    memcpy(w, f->sd->page_dev, f->sd->mem_size / RNIC_PAGE_SIZE);
    for (i = 0; i < f->t.npages; i++) {
        w[f->t.pages[i] / RNIC_PAGE_SIZE] = 1;
    }
    for (i = 0; i < f->r.npages; i++) {
        w[f->r.pages[i] / RNIC_PAGE_SIZE] = 1;
    }
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz F;
    struct fz *f = &F;
    struct rnic_dev_config cfg;
    struct sd_env env;
    uint8_t *snap, *wp;
    uint64_t p;
    size_t off = 1;
    uint8_t c;

    if (size < 1) {
        return 0;
    }
    c = data[0];
    memset(f, 0, sizeof(*f));
    f->mpa_flags = (uint8_t)(((c & 1) ? RNIC_MPA_CRC : 0) |
                             ((c & 2) ? RNIC_MPA_MARKERS : 0) |
                             RNIC_MPA_RFC7306);
    sl_init(&f->sl, 1);
    f->sl.p[0].delay_ns = f->sl.p[1].delay_ns = 10000;
    env = sl_env(&f->sl);
    rnic_dev_config_default(&cfg);
    cfg.mac[0] = 0x02;
    cfg.mac[5] = 0x02;
    cfg.max_qp = cfg.max_cq = 16;
    cfg.max_mr = 64;
    cfg.max_conn = 8;
    f->sd = sd_new(&cfg, 2u << 20, 1, 1, &env);
    sl_port_simdev(&f->sl, 1, f->sd);
    if (!f->sd || !setup(f) ||
        !rp_init(&f->p, &f->sl, 0, p_mac, p_ip, 0) ||
        !rp_connect(&f->p, v_ip, VPORT, f->sd->mac, 41000,
                    (c & 8) ? 1 : 2, c & 1, c & 4) ||
        !sl_run(&f->sl, established, f, 10 * SL_SEC) || f->p.err[0]) {
        abort();        /* the set-up itself must always work */
    }
    snap = malloc(f->sd->mem_size);
    memcpy(snap, f->sd->mem, f->sd->mem_size);
    while (off + 3 <= size) {
        uint8_t fl = data[off];
        size_t len = (size_t)data[off + 1] << 8 | data[off + 2];

        off += 3;
        if (len > size - off) {
            len = size - off;
        }
        if (fl & 1) {
            rp_send(&f->p, data + off, len);
        } else if (len >= 2) {
            rp_fpdu(&f->p, data + off, len, NULL, 0, 0);
        }
        off += len;
        if (fl & 2) {
            sl_run(&f->sl, idle, f, SL_SEC);
        }
    }
    sl_run(&f->sl, idle, f, 5 * SL_SEC);
    if (f->sd->st.dma_faults || sd_check_guards(f->sd)) {
        abort();
    }
    wp = writable_pages(f);
    for (p = 0; p < f->sd->mem_size / RNIC_PAGE_SIZE; p++) {
        uint64_t a = p * RNIC_PAGE_SIZE;

        if (!wp[p] && memcmp(snap + a, f->sd->mem + a, RNIC_PAGE_SIZE)) {
            abort();    /* a byte the peer must not be able to reach */
        }
    }
    free(wp);
    free(snap);
    rp_fini(&f->p);
    sl_fini(&f->sl);
    sd_free(f->sd);
    return 0;
}
