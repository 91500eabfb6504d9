/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The connection-management tests' two-device stage (see cmpair.h).
 */
#include <stdio.h>
#include <string.h>
#include "cmpair.h"

const uint8_t cp_ip[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };

bool cp_fail(struct cmpair *cp, const char *what, const char *detail)
{
    snprintf(cp->err, sizeof(cp->err), "%s%s%s", what, detail ? ": " : "",
             detail ? detail : "");
    return false;
}

bool cp_up(struct cmpair *cp, uint64_t seed, const struct rne_dev_config *base,
           bool (*tap)(void *opaque, int from, uint8_t *frame, size_t *len),
           void *tap_opaque)
{
    struct sd_env env;
    int i, s;

    memset(cp, 0, sizeof(*cp));
    sl_init(&cp->sl, seed);
    cp->sl.p[0].delay_ns = cp->sl.p[1].delay_ns = 20000;
    cp->sl.tap = tap;
    cp->sl.tap_opaque = tap_opaque;
    env = sl_env(&cp->sl);
    for (i = 0; i < 2; i++) {
        struct rne_dev_config cfg;

        if (base) {
            cfg = *base;
        } else {
            rne_dev_config_default(&cfg);
        }
        cfg.mac[0] = 0x02;
        cfg.mac[5] = (uint8_t)(i + 1);
        cp->sd[i] = sd_new(&cfg, 8u << 20, i, seed, &env);
        sl_port_simdev(&cp->sl, i, cp->sd[i]);
    }
    for (i = 0; i < 2; i++) {
        struct simdev *sd = cp->sd[i];

        s = sd_enable(sd, 1500);
        s = s ? s : sd_announce(sd, cp_ip[i]);
        s = s ? s : sd_create_pd(sd, 1);
        s = s ? s : sd_create_cq(sd, &cp->cq[i][0], 0, 5);
        s = s ? s : sd_create_cq(sd, &cp->cq[i][1], 1, 5);
        s = s ? s : sd_create_qp(sd, &cp->qp[i], 1, 1, &cp->cq[i][0],
                                 &cp->cq[i][1], NULL, 4, 4);
        if (s) {
            return cp_fail(cp, sd->err, NULL);
        }
    }
    return true;
}

void cp_down(struct cmpair *cp)
{
    sl_fini(&cp->sl);
    sd_free(cp->sd[0]);
    sd_free(cp->sd[1]);
}

bool cp_next_event(struct cmpair *cp, int side, struct sd_cm_event *ev,
                   uint64_t max_ns)
{
    uint64_t end = cp->sl.now + max_ns;

    while (!sd_cm_next(cp->sd[side], ev)) {
        if (cp->sl.now > end || !sl_step(&cp->sl)) {
            return sd_cm_next(cp->sd[side], ev);
        }
    }
    return true;
}

void cp_run_for(struct cmpair *cp, uint64_t ns)
{
    uint64_t end = cp->sl.now + ns;

    while (cp->sl.now < end && sl_step(&cp->sl)) {
    }
    if (cp->sl.now < end) {
        cp->sl.now = end;
    }
}

void cp_connect_cmd(struct cmpair *cp, struct rnic_cmd_cm_connect *c,
                    uint16_t lport, uint16_t rport)
{
    memset(c, 0, sizeof(*c));
    c->qpn = cp->qp[0].qpn;
    c->tuple.family = RNIC_AF_IPV4;
    memcpy(c->tuple.local_addr, cp_ip[0], 4);
    memcpy(c->tuple.remote_addr, cp_ip[1], 4);
    c->tuple.local_port = lport;
    c->tuple.remote_port = rport;
    memcpy(c->next_hop_mac, cp->sd[1]->mac, 6);
    c->ird = c->ord = 4;
    c->mpa_rev = 2;
    c->mpa_flags = RNIC_MPA_CRC;
}

bool cp_establish(struct cmpair *cp, uint16_t lport, uint16_t rport)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;

    if (sd_cm_listen(cp->sd[1], 0, rport)) {
        return cp_fail(cp, cp->sd[1]->err, NULL);
    }
    cp_connect_cmd(cp, &c, lport, rport);
    if (sd_cm_connect(cp->sd[0], &c, NULL, &aconn)) {
        return cp_fail(cp, cp->sd[0]->err, NULL);
    }
    if (!cp_next_event(cp, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(cp, "no CONNECT_REQUEST", NULL);
    }
    if (sd_cm_accept(cp->sd[1], ev.conn_id, cp->qp[1].qpn, 4, 4, RNIC_MPA_CRC,
                     NULL, 0)) {
        return cp_fail(cp, cp->sd[1]->err, NULL);
    }
    if (!cp_next_event(cp, 0, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REPLY) {
        return cp_fail(cp, "no CONNECT_REPLY", sd_cm_name(ev.code));
    }
    if (!cp_next_event(cp, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_ESTABLISHED) {
        return cp_fail(cp, "no ESTABLISHED", sd_cm_name(ev.code));
    }
    return true;
}

bool cp_wants(int argc, char **argv, const char *name)
{
    bool want = argc == 1;
    int i;

    for (i = 1; i + 1 < argc; i += 2) {
        want |= !strcmp(argv[i], "--case") && !strcmp(argv[i + 1], name);
    }
    return want;
}
