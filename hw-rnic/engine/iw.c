/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP connection management: placeholder entry points until the offload
 * CM lands; CM commands answer UNSUPPORTED as FEATURES says.
 */
#include "dev.h"
#include "rdma.h"

int rnic_iw_init(struct rnic_dev *d)
{
    (void)d;
    return 0;
}

void rnic_iw_fini(struct rnic_dev *d)
{
    (void)d;
}

void rnic_iw_reset(struct rnic_dev *d)
{
    (void)d;
}

unsigned rnic_iw_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                       struct rnic_admin_cqe *cqe)
{
    (void)d;
    (void)cmd;
    (void)cqe;
    return RNIC_STS_UNSUPPORTED;
}

void rnic_iw_receive(struct rnic_dev *d, const uint8_t *frame, size_t len)
{
    (void)d;
    (void)frame;
    (void)len;
}

void rnic_iw_timer(struct rnic_dev *d)
{
    (void)d;
}
