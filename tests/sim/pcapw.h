/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A libpcap file writer (nanosecond timestamps, LINKTYPE_ETHERNET), written
 * by hand so the simulator needs no libpcap.
 */
#ifndef PCAPW_H
#define PCAPW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAPW_MAGIC_NS  0xa1b23c4du
#define PCAPW_LINKTYPE_ETHERNET 1
#define PCAPW_SNAPLEN   65535

/* NULL (errno set) if the file cannot be created. */
FILE *pcapw_open(const char *path);
/* false on a write error. */
bool pcapw_frame(FILE *f, uint64_t ts_ns, const void *frame, size_t len);
/* 0, or -1 if anything failed to reach the file. */
int pcapw_close(FILE *f);

#endif
