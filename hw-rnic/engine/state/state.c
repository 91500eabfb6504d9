/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Save and load of the whole engine (state.h): the stream's header, its
 * sections in load order, and undoing a load that failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "state.h"
#include "state_int.h"
#include "iwarp/iw.h"
#include "rdma/rdma_int.h"

int rne_state_save(struct rne_dev *d, uint8_t **buf, size_t *len,
                   char *err, size_t errlen)
{
    struct rne_sw w;
    const char *why;

    *buf = NULL;
    *len = 0;
    if (rne_dev_busy(d) || d->deferred) {
        snprintf(err, errlen, "the engine is inside a dispatch: save "
                 "between device passes");
        return -1;
    }
    why = rne_st_rdma_unsaved(d, err, errlen);
    if (!why) {
        why = rne_st_iw_unsaved(d, err, errlen);
    }
    if (why) {
        return -1;
    }
    rne_sw_init(&w);
    rne_sw_u32(&w, RNE_ST_MAGIC);
    rne_sw_u16(&w, RNE_ST_FORMAT);
    rne_sw_u16(&w, 0);
    rne_st_save_config(d, &w);
    rne_st_save_dev(d, &w);
    rne_st_save_admq(d, &w);
    rne_st_save_eqs(d, &w);
    rne_st_save_l2qs(d, &w);
    rne_st_save_pds(d, &w);
    rne_st_save_cqs(d, &w);
    rne_st_save_srqs(d, &w);
    rne_st_save_qps(d, &w);
    rne_st_save_mrs(d, &w);
    rne_st_save_dblatch(d, &w);
    rne_st_save_frames(d, &w);
    rne_st_save_iw(d, &w);
    rne_st_save_listeners(d, &w);
    rne_st_save_conns(d, &w);
    rne_st_save_mws(d, &w);
    rne_sw_begin(&w, RNE_SEC_END, RNE_SEC_VERSION);
    rne_sw_end(&w);
    if (w.failed) {
        rne_sw_free(&w);
        snprintf(err, errlen, "no memory for the state stream");
        return -1;
    }
    *buf = w.buf;
    *len = w.len;
    return 0;
}

struct sec_desc {
    const char *name;
    bool once;                  /* a singleton (else one per object) */
    bool needed;
    bool (*load)(struct rne_st_ld *ld);
};

static bool load_end(struct rne_st_ld *ld)
{
    (void)ld;
    return true;
}

static const struct sec_desc *sec_find(uint16_t id)
{
    static const struct sec_desc tab[] = {
        [RNE_SEC_CONFIG] = { "CONFIG", true, true, rne_st_load_config },
        [RNE_SEC_DEV] = { "DEV", true, true, rne_st_load_dev },
        [RNE_SEC_ADMQ] = { "ADMQ", true, true, rne_st_load_admq },
        [RNE_SEC_EQ] = { "EQ", false, false, rne_st_load_eq },
        [RNE_SEC_L2Q] = { "L2Q", false, false, rne_st_load_l2q },
        [RNE_SEC_PD] = { "PD", true, true, rne_st_load_pds },
        [RNE_SEC_CQ] = { "CQ", false, false, rne_st_load_cq },
        [RNE_SEC_SRQ] = { "SRQ", false, false, rne_st_load_srq },
        [RNE_SEC_QP] = { "QP", false, false, rne_st_load_qp },
        [RNE_SEC_MR] = { "MR", false, false, rne_st_load_mr },
        [RNE_SEC_DBLATCH] = { "DBLATCH", true, true,
                               rne_st_load_dblatch },
        [RNE_SEC_FRAMES] = { "FRAMES", true, true, rne_st_load_frames },
        [RNE_SEC_IW] = { "IW", true, true, rne_st_load_iw },
        [RNE_SEC_LISTEN] = { "LISTEN", false, false,
                              rne_st_load_listener },
        [RNE_SEC_CONN] = { "CONN", false, false, rne_st_load_conn },
        [RNE_SEC_MW] = { "MW", false, false, rne_st_load_mw },
    };
    static const struct sec_desc end = { "END", true, true, load_end };

    if (id == RNE_SEC_END) {
        return &end;
    }
    if (id < sizeof(tab) / sizeof(tab[0]) && tab[id].name) {
        return &tab[id];
    }
    return NULL;
}

/* What rne_dev_init() left that a stream must not meet: a fresh engine. */
static bool target_fresh(struct rne_dev *d)
{
    uint32_t i;

    if (d->ctrl || d->admq.live || d->rdma->pbl_pages || d->rdma->db_count ||
        d->iw->nlive || d->iw->neng || d->egress.count || d->loop.count ||
        d->backlog.count) {
        return false;
    }
    for (i = 0; i <= RNE_ENG_MAX_EQ; i++) {
        if (d->eq[i].live) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        if (d->rdma->mr[i].state != RNE_MR_FREE) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_listen; i++) {
        if (d->iw->lis[i].live) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_pd; i++) {
        if (d->pd_owner[i]) {
            return false;
        }
    }
    return true;
}

/* Every section, in order; false with the reason in top's error. */
static bool load_sections(struct rne_dev *d, struct rne_sr *top)
{
    struct rne_st_ld ld;
    struct rne_sr sub;
    uint16_t id, ver, last = 0;
    uint32_t seen = 0;
    bool ended = false;

    while (!ended && rne_sr_section(top, &id, &ver, &sub)) {
        const struct sec_desc *sd = sec_find(id);

        if (!sd) {
            if (id & RNE_ST_OPTIONAL) {
                continue;       /* a later rnic's extra: not needed here */
            }
            return rne_sr_fail(top, "section %u unknown to this rnic", id);
        }
        if (id < last || (id == last && sd->once)) {
            return rne_sr_fail(top, "section %s out of order or repeated",
                               sd->name);
        }
        if (id != last) {
            ld.last_obj = -1;
        }
        last = id;
        if (ver < 1 || ver > RNE_SEC_VERSION) {
            return rne_sr_fail(top, "section %s version %u (this rnic "
                               "loads 1..%u)", sd->name, ver,
                               RNE_SEC_VERSION);
        }
        if (id < 32) {
            seen |= 1u << id;
        }
        ld.d = d;
        ld.r = &sub;
        ld.version = ver;
        if (!sd->load(&ld)) {
            return false;       /* sub wrote the sentence */
        }
        if (rne_sr_left(&sub)) {
            return rne_sr_fail(top, "section %s: %zu bytes left over",
                               sd->name, rne_sr_left(&sub));
        }
        ended = id == RNE_SEC_END;
    }
    if (top->failed) {
        return false;
    }
    if (!ended) {
        return rne_sr_fail(top, "truncated: no END section");
    }
    if (rne_sr_left(top)) {
        return rne_sr_fail(top, "%zu bytes after the END section",
                           rne_sr_left(top));
    }
    for (id = 1; id < 32; id++) {
        const struct sec_desc *sd = sec_find(id);

        if (sd && sd->needed && !(seen & (1u << id))) {
            return rne_sr_fail(top, "section %s missing", sd->name);
        }
    }
    ld.d = d;
    ld.r = top;
    return rne_st_check_dev(&ld) && rne_st_check_conns(&ld);
}

int rne_state_load(struct rne_dev *d, const void *buf, size_t len,
                   char *err, size_t errlen)
{
    struct rne_sr top;
    uint32_t magic;
    uint16_t format, rsvd;
    uint8_t key[sizeof(d->iw->isn_key)];
    struct rne_port port = d->port;
    uint32_t status = d->status;
    bool reported = d->link_reported;

    rne_sr_init(&top, buf, len, err, errlen);
    if (rne_dev_busy(d) || !target_fresh(d)) {
        rne_sr_fail(&top, "the target engine is not freshly created");
        return -1;
    }
    memcpy(key, d->iw->isn_key, sizeof(key));
    rne_sr_u32(&top, &magic);
    rne_sr_u16(&top, &format);
    if (!rne_sr_u16(&top, &rsvd)) {
        return -1;
    }
    if (magic != RNE_ST_MAGIC) {
        rne_sr_fail(&top, "not an rnic state stream (magic 0x%08x)", magic);
        return -1;
    }
    if (format != RNE_ST_FORMAT || rsvd) {
        rne_sr_fail(&top, "stream format %u (this rnic reads %u)", format,
                    RNE_ST_FORMAT);
        return -1;
    }
    if (load_sections(d, &top)) {
        return 0;
    }
    /*
     * Back to what rne_dev_init() made: the reset frees what came in.  The
     * connections go first and silently: the source still owns them, and
     * the device reset would send their peers a RST.
     */
    rne_iw_reset(d);
    rne_dev_reset(d);
    memcpy(d->iw->isn_key, key, sizeof(key));
    d->port = port;
    d->status = status;
    d->link_reported = reported;
    return -1;
}
