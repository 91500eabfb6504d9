/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the device core needs from its embedder: guest-memory DMA, MSI-X,
 * the wire, and diagnostics.  QEMU fills it with pci_dma_read/write,
 * msix_notify and qemu_send_packet; unit tests with byte arrays.
 */
#ifndef RNIC_ENGINE_HOST_H
#define RNIC_ENGINE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rnic_host_ops {
    /* 0 on success, -1 if any byte of [addr, addr + len) is unreachable. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);
    /* Raise MSI-X vector. */
    void (*notify)(void *opaque, unsigned vector);
    /*
     * Put one Ethernet frame (no FCS) on the wire.  false: the frame was
     * queued because the wire is busy; send nothing more until the embedder
     * calls rnic_dev_tx_resume().
     */
    bool (*send_frame)(void *opaque, const void *frame, size_t len);
    /* Frames the device refused may be offered again (buffers, reset). */
    void (*rx_resume)(void *opaque);
    /* An admin command finished (tracing). */
    void (*cmd_done)(void *opaque, unsigned opcode, unsigned tag,
                     unsigned status);
    /*
     * Time, for the offload TCP and MPA timers: the engine has no clock of
     * its own.  now_ns is monotonic nanoseconds (QEMU: QEMU_CLOCK_VIRTUAL;
     * tests: simulated time).  timer_mod asks for one rnic_dev_timer() call
     * at or after deadline_ns (UINT64_MAX: none needed); a new request
     * replaces the previous one.
     */
    uint64_t (*now_ns)(void *opaque);
    void (*timer_mod)(void *opaque, uint64_t deadline_ns);
    /* The guest did something invalid; a and b give detail. */
    void (*guest_error)(void *opaque, const char *what, uint64_t a,
                        uint64_t b);
};

struct rnic_host {
    const struct rnic_host_ops *ops;
    void *opaque;
};

static inline int rnic_dma_read(const struct rnic_host *h, uint64_t addr,
                                void *buf, size_t len)
{
    if (addr + len < addr) {
        return -1;
    }
    return h->ops->dma_read(h->opaque, addr, buf, len);
}

static inline int rnic_dma_write(const struct rnic_host *h, uint64_t addr,
                                 const void *buf, size_t len)
{
    if (addr + len < addr) {
        return -1;
    }
    return h->ops->dma_write(h->opaque, addr, buf, len);
}

static inline void rnic_guest_error(const struct rnic_host *h,
                                    const char *what, uint64_t a, uint64_t b)
{
    if (h->ops->guest_error) {
        h->ops->guest_error(h->opaque, what, a, b);
    }
}

#endif
