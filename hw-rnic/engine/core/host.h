/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the device core needs from its embedder: guest-memory DMA, MSI-X,
 * the wire, and diagnostics.  QEMU fills it with pci_dma_read/write,
 * msix_notify and qemu_send_packet; unit tests with byte arrays.  Engine
 * events for tracing (struct rne_trace) leave through the optional trace
 * op (QEMU: the trace-events rnic_eng_*).
 */
#ifndef RNE_ENGINE_HOST_H
#define RNE_ENGINE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* conn or qpn of a trace event that has none; a state before/after none */
#define RNE_TRACE_NONE          0xffffffffu

enum rne_trace_id {
    RNE_TRACE_CONN_STATE,       /* u.state: connection state (names below) */
    RNE_TRACE_CM_EVENT,         /* u.cm: an event posted to the CM EQ */
    RNE_TRACE_MPA,              /* u.mpa: the MPA exchange's outcome */
    RNE_TRACE_TERM_TX,          /* u.term: a Terminate we send */
    RNE_TRACE_TERM_RX,          /* u.term: a Terminate we received */
    RNE_TRACE_REXMIT,           /* u.rexmit: offload TCP retransmission */
    RNE_TRACE_QP_STATE,         /* u.state: QP state (RNIC_QPS_*) */
};

/* u.mpa.result */
enum rne_trace_mpa_result {
    RNE_TRACE_MPA_ACCEPTED,     /* the fields are the negotiated values */
    RNE_TRACE_MPA_REJECTED,     /* the peer's Reply rejected (R bit) */
    RNE_TRACE_MPA_REFUSED,      /* we refused its Reply: code (RFC 6581) */
};

/* u.rexmit.kind */
enum rne_trace_rexmit_kind {
    RNE_TRACE_REXMIT_RTO,       /* retransmission timeout, data or FIN */
    RNE_TRACE_REXMIT_SYN,       /* SYN or SYN-ACK again */
    RNE_TRACE_REXMIT_FAST,      /* fast retransmit (dup ACKs / SACK) */
    RNE_TRACE_REXMIT_GIVEUP,    /* retries exhausted: the connection drops */
};

struct rne_trace {
    enum rne_trace_id id;
    uint32_t conn;              /* connection id, or RNE_TRACE_NONE */
    uint32_t qpn;               /* its QP, or RNE_TRACE_NONE */
    union {
        struct {
            uint32_t from, to;  /* RNE_TRACE_NONE: not yet / no longer */
        } state;
        struct {
            uint8_t code;       /* RNIC_CM_* */
            uint16_t status;    /* errno-like */
        } cm;
        struct {
            uint8_t result;     /* enum rne_trace_mpa_result */
            uint8_t code;       /* REFUSED: the MPA error code */
            bool active;        /* we are the initiator */
            uint8_t rev;
            bool crc, markers_tx, markers_rx;
            uint8_t rtr;        /* the RTR used (RNE_MPA_RTR_*), 0: none */
            uint16_t ird, ord;
            uint16_t pd_len;    /* the peer's private data */
        } mpa;
        struct {
            uint8_t layer, etype, code;
            bool queued;        /* TX: handed to TCP (false: no room) */
        } term;
        struct {
            uint8_t kind;       /* enum rne_trace_rexmit_kind */
            uint32_t seq;       /* first sequence number resent (snd_una) */
            uint32_t backoff;   /* consecutive timeouts (RTO doublings) */
            uint32_t rto_ms;    /* the timeout from now on */
        } rexmit;
    } u;
};

struct rne_host_ops {
    /* 0 on success, -1 if any byte of [addr, addr + len) is unreachable. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);
    /*
     * 0 if every byte of [addr, addr + len) is guest RAM the device may
     * keep using (not MMIO, ROM or unassigned), else -1.  Optional: without
     * it, ring and MR pages are only probed at both ends.
     */
    int (*dma_check_ram)(void *opaque, uint64_t addr, uint64_t len);
    /* Raise MSI-X vector. */
    void (*notify)(void *opaque, unsigned vector);
    /*
     * Put one Ethernet frame (no FCS) on the wire.  false: the frame was
     * queued because the wire is busy; send nothing more until the embedder
     * calls rne_dev_tx_resume().
     */
    bool (*send_frame)(void *opaque, const void *frame, size_t len);
    /* Frames the device refused may be offered again (backlog, reset). */
    void (*rx_resume)(void *opaque);
    /* An admin command finished (tracing). */
    void (*cmd_done)(void *opaque, unsigned opcode, unsigned tag,
                     unsigned status);
    /*
     * Time, for the offload TCP and MPA timers: the engine has no clock of
     * its own.  now_ns is monotonic nanoseconds (QEMU: QEMU_CLOCK_VIRTUAL;
     * tests: simulated time).  timer_mod asks for one rne_dev_timer() call
     * at or after deadline_ns (UINT64_MAX: none needed); a new request
     * replaces the previous one.
     */
    uint64_t (*now_ns)(void *opaque);
    void (*timer_mod)(void *opaque, uint64_t deadline_ns);
    /*
     * len bytes from a random source an attacker cannot predict (QEMU: the
     * guest random source, reproducible with -seed): the RFC 6528 ISN key.
     * Required.
     */
    void (*random)(void *opaque, void *buf, size_t len);
    /* The guest did something invalid; a and b give detail. */
    void (*guest_error)(void *opaque, const char *what, uint64_t a,
                        uint64_t b);
    /*
     * Optional: an engine event, for tracing.  It only records: it must not
     * call into the device.  NULL costs one test per event site.
     */
    void (*trace)(void *opaque, const struct rne_trace *ev);
};

struct rne_host {
    const struct rne_host_ops *ops;
    void *opaque;
};

static inline int rne_dma_read(const struct rne_host *h, uint64_t addr,
                               void *buf, size_t len)
{
    if (addr + len < addr) {
        return -1;
    }
    return h->ops->dma_read(h->opaque, addr, buf, len);
}

static inline int rne_dma_write(const struct rne_host *h, uint64_t addr,
                                const void *buf, size_t len)
{
    if (addr + len < addr) {
        return -1;
    }
    return h->ops->dma_write(h->opaque, addr, buf, len);
}

/* A ring or MR page is guest RAM: 0, else -1 (see dma_check_ram). */
static inline int rne_dma_check_ram(const struct rne_host *h, uint64_t addr,
                                    uint64_t len)
{
    uint8_t probe;

    if (!len || addr + len < addr) {
        return -1;
    }
    if (h->ops->dma_check_ram) {
        return h->ops->dma_check_ram(h->opaque, addr, len);
    }
    return h->ops->dma_read(h->opaque, addr, &probe, 1) ||
           h->ops->dma_read(h->opaque, addr + len - 1, &probe, 1) ? -1 : 0;
}

static inline void rne_guest_error(const struct rne_host *h,
                                   const char *what, uint64_t a, uint64_t b)
{
    if (h->ops->guest_error) {
        h->ops->guest_error(h->opaque, what, a, b);
    }
}

/* One trace event; does nothing without the trace op. */
static inline void rne_trace_ev(const struct rne_host *h,
                                const struct rne_trace *ev)
{
    if (h->ops->trace) {
        h->ops->trace(h->opaque, ev);
    }
}

static inline void rne_trace_state(const struct rne_host *h,
                                   enum rne_trace_id id, uint32_t conn,
                                   uint32_t qpn, uint32_t from, uint32_t to)
{
    if (h->ops->trace && from != to) {
        struct rne_trace ev = {
            .id = id, .conn = conn, .qpn = qpn,
            .u.state = { .from = from, .to = to },
        };

        h->ops->trace(h->opaque, &ev);
    }
}

static inline void rne_trace_conn_state(const struct rne_host *h,
                                        uint32_t conn, uint32_t qpn,
                                        uint32_t from, uint32_t to)
{
    rne_trace_state(h, RNE_TRACE_CONN_STATE, conn, qpn, from, to);
}

static inline void rne_trace_qp_state(const struct rne_host *h,
                                      uint32_t qpn, uint32_t from,
                                      uint32_t to)
{
    rne_trace_state(h, RNE_TRACE_QP_STATE, RNE_TRACE_NONE, qpn, from, to);
}

static inline void rne_trace_cm(const struct rne_host *h, uint32_t conn,
                                uint32_t qpn, uint8_t code, uint16_t status)
{
    if (h->ops->trace) {
        struct rne_trace ev = {
            .id = RNE_TRACE_CM_EVENT, .conn = conn, .qpn = qpn,
            .u.cm = { .code = code, .status = status },
        };

        h->ops->trace(h->opaque, &ev);
    }
}

/* id: RNE_TRACE_TERM_TX or _RX */
static inline void rne_trace_term(const struct rne_host *h,
                                  enum rne_trace_id id, uint32_t conn,
                                  uint32_t qpn, uint8_t layer, uint8_t etype,
                                  uint8_t code, bool queued)
{
    if (h->ops->trace) {
        struct rne_trace ev = {
            .id = id, .conn = conn, .qpn = qpn,
            .u.term = { .layer = layer, .etype = etype, .code = code,
                        .queued = queued },
        };

        h->ops->trace(h->opaque, &ev);
    }
}

/* Names for printing trace values; "?" for an unknown one (trace_names.c). */
const char *rne_trace_conn_state_name(uint32_t state);
const char *rne_trace_qp_state_name(uint32_t state);
const char *rne_trace_cm_name(unsigned code);
const char *rne_trace_layer_name(unsigned layer);
const char *rne_trace_rexmit_name(unsigned kind);

#endif
