/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path MTU for offloaded connections (RFC 1191): every frame leaves with DF
 * set, so a router with a smaller MTU drops it and answers with ICMP
 * "fragmentation needed".  That ICMP arrives for the guest (the classifier
 * steers only TCP to the engine); when it quotes a segment an offloaded
 * connection has in flight, that connection's MTU is lowered.  The frame
 * still goes to the guest's L2 ring.  An ICMP counts only for the flows of
 * the VLAN it arrived on.
 */
#include <string.h>
#include "iw.h"
#include "wire/be.h"
#include "wire/net.h"

#define IPPROTO_ICMP_          1
#define ICMP_DEST_UNREACH       3
#define ICMP_FRAG_NEEDED        4

/* The live connection on this VLAN and 4-tuple (ports in host order). */
static struct rne_iw_conn *conn_by_tuple(struct rne_dev *d, uint16_t vid,
                                         const uint8_t *laddr,
                                         const uint8_t *raddr,
                                         uint16_t lport, uint16_t rport)
{
    struct rne_iw *iw = d->iw;
    uint32_t i;

    for (i = 0; i < iw->nlive; i++) {
        struct rne_iw_conn *c = iw->live[i];

        /* one lingering after its TCP finished has none */
        if (c->tc && c->key.vlan == vid && c->key.lport == lport &&
            c->key.rport == rport && !memcmp(c->key.laddr, laddr, 4) &&
            !memcmp(c->key.raddr, raddr, 4)) {
            return c;
        }
    }
    return NULL;
}

void rne_iw_icmp(struct rne_dev *d, const uint8_t *frame, size_t len)
{
    struct rne_ip4_pkt ip;
    struct rne_iw_conn *c;
    const uint8_t *icmp, *q;
    size_t qhl, l2 = RNE_ETH_HLEN;

    /* cheap tests first: this runs for every frame that goes to L2 */
    if (len >= RNE_ETH_HLEN + RNE_VLAN_HLEN &&
        rne_ld_be16(frame + 12) == RNE_ETHERTYPE_VLAN) {
        l2 += RNE_VLAN_HLEN;
    }
    if (!d->iw || !d->iw->nlive || len < l2 + 20 + 8 + 20 + 8 ||
        rne_ld_be16(frame + l2 - 2) != RNE_ETHERTYPE_IP ||
        frame[l2 + 9] != IPPROTO_ICMP_) {
        return;
    }
    if (rne_ip4_parse(frame, len, &ip) != RNE_IP4_OK ||
        ip.l4_len < 8 + 20 + 8) {
        return;
    }
    icmp = ip.l4;
    if (icmp[0] != ICMP_DEST_UNREACH || icmp[1] != ICMP_FRAG_NEEDED ||
        rne_csum_fold(rne_csum_add(0, icmp, ip.l4_len)) != 0) {
        return;
    }
    /* the quoted datagram: one of ours (from this address), TCP */
    q = icmp + 8;
    qhl = (size_t)(q[0] & 15) * 4;
    if ((q[0] >> 4) != 4 || qhl < 20 || ip.l4_len < 8 + qhl + 8 ||
        q[9] != RNE_IPPROTO_TCP || memcmp(q + 12, ip.dst, 4)) {
        return;
    }
    c = conn_by_tuple(d, ip.tagged ? RNE_VLAN_VID(ip.tci) : 0, q + 12,
                      q + 16, rne_ld_be16(q + qhl),
                      rne_ld_be16(q + qhl + 2));
    if (c) {
        /* MTU 0 (RFC 1191 §5: a router too old to say) means the floor */
        rne_tcp_icmp_mtu(c->tc, rne_ld_be32(q + qhl + 4),
                         rne_ld_be16(icmp + 6));
    }
}
