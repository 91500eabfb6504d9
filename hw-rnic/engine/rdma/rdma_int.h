/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of the RDMA resources (rdma_res.c, cq.c, srq.c, qp.c, wq.c,
 * mr.c): the object tables and the functions the files share.  The
 * iWARP layer uses rdma.h only.
 */
#ifndef RNE_ENGINE_RDMA_INT_H
#define RNE_ENGINE_RDMA_INT_H

#include "core/dev.h"
#include "core/pbl.h"
#include "rdma.h"

/* Limits advertised by BAR0 (dev.c cap_reg): keep both in step. */
#define RNE_MR_PAGE_SIZES       ((1u << 12) | (1u << 21) | (1u << 30))
#define RNE_MR_MAX_SIZE         (1ull << 40)
#define RNE_MR_MAX_PAGES        (1u << 18)

#define RNE_ACCESS_ALL          (RNIC_ACCESS_LOCAL_WRITE | \
                                 RNIC_ACCESS_REMOTE_READ | \
                                 RNIC_ACCESS_REMOTE_WRITE | \
                                 RNIC_ACCESS_REMOTE_ATOMIC | \
                                 RNIC_ACCESS_MW_BIND)
/* A QP's remote access (MODIFY_QP): MW_BIND is an MR's right only. */
#define RNE_QP_ACCESS_ALL       (RNE_ACCESS_ALL & ~RNIC_ACCESS_MW_BIND)
/* What a BIND_MW may grant through a window. */
#define RNE_MW_ACCESS_ALL       (RNIC_ACCESS_REMOTE_READ | \
                                 RNIC_ACCESS_REMOTE_WRITE | \
                                 RNIC_ACCESS_REMOTE_ATOMIC)

/* A doorbell latched in MMIO context, applied by rne_rdma_run(). */
struct rne_db_latch {
    uint32_t idx;
    uint32_t flags;             /* CQ: RNIC_DB_ARM* accumulated */
    bool set;                   /* a value waits (cleared on destroy) */
    bool queued;                /* listed in rne_rdma.db_list */
};

enum rne_db_kind {
    RNE_DBK_SQ = 0,
    RNE_DBK_RQ,
    RNE_DBK_SRQ,
    RNE_DBK_CQ,
    RNE_DBK_NUM,
};

struct rne_rdma {
    bool ready;                 /* every table below was allocated */
    struct rne_cq *cq;          /* [max_cq] */
    struct rne_srq *srq;        /* [max_srq] */
    struct rne_qp *qp;          /* [max_qp] */
    struct rne_mr *mr;          /* [max_mr] */
    uint32_t *pd_users;         /* [max_pd] SRQs, QPs and MRs in the PD */
    uint32_t *uctx_users;       /* [max_uctx + 1] CQs/SRQs/QPs/MRs */
    /* Page-list entries MRs and CQ/QP/SRQ rings hold, <= max_mr_pages. */
    uint64_t pbl_pages;
    uint32_t mw_count;          /* windows allocated */
    uint32_t cq_err_pending;    /* CQs with err_pending set */
    struct rne_db_latch *latch[RNE_DBK_NUM];
    uint32_t nobj[RNE_DBK_NUM];
    /* Latched doorbells in arrival order: kind << 24 | object. */
    uint32_t *db_list;
    uint32_t db_head, db_count, db_cap;
};

static inline bool rne_pbl_is_zero(const struct rnic_pbl *p)
{
    return !p->addr && !p->nentries && !p->page_shift && !p->levels &&
           !p->rsvd;
}

/* Ownership checks shared by the create commands. */
unsigned rne_rdma_check_uctx(struct rne_dev *d, uint32_t uctx);
unsigned rne_rdma_check_pd(struct rne_dev *d, uint32_t pdn, uint32_t uctx);
void rne_rdma_hold(struct rne_dev *d, uint32_t pdn, uint32_t uctx);
void rne_rdma_release(struct rne_dev *d, uint32_t pdn, uint32_t uctx);
/* Forget a latched doorbell of a destroyed object. */
void rne_rdma_unlatch(struct rne_dev *d, enum rne_db_kind kind,
                      uint32_t obj);
/* A doorbell the device refused at run time: log and DB_ERROR event. */
void rne_rdma_db_error(struct rne_dev *d, uint32_t obj, uint32_t off,
                       const char *what);

/* Commands (cq.c, srq.c, qp.c, mr.c). */
unsigned rne_cq_create(struct rne_dev *d, const struct rnic_cmd_create_cq *c);
unsigned rne_cq_resize(struct rne_dev *d, const struct rnic_cmd_resize_cq *c,
                       uint32_t *carried);
unsigned rne_cq_destroy(struct rne_dev *d, uint32_t cqn);
void rne_cq_free(struct rne_dev *d, uint32_t cqn);
void rne_cq_doorbell(struct rne_dev *d, uint32_t cqn,
                     const struct rne_db_latch *l);

unsigned rne_srq_create(struct rne_dev *d,
                        const struct rnic_cmd_create_srq *c);
unsigned rne_srq_modify(struct rne_dev *d,
                        const struct rnic_cmd_modify_srq *c);
unsigned rne_srq_destroy(struct rne_dev *d, uint32_t srqn);
void rne_srq_free(struct rne_dev *d, uint32_t srqn);
void rne_srq_doorbell(struct rne_dev *d, uint32_t srqn, uint32_t idx);

unsigned rne_qp_create(struct rne_dev *d, const struct rnic_cmd_create_qp *c);
unsigned rne_qp_modify(struct rne_dev *d, const struct rnic_cmd_modify_qp *c);
unsigned rne_qp_query(struct rne_dev *d, const struct rnic_cmd_query_qp *c);
unsigned rne_qp_destroy(struct rne_dev *d, uint32_t qpn);
void rne_qp_free(struct rne_dev *d, uint32_t qpn);
void rne_sq_doorbell(struct rne_dev *d, struct rne_qp *qp, uint32_t idx);
void rne_rq_doorbell(struct rne_dev *d, struct rne_qp *qp, uint32_t idx);

unsigned rne_mr_reg(struct rne_dev *d, const struct rnic_cmd_reg_mr *c);
unsigned rne_mr_alloc(struct rne_dev *d, const struct rnic_cmd_alloc_mr *c);
unsigned rne_mr_dereg(struct rne_dev *d, uint32_t stag);
unsigned rne_mr_rereg(struct rne_dev *d, const struct rnic_cmd_reg_mr *c);
void rne_mr_free(struct rne_dev *d, uint32_t index);
unsigned rne_mw_alloc(struct rne_dev *d, const struct rnic_cmd_alloc_mw *c);
unsigned rne_mw_dealloc(struct rne_dev *d, uint32_t stag);
/* DESTROY_QP: the type 2 windows bound to qpn become invalid. */
void rne_mw_qp_gone(struct rne_dev *d, uint32_t qpn);
/*
 * The ring of a CQ, QP or SRQ, its page array charged against the budget
 * MRs draw on (max-mr-pages): NO_RESOURCES if it does not fit.  Free it
 * with rne_rdma_ring_free(), which gives the pages back.
 */
unsigned rne_rdma_ring_load(struct rne_dev *d, struct rne_ring *r,
                            const struct rnic_pbl *pbl, uint32_t depth,
                            uint32_t entry_size);
void rne_rdma_ring_free(struct rne_dev *d, struct rne_ring *r);
/*
 * MR checks shared by the commands and the state loader (mr.c): access
 * bits known and remote write/atomic only with local write; pages of
 * 2^shift covering [iova, iova + length), 0 if more than the device
 * allows; a supported page size; entries left in the page-list budget.
 */
bool rne_mr_access_ok(uint32_t access);
uint32_t rne_mr_pages_for(uint64_t iova, uint64_t length, uint32_t shift);
bool rne_mr_page_shift_ok(uint32_t shift);
uint64_t rne_mr_budget_left(struct rne_dev *d);
/* Fast-register WQE (wq.c calls it from rne_sq_local_wr). */
unsigned rne_mr_fast_reg(struct rne_dev *d, struct rne_qp *qp,
                         const struct rnic_wqe_reg_mr *w);
/*
 * Windows (mw.c): invalidate a window entry (rne_mr_invalidate found it
 * by STag and PD); the valid MR a bound window points into, or NULL.
 */
enum rne_mr_err rne_mw_invalidate(struct rne_dev *d, struct rne_mr *mw,
                                  const struct rne_qp *qp);
struct rne_mr *rne_mw_target(struct rne_dev *d, const struct rne_mr *mw);
/* BIND_MW WQE (wq.c): RNIC_WC_SUCCESS or the status to complete with. */
unsigned rne_mw_bind(struct rne_dev *d, struct rne_qp *qp,
                     const struct rnic_wqe_bind_mw *w);

/*
 * A new producer index is acceptable: not behind the old one, and no more
 * than depth entries ahead of the consumer.
 */
static inline bool rne_prod_ok(uint32_t newp, uint32_t oldp, uint32_t cons,
                               uint32_t depth)
{
    return newp - cons <= depth && newp - cons >= oldp - cons;
}

#endif
