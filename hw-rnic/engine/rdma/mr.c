/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory regions: REG_MR / ALLOC_MR / DEREG_MR, fast-register and
 * invalidate, STag checks and page-by-page copies to and from guest memory;
 * the device-wide page-list budget MRs share with the CQ/QP/SRQ rings.
 * Memory windows live in the same STag table (mw.c binds them).
 */
#include <stdlib.h>
#include <string.h>
#include "rdma_int.h"
#include "wire/le.h"

/* Access bits are known and remote write/atomic come with local write. */
bool rne_mr_access_ok(uint32_t access)
{
    if (access & ~RNE_ACCESS_ALL) {
        return false;
    }
    return !(access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) ||
           (access & RNIC_ACCESS_LOCAL_WRITE);
}

/*
 * Pages needed to cover [iova, iova + length) with 2^shift-byte pages, the
 * first starting at iova rounded down; 0 if that exceeds the device limit.
 */
uint32_t rne_mr_pages_for(uint64_t iova, uint64_t length, uint32_t shift)
{
    uint64_t first = iova & ((1ull << shift) - 1);
    uint64_t n;

    if (!length) {
        return 0;
    }
    n = ((first + length - 1) >> shift) + 1;
    return n > RNE_MR_MAX_PAGES ? 0 : (uint32_t)n;
}

/*
 * Page-list entries an MR holds against the device-wide budget: its page
 * array, sized npages (REG_MR) or max_pages (ALLOC_MR).
 */
static uint32_t mr_charge(const struct rne_mr *mr)
{
    return mr->fast_reg ? mr->max_pages : mr->npages;
}

/* Entries left in the budget (max-mr-pages) of MRs and rings together. */
uint64_t rne_mr_budget_left(struct rne_dev *d)
{
    return d->cfg.max_mr_pages - d->rdma->pbl_pages;
}

static bool mr_budget_ok(struct rne_dev *d, uint32_t n)
{
    return n <= rne_mr_budget_left(d);
}

unsigned rne_rdma_ring_load(struct rne_dev *d, struct rne_ring *r,
                            const struct rnic_pbl *pbl, uint32_t depth,
                            uint32_t entry_size)
{
    unsigned sts;

    /* Loading costs a DMA per entry: it counts toward the pass bound. */
    d->admq.pass_pages += rne_ring_pages_needed(depth, entry_size);
    sts = rne_ring_load_large(r, &d->host, pbl, depth, entry_size,
                              rne_mr_budget_left(d));
    if (!sts) {
        d->rdma->pbl_pages += r->npages;
    }
    return sts;
}

void rne_rdma_ring_free(struct rne_dev *d, struct rne_ring *r)
{
    d->rdma->pbl_pages -= r->npages;
    rne_ring_free(r);
}

bool rne_mr_page_shift_ok(uint32_t shift)
{
    return shift < 32 && (RNE_MR_PAGE_SIZES & (1u << shift));
}

/* Lookup for commands: index in range, in use. */
static unsigned mr_lookup(struct rne_dev *d, uint32_t stag,
                          struct rne_mr **out)
{
    uint32_t index = RNIC_STAG_INDEX(stag);

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    *out = &d->rdma->mr[index];
    return (*out)->state == RNE_MR_FREE ? RNIC_STS_NOT_FOUND : RNIC_STS_OK;
}

static unsigned mr_pd(struct rne_dev *d, uint32_t pdn, uint32_t *uctx)
{
    if (pdn >= d->cfg.max_pd) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->pd_owner[pdn]) {
        return RNIC_STS_NOT_FOUND;
    }
    *uctx = d->pd_owner[pdn] - 1u;
    return RNIC_STS_OK;
}

/*
 * REG_MR's and REREG_MR's fields checked and the page list copied in:
 * credit is the entries the command frees (REREG_MR: the old list's).
 */
static unsigned mr_load(struct rne_dev *d, const struct rnic_cmd_reg_mr *c,
                        uint32_t credit, uint32_t *uctx, uint32_t *npages,
                        uint64_t **pages)
{
    uint32_t pdn = rne_le32_to_cpu(c->pdn);
    uint32_t access = rne_le32_to_cpu(c->access);
    uint32_t flags = rne_le32_to_cpu(c->flags);
    uint64_t iova = rne_le64_to_cpu(c->iova);
    uint64_t length = rne_le64_to_cpu(c->length);
    unsigned sts;

    *npages = 0;
    *pages = NULL;
    sts = mr_pd(d, pdn, uctx);
    if (sts) {
        return sts;
    }
    if ((flags & ~RNIC_MR_F_PHYS) || !rne_mr_access_ok(access) ||
        iova + length < iova) {
        return RNIC_STS_BAD_PARAM;
    }
    if (flags & RNIC_MR_F_PHYS) {
        /* Guest-physical addressing bypasses pinning: kernel only. */
        if (*uctx || !rne_pbl_is_zero(&c->pages)) {
            return RNIC_STS_BAD_PARAM;
        }
        return RNIC_STS_OK;
    }
    if (!rne_mr_page_shift_ok(c->pages.page_shift) ||
        length > RNE_MR_MAX_SIZE) {
        return RNIC_STS_BAD_PARAM;
    }
    *npages = rne_mr_pages_for(iova, length, c->pages.page_shift);
    if ((length && !*npages) ||
        rne_le32_to_cpu(c->pages.nentries) != *npages) {
        return RNIC_STS_BAD_PARAM;
    }
    if (*npages > rne_mr_budget_left(d) + credit) {
        return RNIC_STS_NO_RESOURCES;
    }
    *pages = calloc(*npages ? *npages : 1, sizeof(**pages));
    if (!*pages) {
        return RNIC_STS_NO_RESOURCES;
    }
    d->admq.pass_pages += *npages;
    sts = rne_pbl_load(&d->host, &c->pages, *npages, *pages);
    if (sts) {
        free(*pages);
        *pages = NULL;
    }
    return sts;
}

/* The MR as REG_MR describes it (pages: the list mr_load copied). */
static void mr_set(struct rne_mr *mr, const struct rnic_cmd_reg_mr *c,
                   uint32_t uctx, uint32_t npages, uint64_t *pages)
{
    uint32_t flags = rne_le32_to_cpu(c->flags);

    memset(mr, 0, sizeof(*mr));
    mr->state = RNE_MR_VALID;
    mr->key = (uint8_t)RNIC_STAG_KEY(rne_le32_to_cpu(c->stag));
    mr->phys = flags & RNIC_MR_F_PHYS;
    mr->pdn = rne_le32_to_cpu(c->pdn);
    mr->uctx = uctx;
    mr->access = rne_le32_to_cpu(c->access);
    mr->iova = rne_le64_to_cpu(c->iova);
    mr->length = rne_le64_to_cpu(c->length);
    mr->page_shift = mr->phys ? 0 : c->pages.page_shift;
    mr->npages = npages;
    mr->pages = pages;
}

/* Describe mr by c with its loaded pages; count them and hold its PD. */
static void mr_install(struct rne_dev *d, struct rne_mr *mr,
                       const struct rnic_cmd_reg_mr *c, uint32_t uctx,
                       uint32_t npages, uint64_t *pages)
{
    mr_set(mr, c, uctx, npages, pages);
    d->rdma->pbl_pages += npages;
    rne_rdma_hold(d, mr->pdn, uctx);
}

unsigned rne_mr_reg(struct rne_dev *d, const struct rnic_cmd_reg_mr *c)
{
    uint32_t index = RNIC_STAG_INDEX(rne_le32_to_cpu(c->stag));
    uint32_t uctx, npages;
    uint64_t *pages;
    struct rne_mr *mr;
    unsigned sts;

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    mr = &d->rdma->mr[index];
    if (mr->state != RNE_MR_FREE) {
        return RNIC_STS_EXISTS;
    }
    sts = mr_load(d, c, 0, &uctx, &npages, &pages);
    if (sts) {
        return sts;
    }
    mr_install(d, mr, c, uctx, npages, pages);
    return RNIC_STS_OK;
}

/*
 * REREG_MR: a user or kernel MR of REG_MR gets a new description at once.
 * Only its own context's PDs; PHYS and fast-register MRs keep theirs.
 */
unsigned rne_mr_rereg(struct rne_dev *d, const struct rnic_cmd_reg_mr *c)
{
    uint32_t index = RNIC_STAG_INDEX(rne_le32_to_cpu(c->stag));
    uint32_t uctx, npages;
    uint64_t *pages;
    struct rne_mr *mr;
    unsigned sts;

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    mr = &d->rdma->mr[index];
    if (mr->state == RNE_MR_FREE) {
        return RNIC_STS_NOT_FOUND;
    }
    if (mr->fast_reg || mr->phys || mr->mw_type ||
        (rne_le32_to_cpu(c->flags) & RNIC_MR_F_PHYS)) {
        return RNIC_STS_BAD_PARAM;
    }
    if (mr->mw_bound) {
        return RNIC_STS_BUSY;           /* windows hold its range */
    }
    sts = mr_load(d, c, mr->npages, &uctx, &npages, &pages);
    if (sts) {
        return sts;
    }
    if (uctx != mr->uctx) {
        free(pages);
        return RNIC_STS_BAD_PARAM;
    }
    rne_rdma_release(d, mr->pdn, mr->uctx);
    d->rdma->pbl_pages -= mr->npages;
    free(mr->pages);
    mr_install(d, mr, c, uctx, npages, pages);
    return RNIC_STS_OK;
}

unsigned rne_mr_alloc(struct rne_dev *d, const struct rnic_cmd_alloc_mr *c)
{
    uint32_t stag = rne_le32_to_cpu(c->stag), pdn = rne_le32_to_cpu(c->pdn);
    uint32_t max_pages = rne_le32_to_cpu(c->max_pages);
    uint32_t index = RNIC_STAG_INDEX(stag), uctx;
    struct rne_mr *mr;
    uint64_t *pages;
    unsigned sts;

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    mr = &d->rdma->mr[index];
    if (mr->state != RNE_MR_FREE) {
        return RNIC_STS_EXISTS;
    }
    sts = mr_pd(d, pdn, &uctx);
    if (sts) {
        return sts;
    }
    /* Fast-register binds guest-physical pages, like PHYS: kernel only. */
    if (uctx || c->rsvd || max_pages == 0 || max_pages > RNE_MR_MAX_PAGES) {
        return RNIC_STS_BAD_PARAM;
    }
    if (!mr_budget_ok(d, max_pages)) {
        return RNIC_STS_NO_RESOURCES;
    }
    pages = calloc(max_pages, sizeof(*pages));
    if (!pages) {
        return RNIC_STS_NO_RESOURCES;
    }
    memset(mr, 0, sizeof(*mr));
    mr->state = RNE_MR_INVALID;
    mr->key = (uint8_t)RNIC_STAG_KEY(stag);
    mr->fast_reg = true;
    mr->pdn = pdn;
    mr->uctx = uctx;
    mr->max_pages = max_pages;
    mr->pages = pages;
    d->rdma->pbl_pages += max_pages;
    rne_rdma_hold(d, pdn, uctx);
    return RNIC_STS_OK;
}

void rne_mr_free(struct rne_dev *d, uint32_t index)
{
    struct rne_mr *mr = &d->rdma->mr[index];

    rne_rdma_release(d, mr->pdn, mr->uctx);
    d->rdma->pbl_pages -= mr_charge(mr);
    free(mr->pages);
    memset(mr, 0, sizeof(*mr));
}

/* By index: the key of a fast-register MR moves with each REG_MR WQE. */
unsigned rne_mr_dereg(struct rne_dev *d, uint32_t stag)
{
    struct rne_mr *mr;
    unsigned sts = mr_lookup(d, stag, &mr);

    if (sts) {
        return sts;
    }
    if (mr->mw_type) {
        return RNIC_STS_BAD_PARAM;      /* a window: DEALLOC_MW */
    }
    if (mr->mw_bound) {
        return RNIC_STS_BUSY;
    }
    rne_mr_free(d, RNIC_STAG_INDEX(stag));
    return RNIC_STS_OK;
}

unsigned rne_mr_fast_reg(struct rne_dev *d, struct rne_qp *qp,
                         const struct rnic_wqe_reg_mr *w)
{
    uint32_t stag = rne_le32_to_cpu(w->stag);
    uint32_t access = rne_le32_to_cpu(w->access);
    uint64_t iova = rne_le64_to_cpu(w->iova);
    uint64_t length = rne_le64_to_cpu(w->length);
    uint32_t index = RNIC_STAG_INDEX(stag), npages;
    struct rne_mr *mr;

    if (index >= d->cfg.max_mr) {
        return RNIC_WC_LOC_PROT_ERR;
    }
    mr = &d->rdma->mr[index];
    /* Only an invalid fast-register MR of the QP's PD can be bound. */
    if (mr->state != RNE_MR_INVALID || !mr->fast_reg ||
        mr->pdn != qp->pdn) {
        return RNIC_WC_LOC_PROT_ERR;
    }
    if (!rne_mr_access_ok(access) ||
        !rne_mr_page_shift_ok(w->pages.page_shift) || iova + length < iova) {
        return RNIC_WC_LOC_QP_OP_ERR;
    }
    npages = rne_mr_pages_for(iova, length, w->pages.page_shift);
    if (length > RNE_MR_MAX_SIZE || (length && !npages) ||
        npages > mr->max_pages) {
        return RNIC_WC_LOC_LEN_ERR;
    }
    /* The MR stays INVALID whatever this leaves in its page array. */
    if (rne_pbl_load(&d->host, &w->pages, npages, mr->pages)) {
        return RNIC_WC_LOC_QP_OP_ERR;
    }
    mr->key = (uint8_t)RNIC_STAG_KEY(stag);
    mr->access = access;
    mr->iova = iova;
    mr->length = length;
    mr->page_shift = w->pages.page_shift;
    mr->npages = npages;
    mr->state = RNE_MR_VALID;
    return RNIC_WC_SUCCESS;
}

enum rne_mr_err rne_mr_invalidate(struct rne_dev *d, uint32_t stag,
                                  const struct rne_qp *qp)
{
    uint32_t index = RNIC_STAG_INDEX(stag);
    struct rne_mr *mr;

    if (index >= d->cfg.max_mr) {
        return RNE_MR_E_STAG;
    }
    mr = &d->rdma->mr[index];
    if (mr->state == RNE_MR_FREE || mr->key != RNIC_STAG_KEY(stag)) {
        return RNE_MR_E_STAG;
    }
    if (mr->pdn != qp->pdn) {
        return RNE_MR_E_PD;
    }
    if (mr->mw_type) {
        return rne_mw_invalidate(d, mr, qp);
    }
    /* A window bound to the MR would outlive what it points into. */
    if (!mr->fast_reg || mr->mw_bound) {
        return RNE_MR_E_ACCESS;
    }
    mr->state = RNE_MR_INVALID;
    return RNE_MR_OK;
}

/*
 * The MR behind an access, or NULL with *err set.  qp: a peer's access
 * through the QP, which may name a window (pdn is then the QP's).
 */
static struct rne_mr *mr_find(struct rne_dev *d, uint32_t stag,
                              uint32_t pdn, const struct rne_qp *qp,
                              uint32_t access, uint64_t va, uint64_t len,
                              enum rne_mr_err *err)
{
    uint32_t index = RNIC_STAG_INDEX(stag);
    struct rne_mr *mr;

    *err = RNE_MR_E_STAG;
    if (index >= d->cfg.max_mr) {
        return NULL;
    }
    mr = &d->rdma->mr[index];
    if (mr->state != RNE_MR_VALID || mr->key != RNIC_STAG_KEY(stag) ||
        (mr->mw_type && !qp)) {
        return NULL;
    }
    *err = RNE_MR_E_PD;
    if (mr->pdn != pdn ||
        (mr->mw_type == RNIC_MW_TYPE_2 && mr->mw_qpn != qp->qpn)) {
        return NULL;
    }
    *err = RNE_MR_E_ACCESS;
    if (access & ~mr->access) {
        return NULL;
    }
    /* [va, va + len) inside [iova, iova + length), without overflow. */
    *err = RNE_MR_E_BOUNDS;
    if (va < mr->iova || len > mr->length || va - mr->iova > mr->length - len) {
        return NULL;
    }
    if (mr->mw_type) {
        /* A window is not zero-based: va is an address of its MR. */
        mr = rne_mw_target(d, mr);
        if (!mr) {
            *err = RNE_MR_E_STAG;
            return NULL;
        }
    }
    *err = RNE_MR_OK;
    return mr;
}

enum rne_mr_err rne_mr_check(struct rne_dev *d, uint32_t stag,
                             uint32_t pdn, uint32_t access, uint64_t va,
                             uint64_t len)
{
    enum rne_mr_err err;

    mr_find(d, stag, pdn, NULL, access, va, len, &err);
    return err;
}

enum rne_mr_err rne_mr_remote_check(struct rne_dev *d, uint32_t stag,
                                    const struct rne_qp *qp, uint32_t access,
                                    uint64_t va, uint64_t len)
{
    enum rne_mr_err err;

    mr_find(d, stag, qp->pdn, qp, access, va, len, &err);
    return err;
}

/*
 * Copy MR bytes [va, va + len) to rbuf, or from wbuf into them, one MR
 * page at a time (exactly one of rbuf/wbuf is set).
 */
static enum rne_mr_err mr_copy(struct rne_dev *d, const struct rne_mr *mr,
                               uint64_t va, uint8_t *rbuf,
                               const uint8_t *wbuf, size_t len)
{
    uint64_t off, page_mask;

    if (!len) {
        return RNE_MR_OK;
    }
    if (mr->phys) {
        int rc = wbuf ? rne_dma_write(&d->host, va, wbuf, len) :
                        rne_dma_read(&d->host, va, rbuf, len);

        return rc ? RNE_MR_E_DMA : RNE_MR_OK;
    }
    page_mask = (1ull << mr->page_shift) - 1;
    /* Byte offset from the start of the first page. */
    off = (va - mr->iova) + (mr->iova & page_mask);
    while (len) {
        uint64_t pg = off >> mr->page_shift, in = off & page_mask;
        uint64_t room = page_mask + 1 - in;
        size_t n = len < room ? len : (size_t)room;
        uint64_t addr;
        int rc;

        if (pg >= mr->npages) {
            return RNE_MR_E_BOUNDS;     /* unreachable after mr_find */
        }
        addr = mr->pages[pg] + in;
        if (wbuf) {
            rc = rne_dma_write(&d->host, addr, wbuf, n);
            wbuf += n;
        } else {
            rc = rne_dma_read(&d->host, addr, rbuf, n);
            rbuf += n;
        }
        if (rc) {
            return RNE_MR_E_DMA;
        }
        len -= n;
        off += n;
    }
    return RNE_MR_OK;
}

enum rne_mr_err rne_mr_write(struct rne_dev *d, uint32_t stag,
                             uint32_t pdn, uint32_t access, uint64_t va,
                             const void *buf, size_t len)
{
    enum rne_mr_err err;
    struct rne_mr *mr = mr_find(d, stag, pdn, NULL, access, va, len, &err);

    if (!mr) {
        return err;
    }
    return mr_copy(d, mr, va, NULL, buf, len);
}

enum rne_mr_err rne_mr_read(struct rne_dev *d, uint32_t stag,
                            uint32_t pdn, uint32_t access, uint64_t va,
                            void *buf, size_t len)
{
    enum rne_mr_err err;
    struct rne_mr *mr = mr_find(d, stag, pdn, NULL, access, va, len, &err);

    if (!mr) {
        return err;
    }
    return mr_copy(d, mr, va, buf, NULL, len);
}

enum rne_mr_err rne_mr_remote_write(struct rne_dev *d, uint32_t stag,
                                    const struct rne_qp *qp, uint32_t access,
                                    uint64_t va, const void *buf, size_t len)
{
    enum rne_mr_err err;
    struct rne_mr *mr = mr_find(d, stag, qp->pdn, qp, access, va, len, &err);

    if (!mr) {
        return err;
    }
    return mr_copy(d, mr, va, NULL, buf, len);
}

enum rne_mr_err rne_mr_remote_read(struct rne_dev *d, uint32_t stag,
                                   const struct rne_qp *qp, uint32_t access,
                                   uint64_t va, void *buf, size_t len)
{
    enum rne_mr_err err;
    struct rne_mr *mr = mr_find(d, stag, qp->pdn, qp, access, va, len, &err);

    if (!mr) {
        return err;
    }
    return mr_copy(d, mr, va, buf, NULL, len);
}
