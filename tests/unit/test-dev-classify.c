/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Receive classifier: steering of offloaded TCP listeners/connections,
 * L2 filtering, malformed frames, and the connection table under churn.
 */
#include <string.h>
#include "core/classify.h"
#include "rnic/hw.h"
#include "test-dev-harness.h"

static const uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
static const uint8_t our_ip[4] = { 10, 0, 0, 1 };
static const uint8_t peer_ip[4] = { 10, 0, 0, 2 };

/* Ethernet [+VLAN] + IPv4 + 20-byte TCP header; returns the length. */
static size_t tcp4(uint8_t *f, const uint8_t *dmac, bool vlan,
                   uint16_t sport, uint16_t dport, uint16_t frag)
{
    size_t l3 = vlan ? 18 : 14;

    memset(f, 0, 128);
    memcpy(f, dmac, 6);
    memcpy(f + 6, peer_mac, 6);
    if (vlan) {
        f[12] = 0x81;
        f[14] = 0x00;
        f[15] = 0x05;
    }
    f[l3 - 2] = 0x08;
    f[l3 + 0] = 0x45;
    f[l3 + 3] = 40;
    f[l3 + 6] = frag >> 8;
    f[l3 + 7] = frag & 0xff;
    f[l3 + 8] = 64;
    f[l3 + 9] = 6;
    memcpy(f + l3 + 12, peer_ip, 4);
    memcpy(f + l3 + 16, our_ip, 4);
    f[l3 + 20] = sport >> 8;
    f[l3 + 21] = sport & 0xff;
    f[l3 + 22] = dport >> 8;
    f[l3 + 23] = dport & 0xff;
    return l3 + 40;
}

static size_t tcp6(uint8_t *f, uint16_t sport, uint16_t dport)
{
    memset(f, 0, 128);
    memcpy(f, our_mac, 6);
    memcpy(f + 6, peer_mac, 6);
    f[12] = 0x86;
    f[13] = 0xdd;
    f[14] = 0x60;
    f[19] = 20;
    f[20] = 6;
    f[22] = 0xfe;
    f[23] = 0x80;
    f[22 + 16] = 0xfe;
    f[23 + 16] = 0x80;
    f[14 + 40 + 0] = sport >> 8;
    f[14 + 40 + 1] = sport & 0xff;
    f[14 + 40 + 2] = dport >> 8;
    f[14 + 40 + 3] = dport & 0xff;
    return 14 + 60;
}

static void key4(struct rne_flow_key *k, uint16_t lport, uint16_t rport)
{
    memset(k, 0, sizeof(*k));
    k->family = RNIC_AF_IPV4;
    memcpy(k->laddr, our_ip, 4);
    memcpy(k->raddr, peer_ip, 4);
    k->lport = lport;
    k->rport = rport;
}

static void test_steering(struct rne_steer *s)
{
    struct rne_rx_filter flt = { .promisc = false };
    static const uint8_t any[16];
    uint8_t addr[16] = { 10, 0, 0, 1 };
    struct rne_flow_key k, fk;
    uint8_t f[128];
    uint32_t id = 0;
    size_t len;

    memcpy(flt.mac, our_mac, 6);
    rne_steer_clear(s);

    /* Nothing offloaded yet: TCP goes to the guest. */
    len = tcp4(f, our_mac, false, 40000, 4791, 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);

    CHECK_EQ(rne_steer_add_listener(s, 7, RNIC_AF_IPV4, addr, 4791), 0);
    /* Same port again (also as a wildcard) is refused. */
    CHECK(rne_steer_add_listener(s, 8, RNIC_AF_IPV4, any, 4791) < 0);
    CHECK(rne_steer_add_listener(s, 7, RNIC_AF_IPV4, any, 9999) < 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 7);
    /* Tagged (VLAN 5): the untagged listener's address is another one. */
    len = tcp4(f, our_mac, true, 40000, 4791, 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    /* ... that a listener of its own on VLAN 5 serves */
    CHECK_EQ(rne_steer_add_listener_vlan(s, 10, RNIC_AF_IPV4, addr, 4791, 5),
             0);
    CHECK(rne_steer_add_listener_vlan(s, 11, RNIC_AF_IPV4, addr, 4791, 5) < 0);
    /* a VLAN names one address, never the wildcard */
    CHECK(rne_steer_add_listener_vlan(s, 11, RNIC_AF_IPV4, any, 4792, 5) < 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 10);

    /* An established connection wins over the listener, on its VLAN. */
    key4(&k, 4791, 40000);
    k.vlan = 5;
    CHECK_EQ(rne_steer_add_conn(s, &k, 100), 0);
    CHECK(rne_steer_add_conn(s, &k, 101) < 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 100);
    /* the flow key comes back for the engine's demux */
    CHECK(!memcmp(&fk, &k, sizeof(k)));
    /* the same 4-tuple untagged is not that flow: the listener's */
    len = tcp4(f, our_mac, false, 40000, 4791, 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 7);
    k.vlan = 0;
    CHECK_EQ(rne_steer_add_conn(s, &k, 102), 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 102);
    CHECK(!memcmp(&fk, &k, sizeof(k)));
    /* VLAN 6 has neither */
    len = tcp4(f, our_mac, true, 40000, 4791, 0);
    f[15] = 6;
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    CHECK_EQ(rne_steer_del_listener(s, 10), 0);

    /* Other ports, fragments, other MACs, truncated headers: not ours. */
    len = tcp4(f, our_mac, false, 40000, 22, 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    len = tcp4(f, our_mac, false, 40000, 4791, 0x2000);     /* MF */
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    len = tcp4(f, peer_mac, false, 40000, 4791, 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_FILTERED);
    flt.promisc = true;
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    flt.promisc = false;
    len = tcp4(f, our_mac, false, 40000, 4791, 0);
    CHECK_EQ(rne_classify(s, &flt, f, 14 + 20 + 3, &id, &fk), RNE_RX_TO_L2);
    CHECK_EQ(rne_classify(s, &flt, f, 13, &id, &fk), RNE_RX_FILTERED);
    f[14] = 0x4f;                       /* IHL 60 beyond the frame */
    CHECK_EQ(rne_classify(s, &flt, f, 14 + 24, &id, &fk), RNE_RX_TO_L2);
    f[14] = 0x44;                       /* IHL below 20 */
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);

    /* Broadcast (ARP) to L2. */
    memset(f, 0xff, 6);
    f[12] = 0x08;
    f[13] = 0x06;
    CHECK_EQ(rne_classify(s, &flt, f, 60, &id, &fk), RNE_RX_TO_L2);

    /* IPv6 listener on any address. */
    len = tcp6(f, 5555, 4420);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
    CHECK_EQ(rne_steer_add_listener(s, 9, RNIC_AF_IPV6, any, 4420), 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
    CHECK_EQ(id, 9);
    CHECK_EQ(rne_steer_del_listener(s, 9), 0);
    CHECK(rne_steer_del_listener(s, 9) < 0);
    CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
}

static void test_conn_churn(struct rne_steer *s)
{
    struct rne_flow_key k, fk;
    uint32_t i;

    rne_steer_clear(s);
    for (i = 0; i < RNE_STEER_MAX_CONN; i++) {
        key4(&k, 4791, (uint16_t)(1024 + i));
        CHECK_EQ(rne_steer_add_conn(s, &k, i), 0);
    }
    key4(&k, 4791, 60000);
    CHECK(rne_steer_add_conn(s, &k, 1) < 0);       /* full */
    /* Remove every third; the rest must stay findable (no lost chains). */
    for (i = 0; i < RNE_STEER_MAX_CONN; i += 3) {
        key4(&k, 4791, (uint16_t)(1024 + i));
        CHECK_EQ(rne_steer_del_conn(s, &k), 0);
    }
    for (i = 0; i < RNE_STEER_MAX_CONN; i++) {
        struct rne_rx_filter flt;
        uint8_t f[128];
        uint32_t id = 0xffffffff;
        size_t len = tcp4(f, our_mac, false, (uint16_t)(1024 + i), 4791, 0);

        memcpy(flt.mac, our_mac, 6);
        flt.promisc = false;
        if (i % 3 == 0) {
            CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_L2);
        } else {
            CHECK_EQ(rne_classify(s, &flt, f, len, &id, &fk), RNE_RX_TO_ENGINE);
            CHECK_EQ(id, i);
        }
    }
    CHECK_EQ(s->nconn, RNE_STEER_MAX_CONN - (RNE_STEER_MAX_CONN + 2) / 3);
}

int main(void)
{
    struct rne_steer *s = calloc(1, sizeof(*s));

    test_steering(s);
    test_conn_churn(s);
    free(s);
    if (test_failures) {
        fprintf(stderr, "%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test-dev-classify: all checks passed\n");
    return 0;
}
