/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's RDMA resources and the contract between the two halves of the
 * RDMA engine:
 *
 *   resources (rdma_*.c, mr.c, cq.c, wq.c): PD/CQ/SRQ/QP/MR objects created
 *   by admin commands, their rings in guest memory, doorbells, CQE writing
 *   with arming and events, STag validation and address translation, local
 *   work requests (fast-register, local invalidate) and flushing;
 *
 *   iWARP (iw_*.c): offloaded connection management (listen/connect/accept/
 *   reject/close over the offload TCP, MPA negotiation, CM events) and the
 *   QP data path (SQ WQEs to FPDUs, FPDUs to placement and completions,
 *   Read responses, Terminate).
 *
 * Everything runs in rnic_dev_process()/rnic_dev_receive()/rnic_dev_timer()
 * context; nothing here blocks or sleeps.  Guest memory is reached only
 * through struct rnic_host with addresses the device computed itself from
 * page lists it copied at creation time (never re-read from the guest).
 */
#ifndef RNIC_ENGINE_RDMA_H
#define RNIC_ENGINE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rnic/hw.h"
#include "core/host.h"
#include "core/ring.h"

struct rnic_dev;
struct rnic_iw_qp;              /* iWARP per-QP protocol state (iw.h) */

/* ------------------------------------------------------------------ */
/* Work queues (SQ, RQ, SRQ) and CQs: rings in guest memory            */
/* ------------------------------------------------------------------ */

struct rnic_wq {
    struct rnic_ring ring;
    uint32_t pidx;              /* producer from the last valid doorbell */
    uint32_t cidx;              /* device consumer (free-running) */
};

struct rnic_cq {
    bool live;
    uint32_t eqn, uctx;
    struct rnic_ring ring;
    uint64_t dbrec_addr;        /* consumer's free-running index (LE u32) */
    uint32_t pidx;              /* next CQE slot (free-running) */
    uint32_t cidx;              /* consumer index last seen (doorbell/dbrec) */
    bool arm, arm_solicited;    /* from the CQ doorbell */
    bool overflow;              /* CQ in error: no more CQEs are written */
    bool err_pending;           /* in error, its QPs not yet failed */
    uint32_t users;             /* QPs bound to it */
};

struct rnic_srq {
    bool live;
    uint32_t pdn, uctx, max_sge, limit;
    struct rnic_wq wq;
    uint32_t users;
};

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

enum rnic_mr_state {
    RNIC_MR_FREE = 0,           /* index not allocated */
    RNIC_MR_INVALID,            /* allocated (ALLOC_MR or invalidated) */
    RNIC_MR_VALID,
};

struct rnic_mr {
    uint8_t state;              /* enum rnic_mr_state */
    uint8_t key;                /* low 8 bits of the current STag */
    bool fast_reg;              /* ALLOC_MR: REG_MR WQEs may bind it */
    bool phys;                  /* RNIC_MR_F_PHYS: iova is guest-physical */
    uint32_t pdn, uctx;
    uint32_t access;            /* RNIC_ACCESS_* */
    uint64_t iova, length;
    uint32_t page_shift;
    uint32_t npages, max_pages;
    uint64_t *pages;            /* copied page list, [max(npages, max_pages)] */
};

/*
 * Why an STag check failed; the iWARP layer maps these to DDP/RDMAP
 * Terminate codes (tagged: RFC 5041 7.2 / RFC 5040 7.2), the SQ processing
 * to CQE statuses.
 */
enum rnic_mr_err {
    RNIC_MR_OK = 0,
    RNIC_MR_E_STAG,             /* no such index, wrong key, or not VALID */
    RNIC_MR_E_PD,               /* MR in another PD than the QP */
    RNIC_MR_E_ACCESS,           /* missing access rights */
    RNIC_MR_E_BOUNDS,           /* [va, va + len) not inside the MR */
    RNIC_MR_E_DMA,              /* guest memory not reachable */
};

/*
 * Check that [va, va + len) of STag is usable by a QP in pdn with all the
 * rights in access, then copy between it and buf.  len 0 checks only the
 * STag/PD/rights (zero-length operations).  The copy goes page by page
 * through the copied page list; a page the host cannot reach gives
 * RNIC_MR_E_DMA after writing nothing beyond what was reachable.
 */
enum rnic_mr_err rnic_mr_check(struct rnic_dev *d, uint32_t stag,
                               uint32_t pdn, uint32_t access, uint64_t va,
                               uint64_t len);
enum rnic_mr_err rnic_mr_write(struct rnic_dev *d, uint32_t stag,
                               uint32_t pdn, uint32_t access, uint64_t va,
                               const void *buf, size_t len);
enum rnic_mr_err rnic_mr_read(struct rnic_dev *d, uint32_t stag,
                              uint32_t pdn, uint32_t access, uint64_t va,
                              void *buf, size_t len);

/*
 * Remote invalidate (Send with Invalidate) or local invalidate: only
 * fast-register MRs of the same PD may be invalidated.
 */
enum rnic_mr_err rnic_mr_invalidate(struct rnic_dev *d, uint32_t stag,
                                    uint32_t pdn);

/* A scatter/gather list read from a WQE, already checked against the MRs. */
struct rnic_sgl {
    uint32_t n;
    uint64_t total;             /* sum of lengths */
    struct rnic_sge sge[RNIC_SQ_MAX_SGE];       /* host byte order values */
};

/*
 * Copy len bytes at byte offset off of the SGL to/from buf (local access:
 * lkey, LOCAL_WRITE needed for writes).  Returns RNIC_MR_OK or the error.
 */
enum rnic_mr_err rnic_sgl_write(struct rnic_dev *d, uint32_t pdn,
                                const struct rnic_sgl *sgl, uint64_t off,
                                const void *buf, size_t len);
enum rnic_mr_err rnic_sgl_read(struct rnic_dev *d, uint32_t pdn,
                               const struct rnic_sgl *sgl, uint64_t off,
                               void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

struct rnic_qp {
    bool live;
    uint8_t state;              /* enum rnic_qp_state (hw.h) */
    uint32_t qpn, pdn, uctx;
    uint32_t send_cqn, recv_cqn;
    uint32_t srqn;              /* RNIC_NO_SRQ: rq is used */
    uint32_t max_send_sge, max_recv_sge, max_inline;
    uint32_t flags;             /* RNIC_QP_F_* */
    uint32_t access;            /* remote access allowed (MODIFY_QP) */
    uint8_t ird, ord;           /* requested; negotiated values in iw */
    struct rnic_wq sq, rq;
    uint32_t sq_done;           /* SQ WQEs completed (free-running) */
    struct rnic_iw_qp *iw;      /* protocol state while connected */
};

/* Live QP by number, or NULL. */
struct rnic_qp *rnic_qp_get(struct rnic_dev *d, uint32_t qpn);

/*
 * Read the SQ WQE at free-running index idx, validated: known opcode, count
 * within the QP's limits, SGEs copied and checked against local MRs of the
 * QP's PD (for READ: LOCAL_WRITE on the sink).  On failure returns a
 * RNIC_WC_* status (never a device error) and the WQE must be completed
 * with it.  wqe receives the raw little-endian WQE; sgl host-order SGEs.
 */
unsigned rnic_sq_fetch(struct rnic_dev *d, struct rnic_qp *qp, uint32_t idx,
                       struct rnic_sq_wqe *wqe, struct rnic_sgl *sgl);

/*
 * Take the next receive WQE (the QP's RQ or its SRQ), validated like
 * rnic_sq_fetch (LOCAL_WRITE).  Returns 0 and advances the consumer, or -1
 * if none is posted (the iWARP layer answers with a Terminate).
 * *wqe_idx receives the slot for the CQE.
 */
int rnic_rq_take(struct rnic_dev *d, struct rnic_qp *qp, uint64_t *wr_id,
                 struct rnic_sgl *sgl, uint16_t *wqe_idx, unsigned *status);

/*
 * Write one CQE (all fields but owner filled by the caller, little-endian)
 * to CQ cqn, raise the completion event if the CQ is armed for it
 * (solicited: only CQEs with RNIC_CQE_F_SOLICITED or an error status).
 * Returns 0, or -1 if the CQ is in error: it overflowed (or its CQE could
 * not be written) now, which raised CQ_OVERFLOW and fails every QP bound
 * to it at the end of the dispatch (rnic_rdma_cq_errors), or earlier.
 */
int rnic_cq_post(struct rnic_dev *d, uint32_t cqn, struct rnic_cqe *cqe);

/*
 * Execute a local SQ work request (REG_MR, LOCAL_INV) in order; returns the
 * RNIC_WC_* status.
 */
unsigned rnic_sq_local_wr(struct rnic_dev *d, struct rnic_qp *qp,
                          const struct rnic_sq_wqe *wqe);

/*
 * Complete SQ WQE idx (signaled or error) and advance sq_done.  Unsignaled
 * successful WQEs write no CQE but still advance.
 */
void rnic_sq_complete(struct rnic_dev *d, struct rnic_qp *qp, uint32_t idx,
                      const struct rnic_sq_wqe *wqe, unsigned status,
                      uint32_t byte_len);

/*
 * Move the QP to ERROR: every posted SQ WQE not yet completed and every RQ
 * WQE is completed with RNIC_WC_WR_FLUSH_ERR; later doorbells flush at once.
 * Raises the async event code (0: none).  Calls rnic_iw_qp_error() first.
 */
void rnic_qp_to_error(struct rnic_dev *d, struct rnic_qp *qp,
                      uint8_t async_code);

/* ------------------------------------------------------------------ */
/* Calls from the resources into the iWARP layer (implemented in iw_*)  */
/* ------------------------------------------------------------------ */

/*
 * The SQ doorbell advanced qp->sq.pidx (QP in RTS or CLOSING): send what
 * the window allows.
 */
void rnic_iw_sq_kick(struct rnic_dev *d, struct rnic_qp *qp);
/*
 * The QP leaves RTS for ERROR (MODIFY_QP, destroy, fatal): abort the
 * connection (RST) if any, drop protocol state.  Called once per entry to
 * ERROR (and by DESTROY_QP), before the flush; it must not call
 * rnic_qp_to_error() itself.
 */
void rnic_iw_qp_error(struct rnic_dev *d, struct rnic_qp *qp);
/*
 * A local catastrophic error outside the stream (its CQ is in error): a QP
 * in RTS or CLOSING sends a Terminate (RDMAP, Local Catastrophic) if it
 * still can and closes, one still negotiating MPA aborts its connection;
 * any QP then goes to ERROR with QP_FATAL.
 */
void rnic_iw_qp_fatal(struct rnic_dev *d, struct rnic_qp *qp);
/*
 * MODIFY_QP to CLOSING (qp->state is already CLOSING): graceful close
 * after the SQ drains.
 */
void rnic_iw_qp_close(struct rnic_dev *d, struct rnic_qp *qp);
/*
 * QUERY_QP: fill the connection part of *attr (conn_id, MPA, tuple, TCP);
 * the resources filled the rest and conn_id 0xffffffff.
 */
void rnic_iw_qp_query(struct rnic_dev *d, struct rnic_qp *qp,
                      struct rnic_qp_attr *attr);

/* ------------------------------------------------------------------ */
/* Device entry points (called from dev.c / admin.c)                   */
/* ------------------------------------------------------------------ */

/* Resources (rdma_*.c): object tables sized from d->cfg. 0 or -1 (ENOMEM). */
int rnic_rdma_init(struct rnic_dev *d);
void rnic_rdma_fini(struct rnic_dev *d);
/* Device reset: forget every object (iWARP state is already gone). */
void rnic_rdma_reset(struct rnic_dev *d);
/* PD/CQ/SRQ/QP/MR admin commands; returns RNIC_STS_*. */
unsigned rnic_rdma_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                         struct rnic_admin_cqe *cqe);
/* DESTROY_PD / FREE_UCTX: BUSY while RDMA objects still use them. */
bool rnic_rdma_pd_busy(struct rnic_dev *d, uint32_t pdn);
bool rnic_rdma_uctx_busy(struct rnic_dev *d, uint32_t uctx);
/* SQ/RQ/SRQ/CQ doorbell (MMIO context: latch only). true if work latched. */
bool rnic_rdma_doorbell(struct rnic_dev *d, uint32_t page, uint32_t off,
                        uint64_t val);
/* Run latched RDMA doorbells (rnic_dev_process context). */
void rnic_rdma_run(struct rnic_dev *d);
/*
 * CQs that went into error during the dispatch: fail the QPs bound to them
 * (rnic_iw_qp_fatal), now that no QP's protocol code is on the stack.
 */
void rnic_rdma_cq_errors(struct rnic_dev *d);

/* iWARP (iw_*.c): offload TCP, CM and data path. */
int rnic_iw_init(struct rnic_dev *d);
void rnic_iw_fini(struct rnic_dev *d);
/* Device reset: drop every connection and listener without a frame. */
void rnic_iw_reset(struct rnic_dev *d);
/* Device reset, before rnic_iw_reset: a RST to every connected peer. */
void rnic_iw_reset_peers(struct rnic_dev *d);
/* CM_* admin commands; returns RNIC_STS_*. */
unsigned rnic_iw_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                       struct rnic_admin_cqe *cqe);
/*
 * A frame the classifier steered to the engine, with its flow key; false
 * when no engine serves its address on its VLAN (a wildcard listener's
 * port on an address or VLAN the guest never sent from): the guest's L2
 * then judges it.
 */
struct rnic_flow_key;
bool rnic_iw_receive(struct rnic_dev *d, const uint8_t *frame, size_t len,
                     const struct rnic_flow_key *k);
/* A frame for the guest's L2: an ICMP may lower a connection's path MTU. */
void rnic_iw_icmp(struct rnic_dev *d, const uint8_t *frame, size_t len);
/* Time passed: run expired TCP/MPA timers (rnic_dev_timer). */
void rnic_iw_timer(struct rnic_dev *d);
/* The host timer fired, whether or not it ran: the next rearm asks again. */
void rnic_iw_timer_fired(struct rnic_dev *d);
/*
 * The device's dispatch is ending: release the connections freed during it
 * (code up the stack may have held them) and ask for the next deadline.
 */
void rnic_iw_dispatch_end(struct rnic_dev *d);
/* Bytes the offload TCP engines hold for connections and for themselves. */
void rnic_iw_mem_usage(struct rnic_dev *d, uint64_t *conn, uint64_t *engine);

#endif
