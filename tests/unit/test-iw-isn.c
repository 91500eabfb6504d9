/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 6528 ISN secret (issue 17, finding 6): the key must come from the
 * embedder's random source (host op), not from the MAC, address and
 * clock a peer can know.  Devices with the same MAC, IP and virtual clock
 * send their SYN for the same 4-tuple: the ISNs differ.  Two devices that
 * draw the same random bytes but have different MACs send the same ISN:
 * the key does not depend on the MAC.
 */
#include <string.h>
#include "test-iw-pair.h"

static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x99 };
static const uint8_t peer_ip[4] = { 10, 0, 0, 99 };

/* A device with this MAC at 10.0.0.10 sends one SYN: its sequence number. */
static uint32_t syn_isn(uint8_t mac_last, uint64_t seed)
{
    struct rne_dev_config cfg;
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_CONNECT);
    struct rnic_cmd_cm_connect *k = &c.u.cm_connect;
    struct p_dev d;
    uint32_t isn = 0;
    unsigned i;
    bool found = false;

    memset(&d, 0, sizeof(d));
    rne_dev_config_default(&cfg);
    cfg.mac[5] = mac_last;
    h_random_state = seed;
    d.h = h_new(&cfg);
    d.h->now_ns = 5000000000ull;        /* the same clock everywhere */
    memcpy(d.mac, cfg.mac, 6);
    memcpy(d.ip, "\x0a\x00\x00\x0a", 4);
    p_dev_enable(&d);
    p_make_qp(&d, P_QP);
    k->qpn = P_QP;
    k->tuple.family = RNIC_AF_IPV4;
    memcpy(k->tuple.local_addr, d.ip, 4);
    memcpy(k->tuple.remote_addr, peer_ip, 4);
    k->tuple.local_port = 40000;
    k->tuple.remote_port = P_PORT;
    memcpy(k->next_hop_mac, peer_mac, 6);
    k->ird = 4;
    k->ord = 4;
    k->mpa_rev = 2;
    d.h->ncap = 0;
    CHECK_EQ(h_cmd(d.h, &c), RNIC_STS_OK);
    for (i = 0; i < d.h->ncap && !found; i++) {
        const uint8_t *f = d.h->cap[i];
        const uint8_t *tcp = f + 14 + 4 * (f[14] & 15);

        if (d.h->cap_len[i] >= 54 && f[12] == 0x08 && f[13] == 0 &&
            f[23] == 6 && (tcp[13] & 0x12) == 0x02) {
            isn = (uint32_t)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 |
                  tcp[7];
            found = true;
        }
    }
    CHECK(found);
    h_free(d.h);
    return isn;
}

int main(void)
{
    uint32_t a, b, c, e;

    /* Same MAC, IP, ports and clock; the random source moves on. */
    a = syn_isn(0x0a, 1);
    b = syn_isn(0x0a, 2);
    printf("same MAC/IP/clock: ISN 0x%08x and 0x%08x\n", a, b);
    fflush(stdout);
    CHECK(a != b);
    /* Same random bytes, different MACs. */
    c = syn_isn(0x0a, 3);
    e = syn_isn(0x0b, 3);
    printf("same random key, MAC ..0a vs ..0b: ISN 0x%08x and 0x%08x\n", c, e);
    fflush(stdout);
    CHECK_EQ(c, e);
    return t_report("test-iw-isn");
}
