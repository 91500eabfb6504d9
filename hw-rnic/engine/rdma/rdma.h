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
 * Everything runs in rne_dev_process()/rne_dev_receive()/rne_dev_timer()
 * context; nothing here blocks or sleeps.  Guest memory is reached only
 * through struct rne_host with addresses the device computed itself from
 * page lists it copied at creation time (never re-read from the guest).
 */
#ifndef RNE_ENGINE_RDMA_H
#define RNE_ENGINE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rnic/hw.h"
#include "core/host.h"
#include "core/ring.h"

struct rne_dev;
struct rne_iw_qp;               /* iWARP per-QP protocol state (iw.h) */

/* ------------------------------------------------------------------ */
/* Work queues (SQ, RQ, SRQ) and CQs: rings in guest memory            */
/* ------------------------------------------------------------------ */

struct rne_wq {
    struct rne_ring ring;
    uint32_t pidx;              /* producer from the last valid doorbell */
    uint32_t cidx;              /* device consumer (free-running) */
};

struct rne_cq {
    bool live;
    uint32_t eqn, uctx;
    struct rne_ring ring;
    uint64_t dbrec_addr;        /* consumer's free-running index (LE u32) */
    uint32_t pidx;              /* next CQE slot (free-running) */
    uint32_t cidx;              /* consumer index last seen (doorbell/dbrec) */
    bool arm, arm_solicited;    /* from the CQ doorbell */
    bool overflow;              /* CQ in error: no more CQEs are written */
    bool err_pending;           /* in error, its QPs not yet failed */
    uint32_t users;             /* QPs bound to it */
};

struct rne_srq {
    bool live;
    uint32_t pdn, uctx, max_sge, limit;
    struct rne_wq wq;
    uint32_t users;
};

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

enum rne_mr_state {
    RNE_MR_FREE = 0,            /* index not allocated */
    RNE_MR_INVALID,             /* allocated (ALLOC_MR or invalidated) */
    RNE_MR_VALID,
};

/*
 * An entry of the STag table: an MR, or a memory window (mw_type set)
 * whose VALID state means bound to [iova, iova + length) of MR mw_mr with
 * remote rights access; a window has no pages of its own.
 */
struct rne_mr {
    uint8_t state;              /* enum rne_mr_state */
    uint8_t key;                /* low 8 bits of the current STag */
    bool fast_reg;              /* ALLOC_MR: REG_MR WQEs may bind it */
    bool phys;                  /* RNIC_MR_F_PHYS: iova is guest-physical */
    uint8_t mw_type;            /* 0: MR; RNIC_MW_TYPE_1/2: window */
    uint32_t pdn, uctx;
    uint32_t access;            /* RNIC_ACCESS_* */
    uint64_t iova, length;
    uint32_t page_shift;
    uint32_t npages, max_pages;
    uint64_t *pages;            /* copied page list, [max(npages, max_pages)] */
    uint32_t mw_bound;          /* MR: windows bound to it */
    uint32_t mw_mr;             /* bound window: its MR's index */
    uint32_t mw_qpn;            /* bound type 2 window: its QP */
};

/*
 * Why an STag check failed; the iWARP layer maps these to DDP/RDMAP
 * Terminate codes (tagged: RFC 5041 7.2 / RFC 5040 7.2), the SQ processing
 * to CQE statuses.
 */
enum rne_mr_err {
    RNE_MR_OK = 0,
    RNE_MR_E_STAG,              /* no such index, wrong key, or not VALID */
    RNE_MR_E_PD,                /* not the QP's PD (or QP: type 2 MW) */
    RNE_MR_E_ACCESS,            /* missing access rights */
    RNE_MR_E_BOUNDS,            /* [va, va + len) not inside the MR */
    RNE_MR_E_DMA,               /* guest memory not reachable */
};

/*
 * Check that [va, va + len) of STag is usable by a QP in pdn with all the
 * rights in access, then copy between it and buf.  len 0 checks only the
 * STag/PD/rights (zero-length operations).  The copy goes page by page
 * through the copied page list; a page the host cannot reach gives
 * RNE_MR_E_DMA after writing nothing beyond what was reachable.
 */
enum rne_mr_err rne_mr_check(struct rne_dev *d, uint32_t stag,
                             uint32_t pdn, uint32_t access, uint64_t va,
                             uint64_t len);
enum rne_mr_err rne_mr_write(struct rne_dev *d, uint32_t stag,
                             uint32_t pdn, uint32_t access, uint64_t va,
                             const void *buf, size_t len);
enum rne_mr_err rne_mr_read(struct rne_dev *d, uint32_t stag,
                            uint32_t pdn, uint32_t access, uint64_t va,
                            void *buf, size_t len);

struct rne_qp;

/*
 * The same for the peer of qp addressing its memory (tagged placement,
 * Read Request source, atomics): the STag may also be a memory window
 * bound to qp's PD (type 1) or to qp itself (type 2).  The local calls
 * above refuse window STags (RNE_MR_E_STAG): windows are for peers only.
 */
enum rne_mr_err rne_mr_remote_check(struct rne_dev *d, uint32_t stag,
                                    const struct rne_qp *qp, uint32_t access,
                                    uint64_t va, uint64_t len);
enum rne_mr_err rne_mr_remote_write(struct rne_dev *d, uint32_t stag,
                                    const struct rne_qp *qp, uint32_t access,
                                    uint64_t va, const void *buf, size_t len);
enum rne_mr_err rne_mr_remote_read(struct rne_dev *d, uint32_t stag,
                                   const struct rne_qp *qp, uint32_t access,
                                   uint64_t va, void *buf, size_t len);

/*
 * Remote invalidate (Send with Invalidate arriving on qp) or local
 * invalidate posted on qp: a fast-register MR of qp's PD with no window
 * bound to it, or a type 2 window bound to qp.
 */
enum rne_mr_err rne_mr_invalidate(struct rne_dev *d, uint32_t stag,
                                  const struct rne_qp *qp);

/* A scatter/gather list read from a WQE, already checked against the MRs. */
struct rne_sgl {
    uint32_t n;
    uint64_t total;             /* sum of lengths */
    struct rnic_sge sge[RNIC_SQ_MAX_SGE];       /* host byte order values */
};

/*
 * Copy len bytes at byte offset off of the SGL to/from buf (local access:
 * lkey, LOCAL_WRITE needed for writes).  Returns RNE_MR_OK or the error.
 */
enum rne_mr_err rne_sgl_write(struct rne_dev *d, uint32_t pdn,
                              const struct rne_sgl *sgl, uint64_t off,
                              const void *buf, size_t len);
enum rne_mr_err rne_sgl_read(struct rne_dev *d, uint32_t pdn,
                             const struct rne_sgl *sgl, uint64_t off,
                             void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

struct rne_qp {
    bool live;
    uint8_t state;              /* enum rnic_qp_state (hw.h) */
    uint32_t qpn, pdn, uctx;
    uint32_t send_cqn, recv_cqn;
    uint32_t srqn;              /* RNIC_NO_SRQ: rq is used */
    uint32_t max_send_sge, max_recv_sge, max_inline;
    uint32_t flags;             /* RNIC_QP_F_* */
    uint32_t access;            /* remote access allowed (MODIFY_QP) */
    uint8_t ird, ord;           /* requested; negotiated values in iw */
    struct rne_wq sq, rq;
    uint32_t sq_done;           /* SQ WQEs completed (free-running) */
    struct rne_iw_qp *iw;       /* protocol state while connected */
};

/* Live QP by number, or NULL. */
struct rne_qp *rne_qp_get(struct rne_dev *d, uint32_t qpn);

/*
 * Read the SQ WQE at free-running index idx, validated: known opcode, count
 * within the QP's limits, SGEs copied and checked against local MRs of the
 * QP's PD (for READ: LOCAL_WRITE on the sink).  On failure returns a
 * RNIC_WC_* status (never a device error) and the WQE must be completed
 * with it.  wqe receives the raw little-endian WQE; sgl host-order SGEs.
 */
unsigned rne_sq_fetch(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                      struct rnic_sq_wqe *wqe, struct rne_sgl *sgl);

/*
 * Take the next receive WQE (the QP's RQ or its SRQ), validated like
 * rne_sq_fetch (LOCAL_WRITE).   Returns 0 and advances the consumer, or -1
 * if none is posted (the iWARP layer answers with a Terminate).
 * *wqe_idx receives the slot for the CQE.
 */
int rne_rq_take(struct rne_dev *d, struct rne_qp *qp, uint64_t *wr_id,
                struct rne_sgl *sgl, uint16_t *wqe_idx, unsigned *status);

/*
 * Write one CQE (all fields but owner filled by the caller, little-endian)
 * to CQ cqn, raise the completion event if the CQ is armed for it
 * (solicited: only CQEs with RNIC_CQE_F_SOLICITED or an error status).
 * Returns 0, or -1 if the CQ is in error: it overflowed (or its CQE could
 * not be written) now, which raised CQ_OVERFLOW and fails every QP bound
 * to it at the end of the dispatch (rne_rdma_cq_errors), or earlier.
 */
int rne_cq_post(struct rne_dev *d, uint32_t cqn, struct rnic_cqe *cqe);

/*
 * Execute a local SQ work request (REG_MR, LOCAL_INV) in order; returns the
 * RNIC_WC_* status.
 */
unsigned rne_sq_local_wr(struct rne_dev *d, struct rne_qp *qp,
                         const struct rnic_sq_wqe *wqe);

/*
 * Complete SQ WQE idx (signaled or error) and advance sq_done.  Unsignaled
 * successful WQEs write no CQE but still advance.
 */
void rne_sq_complete(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                     const struct rnic_sq_wqe *wqe, unsigned status,
                     uint32_t byte_len);

/*
 * Move the QP to ERROR: every posted SQ WQE not yet completed and every RQ
 * WQE is completed with RNIC_WC_WR_FLUSH_ERR; later doorbells flush at once.
 * Raises the async event code (0: none).  Calls rne_iw_qp_error() first.
 */
void rne_qp_to_error(struct rne_dev *d, struct rne_qp *qp,
                     uint8_t async_code);

/* ------------------------------------------------------------------ */
/* Calls from the resources into the iWARP layer (implemented in iw_*)  */
/* ------------------------------------------------------------------ */

/*
 * The SQ doorbell advanced qp->sq.pidx (QP in RTS or CLOSING): send what
 * the window allows.
 */
void rne_iw_sq_kick(struct rne_dev *d, struct rne_qp *qp);
/*
 * The QP leaves RTS for ERROR (MODIFY_QP, destroy, fatal): abort the
 * connection (RST) if any, drop protocol state.  Called once per entry to
 * ERROR (and by DESTROY_QP), before the flush; it must not call
 * rne_qp_to_error() itself.
 */
void rne_iw_qp_error(struct rne_dev *d, struct rne_qp *qp);
/*
 * A local catastrophic error outside the stream (its CQ is in error): a QP
 * in RTS or CLOSING sends a Terminate (RDMAP, Local Catastrophic) if it
 * still can and closes, one still negotiating MPA aborts its connection;
 * any QP then goes to ERROR with QP_FATAL.
 */
void rne_iw_qp_fatal(struct rne_dev *d, struct rne_qp *qp);
/*
 * MODIFY_QP to CLOSING (qp->state is already CLOSING): graceful close
 * after the SQ drains.
 */
void rne_iw_qp_close(struct rne_dev *d, struct rne_qp *qp);
/*
 * QUERY_QP: fill the connection part of *attr (conn_id, MPA, tuple, TCP);
 * the resources filled the rest and conn_id 0xffffffff.
 */
void rne_iw_qp_query(struct rne_dev *d, struct rne_qp *qp,
                     struct rnic_qp_attr *attr);

/* ------------------------------------------------------------------ */
/* Device entry points (called from dev.c / admin.c)                   */
/* ------------------------------------------------------------------ */

/* Resources (rdma_*.c): object tables sized from d->cfg. 0 or -1 (ENOMEM). */
int rne_rdma_init(struct rne_dev *d);
void rne_rdma_fini(struct rne_dev *d);
/* Device reset: forget every object (iWARP state is already gone). */
void rne_rdma_reset(struct rne_dev *d);
/* PD/CQ/SRQ/QP/MR admin commands; returns RNIC_STS_*. */
unsigned rne_rdma_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                        struct rnic_admin_cqe *cqe);
/* DESTROY_PD / FREE_UCTX: BUSY while RDMA objects still use them. */
bool rne_rdma_pd_busy(struct rne_dev *d, uint32_t pdn);
bool rne_rdma_uctx_busy(struct rne_dev *d, uint32_t uctx);
/* SQ/RQ/SRQ/CQ doorbell (MMIO context: latch only). true if work latched. */
bool rne_rdma_doorbell(struct rne_dev *d, uint32_t page, uint32_t off,
                       uint64_t val);
/* Run latched RDMA doorbells (rne_dev_process context). */
void rne_rdma_run(struct rne_dev *d);
/*
 * CQs that went into error during the dispatch: fail the QPs bound to them
 * (rne_iw_qp_fatal), now that no QP's protocol code is on the stack.
 */
void rne_rdma_cq_errors(struct rne_dev *d);

/* iWARP (iw_*.c): offload TCP, CM and data path. */
int rne_iw_init(struct rne_dev *d);
void rne_iw_fini(struct rne_dev *d);
/* Device reset: drop every connection and listener without a frame. */
void rne_iw_reset(struct rne_dev *d);
/* Device reset, before rne_iw_reset: a RST to every connected peer. */
void rne_iw_reset_peers(struct rne_dev *d);
/* CM_* admin commands; returns RNIC_STS_*. */
unsigned rne_iw_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                      struct rnic_admin_cqe *cqe);
/*
 * A frame the classifier steered to the engine, with its flow key; false
 * when no engine serves its address on its VLAN (a wildcard listener's
 * port on an address or VLAN the guest never sent from): the guest's L2
 * then judges it.
 */
struct rne_flow_key;
bool rne_iw_receive(struct rne_dev *d, const uint8_t *frame, size_t len,
                    const struct rne_flow_key *k);
/* A frame for the guest's L2: an ICMP may lower a connection's path MTU. */
void rne_iw_icmp(struct rne_dev *d, const uint8_t *frame, size_t len);
/* Time passed: run expired TCP/MPA timers (rne_dev_timer). */
void rne_iw_timer(struct rne_dev *d);
/* The host timer fired, whether or not it ran: the next rearm asks again. */
void rne_iw_timer_fired(struct rne_dev *d);
/*
 * The device's dispatch is ending: release the connections freed during it
 * (code up the stack may have held them) and ask for the next deadline.
 */
void rne_iw_dispatch_end(struct rne_dev *d);
/* Bytes the offload TCP engines hold for connections and for themselves. */
void rne_iw_mem_usage(struct rne_dev *d, uint64_t *conn, uint64_t *engine);

#endif
