// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The part of QEMU's qemu/osdep.h that util/crc32c.c and qemu/crc32c.h use
 * (fixed-width integers, size_t, struct iovec), so test-crc32c-qemu can build
 * QEMU's real crc32c() outside a configured QEMU tree.
 */
#ifndef QEMU_OSDEP_H
#define QEMU_OSDEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#endif
