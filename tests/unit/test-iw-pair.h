/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two rnic devices back to back on fake guest memories: frames one sends
 * are queued and fed to the other, time is a shared virtual clock, and
 * helpers play both drivers (CQ/QP/MR, CM commands and events).
 */
#ifndef TEST_IW_PAIR_H
#define TEST_IW_PAIR_H

#include "test-rdma-helpers.h"

#define P_CM_EQ     3
#define P_CQ        1
#define P_QP        2
#define P_PORT      20049

struct p_frame {
    size_t len;
    uint8_t *data;
};

struct p_wire {
    struct p_frame *q;
    unsigned n, cap;
};

struct p_dev {
    struct harness *h;
    struct t_eq async, comp, cm;
    uint64_t cm_pdata;
    struct t_cq cq;
    struct t_qp qp;
    uint8_t mac[6], ip[4];
    struct p_wire out;
    /* Corrupt one byte of the next TCP segment with payload (CRC test). */
    bool corrupt_next;
    unsigned corrupted;
    /* Drop everything this device sends (a peer that never answers). */
    bool mute;
};

struct pair {
    struct p_dev a, b;
    uint64_t now;
};

struct pair *p_new(void);
void p_free(struct pair *p);
/* Enable d and create its EQs, PD 0 and CQ (again, after a reset). */
void p_dev_enable(struct p_dev *d);
/* Move frames both ways and run timers until nothing moves (max_ns of
 * virtual time at most). */
void p_settle(struct pair *p, uint64_t max_ns);
/* CQ/QP on a device (QP with remote access rights). */
void p_make_qp(struct p_dev *d, uint32_t qpn);
unsigned p_listen(struct p_dev *d, uint32_t id, uint16_t port);
/* CM_CONNECT from a to b's port: returns the status, *conn the id. */
unsigned p_connect(struct pair *p, uint32_t qpn, uint8_t rev, uint8_t flags,
                   const char *pdata, uint32_t *conn);
/* The same to another of b's ports. */
unsigned p_connect_port(struct pair *p, uint32_t qpn, uint16_t port,
                        uint8_t rev, uint8_t flags, const char *pdata,
                        uint32_t *conn);
unsigned p_accept(struct p_dev *d, uint32_t conn, uint32_t qpn, uint8_t flags,
                  const char *pdata);
unsigned p_reject(struct p_dev *d, uint32_t conn, const char *pdata);
unsigned p_conn_cmd(struct p_dev *d, uint8_t opcode, uint32_t conn);
/* Next CM event; pdata copied to pd (>= 512 bytes) if not NULL. */
bool p_cm_event(struct p_dev *d, struct rnic_eqe *e, uint8_t *pd);
/* A connected pair (a active, b passive) with QPs P_QP in RTS. */
bool p_connect_pair(struct pair *p, uint8_t rev, uint8_t flags);
/* The same for QPs P_QP both sides made themselves (their own CQs). */
bool p_connect_made(struct pair *p, uint8_t rev, uint8_t flags);
/* A offers a Read RTR, B's hand-written Reply picks Write (settled). */
bool p_reply_unoffered_rtr(struct pair *p, uint32_t *conn);
/* Post (not ring) a signaled one-SGE Send of len octets at addr. */
void p_post_send1(struct p_dev *d, uint64_t wr_id, uint64_t addr,
                  uint32_t len, uint32_t lkey);
void p_ring_sq(struct p_dev *d);
void p_ring_rq(struct p_dev *d);
uint8_t p_qp_state(struct p_dev *d, uint32_t qpn);

#endif
