/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test as the rnic driver, over the qtest protocol: BARs, the admin
 * queue, EQ/CQ/PD/MR/QP creation, CM commands, WQE posting and doorbells,
 * CQE/EQE polling.  Guest memory comes from a bump allocator, so a test can
 * also place a ring anywhere it likes (a bridge's ECAM page, say).
 */
#ifndef RNIC_DRIVER_H
#define RNIC_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include "rnic/hw.h"
#include "qtest-client.h"

struct rd {
    struct qt *q;
    int bus, devfn;
    uint64_t bar0, bar2, bar4;
    uint64_t mem, mem_end;          /* next free guest page, end */
    uint64_t asq, acq;
    uint32_t sq_tail, cq_head;
    uint16_t tag;
    uint32_t result0;               /* of the last command */
    unsigned wait_steps;            /* rd_step()s per command (0: 2000) */
};

struct rd_eq {
    uint32_t eqn, depth, cons;
    uint64_t ring, pdata;
};

struct rd_cq {
    uint32_t cqn, depth, cons;
    uint64_t ring, dbrec;
};

struct rd_qp {
    uint32_t qpn, sq_depth, rq_depth, sq_prod, rq_prod;
    uint64_t sq, rq;
};

#define RD_TIMEOUT  0xff            /* rd_cmd: no completion came */

/* Let the main loop run (bottom halves, 10 us of virtual time). */
void rd_step(struct qt *q);

/* devfn of the first rnic on bus (config cycles through 0xcf8), or -1. */
int rd_find(struct qt *q, int bus);
/* Program the BARs, memory decoding and bus mastering; MSI-X left off. */
void rd_map(struct rd *d);
/* Zeroed guest pages from the allocator. */
uint64_t rd_alloc(struct rd *d, unsigned pages);
void rd_pbl(struct rd *d, struct rnic_pbl *pbl, uint64_t base, unsigned pages);

uint32_t rd_reg(struct rd *d, uint32_t off);
void rd_set_reg(struct rd *d, uint32_t off, uint32_t val);
void rd_doorbell(struct rd *d, uint32_t off, uint32_t obj, uint32_t flags,
                 uint32_t idx);

/* Admin queue of 8 entries; true when the device says READY. */
bool rd_enable(struct rd *d);
struct rnic_admin_cmd rd_mk(uint8_t opcode);
/* Run one command, wait for its completion: status (RD_TIMEOUT if none). */
unsigned rd_cmd(struct rd *d, struct rnic_admin_cmd *c);
unsigned rd_cmd_obj(struct rd *d, uint8_t opcode, uint32_t id);

/* ring == 0: fresh pages; a CM EQ (flags RNIC_EQ_F_CM) gets pdata slots. */
unsigned rd_create_eq(struct rd *d, struct rd_eq *eq, uint32_t eqn,
                      unsigned log, uint8_t flags, uint64_t ring);
unsigned rd_create_pd(struct rd *d, uint32_t pdn);
unsigned rd_create_cq(struct rd *d, struct rd_cq *cq, uint32_t cqn,
                      uint32_t eqn, unsigned log);
/* Kernel QP on pdn, both queues on cq, all remote access rights. */
unsigned rd_create_qp(struct rd *d, struct rd_qp *qp, uint32_t qpn,
                      uint32_t pdn, uint32_t cqn, unsigned sq_log,
                      unsigned rq_log);
/* MR over contiguous guest pages at base, iova = base. */
unsigned rd_reg_mr(struct rd *d, uint32_t stag, uint32_t pdn, uint64_t base,
                   unsigned pages);
uint8_t rd_qp_state(struct rd *d, uint32_t qpn);

unsigned rd_listen(struct rd *d, uint32_t id, const uint8_t ip[4],
                   uint16_t port);
/* CM_CONNECT (MPA rev 2, CRC): status; *conn the id it answered. */
unsigned rd_connect(struct rd *d, uint32_t qpn, const uint8_t lip[4],
                    const uint8_t rip[4], uint16_t rport,
                    const uint8_t mac[6], uint32_t *conn);
/* The same from local port lport (0: the device picks one). */
unsigned rd_connect_from(struct rd *d, uint32_t qpn, const uint8_t lip[4],
                         uint16_t lport, const uint8_t rip[4], uint16_t rport,
                         const uint8_t mac[6], uint32_t *conn);
unsigned rd_accept(struct rd *d, uint32_t conn, uint32_t qpn);

/* Next entry if its phase says it is new (consumed, EQ doorbell rung). */
bool rd_poll_eq(struct rd *d, struct rd_eq *eq, struct rnic_eqe *e);
bool rd_poll_cq(struct rd *d, struct rd_cq *cq, struct rnic_cqe *cqe);
/* A signaled one-SGE Send, doorbell rung. */
void rd_send1(struct rd *d, struct rd_qp *qp, uint64_t wr_id, uint64_t addr,
              uint32_t len, uint32_t lkey);
void rd_recv1(struct rd *d, struct rd_qp *qp, uint64_t wr_id, uint64_t addr,
              uint32_t len, uint32_t lkey);

#endif
