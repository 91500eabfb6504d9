/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources: placeholder entry points until the PD/CQ/SRQ/QP/MR
 * objects land; every command answers UNSUPPORTED as FEATURES says.
 */
#include "dev.h"
#include "rdma.h"

int rnic_rdma_init(struct rnic_dev *d)
{
    (void)d;
    return 0;
}

void rnic_rdma_fini(struct rnic_dev *d)
{
    (void)d;
}

void rnic_rdma_reset(struct rnic_dev *d)
{
    (void)d;
}

unsigned rnic_rdma_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                         struct rnic_admin_cqe *cqe)
{
    (void)d;
    (void)cmd;
    (void)cqe;
    return RNIC_STS_UNSUPPORTED;
}

bool rnic_rdma_doorbell(struct rnic_dev *d, uint32_t page, uint32_t off,
                        uint64_t val)
{
    rnic_guest_error(&d->host, "RDMA doorbell without RDMA objects",
                     (uint64_t)page << 32 | off, val);
    return false;
}

void rnic_rdma_run(struct rnic_dev *d)
{
    (void)d;
}
