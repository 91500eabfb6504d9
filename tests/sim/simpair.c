/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two connected simulated rnics (see simpair.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "simpair.h"

static const uint8_t ips[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };

/* The address of side's device. */
static const uint8_t *ip(const struct simpair *sp, int side)
{
    return ips[sp->o.loopback ? 0 : side];
}

/* Object numbers: side B's follow side A's on a loopback device. */
static uint32_t obj(const struct simpair *sp, int side, uint32_t n,
                    uint32_t per_qp)
{
    return sp->o.loopback && side ? n + per_qp * sp->o.nqp : n;
}

/* Loopback: port B of the link is the wire, where nothing should go. */
static bool wire_sink(void *opaque, const uint8_t *frame, size_t len)
{
    (void)opaque;
    (void)frame;
    (void)len;
    return true;
}

static bool fail(struct simpair *sp, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(sp->err, sizeof(sp->err), fmt, ap);
    va_end(ap);
    return false;
}

bool sp_init(struct simpair *sp, const struct sp_opts *o, uint64_t seed)
{
    struct sd_env env;
    int i, s;

    memset(sp, 0, sizeof(*sp));
    sp->o = *o;
    sl_init(&sp->sl, seed);
    sp->end = calloc(o->nqp ? o->nqp : 1, sizeof(*sp->end));
    if (!sp->end) {
        return fail(sp, "no memory for %u QPs", o->nqp);
    }
    env = sl_env(&sp->sl);
    for (i = 0; i < (o->loopback ? 1 : 2); i++) {
        struct rne_dev_config cfg;

        if (o->cfg) {
            cfg = *o->cfg;
        } else {
            rne_dev_config_default(&cfg);
        }
        cfg.mac[0] = 0x02;
        cfg.mac[5] = (uint8_t)(i + 1);
        sp->sd[i] = sd_new(&cfg, o->mem_size, i, seed, &env);
        if (!sp->sd[i]) {
            return fail(sp, "device %c: no memory for %llu bytes", 'A' + i,
                        (unsigned long long)o->mem_size);
        }
        sl_port_simdev(&sp->sl, i, sp->sd[i]);
    }
    if (o->loopback) {
        sp->sd[1] = sp->sd[0];
        sp->sl.port[1].deliver = wire_sink;
    }
    for (i = 0; i < (o->loopback ? 1 : 2); i++) {
        struct simdev *sd = sp->sd[i];

        s = sd_enable(sd, o->mtu ? o->mtu : 1500);
        if (!s) {
            s = sd_announce_vlan(sd, ip(sp, i),
                                 o->vlan ? o->vlan_tci[i] : -1);
        }
        if (!s) {
            s = sd_create_pd(sd, SP_PDN);
        }
        if (s) {
            return fail(sp, "device %c: %s", 'A' + i, sd->err);
        }
    }
    sp->wire_base = sp->sl.st[0].sent;
    return true;
}

static void conn_pdata(unsigned q, int side, uint8_t *buf, uint16_t *len)
{
    unsigned i;

    *len = (uint16_t)(16 + (q * 37 + (unsigned)side * 101) % 180);
    memset(buf, 0, 16);
    snprintf((char *)buf, 16, "rnic q%u %s", q, side ? "rep" : "req");
    for (i = 16; i < *len; i++) {
        buf[i] = (uint8_t)(i * 13 + q + (unsigned)side);
    }
}

static bool create_end(struct simpair *sp, int side, unsigned q)
{
    struct simdev *sd = sp->sd[side];
    struct sp_end *e = &sp->end[q][side];
    int s;

    s = sd_create_cq(sd, &e->scq, obj(sp, side, 2 * q, 2), sp->o.cq_log);
    if (!s) {
        s = sd_create_cq(sd, &e->rcq, obj(sp, side, 2 * q + 1, 2),
                         sp->o.cq_log);
    }
    if (!s) {
        s = sd_create_qp(sd, &e->qp, obj(sp, side, q + 1, 1), SP_PDN,
                         &e->scq, &e->rcq,
                         sp->o.srq ? &sp->srq[side] : NULL, sp->o.sq_log,
                         sp->o.srq ? 0 : sp->o.rq_log);
    }
    if (!s) {
        s = sd_modify_qp_access(sd, e->qp.qpn, RNIC_ACCESS_REMOTE_READ |
                                RNIC_ACCESS_REMOTE_WRITE |
                                RNIC_ACCESS_REMOTE_ATOMIC);
    }
    if (s) {
        return fail(sp, "device %c QP %u: %s", 'A' + side, q, sd->err);
    }
    return true;
}

/* Loopback: the end a connection id belongs to (B if neither). */
static int end_side(const struct simpair *sp, uint32_t conn_id)
{
    unsigned q;

    for (q = 0; q < sp->o.nqp; q++) {
        if (sp->end[q][0].conn_id == conn_id) {
            return 0;
        }
    }
    return 1;
}

struct conn_wait {
    struct simpair *sp;
    unsigned established[2];
    unsigned want;                      /* connections asked for so far */
    bool failed;
};

static bool check_pdata(struct simpair *sp, const struct sd_cm_event *ev,
                        unsigned q, int from)
{
    uint8_t want[RNIC_MPA_MAX_PDATA];
    uint16_t len;

    conn_pdata(q, from, want, &len);
    if (ev->cm.pdata_len != len || memcmp(ev->pdata, want, len)) {
        unsigned i;

        for (i = 0; i < len && ev->pdata[i] == want[i]; i++) {
        }
        if (getenv("SIMDEV_VERBOSE")) {
            fprintf(stderr, "pdata differs at byte %u: got %.16s\n", i,
                    (const char *)ev->pdata);
        }
        return fail(sp, "QP %u: %s private data wrong (%u bytes, want %u)",
                    q, sd_cm_name(ev->code), ev->cm.pdata_len, len);
    }
    return true;
}

static bool handle_cm(struct conn_wait *w)
{
    struct simpair *sp = w->sp;
    struct sd_cm_event ev;
    int side;

    for (side = 0; side < (sp->o.loopback ? 1 : 2); side++) {
        while (sd_cm_next(sp->sd[side], &ev)) {
            unsigned q;

            if (sp->o.loopback) {
                /* one device: the event says which end it is for */
                side = ev.code == RNIC_CM_CONNECT_REPLY ? 0 : 1;
                if (ev.code != RNIC_CM_CONNECT_REQUEST &&
                    ev.code != RNIC_CM_CONNECT_REPLY &&
                    ev.code != RNIC_CM_ESTABLISHED) {
                    side = end_side(sp, ev.conn_id);
                }
            }
            if (side == 1 && ev.code == RNIC_CM_CONNECT_REQUEST) {
                uint8_t pd[RNIC_MPA_MAX_PDATA];
                uint16_t len;
                int s;

                q = (unsigned)(ev.cm.tuple.remote_port - 40000);
                if (q >= sp->o.nqp || ev.cm.tuple.local_port != SP_PORT ||
                    memcmp(ev.cm.tuple.remote_addr, ip(sp, 0), 4) ||
                    memcmp(ev.cm.tuple.local_addr, ip(sp, 1), 4)) {
                    w->failed = true;
                    return fail(sp, "CONNECT_REQUEST with unexpected tuple "
                                "(remote port %u)", ev.cm.tuple.remote_port);
                }
                if (!check_pdata(sp, &ev, q, 0)) {
                    w->failed = true;
                    return false;
                }
                sp->end[q][1].conn_id = ev.conn_id;
                conn_pdata(q, 1, pd, &len);
                s = sd_cm_accept(sp->sd[1], ev.conn_id,
                                 sp->end[q][1].qp.qpn, sp->o.ird, sp->o.ord,
                                 sp->o.mpa_flags, pd, len);
                if (s) {
                    w->failed = true;
                    return fail(sp, "B: %s", sp->sd[1]->err);
                }
                continue;
            }
            for (q = 0; q < sp->o.nqp; q++) {
                if (sp->end[q][side].conn_id == ev.conn_id) {
                    break;
                }
            }
            if (q == sp->o.nqp) {
                w->failed = true;
                return fail(sp, "%c: CM %s for unknown conn %u", 'A' + side,
                            sd_cm_name(ev.code), ev.conn_id);
            }
            if ((side == 0 && ev.code == RNIC_CM_CONNECT_REPLY) ||
                (side == 1 && ev.code == RNIC_CM_ESTABLISHED)) {
                if (side == 0 && !check_pdata(sp, &ev, q, 1)) {
                    w->failed = true;
                    return false;
                }
                sp->end[q][side].est = ev;
                w->established[side]++;
                continue;
            }
            w->failed = true;
            return fail(sp, "%c QP %u: CM event %s (status %u) while "
                        "connecting", 'A' + side, q, sd_cm_name(ev.code),
                        ev.cm.status);
        }
        if (sp->o.loopback) {
            break;      /* side was the last event's, not the loop's */
        }
    }
    return true;
}

static bool conn_done(void *ctx)
{
    struct conn_wait *w = ctx;

    if (!w->failed) {
        handle_cm(w);
    }
    return w->failed || (w->established[0] == w->want &&
                         w->established[1] == w->want);
}

bool sp_connect(struct simpair *sp)
{
    struct conn_wait w = { .sp = sp };
    unsigned q;
    int side, s;

    if (sp->o.nqp > SP_MAX_CONN) {
        return fail(sp, "at most %d QPs", SP_MAX_CONN);
    }
    for (side = 0; side < 2 && sp->o.srq; side++) {
        s = sd_create_srq(sp->sd[side], &sp->srq[side],
                          sp->o.loopback ? (uint32_t)side : 0, SP_PDN,
                          sp->o.rq_log + 4);
        if (s) {
            return fail(sp, "device %c: %s", 'A' + side, sp->sd[side]->err);
        }
    }
    for (q = 0; q < sp->o.nqp; q++) {
        if (!create_end(sp, 0, q) || !create_end(sp, 1, q)) {
            return false;
        }
    }
    if (sp->o.vlan && sp->o.vlan_listen) {
        s = sd_cm_listen_vlan(sp->sd[1], 0, SP_PORT, ip(sp, 1),
                              sp->o.vlan_tci[1]);
    } else {
        s = sd_cm_listen(sp->sd[1], 0, SP_PORT);
    }
    if (s) {
        return fail(sp, "B: %s", sp->sd[1]->err);
    }
    for (q = 0; q < sp->o.nqp; q++) {
        struct rnic_cmd_cm_connect c;

        if (q && sp->o.batch && q % sp->o.batch == 0) {
            /* the listener's backlog and CM EQ take a batch at a time */
            w.want = q;
            if (!sl_run(&sp->sl, conn_done, &w, 60 * SL_SEC) || w.failed) {
                break;
            }
        }
        uint8_t pd[RNIC_MPA_MAX_PDATA];
        uint16_t len;

        memset(&c, 0, sizeof(c));
        c.qpn = sp->end[q][0].qp.qpn;
        c.tuple.family = RNIC_AF_IPV4;
        memcpy(c.tuple.local_addr, ip(sp, 0), 4);
        memcpy(c.tuple.remote_addr, ip(sp, 1), 4);
        c.tuple.local_port = (uint16_t)(40000 + q);
        c.tuple.remote_port = SP_PORT;
        memcpy(c.next_hop_mac, sp->sd[1]->mac, 6);
        c.ird = sp->o.ird;
        c.ord = sp->o.ord;
        c.mpa_rev = sp->o.mpa_rev;
        c.mpa_flags = sp->o.mpa_flags;
        if (sp->o.vlan) {
            c.flags = RNIC_CONNECT_F_VLAN;
            c.vlan = sp->o.vlan_tci[0];
        }
        conn_pdata(q, 0, pd, &len);
        c.pdata_len = len;
        s = sd_cm_connect(sp->sd[0], &c, pd, &sp->end[q][0].conn_id);
        if (s) {
            return fail(sp, "A QP %u: %s", q, sp->sd[0]->err);
        }
    }
    w.want = sp->o.nqp;
    if (w.failed || !sl_run(&sp->sl, conn_done, &w, 60 * SL_SEC) ||
        w.failed) {
        if (!w.failed) {
            fail(sp, "connect: %u/%u established at A, %u at B after 60 s "
                 "simulated", w.established[0], sp->o.nqp, w.established[1]);
        }
        return false;
    }
    return true;
}

struct close_wait {
    struct simpair *sp;
    unsigned closed[2];
    unsigned want;
    bool failed;
};

static bool close_done(void *ctx)
{
    struct close_wait *w = ctx;
    struct sd_cm_event ev;
    int side;

    for (side = 0; side < (w->sp->o.loopback ? 1 : 2) && !w->failed;
         side++) {
        while (sd_cm_next(w->sp->sd[side], &ev)) {
            int end = w->sp->o.loopback ? end_side(w->sp, ev.conn_id) : side;

            if (ev.code != RNIC_CM_CLOSED) {
                w->failed = true;
                fail(w->sp, "%c: %s (status %u) instead of CLOSED on conn %u",
                     'A' + end, sd_cm_name(ev.code), ev.cm.status,
                     ev.conn_id);
                break;
            }
            w->closed[end]++;
        }
    }
    return w->failed || (w->closed[0] == w->want &&
                         w->closed[1] == w->want);
}

bool sp_disconnect(struct simpair *sp)
{
    struct close_wait w = { .sp = sp };
    unsigned q;

    for (q = 0; q < sp->o.nqp; q++) {
        if (q && sp->o.batch && q % sp->o.batch == 0) {
            w.want = q;
            if (!sl_run(&sp->sl, close_done, &w, 120 * SL_SEC) || w.failed) {
                break;
            }
        }
        if (sd_cm_simple(sp->sd[0], RNIC_CMD_CM_DISCONNECT,
                         sp->end[q][0].conn_id)) {
            return fail(sp, "A: %s", sp->sd[0]->err);
        }
    }
    w.want = sp->o.nqp;
    if (w.failed || !sl_run(&sp->sl, close_done, &w, 120 * SL_SEC) ||
        w.failed) {
        if (!w.failed) {
            fail(sp, "disconnect: CLOSED %u/%u at A, %u at B", w.closed[0],
                 sp->o.nqp, w.closed[1]);
        }
        return false;
    }
    return true;
}

void sp_fini(struct simpair *sp)
{
    sl_fini(&sp->sl);
    if (sp->sd[1] != sp->sd[0]) {
        sd_free(sp->sd[1]);
    }
    sd_free(sp->sd[0]);
    free(sp->end);
    sp->end = NULL;
}
