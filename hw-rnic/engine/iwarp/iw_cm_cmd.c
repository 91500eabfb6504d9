/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CM_* admin commands (LISTEN, DESTROY_LISTEN, CONNECT, ACCEPT, REJECT,
 * DISCONNECT, ABORT): checked against the device's limits and state, then
 * handed to the connection management of iw_cm.c.
 */
#include <string.h>
#include "iw.h"
#include "wire/le.h"

#define MPA_FLAGS_KNOWN (RNIC_MPA_CRC | RNIC_MPA_MARKERS | \
                         RNIC_MPA_P2P_WRITE | RNIC_MPA_P2P_READ | \
                         RNIC_MPA_P2P_SEND | RNIC_MPA_RFC7306)

static uint8_t flags_to_rtr(uint8_t f)
{
    return ((f & RNIC_MPA_P2P_WRITE) ? RNE_MPA_RTR_WRITE : 0) |
           ((f & RNIC_MPA_P2P_READ) ? RNE_MPA_RTR_READ : 0) |
           ((f & RNIC_MPA_P2P_SEND) ? RNE_MPA_RTR_SEND : 0);
}

static bool addr_any(const uint8_t *a)
{
    return !(a[0] | a[1] | a[2] | a[3]);
}

/*
 * A command's 802.1Q TCI: a VID of 1..4094 and DEI clear; 0 (priority
 * tags) and 4095 are no VLAN an interface can have.
 */
static bool tci_ok(uint16_t tci)
{
    uint16_t vid = tci & RNIC_VLAN_VID_MASK;

    return vid && vid != RNIC_VLAN_VID_MASK && !(tci & RNIC_VLAN_DEI);
}

static unsigned read_pdata(struct rne_dev *d, uint64_t addr, uint16_t len,
                           uint8_t *buf, uint16_t room)
{
    if (len > room) {
        return RNIC_STS_BAD_PARAM;
    }
    if (len && rne_dma_read(&d->host, addr, buf, len)) {
        return RNIC_STS_DMA_ERROR;
    }
    return RNIC_STS_OK;
}

static unsigned qp_for_bind(struct rne_dev *d, uint32_t qpn,
                            struct rne_qp **out)
{
    struct rne_qp *qp;

    if (qpn >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    qp = rne_qp_get(d, qpn);
    if (!qp) {
        return RNIC_STS_NOT_FOUND;
    }
    if (qp->state != RNIC_QPS_IDLE || qp->iw) {
        return RNIC_STS_BAD_STATE;
    }
    *out = qp;
    return RNIC_STS_OK;
}

static unsigned cmd_listen(struct rne_dev *d,
                           const struct rnic_cmd_cm_listen *c)
{
    struct rne_iw *iw = d->iw;
    uint32_t id = rne_le32_to_cpu(c->listen_id), i;
    uint32_t flags = rne_le32_to_cpu(c->flags);
    uint16_t port = rne_le16_to_cpu(c->port);
    uint16_t tci = rne_le16_to_cpu(c->vlan);
    struct rne_iw_listener *l;
    uint16_t vid;

    if (id >= d->cfg.max_listen) {
        return RNIC_STS_BAD_INDEX;
    }
    l = &iw->lis[id];
    if (l->live) {
        return RNIC_STS_EXISTS;
    }
    if (c->family == RNIC_AF_IPV6) {
        return RNIC_STS_UNSUPPORTED;
    }
    if (c->family != RNIC_AF_IPV4 || c->rsvd || port == 0 || c->rsvd2 ||
        (flags & ~RNIC_LISTEN_F_VLAN)) {
        return RNIC_STS_BAD_PARAM;
    }
    /* a VLAN names the interface of one address: never the wildcard's */
    if ((flags & RNIC_LISTEN_F_VLAN) &&
        (addr_any(c->addr) || !tci_ok(tci))) {
        return RNIC_STS_BAD_PARAM;
    }
    vid = (flags & RNIC_LISTEN_F_VLAN) ? tci & RNIC_VLAN_VID_MASK : 0;
    for (i = 4; i < 16; i++) {
        if (c->addr[i]) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    if (rne_steer_add_listener_vlan(d->steer, id, RNIC_AF_IPV4, c->addr,
                                    port, vid)) {
        return RNIC_STS_EXISTS;
    }
    memset(l, 0, sizeof(*l));
    memcpy(l->addr, c->addr, 4);
    l->vlan = vid;
    l->port = port;
    l->backlog = rne_le32_to_cpu(c->backlog);
    if (l->backlog == 0 || l->backlog > 1024) {
        l->backlog = l->backlog ? 1024 : 1;
    }
    if (!addr_any(l->addr) &&
        !rne_iw_eng_get(d, l->addr, vid ? tci : RNE_NO_VLAN, true)) {
        rne_steer_del_listener(d->steer, id);
        return RNIC_STS_NO_RESOURCES;
    }
    for (i = 0; i < iw->neng; i++) {
        if (addr_any(l->addr) || (!memcmp(iw->eng[i].addr, l->addr, 4) &&
                                  iw->eng[i].vlan == vid)) {
            l->tl[i] = rne_tcp_listen(iw->eng[i].tcp, port, l->backlog,
                                      (void *)(uintptr_t)(id + 1));
            if (l->tl[i] && vid) {
                /* its connections send with its priority */
                rne_tcp_listen_set_tci(l->tl[i], tci);
            }
            if (!l->tl[i]) {
                uint32_t j;

                for (j = 0; j < i; j++) {
                    if (l->tl[j]) {
                        rne_tcp_unlisten(iw->eng[j].tcp, l->tl[j]);
                    }
                }
                rne_steer_del_listener(d->steer, id);
                return RNIC_STS_EXISTS;
            }
        }
    }
    l->live = true;
    return RNIC_STS_OK;
}

static unsigned cmd_destroy_listen(struct rne_dev *d, uint32_t id)
{
    struct rne_iw *iw = d->iw;
    struct rne_iw_listener *l;
    uint32_t i;

    if (id >= d->cfg.max_listen) {
        return RNIC_STS_BAD_INDEX;
    }
    l = &iw->lis[id];
    if (!l->live) {
        return RNIC_STS_NOT_FOUND;
    }
    for (i = 0; i < iw->neng; i++) {
        if (l->tl[i]) {
            rne_tcp_unlisten(iw->eng[i].tcp, l->tl[i]);
        }
    }
    rne_steer_del_listener(d->steer, id);
    memset(l, 0, sizeof(*l));
    return RNIC_STS_OK;
}

static unsigned check_ird_ord(struct rne_dev *d, uint8_t ird, uint8_t ord,
                              uint8_t flags)
{
    if (ird > d->cfg.max_ird || ord > d->cfg.max_ord ||
        (flags & ~MPA_FLAGS_KNOWN)) {
        return RNIC_STS_BAD_PARAM;
    }
    return RNIC_STS_OK;
}

static unsigned cmd_connect(struct rne_dev *d,
                            const struct rnic_cmd_cm_connect *cmd,
                            struct rnic_admin_cqe *cqe)
{
    const struct rnic_tuple *t = &cmd->tuple;
    uint32_t flags = rne_le32_to_cpu(cmd->flags);
    uint16_t pdlen = rne_le16_to_cpu(cmd->pdata_len);
    uint16_t mss = rne_le16_to_cpu(cmd->mss);
    uint16_t rport = rne_le16_to_cpu(t->remote_port);
    uint16_t tci = rne_le16_to_cpu(cmd->vlan);
    uint16_t room = RNE_MPA_PD_MAX - (cmd->mpa_rev == 2 ? RNE_MPA_V2_LEN : 0);
    bool vlan = flags & RNIC_CONNECT_F_VLAN;
    struct rne_iw_conn *c;
    struct rne_iw_eng *e;
    struct rne_ipaddr ra;
    struct rne_qp *qp;
    uint16_t lport;
    unsigned sts;
    uint32_t i;

    sts = qp_for_bind(d, rne_le32_to_cpu(cmd->qpn), &qp);
    if (sts) {
        return sts;
    }
    if (t->family == RNIC_AF_IPV6) {
        return RNIC_STS_UNSUPPORTED;
    }
    if (t->family != RNIC_AF_IPV4 || (flags & ~RNIC_CONNECT_F_VLAN) ||
        (vlan && !tci_ok(tci)) || rport == 0 ||
        (cmd->mpa_rev != 1 && cmd->mpa_rev != 2) ||
        addr_any(t->local_addr) || addr_any(t->remote_addr) ||
        (cmd->next_hop_mac[0] & 1) || (mss && mss < 536)) {
        return RNIC_STS_BAD_PARAM;
    }
    for (i = 4; i < 16; i++) {
        if (t->local_addr[i] || t->remote_addr[i]) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    sts = check_ird_ord(d, cmd->ird, cmd->ord, cmd->mpa_flags);
    if (sts) {
        return sts;
    }
    c = rne_iw_conn_alloc(d);
    if (!c) {
        return RNIC_STS_NO_RESOURCES;
    }
    rne_trace_conn_state(&d->host, c->id, c->qpn, RNE_TRACE_NONE,
                         IWC_SYN_SENT);
    sts = read_pdata(d, rne_le64_to_cpu(cmd->pdata_addr), pdlen, c->hs->pdata,
                     room);
    /* the engine of the address on its VLAN; the PCP is this command's */
    e = sts ? NULL : rne_iw_eng_get(d, t->local_addr,
                                    vlan ? tci : RNE_NO_VLAN, true);
    if (!sts && !e) {
        sts = RNIC_STS_NO_RESOURCES;
    }
    if (sts) {
        rne_iw_conn_free(d, c);
        return sts;
    }
    c->active = true;
    c->eng = e;
    c->pdata_len = pdlen;
    c->loc.rev = cmd->mpa_rev;
    c->loc.crc = cmd->mpa_flags & RNIC_MPA_CRC;
    c->loc.markers = cmd->mpa_flags & RNIC_MPA_MARKERS;
    c->loc.rtr_caps = flags_to_rtr(cmd->mpa_flags);
    c->loc.p2p = c->loc.rtr_caps != 0;
    c->loc.ird = cmd->ird;
    c->loc.ord = cmd->ord;
    c->loc.rfc7306 = cmd->mpa_flags & RNIC_MPA_RFC7306;
    rne_mpa_make_request(&c->loc, &c->req);
    if (!rne_iw_qp_new(d, qp, c)) {
        rne_iw_conn_free(d, c);
        return RNIC_STS_NO_RESOURCES;
    }
    c->tuple = *t;
    lport = rne_le16_to_cpu(t->local_port);
    rne_ipaddr_v4(&ra, t->remote_addr[0], t->remote_addr[1],
                  t->remote_addr[2], t->remote_addr[3]);
    c->state = IWC_SYN_SENT;
    c->tc = rne_tcp_connect_tci(e->tcp, &ra, rport, lport,
                                cmd->next_hop_mac, vlan ? tci : 0, c,
                                rne_iw_now(d));
    if (!c->tc) {
        qp->iw = NULL;
        c->qpn = RNE_IW_NO_QP;
        rne_iw_conn_free(d, c);
        return lport ? RNIC_STS_EXISTS : RNIC_STS_NO_RESOURCES;
    }
    rne_tcp_get_tuple(c->tc, NULL, &lport, NULL, NULL);
    c->tuple.local_port = rne_cpu_to_le16(lport);
    c->key.family = RNIC_AF_IPV4;
    c->key.vlan = e->vlan;
    memcpy(c->key.laddr, t->local_addr, 4);
    memcpy(c->key.raddr, t->remote_addr, 4);
    c->key.lport = lport;
    c->key.rport = rport;
    rne_iw_steer_conn(d, c, true);
    rne_iw_conn_mtu(d, c->tc, mss);
    cqe->result0 = rne_cpu_to_le32(c->id);
    return RNIC_STS_OK;
}

static struct rne_iw_conn *conn_of(struct rne_dev *d, uint32_t id,
                                   unsigned *sts)
{
    struct rne_iw_conn *c;

    if (id >= d->cfg.max_conn) {
        *sts = RNIC_STS_BAD_INDEX;
        return NULL;
    }
    c = rne_iw_conn_find(d, id);
    if (!c || c->state == IWC_LINGER || (!c->active && !c->req_posted)) {
        *sts = RNIC_STS_NOT_FOUND;
        return NULL;
    }
    *sts = RNIC_STS_OK;
    return c;
}

static unsigned cmd_accept(struct rne_dev *d,
                           const struct rnic_cmd_cm_accept *cmd)
{
    uint16_t pdlen = rne_le16_to_cpu(cmd->pdata_len);
    uint8_t buf[RNE_MPA_RR_MAX], pd[RNE_MPA_PD_MAX];
    struct rne_mpa_local loc;
    struct rne_mpa_rr rep;
    struct rne_iw_conn *c;
    struct rne_qp *qp;
    unsigned sts;
    int n;

    c = conn_of(d, rne_le32_to_cpu(cmd->conn_id), &sts);
    if (!c) {
        return sts;
    }
    if (c->state != IWC_ACCEPT_WAIT) {
        return RNIC_STS_BAD_STATE;
    }
    if (cmd->rsvd || cmd->rsvd2) {
        return RNIC_STS_BAD_PARAM;
    }
    sts = check_ird_ord(d, cmd->ird, cmd->ord, cmd->mpa_flags);
    if (!sts) {
        sts = qp_for_bind(d, rne_le32_to_cpu(cmd->qpn), &qp);
    }
    if (!sts) {
        sts = read_pdata(d, rne_le64_to_cpu(cmd->pdata_addr), pdlen, pd,
                         RNE_MPA_PD_MAX - (c->req.enhanced ?
                                           RNE_MPA_V2_LEN : 0));
    }
    if (sts) {
        return sts;
    }
    memset(&loc, 0, sizeof(loc));
    loc.rev = 2;
    loc.crc = cmd->mpa_flags & RNIC_MPA_CRC;
    loc.markers = cmd->mpa_flags & RNIC_MPA_MARKERS;
    /*
     * Accept the RTRs the driver names, else any: make_reply prefers Read,
     * then Write, so Send only when it is all the initiator offers.
     */
    loc.rtr_caps = flags_to_rtr(cmd->mpa_flags);
    if (!loc.rtr_caps) {
        loc.rtr_caps = RNE_MPA_RTR_READ | RNE_MPA_RTR_WRITE |
                       RNE_MPA_RTR_SEND;
    }
    loc.p2p = true;
    loc.ird = cmd->ird;
    loc.ord = cmd->ord;
    loc.rfc7306 = cmd->mpa_flags & RNIC_MPA_RFC7306;
    /* Relaxed IRD (as siw): room for the Reads the initiator will issue. */
    if (c->req.enhanced && c->req.ord > loc.ird &&
        c->req.ord <= d->cfg.max_ird) {
        loc.ird = c->req.ord;
    }
    if (rne_mpa_make_reply(&c->req, &loc, &rep)) {
        return RNIC_STS_BAD_PARAM;      /* no common RTR: reject instead */
    }
    rep.pd = pd;
    rep.pd_len = pdlen;
    n = rne_mpa_rr_encode(&rep, buf, sizeof(buf));
    if (n <= 0) {
        return RNIC_STS_BAD_PARAM;
    }
    if (!rne_iw_qp_new(d, qp, c)) {
        return RNIC_STS_NO_RESOURCES;
    }
    c->loc = loc;
    rne_mpa_responder_neg(&c->req, &rep, &c->neg);
    c->iq->rfc7306 = c->neg.rfc7306;    /* as the Reply says, on the wire */
    rne_iw_mpa_done(d, c);
    rne_iw_conn_full_op(d, c);
    rne_iw_conn_set_ird_ord(c);
    rne_iw_trace_mpa(d, c, RNE_TRACE_MPA_ACCEPTED, 0, c->neg.rev,
                     c->req.pd_len);
    if (!c->tc || rne_tcp_send(c->tc, buf, (size_t)n, rne_iw_now(d))) {
        rne_iw_conn_abort(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNRESET);
        return RNIC_STS_OK;     /* the event tells the driver */
    }
    if (c->neg.rtr) {
        rne_iw_trace_state(d, c, IWC_RTR_WAIT);
        c->state = IWC_RTR_WAIT;
        rne_iw_set_deadline(d->iw, c, rne_iw_now(d) + RNE_IW_MPA_REP_NS);
    } else {
        rne_iw_cm_established(d, c, qp);
        /* WQEs posted while the QP was IDLE may go now. */
        rne_iw_tx_pump(d, qp);
    }
    return RNIC_STS_OK;
}

static unsigned cmd_reject(struct rne_dev *d,
                           const struct rnic_cmd_cm_reject *cmd)
{
    uint16_t pdlen = rne_le16_to_cpu(cmd->pdata_len);
    uint8_t buf[RNE_MPA_RR_MAX], pd[RNE_MPA_PD_MAX];
    struct rne_mpa_rr rep;
    struct rne_iw_conn *c;
    unsigned sts;
    int n;

    c = conn_of(d, rne_le32_to_cpu(cmd->conn_id), &sts);
    if (!c) {
        return sts;
    }
    if (c->state != IWC_ACCEPT_WAIT) {
        return RNIC_STS_BAD_STATE;
    }
    if (cmd->rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    sts = read_pdata(d, rne_le64_to_cpu(cmd->pdata_addr), pdlen, pd,
                     RNE_MPA_PD_MAX - (c->req.enhanced ? RNE_MPA_V2_LEN : 0));
    if (sts) {
        return sts;
    }
    memset(&rep, 0, sizeof(rep));
    rep.reply = true;
    rep.reject = true;
    rep.rev = c->req.rev >= 2 ? 2 : 1;
    rep.enhanced = c->req.enhanced && rep.rev == 2;
    rep.pd = pd;
    rep.pd_len = pdlen;
    n = rne_mpa_rr_encode(&rep, buf, sizeof(buf));
    if (n <= 0) {
        return RNIC_STS_BAD_PARAM;
    }
    /* The Reply, then FIN; the connection is no longer the driver's. */
    rne_iw_trace_state(d, c, IWC_LINGER);
    c->state = IWC_LINGER;
    if (c->tc) {
        rne_tcp_send(c->tc, buf, (size_t)n, rne_iw_now(d));
        rne_tcp_close(c->tc, rne_iw_now(d));
    } else {
        rne_iw_conn_free(d, c);
    }
    return RNIC_STS_OK;
}

static unsigned cmd_disconnect(struct rne_dev *d, uint32_t id)
{
    struct rne_iw_conn *c;
    unsigned sts;

    c = conn_of(d, id, &sts);
    if (!c) {
        return sts;
    }
    switch (c->state) {
    case IWC_RTS:
    case IWC_RTR_WAIT:
        rne_iw_conn_close(d, c);
        return RNIC_STS_OK;
    case IWC_CLOSING:
        return RNIC_STS_OK;
    default:
        return RNIC_STS_BAD_STATE;
    }
}

static unsigned cmd_abort(struct rne_dev *d, uint32_t id)
{
    struct rne_iw_conn *c;
    unsigned sts;

    c = conn_of(d, id, &sts);
    if (!c) {
        return sts;
    }
    rne_iw_conn_abort(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNABORTED);
    return RNIC_STS_OK;
}

unsigned rne_iw_cm_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                         struct rnic_admin_cqe *cqe)
{
    /* Connections report through the CM EQ: none, no new connections. */
    if ((cmd->hdr.opcode == RNIC_CMD_CM_LISTEN ||
         cmd->hdr.opcode == RNIC_CMD_CM_CONNECT) && !d->cm_eqn) {
        return RNIC_STS_BAD_STATE;
    }
    switch (cmd->hdr.opcode) {
    case RNIC_CMD_CM_LISTEN:
        return cmd_listen(d, &cmd->u.cm_listen);
    case RNIC_CMD_CM_DESTROY_LISTEN:
        return cmd_destroy_listen(d, rne_le32_to_cpu(cmd->u.obj.id));
    case RNIC_CMD_CM_CONNECT:
        return cmd_connect(d, &cmd->u.cm_connect, cqe);
    case RNIC_CMD_CM_ACCEPT:
        return cmd_accept(d, &cmd->u.cm_accept);
    case RNIC_CMD_CM_REJECT:
        return cmd_reject(d, &cmd->u.cm_reject);
    case RNIC_CMD_CM_DISCONNECT:
        return cmd_disconnect(d, rne_le32_to_cpu(cmd->u.obj.id));
    case RNIC_CMD_CM_ABORT:
        return cmd_abort(d, rne_le32_to_cpu(cmd->u.obj.id));
    default:
        return RNIC_STS_BAD_OPCODE;
    }
}
