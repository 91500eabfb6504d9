/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device core on a byte array of "guest memory" for unit tests: the host
 * ops bounds-check DMA, record interrupts and capture transmitted frames,
 * and small helpers play the driver (admin queue, EQs, L2 rings).
 */
#ifndef TEST_DEV_HARNESS_H
#define TEST_DEV_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/dev.h"

#define GUEST_MEM_SIZE  (4u << 20)
#define MAX_CAPTURE     64
/* Frames of the default max-mtu; larger ones are not captured. */
#define MAX_CAP_FRAME   (RNE_DEF_MAX_MTU + 22)

extern int test_failures;
/*
 * State of the harness's random source (splitmix64): every draw of every
 * device moves it on; a test sets it to make devices draw the same bytes.
 */
extern uint64_t h_random_state;
#define CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond); \
            test_failures++; \
        } \
    } while (0)
#define CHECK_EQ(a, b) do { \
        unsigned long long a_ = (a), b_ = (b); \
        if (a_ != b_) { \
            fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n", \
                    __FILE__, __LINE__, #a, #b, a_, b_); \
            test_failures++; \
        } \
    } while (0)

struct harness {
    struct rne_dev dev;
    uint8_t *mem;                   /* guest memory at address 0 */
    uint64_t alloc_next;            /* bump allocator, 4 KiB pages */
    unsigned irq_count[64];
    unsigned ncap;
    size_t cap_len[MAX_CAPTURE];
    uint8_t cap[MAX_CAPTURE][MAX_CAP_FRAME];
    unsigned rx_resumes;
    bool wire_busy;                 /* send_frame reports "queued" */
    unsigned long sent_total;       /* frames sent, including uncaptured */
    unsigned long received_total;   /* kept by tests that count deliveries */
    unsigned guest_errors;
    unsigned long dma_reads;        /* dma_read calls, for work bounds */
    /* Time for the offload engine: tests move now_ns themselves. */
    uint64_t now_ns, timer_deadline;
    /* If set, transmitted frames go here instead of cap[] (a wire). */
    void (*on_frame)(void *ctx, const void *frame, size_t len);
    void *on_frame_ctx;
    /*
     * If set, called after every DMA write of the device has landed: tests
     * re-enter the device from inside its own write (a reset, a doorbell).
     */
    void (*on_dma_write)(void *ctx, uint64_t addr, size_t len);
    void *on_dma_write_ctx;
    /* Admin queue as the driver sees it. */
    uint32_t sq_tail, cq_head;
    uint64_t sq_base, cq_base;      /* rings are contiguous here */
    uint32_t sq_depth, cq_depth;
    uint16_t next_tag;
};

struct harness *h_new(const struct rne_dev_config *cfg);
void h_free(struct harness *h);
uint64_t h_alloc(struct harness *h, uint32_t pages);
/* A level-1 page list for `pages` contiguous pages at base. */
void h_pbl(struct harness *h, struct rnic_pbl *pbl, uint64_t base,
           uint32_t pages);
void h_run(struct harness *h);
/* Program and enable an admin queue; true if the device became READY. */
bool h_enable(struct harness *h, unsigned sq_log, unsigned cq_log);
/* Post a command (header filled in) without ringing the doorbell. */
void h_post(struct harness *h, struct rnic_admin_cmd *cmd);
void h_ring_admin(struct harness *h);
/* Next admin completion if its phase is valid, consuming it. */
bool h_poll(struct harness *h, struct rnic_admin_cqe *cqe);
/* Post, ring, run, poll: returns the status (0xff if no completion). */
unsigned h_cmd(struct harness *h, struct rnic_admin_cmd *cmd);
/* Create EQ eqn with 2^log entries; returns the ring base. */
uint64_t h_create_eq(struct harness *h, uint32_t eqn, unsigned log,
                     uint8_t flags);
void h_doorbell(struct harness *h, uint32_t off, uint32_t obj,
                uint32_t flags, uint32_t idx);

#endif
