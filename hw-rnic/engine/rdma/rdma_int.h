/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of the RDMA resources (rdma_res.c, cq.c, srq.c, qp.c, wq.c,
 * mr.c): the object tables and the functions the files share.  The
 * iWARP layer uses rdma.h only.
 */
#ifndef RNIC_ENGINE_RDMA_INT_H
#define RNIC_ENGINE_RDMA_INT_H

#include "core/dev.h"
#include "core/pbl.h"
#include "rdma.h"

/* Limits advertised by BAR0 (dev.c cap_reg): keep both in step. */
#define RNIC_MR_PAGE_SIZES      ((1u << 12) | (1u << 21) | (1u << 30))
#define RNIC_MR_MAX_SIZE        (1ull << 40)
#define RNIC_MR_MAX_PAGES       (1u << 18)

#define RNIC_ACCESS_ALL         (RNIC_ACCESS_LOCAL_WRITE | \
                                 RNIC_ACCESS_REMOTE_READ | \
                                 RNIC_ACCESS_REMOTE_WRITE | \
                                 RNIC_ACCESS_REMOTE_ATOMIC)

/* A doorbell latched in MMIO context, applied by rnic_rdma_run(). */
struct rnic_db_latch {
    uint32_t idx;
    uint32_t flags;             /* CQ: RNIC_DB_ARM* accumulated */
    bool set;                   /* a value waits (cleared on destroy) */
    bool queued;                /* listed in rnic_rdma.db_list */
};

enum rnic_db_kind {
    RNIC_DBK_SQ = 0,
    RNIC_DBK_RQ,
    RNIC_DBK_SRQ,
    RNIC_DBK_CQ,
    RNIC_DBK_NUM,
};

struct rnic_rdma {
    bool ready;                 /* every table below was allocated */
    struct rnic_cq *cq;         /* [max_cq] */
    struct rnic_srq *srq;       /* [max_srq] */
    struct rnic_qp *qp;         /* [max_qp] */
    struct rnic_mr *mr;         /* [max_mr] */
    uint32_t *pd_users;         /* [max_pd] SRQs, QPs and MRs in the PD */
    uint32_t *uctx_users;       /* [max_uctx + 1] CQs/SRQs/QPs/MRs */
    /* Page-list entries MRs and CQ/QP/SRQ rings hold, <= max_mr_pages. */
    uint64_t pbl_pages;
    uint32_t cq_err_pending;    /* CQs with err_pending set */
    struct rnic_db_latch *latch[RNIC_DBK_NUM];
    uint32_t nobj[RNIC_DBK_NUM];
    /* Latched doorbells in arrival order: kind << 24 | object. */
    uint32_t *db_list;
    uint32_t db_head, db_count, db_cap;
};

static inline bool rnic_pbl_is_zero(const struct rnic_pbl *p)
{
    return !p->addr && !p->nentries && !p->page_shift && !p->levels &&
           !p->rsvd;
}

/* Ownership checks shared by the create commands. */
unsigned rnic_rdma_check_uctx(struct rnic_dev *d, uint32_t uctx);
unsigned rnic_rdma_check_pd(struct rnic_dev *d, uint32_t pdn, uint32_t uctx);
void rnic_rdma_hold(struct rnic_dev *d, uint32_t pdn, uint32_t uctx);
void rnic_rdma_release(struct rnic_dev *d, uint32_t pdn, uint32_t uctx);
/* Forget a latched doorbell of a destroyed object. */
void rnic_rdma_unlatch(struct rnic_dev *d, enum rnic_db_kind kind,
                       uint32_t obj);
/* A doorbell the device refused at run time: log and DB_ERROR event. */
void rnic_rdma_db_error(struct rnic_dev *d, uint32_t obj, uint32_t off,
                        const char *what);

/* Commands (cq.c, srq.c, qp.c, mr.c). */
unsigned rnic_cq_create(struct rnic_dev *d, const struct rnic_cmd_create_cq *c);
unsigned rnic_cq_destroy(struct rnic_dev *d, uint32_t cqn);
void rnic_cq_free(struct rnic_dev *d, uint32_t cqn);
void rnic_cq_doorbell(struct rnic_dev *d, uint32_t cqn,
                      const struct rnic_db_latch *l);

unsigned rnic_srq_create(struct rnic_dev *d,
                         const struct rnic_cmd_create_srq *c);
unsigned rnic_srq_modify(struct rnic_dev *d,
                         const struct rnic_cmd_modify_srq *c);
unsigned rnic_srq_destroy(struct rnic_dev *d, uint32_t srqn);
void rnic_srq_free(struct rnic_dev *d, uint32_t srqn);
void rnic_srq_doorbell(struct rnic_dev *d, uint32_t srqn, uint32_t idx);

unsigned rnic_qp_create(struct rnic_dev *d, const struct rnic_cmd_create_qp *c);
unsigned rnic_qp_modify(struct rnic_dev *d, const struct rnic_cmd_modify_qp *c);
unsigned rnic_qp_query(struct rnic_dev *d, const struct rnic_cmd_query_qp *c);
unsigned rnic_qp_destroy(struct rnic_dev *d, uint32_t qpn);
void rnic_qp_free(struct rnic_dev *d, uint32_t qpn);
void rnic_sq_doorbell(struct rnic_dev *d, struct rnic_qp *qp, uint32_t idx);
void rnic_rq_doorbell(struct rnic_dev *d, struct rnic_qp *qp, uint32_t idx);

unsigned rnic_mr_reg(struct rnic_dev *d, const struct rnic_cmd_reg_mr *c);
unsigned rnic_mr_alloc(struct rnic_dev *d, const struct rnic_cmd_alloc_mr *c);
unsigned rnic_mr_dereg(struct rnic_dev *d, uint32_t stag);
void rnic_mr_free(struct rnic_dev *d, uint32_t index);
/*
 * The ring of a CQ, QP or SRQ, its page array charged against the budget
 * MRs draw on (max-mr-pages): NO_RESOURCES if it does not fit.  Free it
 * with rnic_rdma_ring_free(), which gives the pages back.
 */
unsigned rnic_rdma_ring_load(struct rnic_dev *d, struct rnic_ring *r,
                             const struct rnic_pbl *pbl, uint32_t depth,
                             uint32_t entry_size);
void rnic_rdma_ring_free(struct rnic_dev *d, struct rnic_ring *r);
/* Fast-register WQE (wq.c calls it from rnic_sq_local_wr). */
unsigned rnic_mr_fast_reg(struct rnic_dev *d, struct rnic_qp *qp,
                          const struct rnic_wqe_reg_mr *w);

/*
 * A new producer index is acceptable: not behind the old one, and no more
 * than depth entries ahead of the consumer.
 */
static inline bool rnic_prod_ok(uint32_t newp, uint32_t oldp, uint32_t cons,
                                uint32_t depth)
{
    return newp - cons <= depth && newp - cons >= oldp - cons;
}

#endif
