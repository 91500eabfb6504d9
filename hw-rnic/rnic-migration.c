/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnic: live migration and snapshots.  The vmstate is the PCI function
 * (config space, MSI-X table and PBA) and the engine's state stream
 * (engine/state/state.h, docs/migration.md) as one length-prefixed blob:
 * the engine holds every register, ring position, QP, MR, connection and
 * timer, and checks the stream on load as it checks guest input.  Guest
 * memory is not in it: it is the guest's and migrates as RAM.
 *
 * The engine refuses to save state it cannot carry (a connection still in
 * its handshake, say).  A migrate is checked when it starts (the notifier
 * below fails it with the engine's sentence); a save that is refused later
 * fails the migration or savevm and the source runs on.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "migration/qemu-file-types.h"
#include "migration/vmstate.h"
#include "trace.h"
#include "rnic.h"
#include "engine/state/state.h"

/*
 * A stream is read in pieces this size: its length field is untrusted, so
 * the buffer grows only with bytes that actually arrived.
 */
#define RNIC_MIG_CHUNK  (1u << 20)

static const char *rnic_name(RnicState *s)
{
    return DEVICE(s)->id ? DEVICE(s)->id : "(no id)";
}

/* The engine's stream, or NULL with err filled in. */
static uint8_t *rnic_engine_save(RnicState *s, size_t *len, char *err,
                                 size_t errlen)
{
    uint8_t *buf = NULL;
    int64_t t0 = get_clock();

    if (!s->core || s->core_orphaned || s->in_core) {
        snprintf(err, errlen, "the device is being unplugged or running");
        return NULL;
    }
    if (rne_state_save(s->core, &buf, len, err, errlen)) {
        return NULL;
    }
    trace_rnic_mig_save(*len, get_clock() - t0);
    return buf;
}

static int rnic_engine_put(QEMUFile *f, void *pv, size_t size,
                           const VMStateField *field, JSONWriter *vmdesc)
{
    RnicState *s = pv;
    char err[RNE_STATE_ERR_LEN];
    size_t len;
    uint8_t *buf = rnic_engine_save(s, &len, err, sizeof(err));

    if (!buf) {
        error_report("rnic %s: cannot save the device: %s", rnic_name(s),
                     err);
        return -EBUSY;
    }
    if (len > UINT32_MAX) {
        error_report("rnic %s: cannot save the device: its state stream "
                     "is %zu bytes", rnic_name(s), len);
        free(buf);
        return -EFBIG;
    }
    qemu_put_be32(f, len);
    qemu_put_buffer(f, buf, len);
    free(buf);
    return 0;
}

/* The blob, read as it arrives; NULL (with an error said) if it is cut. */
static uint8_t *rnic_engine_read(QEMUFile *f, RnicState *s, uint32_t len)
{
    uint8_t *buf = NULL;
    size_t got = 0, n;

    while (got < len) {
        n = MIN(len - got, RNIC_MIG_CHUNK);
        buf = g_realloc(buf, got + n);
        if (qemu_get_buffer(f, buf + got, n) != n ||
            qemu_file_get_error(f)) {
            error_report("rnic %s: the device's state stream is cut short "
                         "(%zu of %u bytes)", rnic_name(s), got, len);
            g_free(buf);
            return NULL;
        }
        got += n;
    }
    return buf ? buf : g_malloc(1);
}

static int rnic_engine_get(QEMUFile *f, void *pv, size_t size,
                           const VMStateField *field)
{
    RnicState *s = pv;
    char err[RNE_STATE_ERR_LEN];
    uint32_t len = qemu_get_be32(f);
    int64_t t0 = get_clock();
    uint8_t *buf;
    bool last;
    int ret;

    buf = rnic_engine_read(f, s, len);
    if (!buf) {
        return -EINVAL;
    }
    /* The load may fetch WQEs: its DMA is the core's, guarded likewise. */
    last = rnic_core_enter(s);
    ret = rne_state_load(s->core, buf, len, err, sizeof(err));
    if (!ret) {
        /* The link is the netdev's here, not the source's. */
        rne_dev_set_link(s->core, !qemu_get_queue(s->nic)->link_down);
        /* A frame the source's wire held is gone: the rest goes on. */
        rne_dev_tx_resume(s->core);
    }
    rnic_core_leave(s, last);
    g_free(buf);
    if (ret) {
        error_report("rnic %s: the device's state stream is refused: %s",
                     rnic_name(s), err);
        return -EINVAL;
    }
    trace_rnic_mig_load(len, get_clock() - t0);
    rnic_kick(s);       /* work latched when it was saved */
    return 0;
}

static const VMStateInfo rnic_engine_info = {
    .name = "rnic-engine",
    .get = rnic_engine_get,
    .put = rnic_engine_put,
};

const VMStateDescription rnic_vmstate = {
    .name = "rnic",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, RnicState),
        VMSTATE_MSIX(parent_obj, RnicState),
        {
            .name = "engine",
            .info = &rnic_engine_info,
            .flags = VMS_SINGLE,
            .offset = 0,
            .size = 0,
        },
        VMSTATE_END_OF_LIST()
    },
};

/*
 * Refuse a migrate at its start when the engine could not save now, with
 * its reason, rather than after the RAM was copied.
 */
static int rnic_migration_notify(NotifierWithReturn *n, MigrationEvent *e,
                                 Error **errp)
{
    RnicState *s = container_of(n, RnicState, mig_notifier);
    char err[RNE_STATE_ERR_LEN];
    uint8_t *buf;
    size_t len;

    if (e->type != MIG_EVENT_PRECOPY_SETUP) {
        return 0;
    }
    buf = rnic_engine_save(s, &len, err, sizeof(err));
    if (!buf) {
        error_setg(errp, "rnic %s cannot migrate now: %s", rnic_name(s),
                   err);
        return -EBUSY;
    }
    free(buf);
    return 0;
}

void rnic_migration_realize(RnicState *s)
{
    migration_add_notifier(&s->mig_notifier, rnic_migration_notify);
}

void rnic_migration_exit(RnicState *s)
{
    migration_remove_notifier(&s->mig_notifier);
}
