/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scatter/gather lists of WQEs: copies at a byte offset of the list, SGE by
 * SGE, each through its MR (local access: lkey, LOCAL_WRITE for writes).
 */
#include "rdma_int.h"

static enum rne_mr_err sgl_copy(struct rne_dev *d, uint32_t pdn,
                                const struct rne_sgl *sgl, uint64_t off,
                                void *rbuf, const void *wbuf, size_t len)
{
    uint32_t i;

    if (off > sgl->total || len > sgl->total - off) {
        return RNE_MR_E_BOUNDS;
    }
    for (i = 0; i < sgl->n && len; i++) {
        const struct rnic_sge *s = &sgl->sge[i];
        uint64_t slen = s->length;
        size_t n;
        enum rne_mr_err err;

        if (off >= slen) {
            off -= slen;
            continue;
        }
        n = slen - off < len ? (size_t)(slen - off) : len;
        if (wbuf) {
            err = rne_mr_write(d, s->lkey, pdn, RNIC_ACCESS_LOCAL_WRITE,
                               s->addr + off, wbuf, n);
            wbuf = (const uint8_t *)wbuf + n;
        } else {
            err = rne_mr_read(d, s->lkey, pdn, 0, s->addr + off, rbuf, n);
            rbuf = (uint8_t *)rbuf + n;
        }
        if (err) {
            return err;
        }
        len -= n;
        off = 0;
    }
    return len ? RNE_MR_E_BOUNDS : RNE_MR_OK;
}

enum rne_mr_err rne_sgl_write(struct rne_dev *d, uint32_t pdn,
                              const struct rne_sgl *sgl, uint64_t off,
                              const void *buf, size_t len)
{
    return sgl_copy(d, pdn, sgl, off, NULL, buf, len);
}

enum rne_mr_err rne_sgl_read(struct rne_dev *d, uint32_t pdn,
                             const struct rne_sgl *sgl, uint64_t off,
                             void *buf, size_t len)
{
    return sgl_copy(d, pdn, sgl, off, buf, NULL, len);
}
