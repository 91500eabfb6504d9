/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the host itself can do, measured in the same run as a benchmark of
 * rnic so that ratios compare like with like on a shared, noisy host:
 *
 *  wire   a frame pump through QEMU's stream netdev framing (a unix stream
 *         socket, a 4-byte big-endian length before each frame, one writev
 *         per frame from a non-blocking socket, reads of NET_BUFSIZE
 *         reassembled frame by frame with a copy, as net/stream.c and
 *         net_fill_rstate() do), optionally with busy threads standing in
 *         for the vCPUs of two guests;
 *  tcp    host loopback TCP, one sender and one receiver thread, 1 MiB
 *         writes and reads;
 *  memcpy one cache-resident 1 MiB buffer copied again and again (hot).
 *
 * Every figure is in bytes per wall-clock second (1 GB = 1e9 bytes); the
 * wire counts whole Ethernet frames (headers included), not the length
 * prefix.
 */
#ifndef HOST_ANCHORS_H
#define HOST_ANCHORS_H

#include <stddef.h>

struct anchor_result {
    double gbps;            /* GB/s */
    /* CPU seconds of the pump's threads per GB (busy ones excluded) */
    double cpu_s_per_gb;    /* 0 for memcpy */
};

/* frame: bytes per frame (e.g. 1514); busy: spinning threads beside it. */
struct anchor_result anchor_wire(size_t frame, double seconds, int busy);
struct anchor_result anchor_tcp(double seconds);
struct anchor_result anchor_memcpy_hot(double seconds);

double anchor_median(double *v, int n);

#endif
