// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The iw_cm ops on the device's offloaded connection manager: CM_LISTEN,
 * CM_CONNECT, CM_ACCEPT, CM_REJECT, CM_DISCONNECT, CM_ABORT.
 *
 * Ports: the device runs its own TCP, so the guest's TCP must never use a
 * port the device uses.  Every listener and every active connection owns a
 * kernel TCP socket bound to its port (never listening, never connected):
 * the guest stack then neither hands that port out as an ephemeral port
 * nor lets an application bind it.  Active connections take their local
 * port from such a bind to port 0, so the guest picks a port free in its
 * own space.  iwpmd port mapping is therefore not needed
 * (IW_F_NO_PORT_MAP).
 *
 * Next hop: CM_CONNECT carries the next-hop MAC, looked up in the guest's
 * neighbour table along the route to the peer (as cxgb4 and irdma do).  A
 * peer on this host (loopback) gets the port's own MAC: the device loops
 * such frames back to its own listeners without the wire.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <net/ipv6.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sock.h>

#include "ib_cm.h"

static bool mpa_crc = true;
module_param(mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "ask for MPA CRC32c on new connections (default on)");

static bool mpa_markers;
module_param(mpa_markers, bool, 0644);
MODULE_PARM_DESC(mpa_markers, "ask for MPA markers on new connections (default off)");

static bool mpa_rfc7306 = true;
module_param(mpa_rfc7306, bool, 0644);
MODULE_PARM_DESC(mpa_rfc7306, "offer RFC 7306 (Atomics, Immediate Data) on new connections; on only where the peer agrees on the wire (default on; 0 never offers)");

static uint mpa_p2p;
module_param(mpa_p2p, uint, 0644);
MODULE_PARM_DESC(mpa_p2p, "MPA v2 peer-to-peer RTR: 0 none, 1 zero-length Write, 2 Read, 4 Send");

static uint mpa_rev = 2;
module_param(mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "MPA revision of new active connections: 1 (RFC 5044) or 2 (RFC 6581, default)");

/* How long destroy_qp waits for an aborted connection to let go. */
#define RNIC_CM_CLOSE_WAIT	(5 * HZ)
/* How long iw_connect waits for the neighbour to resolve. */
#define RNIC_NEIGH_WAIT_MS	3000

static u8 rnic_mpa_flags(struct rnic_ib *rib)
{
	u32 feat = rib->rdev->caps.features;
	u8 f = 0;

	if (mpa_crc && (feat & RNIC_FEAT_MPA_CRC))
		f |= RNIC_MPA_CRC;
	if (mpa_markers && (feat & RNIC_FEAT_MPA_MARKERS))
		f |= RNIC_MPA_MARKERS;
	if (mpa_rfc7306 && (feat & (RNIC_FEAT_IMM | RNIC_FEAT_ATOMICS)))
		f |= RNIC_MPA_RFC7306;
	if (mpa_p2p & 1)
		f |= RNIC_MPA_P2P_WRITE;
	if (mpa_p2p & 2)
		f |= RNIC_MPA_P2P_READ;
	if (mpa_p2p & 4)
		f |= RNIC_MPA_P2P_SEND;
	return f;
}

int rnic_cm_cmd_obj(struct rnic_ib *rib, u8 opcode, u32 conn_id)
{
	struct rnic_admin_cmd cmd = {};

	cmd.hdr.opcode = opcode;
	cmd.u.obj.id = cpu_to_le32(conn_id);
	return rnic_admin_exec(rib->rdev, &cmd, NULL);
}

/* Private data goes to the device from a DMA buffer of its own. */
struct rnic_pdata {
	void *buf;
	dma_addr_t dma;
	u16 len;
};

static int rnic_pdata_get(struct rnic_ib *rib, struct rnic_pdata *p,
			  const void *data, u32 len)
{
	memset(p, 0, sizeof(*p));
	if (len > RNIC_MPA_MAX_PDATA)
		return -EINVAL;
	if (!len)
		return 0;
	p->buf = dma_alloc_coherent(&rib->rdev->pdev->dev, len, &p->dma,
				    GFP_KERNEL);
	if (!p->buf)
		return -ENOMEM;
	memcpy(p->buf, data, len);
	p->len = len;
	return 0;
}

static void rnic_pdata_put(struct rnic_ib *rib, struct rnic_pdata *p)
{
	if (p->buf)
		dma_free_coherent(&rib->rdev->pdev->dev, p->len, p->buf,
				  p->dma);
}

/* A kernel TCP socket holding addr's port (0: let the guest pick one). */
static int rnic_port_reserve(struct sockaddr_storage *addr, bool shared,
			     struct socket **out)
{
	int len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						sizeof(struct sockaddr_in);
	struct socket *sock;
	int err;

	err = sock_create_kern(&init_net, addr->ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (err)
		return err;
	/* Listeners of several rnic ports may share a wildcard port. */
	if (shared)
		sock->sk->sk_reuse = SK_CAN_REUSE;
	err = kernel_bind(sock, (struct sockaddr *)addr, len);
	if (!err)
		err = kernel_getsockname(sock, (struct sockaddr *)addr) < 0 ?
		      -EINVAL : 0;
	if (err) {
		sock_release(sock);
		return err;
	}
	*out = sock;
	return 0;
}

static u16 rnic_ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void rnic_ss_addr(const struct sockaddr_storage *ss, u8 *out16)
{
	memset(out16, 0, 16);
	if (ss->ss_family == AF_INET6)
		memcpy(out16, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	else
		memcpy(out16, &((const struct sockaddr_in *)ss)->sin_addr, 4);
}

/*
 * The device's listener address: an IPv6 wildcard or v4-mapped address
 * becomes its IPv4 form (the offload engine speaks IPv4), other IPv6
 * addresses go as they are (the device may refuse them).
 */
static void rnic_listen_addr(const struct sockaddr_storage *ss,
			     struct rnic_cmd_cm_listen *c)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	c->family = RNIC_AF_IPV4;
	memset(c->addr, 0, sizeof(c->addr));
	if (ss->ss_family == AF_INET) {
		rnic_ss_addr(ss, c->addr);
	} else if (ipv6_addr_v4mapped(&s6->sin6_addr)) {
		memcpy(c->addr, &s6->sin6_addr.s6_addr32[3], 4);
	} else if (!ipv6_addr_any(&s6->sin6_addr)) {
		c->family = RNIC_AF_IPV6;
		memcpy(c->addr, &s6->sin6_addr, 16);
	}
}

/*
 * The 802.1Q TCI of a VLAN device on our port: its VID, and the priority
 * its egress map gives the connection's TOS (as the VLAN device tags a
 * socket's frames); 0 when dev is no VLAN of ours.
 */
static u16 rnic_vlan_tci(struct net_device *nd, struct net_device *dev,
			 u8 tos)
{
	if (!is_vlan_dev(dev) || vlan_dev_real_dev(dev) != nd)
		return 0;
	return vlan_dev_vlan_id(dev) |
	       (vlan_dev_get_egress_qos_mask(dev, rt_tos2priority(tos)) &
		VLAN_PRIO_MASK);
}

/*
 * A listener on an address of a VLAN device on our port answers only the
 * SYNs tagged with that VLAN, and tags its connections alike; a wildcard
 * listener serves every VLAN (the device knows the guest's addresses).
 */
static void rnic_listen_vlan(struct rnic_ib *rib, struct iw_cm_id *cm_id,
			     struct rnic_cmd_cm_listen *c)
{
	struct net_device *dev;
	__be32 addr;
	u16 tci;

	if (c->family != RNIC_AF_IPV4)
		return;
	memcpy(&addr, c->addr, 4);
	if (!addr || ipv4_is_loopback(addr))
		return;
	dev = ip_dev_find(&init_net, addr);
	if (!dev)
		return;
	tci = rnic_vlan_tci(rib->rdev->netdev, dev, cm_id->tos);
	dev_put(dev);
	if (tci) {
		c->flags = cpu_to_le32(RNIC_LISTEN_F_VLAN);
		c->vlan = cpu_to_le16(tci);
	}
}

int rnic_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct rnic_ib *rib = to_rib(cm_id->device);
	struct sockaddr_storage addr = cm_id->m_local_addr;
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_cm_listen *c = &cmd.u.cm_listen;
	struct rnic_listener *l;
	int id, err;

	if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	rnic_listen_addr(&addr, c);
	rnic_listen_vlan(rib, cm_id, c);
	/*
	 * An IPv6-only wildcard (IPV6_V6ONLY: svcrdma's next to its IPv4
	 * one on the same port) is no IPv4 listener: the device is asked
	 * for IPv6 as it is.
	 */
	if (cm_id->afonly && addr.ss_family == AF_INET6 &&
	    ipv6_addr_any(&((struct sockaddr_in6 *)&addr)->sin6_addr))
		c->family = RNIC_AF_IPV6;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	id = ida_alloc_max(&rib->listen_ida, rib->caps.max_listen - 1,
			   GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto err_free;
	}
	l->listen_id = id;
	l->cm_id = cm_id;
	err = rnic_port_reserve(&addr, true, &l->port_sock);
	if (err)
		goto err_ida;

	cmd.hdr.opcode = RNIC_CMD_CM_LISTEN;
	c->listen_id = cpu_to_le32(l->listen_id);
	c->backlog = cpu_to_le32(max(backlog, 1));
	c->port = cpu_to_le16(rnic_ss_port(&addr));
	mutex_lock(&rib->cm_lock);
	err = xa_err(xa_store(&rib->listeners, l->listen_id, l, GFP_KERNEL));
	if (!err) {
		err = rnic_admin_exec(rib->rdev, &cmd, NULL);
		if (err)
			xa_erase(&rib->listeners, l->listen_id);
	}
	mutex_unlock(&rib->cm_lock);
	/* A device without IPv6 lacks the family, as callers expect. */
	if (err == -EOPNOTSUPP && c->family == RNIC_AF_IPV6)
		err = -EAFNOSUPPORT;
	if (err)
		goto err_sock;
	cm_id->provider_data = l;
	cm_id->add_ref(cm_id);
	return 0;

err_sock:
	sock_release(l->port_sock);
err_ida:
	ida_free(&rib->listen_ida, l->listen_id);
err_free:
	kfree(l);
	return err;
}

int rnic_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct rnic_ib *rib = to_rib(cm_id->device);
	struct rnic_listener *l = cm_id->provider_data;

	if (!l)
		return 0;
	mutex_lock(&rib->cm_lock);
	/* The device keeps no state a missing listener could hurt. */
	rnic_cm_cmd_obj(rib, RNIC_CMD_CM_DESTROY_LISTEN, l->listen_id);
	xa_erase(&rib->listeners, l->listen_id);
	mutex_unlock(&rib->cm_lock);
	sock_release(l->port_sock);
	ida_free(&rib->listen_ida, l->listen_id);
	cm_id->provider_data = NULL;
	kfree(l);
	cm_id->rem_ref(cm_id);
	return 0;
}

/*
 * The peer is on this host (the route goes through lo).  The device serves
 * its own addresses, those of a VLAN on it and 127.0.0.0/8 (as irdma does)
 * by looping the frames back inside itself: the next hop is its own MAC,
 * no neighbour is looked up.  An address of another net_device is not
 * reachable through our port.
 */
/*
 * dev carries the route: our port itself, or a VLAN on it (tagged in
 * CM_CONNECT); any other net_device is not reachable through our port.
 */
static int rnic_hop_dev(struct net_device *nd, struct net_device *dev,
			u8 tos, struct rnic_cmd_cm_connect *c)
{
	u16 tci = rnic_vlan_tci(nd, dev, tos);

	if (tci) {
		c->flags |= cpu_to_le32(RNIC_CONNECT_F_VLAN);
		c->vlan = cpu_to_le16(tci);
		return 0;
	}
	return dev == nd ? 0 : -ENETUNREACH;
}

static int rnic_self_hop(struct net_device *nd, __be32 daddr, u8 tos,
			 struct rnic_cmd_cm_connect *c)
{
	struct net_device *owner;
	int err = 0;

	if (!ipv4_is_loopback(daddr)) {
		owner = ip_dev_find(&init_net, daddr);
		if (!owner)
			return -ENETUNREACH;
		err = rnic_hop_dev(nd, owner, tos, c);
		dev_put(owner);
	}
	if (!err)
		ether_addr_copy(c->next_hop_mac, nd->dev_addr);
	return err;
}

/*
 * Route to the peer over our port (or a VLAN on it) and the next hop's
 * MAC from the neighbour table, resolving it if needed (sleeps); a peer
 * on this host through the device itself (rnic_self_hop).
 */
static int rnic_next_hop(struct rnic_ib *rib, struct sockaddr_in *local,
			 const struct sockaddr_in *remote, u8 tos,
			 struct rnic_cmd_cm_connect *c)
{
	struct net_device *nd = rib->rdev->netdev, *dev;
	struct flowi4 fl4 = {
		.daddr = remote->sin_addr.s_addr,
		.saddr = local->sin_addr.s_addr,
	};
	struct neighbour *n;
	struct rtable *rt;
	int waited = 0, err = 0;

	rt = ip_route_output_key(&init_net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	dev = rt->dst.dev;
	if (rt->rt_type == RTN_LOCAL) {
		err = rnic_self_hop(nd, fl4.daddr, tos, c);
		if (!err && !local->sin_addr.s_addr)
			local->sin_addr.s_addr = fl4.saddr;
		goto out_rt;
	}
	err = rnic_hop_dev(nd, dev, tos, c);
	if (err)
		goto out_rt;
	if (!local->sin_addr.s_addr)
		local->sin_addr.s_addr = fl4.saddr;
	n = dst_neigh_lookup(&rt->dst, &remote->sin_addr.s_addr);
	if (!n) {
		err = -ENETUNREACH;
		goto out_rt;
	}
	while (!(READ_ONCE(n->nud_state) & NUD_VALID)) {
		if (waited >= RNIC_NEIGH_WAIT_MS) {
			err = -EHOSTUNREACH;
			goto out_neigh;
		}
		neigh_event_send(n, NULL);
		msleep(20);
		waited += 20;
	}
	neigh_ha_snapshot(c->next_hop_mac, n, dev);
out_neigh:
	neigh_release(n);
out_rt:
	ip_rt_put(rt);
	return err;
}

/* The connection now drives the QP; cm_lock is held. */
static void rnic_ep_bind(struct rnic_ep *ep, struct rnic_qp *qp,
			 struct iw_cm_id *cm_id)
{
	ep->qp = qp;
	rnic_qp_get(&qp->ibqp);
	WRITE_ONCE(qp->ep, ep);
	ep->cm_id = cm_id;
	cm_id->add_ref(cm_id);
}

int rnic_iw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct rnic_ib *rib = to_rib(cm_id->device);
	struct sockaddr_storage laddr = cm_id->m_local_addr;
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_cm_connect *c = &cmd.u.cm_connect;
	struct socket *sock = NULL;
	struct rnic_pdata pd;
	struct rnic_ep *ep;
	struct rnic_qp *qp;
	u32 conn_id;
	int err;

	/* IPv6 needs an ip6 route/neighbour lookup this driver lacks yet. */
	if (laddr.ss_family != AF_INET ||
	    cm_id->m_remote_addr.ss_family != AF_INET)
		return -EAFNOSUPPORT;
	qp = xa_load(&rib->qps, param->qpn);
	if (!qp)
		return -EINVAL;
	err = rnic_qp_grant_iw_access(qp);
	if (err)
		return err;
	err = rnic_next_hop(rib, (struct sockaddr_in *)&laddr,
			    (struct sockaddr_in *)&cm_id->m_remote_addr,
			    cm_id->tos, c);
	if (err)
		return err;
	((struct sockaddr_in *)&laddr)->sin_port = 0;
	err = rnic_port_reserve(&laddr, false, &sock);
	if (err)
		return err;
	err = rnic_pdata_get(rib, &pd, param->private_data,
			     param->private_data_len);
	if (err)
		goto err_sock;

	cmd.hdr.opcode = RNIC_CMD_CM_CONNECT;
	c->qpn = cpu_to_le32(qp->qpn);
	c->tuple.family = RNIC_AF_IPV4;
	rnic_ss_addr(&laddr, c->tuple.local_addr);
	rnic_ss_addr(&cm_id->m_remote_addr, c->tuple.remote_addr);
	c->tuple.local_port = cpu_to_le16(rnic_ss_port(&laddr));
	c->tuple.remote_port = cpu_to_le16(rnic_ss_port(&cm_id->m_remote_addr));
	c->ird = min_t(u32, param->ird, rib->caps.max_ird);
	c->ord = min_t(u32, param->ord, rib->caps.max_ord);
	c->mpa_rev = mpa_rev == 1 ? 1 : 2;
	c->mpa_flags = rnic_mpa_flags(rib);
	c->pdata_len = cpu_to_le16(pd.len);
	c->pdata_addr = cpu_to_le64(pd.dma);

	mutex_lock(&rib->cm_lock);
	ep = rnic_ep_new(rib, 0, RNIC_EP_CONNECTING);
	err = -ENOMEM;
	if (!ep)
		goto err_unlock;
	err = rnic_admin_exec(rib->rdev, &cmd, &conn_id);
	if (err) {
		rnic_ep_release(ep);
		goto err_unlock;
	}
	err = rnic_ep_set_conn(ep, conn_id);
	if (err) {
		rnic_cm_cmd_obj(rib, RNIC_CMD_CM_ABORT, conn_id);
		rnic_ep_release(ep);
		goto err_unlock;
	}
	ep->laddr = laddr;
	ep->raddr = cm_id->m_remote_addr;
	ep->port_sock = sock;
	rnic_ep_bind(ep, qp, cm_id);
	cm_id->provider_data = ep;
	mutex_unlock(&rib->cm_lock);
	rnic_pdata_put(rib, &pd);
	return 0;

err_unlock:
	mutex_unlock(&rib->cm_lock);
	rnic_pdata_put(rib, &pd);
err_sock:
	sock_release(sock);
	return err;
}

/* iw_cm forgets the request after a failed accept: so do we. */
static void rnic_ep_accept_failed(struct rnic_ib *rib, struct rnic_ep *ep,
				  struct iw_cm_id *cm_id)
{
	lockdep_assert_held(&rib->cm_lock);
	if (ep->state == RNIC_EP_REQ_RECV)
		rnic_cm_cmd_obj(rib, RNIC_CMD_CM_ABORT, ep->conn_id);
	cm_id->provider_data = NULL;
	rnic_ep_release(ep);
}

int rnic_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct rnic_ib *rib = to_rib(cm_id->device);
	struct rnic_ep *ep = cm_id->provider_data;
	struct rnic_admin_cmd cmd = {};
	struct rnic_cmd_cm_accept *c = &cmd.u.cm_accept;
	struct rnic_pdata pd;
	struct rnic_qp *qp;
	int err;

	if (!ep)
		return -EINVAL;
	qp = xa_load(&rib->qps, param->qpn);
	err = qp ? rnic_qp_grant_iw_access(qp) : -EINVAL;
	if (!err)
		err = rnic_pdata_get(rib, &pd, param->private_data,
				     param->private_data_len);
	if (err) {
		mutex_lock(&rib->cm_lock);
		rnic_ep_accept_failed(rib, ep, cm_id);
		mutex_unlock(&rib->cm_lock);
		return err;
	}
	mutex_lock(&rib->cm_lock);
	qp = xa_load(&rib->qps, param->qpn);
	if (ep->state != RNIC_EP_REQ_RECV || !qp || qp->ep) {
		err = ep->state == RNIC_EP_DEAD ? -ECONNRESET : -EINVAL;
		goto err_drop;
	}
	cmd.hdr.opcode = RNIC_CMD_CM_ACCEPT;
	c->conn_id = cpu_to_le32(ep->conn_id);
	c->qpn = cpu_to_le32(qp->qpn);
	c->ird = min_t(u32, param->ird, rib->caps.max_ird);
	c->ord = min_t(u32, param->ord, rib->caps.max_ord);
	c->mpa_flags = rnic_mpa_flags(rib);
	c->pdata_len = cpu_to_le16(pd.len);
	c->pdata_addr = cpu_to_le64(pd.dma);
	err = rnic_admin_exec(rib->rdev, &cmd, NULL);
	if (err)
		goto err_drop;
	ep->state = RNIC_EP_ACCEPTED;
	rnic_ep_bind(ep, qp, cm_id);
	mutex_unlock(&rib->cm_lock);
	rnic_pdata_put(rib, &pd);
	return 0;

err_drop:
	rnic_ep_accept_failed(rib, ep, cm_id);
	mutex_unlock(&rib->cm_lock);
	rnic_pdata_put(rib, &pd);
	return err;
}

int rnic_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct rnic_ib *rib = to_rib(cm_id->device);
	struct rnic_ep *ep = cm_id->provider_data;
	struct rnic_admin_cmd cmd = {};
	struct rnic_pdata pd;
	int err;

	if (!ep)
		return -EINVAL;
	err = rnic_pdata_get(rib, &pd, pdata, pdata_len);
	mutex_lock(&rib->cm_lock);
	if (ep->state == RNIC_EP_REQ_RECV) {
		cmd.hdr.opcode = RNIC_CMD_CM_REJECT;
		cmd.u.cm_reject.conn_id = cpu_to_le32(ep->conn_id);
		cmd.u.cm_reject.pdata_len = cpu_to_le16(err ? 0 : pd.len);
		cmd.u.cm_reject.pdata_addr = cpu_to_le64(err ? 0 : pd.dma);
		if (rnic_admin_exec(rib->rdev, &cmd, NULL))
			rnic_cm_cmd_obj(rib, RNIC_CMD_CM_ABORT, ep->conn_id);
	}
	cm_id->provider_data = NULL;
	rnic_ep_release(ep);
	mutex_unlock(&rib->cm_lock);
	if (!err)
		rnic_pdata_put(rib, &pd);
	return 0;
}

/*
 * modify_qp to SQD (graceful: FIN after the SQ drained) or ERR (abort:
 * RST).  The CLOSED/RESET event that follows ends the endpoint.
 */
int rnic_cm_qp_close(struct rnic_ib *rib, struct rnic_qp *qp, bool abort)
{
	struct rnic_ep *ep;
	int err = 0;

	mutex_lock(&rib->cm_lock);
	ep = qp->ep;
	if (ep && ep->in_xa &&
	    (ep->state == RNIC_EP_ESTABLISHED || abort)) {
		err = rnic_cm_cmd_obj(rib, abort ? RNIC_CMD_CM_ABORT :
					       RNIC_CMD_CM_DISCONNECT,
				      ep->conn_id);
		ep->state = RNIC_EP_CLOSING;
	}
	mutex_unlock(&rib->cm_lock);
	/* The connection may already be gone on the device side. */
	return (err == -ENOENT || err == -EPERM || err == -EIO) ? 0 : err;
}

/*
 * destroy_qp: a connection still bound to the QP is aborted; if its end
 * does not come within RNIC_CM_CLOSE_WAIT it is ended in software, so the
 * QP's references are gone before the core frees it.
 */
void rnic_cm_qp_gone(struct rnic_ib *rib, struct rnic_qp *qp)
{
	struct rnic_ep *ep;

	if (!READ_ONCE(qp->ep))
		return;
	rnic_cm_qp_close(rib, qp, true);
	if (wait_event_timeout(rib->ep_wq, !READ_ONCE(qp->ep),
			       RNIC_CM_CLOSE_WAIT))
		return;
	mutex_lock(&rib->cm_lock);
	ep = qp->ep;
	if (ep) {
		dev_warn(&rib->rdev->pdev->dev,
			 "connection %u of QP %u did not close: ending it\n",
			 ep->conn_id, qp->qpn);
		rnic_ep_force_close(ep, -ECONNRESET);
	}
	mutex_unlock(&rib->cm_lock);
}
