/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stage of the connection-management tests (iwarp-cm, iwarp-conn-robust,
 * iwarp-counters): two simulated rnics on one link, A at 10.0.0.1 and B at
 * 10.0.0.2, each enabled at MTU 1500 with PD 1, two CQs (0: send, 1:
 * receive) and one QP, not connected.  The cases drive the CM commands
 * themselves; cp_establish is the plain connect-and-accept they share.
 */
#ifndef CMPAIR_H
#define CMPAIR_H

#include "simlink.h"

struct cmpair {
    struct simlink sl;
    struct simdev *sd[2];
    struct sd_cq cq[2][2];
    struct sd_qp qp[2];
    char err[512];
};

extern const uint8_t cp_ip[2][4];

/* Record what failed in cp->err; returns false for `return cp_fail(...)`. */
bool cp_fail(struct cmpair *cp, const char *what, const char *detail);
/*
 * Link (seed, 20 us each way, tap installed before the devices exist so it
 * sees their first frames) and both devices (base config or the defaults,
 * MAC 02:..:01/02) up; false with cp->err on failure.
 */
bool cp_up(struct cmpair *cp, uint64_t seed, const struct rne_dev_config *base,
           bool (*tap)(void *opaque, int from, uint8_t *frame, size_t *len),
           void *tap_opaque);
void cp_down(struct cmpair *cp);
/* Step until side has a CM event; false once max_ns have passed without. */
bool cp_next_event(struct cmpair *cp, int side, struct sd_cm_event *ev,
                   uint64_t max_ns);
/* Let ns of simulated time pass (the clock moves on when nothing is pending). */
void cp_run_for(struct cmpair *cp, uint64_t ns);
/* CONNECT from A's QP to B:rport: IRD/ORD 4, MPA revision 2, CRC. */
void cp_connect_cmd(struct cmpair *cp, struct rnic_cmd_cm_connect *c,
                    uint16_t lport, uint16_t rport);
/* B listens on rport, A connects from lport, B accepts: both in RTS. */
bool cp_establish(struct cmpair *cp, uint16_t lport, uint16_t rport);
/* True when argv names this case with --case, or names none at all. */
bool cp_wants(int argc, char **argv, const char *name);

#endif
