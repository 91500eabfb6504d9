/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The driver side of the RDMA resource tests: commands that create CQs,
 * SRQs, QPs and MRs in the fake guest memory, WQE posting and CQE/EQE
 * polling with phase bits.
 */
#ifndef TEST_RDMA_HELPERS_H
#define TEST_RDMA_HELPERS_H

#include "test-dev-harness.h"
#include "rdma/rdma_int.h"     /* white-box: the object tables */

#define T_ASYNC_EQ  1
#define T_COMP_EQ   2

struct t_cq {
    uint32_t cqn, depth, cons;
    uint64_t ring, dbrec;
};

struct t_qp {
    uint32_t qpn, sq_depth, rq_depth, sq_prod, rq_prod;
    uint64_t sq, rq;
};

struct t_eq {
    uint32_t eqn, depth, cons;
    uint64_t ring;
};

struct rnic_admin_cmd t_mk(uint8_t opcode);
/* Enabled device with an async EQ (1), a completion EQ (2), PD 0 (kernel). */
struct harness *t_setup(struct t_eq *async, struct t_eq *comp);
unsigned t_cmd_obj(struct harness *h, uint8_t opcode, uint32_t id);
unsigned t_create_pd(struct harness *h, uint32_t pdn, uint32_t uctx);
unsigned t_alloc_uctx(struct harness *h, uint32_t uctx);

/* Fill a CREATE_CQ command with fresh memory; t_cq receives the layout. */
void t_cq_cmd(struct harness *h, struct rnic_admin_cmd *c, struct t_cq *cq,
              uint32_t cqn, uint32_t eqn, uint32_t uctx, unsigned log);
unsigned t_create_cq(struct harness *h, struct t_cq *cq, uint32_t cqn,
                     uint32_t uctx, unsigned log);
/* Next CQE if its phase is valid; consumes it and updates the dbrec. */
bool t_poll_cq(struct harness *h, struct t_cq *cq, struct rnic_cqe *cqe);

void t_qp_cmd(struct harness *h, struct rnic_admin_cmd *c, struct t_qp *qp,
              uint32_t qpn, uint32_t pdn, uint32_t uctx, uint32_t scq,
              uint32_t rcq, uint32_t srqn, unsigned sq_log, unsigned rq_log);
unsigned t_create_qp(struct harness *h, struct t_qp *qp, uint32_t qpn,
                     uint32_t pdn, uint32_t scq, uint32_t rcq,
                     unsigned sq_log, unsigned rq_log);
/* Write a WQE at the producer slot (no doorbell). */
void t_post_send(struct harness *h, struct t_qp *qp,
                 const struct rnic_sq_wqe *w);
void t_post_recv(struct harness *h, struct t_qp *qp,
                 const struct rnic_rq_wqe *w);

/* REG_MR over contiguous guest pages at base (4 KiB pages). */
unsigned t_reg_mr(struct harness *h, uint32_t stag, uint32_t pdn,
                  uint32_t access, uint64_t iova, uint64_t len, uint64_t base);

/* Next EQE of eq if present (consumes it). */
bool t_poll_eq(struct harness *h, struct t_eq *eq, struct rnic_eqe *e);
/* Count and consume every pending EQE of a type (0: any). */
unsigned t_drain_eq(struct harness *h, struct t_eq *eq, uint8_t type);

void t_sge(struct rnic_sge *s, uint64_t addr, uint32_t len, uint32_t lkey);
/* Exit status for main(): 0 if every CHECK held. */
int t_report(const char *name);

#endif
