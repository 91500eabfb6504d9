/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnic: the adapter's device state, shared by rnic.c (the PCI function,
 * netdev, reset) and rnic-migration.c (vmstate: the engine's state stream).
 */
#ifndef HW_RNIC_RNIC_H
#define HW_RNIC_RNIC_H

#include "hw/pci/pci_device.h"
#include "migration/misc.h"
#include "net/net.h"
#include "engine/core/dev.h"

#define TYPE_RNIC "rnic"
OBJECT_DECLARE_SIMPLE_TYPE(RnicState, RNIC)

struct RnicState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion doorbells;
    NICState *nic;
    NICConf conf;
    QEMUBH *bh;
    QEMUTimer *timer;               /* offload TCP/MPA timers */
    struct rne_dev_config cfg;      /* from properties */
    struct rne_dev *core;
    unsigned in_core;               /* core calls on the stack */
    bool core_orphaned;             /* unrealized meanwhile: free at exit */
    int64_t log_window_ms;          /* guest-error lines: this second's */
    unsigned log_lines, log_dropped;
    NotifierWithReturn mig_notifier;    /* refuses a migrate it can't save */
};

/*
 * Around every call that runs the core: the device's MMIO is blocked for
 * the core's own DMA, and a reference keeps s alive.  last goes back to
 * rnic_core_leave.
 */
bool rnic_core_enter(RnicState *s);
void rnic_core_leave(RnicState *s, bool last);
/* Run the core's latched work in a bottom half. */
void rnic_kick(RnicState *s);

/* rnic-migration.c */
extern const VMStateDescription rnic_vmstate;
void rnic_migration_realize(RnicState *s);
void rnic_migration_exit(RnicState *s);

#endif
