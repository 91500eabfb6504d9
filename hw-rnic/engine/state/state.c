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

int rnic_state_save(struct rnic_dev *d, uint8_t **buf, size_t *len,
                    char *err, size_t errlen)
{
    struct rnic_sw w;
    const char *why;

    *buf = NULL;
    *len = 0;
    if (rnic_dev_busy(d) || d->deferred) {
        snprintf(err, errlen, "the engine is inside a dispatch: save "
                 "between device passes");
        return -1;
    }
    why = rnic_st_rdma_unsaved(d, err, errlen);
    if (!why) {
        why = rnic_st_iw_unsaved(d, err, errlen);
    }
    if (why) {
        return -1;
    }
    rnic_sw_init(&w);
    rnic_sw_u32(&w, RNIC_ST_MAGIC);
    rnic_sw_u16(&w, RNIC_ST_FORMAT);
    rnic_sw_u16(&w, 0);
    rnic_st_save_config(d, &w);
    rnic_st_save_dev(d, &w);
    rnic_st_save_admq(d, &w);
    rnic_st_save_eqs(d, &w);
    rnic_st_save_l2qs(d, &w);
    rnic_st_save_pds(d, &w);
    rnic_st_save_cqs(d, &w);
    rnic_st_save_srqs(d, &w);
    rnic_st_save_qps(d, &w);
    rnic_st_save_mrs(d, &w);
    rnic_st_save_dblatch(d, &w);
    rnic_st_save_frames(d, &w);
    rnic_st_save_iw(d, &w);
    rnic_st_save_listeners(d, &w);
    rnic_sw_begin(&w, RNIC_SEC_END, RNIC_SEC_VERSION);
    rnic_sw_end(&w);
    if (w.failed) {
        rnic_sw_free(&w);
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
    bool (*load)(struct rnic_st_ld *ld);
};

static bool load_end(struct rnic_st_ld *ld)
{
    (void)ld;
    return true;
}

static const struct sec_desc *sec_find(uint16_t id)
{
    static const struct sec_desc tab[] = {
        [RNIC_SEC_CONFIG] = { "CONFIG", true, true, rnic_st_load_config },
        [RNIC_SEC_DEV] = { "DEV", true, true, rnic_st_load_dev },
        [RNIC_SEC_ADMQ] = { "ADMQ", true, true, rnic_st_load_admq },
        [RNIC_SEC_EQ] = { "EQ", false, false, rnic_st_load_eq },
        [RNIC_SEC_L2Q] = { "L2Q", false, false, rnic_st_load_l2q },
        [RNIC_SEC_PD] = { "PD", true, true, rnic_st_load_pds },
        [RNIC_SEC_CQ] = { "CQ", false, false, rnic_st_load_cq },
        [RNIC_SEC_SRQ] = { "SRQ", false, false, rnic_st_load_srq },
        [RNIC_SEC_QP] = { "QP", false, false, rnic_st_load_qp },
        [RNIC_SEC_MR] = { "MR", false, false, rnic_st_load_mr },
        [RNIC_SEC_DBLATCH] = { "DBLATCH", true, true,
                               rnic_st_load_dblatch },
        [RNIC_SEC_FRAMES] = { "FRAMES", true, true, rnic_st_load_frames },
        [RNIC_SEC_IW] = { "IW", true, true, rnic_st_load_iw },
        [RNIC_SEC_LISTEN] = { "LISTEN", false, false,
                              rnic_st_load_listener },
    };
    static const struct sec_desc end = { "END", true, true, load_end };

    if (id == RNIC_SEC_END) {
        return &end;
    }
    if (id < sizeof(tab) / sizeof(tab[0]) && tab[id].name) {
        return &tab[id];
    }
    return NULL;
}

/* What rnic_dev_init() left that a stream must not meet: a fresh engine. */
static bool target_fresh(struct rnic_dev *d)
{
    uint32_t i;

    if (d->ctrl || d->admq.live || d->rdma->pbl_pages || d->rdma->db_count ||
        d->iw->nlive || d->iw->neng || d->egress.count || d->loop.count ||
        d->backlog.count) {
        return false;
    }
    for (i = 0; i <= RNIC_ENG_MAX_EQ; i++) {
        if (d->eq[i].live) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        if (d->rdma->mr[i].state != RNIC_MR_FREE) {
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
static bool load_sections(struct rnic_dev *d, struct rnic_sr *top)
{
    struct rnic_st_ld ld;
    struct rnic_sr sub;
    uint16_t id, ver, last = 0;
    uint32_t seen = 0;
    bool ended = false;

    while (!ended && rnic_sr_section(top, &id, &ver, &sub)) {
        const struct sec_desc *sd = sec_find(id);

        if (!sd) {
            if (id & RNIC_ST_OPTIONAL) {
                continue;       /* a later rnic's extra: not needed here */
            }
            return rnic_sr_fail(top, "section %u unknown to this rnic", id);
        }
        if (id < last || (id == last && sd->once)) {
            return rnic_sr_fail(top, "section %s out of order or repeated",
                                sd->name);
        }
        if (id != last) {
            ld.last_obj = -1;
        }
        last = id;
        if (ver < 1 || ver > RNIC_SEC_VERSION) {
            return rnic_sr_fail(top, "section %s version %u (this rnic "
                                "loads 1..%u)", sd->name, ver,
                                RNIC_SEC_VERSION);
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
        if (rnic_sr_left(&sub)) {
            return rnic_sr_fail(top, "section %s: %zu bytes left over",
                                sd->name, rnic_sr_left(&sub));
        }
        ended = id == RNIC_SEC_END;
    }
    if (top->failed) {
        return false;
    }
    if (!ended) {
        return rnic_sr_fail(top, "truncated: no END section");
    }
    if (rnic_sr_left(top)) {
        return rnic_sr_fail(top, "%zu bytes after the END section",
                            rnic_sr_left(top));
    }
    for (id = 1; id < 32; id++) {
        const struct sec_desc *sd = sec_find(id);

        if (sd && sd->needed && !(seen & (1u << id))) {
            return rnic_sr_fail(top, "section %s missing", sd->name);
        }
    }
    ld.d = d;
    ld.r = top;
    return rnic_st_check_dev(&ld);
}

int rnic_state_load(struct rnic_dev *d, const void *buf, size_t len,
                    char *err, size_t errlen)
{
    struct rnic_sr top;
    uint32_t magic;
    uint16_t format, rsvd;
    uint8_t key[sizeof(d->iw->isn_key)];
    struct rnic_port port = d->port;
    uint32_t status = d->status;
    bool reported = d->link_reported;

    rnic_sr_init(&top, buf, len, err, errlen);
    if (rnic_dev_busy(d) || !target_fresh(d)) {
        rnic_sr_fail(&top, "the target engine is not freshly created");
        return -1;
    }
    memcpy(key, d->iw->isn_key, sizeof(key));
    rnic_sr_u32(&top, &magic);
    rnic_sr_u16(&top, &format);
    if (!rnic_sr_u16(&top, &rsvd)) {
        return -1;
    }
    if (magic != RNIC_ST_MAGIC) {
        rnic_sr_fail(&top, "not an rnic state stream (magic 0x%08x)", magic);
        return -1;
    }
    if (format != RNIC_ST_FORMAT || rsvd) {
        rnic_sr_fail(&top, "stream format %u (this rnic reads %u)", format,
                     RNIC_ST_FORMAT);
        return -1;
    }
    if (load_sections(d, &top)) {
        return 0;
    }
    /* Back to what rnic_dev_init() made: the reset frees what came in. */
    rnic_dev_reset(d);
    memcpy(d->iw->isn_key, key, sizeof(key));
    d->port = port;
    d->status = status;
    d->link_reported = reported;
    return -1;
}
