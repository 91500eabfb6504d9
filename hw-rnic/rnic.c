/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnic: emulated iWARP RNIC.  This file is only the QEMU adapter: the PCI
 * function (BARs, MSI-X), the netdev, properties, reset and tracing.  The
 * device itself is the sans-I/O core in engine/ (engine/core/dev.h), reached
 * through latching MMIO entry points: doorbells run the core at once,
 * register writes through a guarded bottom half.  Every call that runs the
 * core (doorbell, bottom half, timer, netdev) engages the device's
 * re-entrancy guard, so the core's own DMA never reaches its BARs, and holds
 * a reference on the device, so a reset or unplug the core's DMA triggers
 * synchronously cannot free it under the call (both are deferred).
 *
 * Programming interface: include/rnic/hw.h, docs/hardware-interface.md.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/guest-random.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "net/net.h"
#include "system/dma.h"
#include "trace.h"
#include "rnic.h"

/* Guest-error lines per second of host time; the rest are counted. */
#define RNIC_LOG_PER_SEC    32

/*
 * Around every call that runs the core, as aio_bh_call() does for a guarded
 * bottom half: the device's MMIO is blocked for the core's own DMA.
 */
bool rnic_core_enter(RnicState *s)
{
    MemReentrancyGuard *g = &DEVICE(s)->mem_reentrancy_guard;
    bool last = g->engaged_in_io;

    object_ref(OBJECT(s));
    g->engaged_in_io = true;
    s->in_core++;
    return last;
}

void rnic_core_leave(RnicState *s, bool last)
{
    DEVICE(s)->mem_reentrancy_guard.engaged_in_io = last;
    if (!--s->in_core && s->core_orphaned) {
        rne_dev_fini(s->core);
        g_free(s->core);
        s->core = NULL;
        s->core_orphaned = false;
    }
    object_unref(OBJECT(s));
}

void rnic_kick(RnicState *s)
{
    if (s->bh) {
        qemu_bh_schedule(s->bh);
    }
}

/* Host side of the core: DMA, interrupts, the wire. */

static int rnic_dma_read_cb(void *opaque, uint64_t addr, void *buf,
                            size_t len)
{
    if (RNIC(opaque)->core_orphaned) {
        return -1;      /* unplugged: its address space is going away */
    }
    return pci_dma_read(PCI_DEVICE(opaque), addr, buf, len) == MEMTX_OK ?
           0 : -1;
}

static int rnic_dma_write_cb(void *opaque, uint64_t addr, const void *buf,
                             size_t len)
{
    if (RNIC(opaque)->core_orphaned) {
        return -1;
    }
    return pci_dma_write(PCI_DEVICE(opaque), addr, buf, len) == MEMTX_OK ?
           0 : -1;
}

/*
 * Ring and MR pages must be guest RAM: another device's MMIO answers the
 * DMA too, and ROM takes no writes.  The device keeps such pages for its
 * lifetime, so they are checked once, through the bus-master view.
 */
static int rnic_dma_check_ram_cb(void *opaque, uint64_t addr, uint64_t len)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);
    AddressSpace *as = pci_get_address_space(pdev);

    if (RNIC(opaque)->core_orphaned) {
        return -1;
    }
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, plen = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &plen,
                                                   true,
                                                   MEMTXATTRS_UNSPECIFIED);

        if (!plen || !memory_region_is_ram(mr) ||
            memory_region_is_ram_device(mr) || memory_region_is_rom(mr) ||
            memory_region_is_romd(mr)) {
            return -1;
        }
        addr += plen;
        len -= MIN(plen, len);
    }
    return 0;
}

static void rnic_notify_cb(void *opaque, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    if (!RNIC(opaque)->core_orphaned && msix_enabled(pdev) &&
        vector < pdev->msix_entries_nr) {
        trace_rnic_irq(vector);
        msix_notify(pdev, vector);
    }
}

static void rnic_tx_sent(NetClientState *nc, ssize_t len)
{
    RnicState *s = qemu_get_nic_opaque(nc);
    bool last, more;

    if (!s->nic) {
        return;     /* purged by rnic_exit: the frame is dropped */
    }
    trace_rnic_tx_resume();
    last = rnic_core_enter(s);
    more = rne_dev_tx_resume(s->core);
    if (more || rne_dev_work_pending(s->core)) {
        rnic_kick(s);
    }
    rnic_core_leave(s, last);   /* may drop the last reference on s */
}

static bool rnic_send_frame_cb(void *opaque, const void *frame, size_t len)
{
    RnicState *s = opaque;
    ssize_t ret;

    if (!s->nic) {
        return true;    /* unplugged while the core ran: nowhere to go */
    }
    trace_rnic_tx_frame(len);
    /* 0: the peer is busy and queued the frame; rnic_tx_sent follows. */
    ret = qemu_send_packet_async(qemu_get_queue(s->nic), frame, len,
                                 rnic_tx_sent);
    trace_rnic_tx_done(len, ret);
    return ret != 0;
}

static void rnic_rx_resume_cb(void *opaque)
{
    RnicState *s = opaque;

    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

static void rnic_cmd_done_cb(void *opaque, unsigned opcode, unsigned tag,
                             unsigned status)
{
    trace_rnic_cmd(opcode, tag, status);
}

/* Rate-limited: a guest must not be able to flood the host's log. */
static void rnic_guest_error_cb(void *opaque, const char *what, uint64_t a,
                                uint64_t b)
{
    RnicState *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

    if (!qemu_loglevel_mask(LOG_GUEST_ERROR)) {
        return;
    }
    if (now - s->log_window_ms >= 1000) {
        if (s->log_dropped) {
            qemu_log("rnic: %u more guest errors not logged\n",
                     s->log_dropped);
        }
        s->log_window_ms = now;
        s->log_lines = 0;
        s->log_dropped = 0;
    }
    if (s->log_lines >= RNIC_LOG_PER_SEC) {
        s->log_dropped++;
        return;
    }
    s->log_lines++;
    qemu_log("rnic: %s (0x%" PRIx64 ", 0x%" PRIx64 ")\n", what, a, b);
}

/* The guest random source: unpredictable, or reproducible under -seed. */
static void rnic_random_cb(void *opaque, void *buf, size_t len)
{
    qemu_guest_getrandom_nofail(buf, len);
}

static uint64_t rnic_now_ns_cb(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void rnic_timer_mod_cb(void *opaque, uint64_t deadline_ns)
{
    RnicState *s = opaque;

    if (!s->timer) {
        return;     /* rne_dev_init's own reset, before the timer exists */
    }
    if (trace_event_get_state_backends(TRACE_RNIC_TIMER_MOD)) {
        trace_rnic_timer_mod(deadline_ns == UINT64_MAX ? -1 :
                             (int64_t)(deadline_ns -
                                       qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)));
    }
    if (deadline_ns == UINT64_MAX) {
        timer_del(s->timer);
    } else {
        timer_mod(s->timer, deadline_ns > INT64_MAX ? INT64_MAX :
                  (int64_t)deadline_ns);
    }
}

/* An id of a trace event, -1 for none. */
static int rnic_trace_id(uint32_t id)
{
    return id == RNE_TRACE_NONE ? -1 : (int)id;
}

/* Engine events to trace-events (only records: never calls the core). */
static void rnic_trace_cb(void *opaque, const struct rne_trace *ev)
{
    int conn = rnic_trace_id(ev->conn), qpn = rnic_trace_id(ev->qpn);

    switch (ev->id) {
    case RNE_TRACE_CONN_STATE:
        trace_rnic_eng_conn_state(conn, qpn,
                                  rne_trace_conn_state_name(ev->u.state.from),
                                  rne_trace_conn_state_name(ev->u.state.to));
        break;
    case RNE_TRACE_CM_EVENT:
        trace_rnic_eng_cm_event(conn, qpn, rne_trace_cm_name(ev->u.cm.code),
                                ev->u.cm.status);
        break;
    case RNE_TRACE_MPA:
        if (ev->u.mpa.result == RNE_TRACE_MPA_ACCEPTED) {
            trace_rnic_eng_mpa_accepted(conn, ev->u.mpa.active ?
                                        "initiator" : "responder",
                                        ev->u.mpa.rev, ev->u.mpa.crc,
                                        ev->u.mpa.markers_tx,
                                        ev->u.mpa.markers_rx, ev->u.mpa.ird,
                                        ev->u.mpa.ord, ev->u.mpa.rtr,
                                        ev->u.mpa.pd_len);
        } else if (ev->u.mpa.result == RNE_TRACE_MPA_REJECTED) {
            trace_rnic_eng_mpa_rejected(conn, ev->u.mpa.rev,
                                        ev->u.mpa.pd_len);
        } else {
            trace_rnic_eng_mpa_refused(conn, ev->u.mpa.rev, ev->u.mpa.code);
        }
        break;
    case RNE_TRACE_TERM_TX:
        trace_rnic_eng_term_sent(conn, qpn,
                                 rne_trace_layer_name(ev->u.term.layer),
                                 ev->u.term.etype, ev->u.term.code,
                                 ev->u.term.queued);
        break;
    case RNE_TRACE_TERM_RX:
        trace_rnic_eng_term_received(conn, qpn,
                                     rne_trace_layer_name(ev->u.term.layer),
                                     ev->u.term.etype, ev->u.term.code);
        break;
    case RNE_TRACE_REXMIT:
        trace_rnic_eng_tcp_rexmit(conn, qpn,
                                  rne_trace_rexmit_name(ev->u.rexmit.kind),
                                  ev->u.rexmit.seq, ev->u.rexmit.backoff,
                                  ev->u.rexmit.rto_ms);
        break;
    case RNE_TRACE_QP_STATE:
        trace_rnic_eng_qp_state(qpn,
                                rne_trace_qp_state_name(ev->u.state.from),
                                rne_trace_qp_state_name(ev->u.state.to));
        break;
    }
}

static const struct rne_host_ops rnic_host_ops = {
    .dma_read = rnic_dma_read_cb,
    .dma_write = rnic_dma_write_cb,
    .dma_check_ram = rnic_dma_check_ram_cb,
    .notify = rnic_notify_cb,
    .send_frame = rnic_send_frame_cb,
    .rx_resume = rnic_rx_resume_cb,
    .cmd_done = rnic_cmd_done_cb,
    .guest_error = rnic_guest_error_cb,
    .random = rnic_random_cb,
    .now_ns = rnic_now_ns_cb,
    .timer_mod = rnic_timer_mod_cb,
    .trace = rnic_trace_cb,
};

/* Register MMIO latches and schedules; doorbells run at once. */

static void rnic_bh(void *opaque)
{
    RnicState *s = opaque;
    bool last;

    trace_rnic_bh();
    last = rnic_core_enter(s);
    rne_dev_rx_batch_end(s->core);
    rne_dev_process(s->core);
    if (rne_dev_work_pending(s->core)) {
        rnic_kick(s);   /* a bounded pass stopped: the rest in the next */
    }
    rnic_core_leave(s, last);
}

/*
 * A TCP/MPA deadline passed: run it (guarded like the bottom half: its CQE
 * and EQE writes must not reach our doorbells), then what it left latched.
 */
static void rnic_timer_cb(void *opaque)
{
    RnicState *s = opaque;
    bool last;

    trace_rnic_timer();
    last = rnic_core_enter(s);
    rne_dev_timer(s->core);
    rnic_kick(s);
    rnic_core_leave(s, last);
}

static uint64_t rnic_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    RnicState *s = opaque;
    uint32_t val = rne_dev_reg_read(s->core, addr);

    trace_rnic_mmio_read(addr, val);
    return val;
}

static void rnic_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    RnicState *s = opaque;

    trace_rnic_mmio_write(addr, val);
    if (rne_dev_reg_write(s->core, addr, val)) {
        rnic_kick(s);
    }
}

static const MemoryRegionOps rnic_regs_ops = {
    .read = rnic_regs_read,
    .write = rnic_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static uint64_t rnic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    /* Any process with a doorbell page can do this: rate-limited. */
    rnic_guest_error_cb(opaque, "doorbells are write-only", addr, 0);
    return 0;
}

static void rnic_db_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    RnicState *s = opaque;
    uint32_t page = addr >> RNIC_DB_PAGE_SHIFT;
    uint32_t off = addr & (RNIC_DB_PAGE_SIZE - 1);
    bool last;

    trace_rnic_doorbell(page, off, val);
    /*
     * Run the work in this vCPU's exit, not in a bottom half: a BH waits
     * for the main loop thread to be woken and scheduled, one more thread
     * hop per message (most of a small Write's latency on a busy host).
     * The reentrancy guard of this MMIO access covers DMA from here.
     */
    if (rne_dev_doorbell(s->core, page, off, val)) {
        last = rnic_core_enter(s);
        rne_dev_process(s->core);
        if (rne_dev_work_pending(s->core)) {
            rnic_kick(s);
        }
        rnic_core_leave(s, last);
    }
}

static const MemoryRegionOps rnic_db_ops = {
    .read = rnic_db_read,
    .write = rnic_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 8, .max_access_size = 8 },
    .impl = { .min_access_size = 8, .max_access_size = 8 },
};

/*
 * Netdev.  No can_receive: the device takes every frame (an L2 frame with
 * no RX buffer is dropped and counted), as QEMU queues all frames behind
 * one refused, offloaded connections' frames too.
 */

static ssize_t rnic_receive(NetClientState *nc, const uint8_t *buf,
                            size_t size)
{
    RnicState *s = qemu_get_nic_opaque(nc);
    bool taken, last;

    trace_rnic_rx_start(size);
    last = rnic_core_enter(s);
    taken = rne_dev_receive(s->core, buf, size);
    /*
     * The net layer hands over every frame of one socket read before the
     * main loop runs bottom halves: ACK them together then (fewer frames,
     * each a send here and a receive at the peer).
     */
    if (rne_dev_ack_owed(s->core) || rne_dev_work_pending(s->core)) {
        rnic_kick(s);
    }
    rnic_core_leave(s, last);
    trace_rnic_rx_frame(size, taken);
    /*
     * 0 (only from inside the device's own work, its backlog full) makes
     * the net layer queue the frame until rx_resume flushes it.
     */
    return taken ? size : 0;
}

static void rnic_link_status_changed(NetClientState *nc)
{
    RnicState *s = qemu_get_nic_opaque(nc);

    trace_rnic_link(!nc->link_down);
    if (rne_dev_set_link(s->core, !nc->link_down)) {
        rnic_kick(s);
    }
}

static NetClientInfo rnic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = rnic_receive,
    .link_status_changed = rnic_link_status_changed,
};

/* Lifecycle. */

static void rnic_realize(PCIDevice *pdev, Error **errp)
{
    RnicState *s = RNIC(pdev);
    const char *why;
    uint32_t i, nvec;

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    memcpy(s->cfg.mac, s->conf.macaddr.a, sizeof(s->cfg.mac));
    why = rne_dev_config_check(&s->cfg);
    if (why) {
        error_setg(errp, "rnic: %s", why);
        return;
    }

    pdev->config[PCI_INTERRUPT_PIN] = 0;    /* MSI-X only */
    memory_region_init_io(&s->regs, OBJECT(s), &rnic_regs_ops, s,
                          "rnic-regs", RNIC_REGS_SIZE);
    pci_register_bar(pdev, RNIC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    memory_region_init_io(&s->doorbells, OBJECT(s), &rnic_db_ops, s,
                          "rnic-doorbells",
                          (uint64_t)(s->cfg.max_uctx + 1) *
                          RNIC_DB_PAGE_SIZE);
    pci_register_bar(pdev, RNIC_BAR_DOORBELL, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->doorbells);

    nvec = s->cfg.max_eq + 1;
    if (msix_init_exclusive_bar(pdev, nvec, RNIC_BAR_MSIX, errp)) {
        return;
    }
    for (i = 0; i < nvec; i++) {
        msix_vector_use(pdev, i);
    }

    s->core = g_new0(struct rne_dev, 1);
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, rnic_timer_cb, s);
    if (rne_dev_init(s->core, &s->cfg, &rnic_host_ops, s)) {
        error_setg(errp, "rnic: cannot allocate the object tables");
        g_free(s->core);
        s->core = NULL;
        timer_free(s->timer);
        s->timer = NULL;
        msix_unuse_all_vectors(pdev);
        msix_uninit_exclusive_bar(pdev);
        return;
    }
    s->bh = qemu_bh_new_guarded(rnic_bh, s,
                                &DEVICE(pdev)->mem_reentrancy_guard);
    s->nic = qemu_new_nic(&rnic_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), DEVICE(pdev)->id,
                          &DEVICE(pdev)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    rne_dev_set_link(s->core, !qemu_get_queue(s->nic)->link_down);
    rne_dev_reset(s->core);
    rnic_migration_realize(s);
}

static void rnic_exit(PCIDevice *pdev)
{
    RnicState *s = RNIC(pdev);
    NICState *nic = s->nic;

    /*
     * A frame the peer queued still names rnic_tx_sent: call it now, as
     * virtio-net does, not when the peer flushes after nic is freed.
     */
    rnic_migration_exit(s);
    s->nic = NULL;
    qemu_purge_queued_packets(qemu_get_queue(nic));
    qemu_del_nic(nic);
    qemu_bh_delete(s->bh);
    s->bh = NULL;
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
    timer_free(s->timer);
    s->timer = NULL;
    if (s->in_core) {
        /* a slot power-off from the core's own DMA: it is still running */
        s->core_orphaned = true;
        return;
    }
    rne_dev_fini(s->core);
    g_free(s->core);
    s->core = NULL;
}

static void rnic_reset_hold(Object *obj, ResetType type)
{
    RnicState *s = RNIC(obj);

    if (!s->core || s->core_orphaned) {
        return;     /* not realized, or unrealized under a core call */
    }
    trace_rnic_reset();
    qemu_bh_cancel(s->bh);
    if (!rne_dev_reset(s->core)) {
        /*
         * From the core's own DMA (a Secondary Bus Reset): done when the
         * core returns, which then calls rx_resume.
         */
        return;
    }
    /* Frames held back for the old rings are now dropped, not kept. */
    qemu_flush_queued_packets(qemu_get_queue(s->nic));
}

static const Property rnic_properties[] = {
    DEFINE_NIC_PROPERTIES(RnicState, conf),
    DEFINE_PROP_UINT32("max-qp", RnicState, cfg.max_qp, RNE_DEF_MAX_QP),
    DEFINE_PROP_UINT32("max-cq", RnicState, cfg.max_cq, RNE_DEF_MAX_CQ),
    DEFINE_PROP_UINT32("max-mr", RnicState, cfg.max_mr, RNE_DEF_MAX_MR),
    DEFINE_PROP_UINT32("max-pd", RnicState, cfg.max_pd, RNE_DEF_MAX_PD),
    DEFINE_PROP_UINT32("max-srq", RnicState, cfg.max_srq, RNE_DEF_MAX_SRQ),
    DEFINE_PROP_UINT32("max-eq", RnicState, cfg.max_eq, RNE_DEF_MAX_EQ),
    DEFINE_PROP_UINT32("max-uctx", RnicState, cfg.max_uctx,
                       RNE_DEF_MAX_UCTX),
    DEFINE_PROP_UINT32("max-l2q", RnicState, cfg.max_l2q, RNE_DEF_MAX_L2Q),
    DEFINE_PROP_UINT32("max-ird", RnicState, cfg.max_ird, RNE_DEF_MAX_IRD),
    DEFINE_PROP_UINT32("max-ord", RnicState, cfg.max_ord, RNE_DEF_MAX_ORD),
    DEFINE_PROP_UINT32("max-qp-wr", RnicState, cfg.max_qp_wr,
                       RNE_DEF_MAX_QP_WR),
    DEFINE_PROP_UINT32("max-cqe", RnicState, cfg.max_cqe, RNE_DEF_MAX_CQE),
    DEFINE_PROP_UINT32("max-srq-wr", RnicState, cfg.max_srq_wr,
                       RNE_DEF_MAX_SRQ_WR),
    DEFINE_PROP_UINT32("max-mtu", RnicState, cfg.max_mtu, RNE_DEF_MAX_MTU),
    DEFINE_PROP_UINT32("max-listen", RnicState, cfg.max_listen,
                       RNE_DEF_MAX_LISTEN),
    DEFINE_PROP_UINT32("max-conn", RnicState, cfg.max_conn,
                       RNE_DEF_MAX_CONN),
    DEFINE_PROP_UINT32("max-mr-pages", RnicState, cfg.max_mr_pages,
                       RNE_DEF_MAX_MR_PAGES),
    DEFINE_PROP_BOOL("ack-batch", RnicState, cfg.ack_batch,
                     RNE_DEF_ACK_BATCH),
    DEFINE_PROP_UINT32("tcp-keepalive-idle", RnicState, cfg.keep_idle_s,
                       RNE_DEF_KEEP_IDLE_S),
    DEFINE_PROP_UINT32("tcp-keepalive-interval", RnicState,
                       cfg.keep_intvl_s, RNE_DEF_KEEP_INTVL_S),
    DEFINE_PROP_UINT32("tcp-keepalive-probes", RnicState, cfg.keep_probes,
                       RNE_DEF_KEEP_PROBES),
    DEFINE_PROP_UINT32("tcp-window", RnicState, cfg.tcp_window_kib,
                       RNE_DEF_TCP_WINDOW_KIB),
};

static void rnic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = rnic_realize;
    k->exit = rnic_exit;
    k->vendor_id = RNIC_PCI_VENDOR_ID;
    k->device_id = RNIC_PCI_DEVICE_ID;
    k->revision = RNIC_PCI_REVISION;
    k->class_id = RNIC_PCI_CLASS >> 8;
    k->subsystem_vendor_id = RNIC_PCI_SUBSYS_VENDOR_ID;
    k->subsystem_id = RNIC_PCI_SUBSYS_ID;
    dc->desc = "rnic emulated iWARP RDMA NIC";
    dc->vmsd = &rnic_vmstate;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    device_class_set_props(dc, rnic_properties);
    rc->phases.hold = rnic_reset_hold;
}

static const TypeInfo rnic_info = {
    .name = TYPE_RNIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(RnicState),
    .class_init = rnic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { }
    },
};

static void rnic_register_types(void)
{
    type_register_static(&rnic_info);
}

type_init(rnic_register_types)
