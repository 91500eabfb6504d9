// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * CM events: the CM EQ's interrupt handler copies each entry and its
 * private data slot, the ordered CM workqueue turns them into iw_cm events
 * under cm_lock.  iw_cm's rules shape what is sent when:
 *   active   CONNECT_REPLY (status 0, or an error: then nothing more);
 *   passive  ESTABLISHED after the accept (also on failure, then CLOSE);
 *   both     once established: DISCONNECT, then CLOSE; CLOSE is the last
 *            event and drops our cm_id and QP references.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>

#include "ib_cm.h"

struct rnic_cm_work {
	struct work_struct work;
	struct rnic_ib *rib;
	struct rnic_eqe eqe;
	u16 pdata_len;
	u8 pdata[];
};

struct rnic_ep *rnic_ep_new(struct rnic_ib *rib, u32 conn_id,
			    enum rnic_ep_state state)
{
	struct rnic_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return NULL;
	ep->rib = rib;
	ep->state = state;
	ep->conn_id = conn_id;
	list_add_tail(&ep->list, &rib->eps);
	return ep;
}

int rnic_ep_set_conn(struct rnic_ep *ep, u32 conn_id)
{
	int err = xa_err(xa_store(&ep->rib->conns, conn_id, ep, GFP_KERNEL));

	if (err)
		return err;
	ep->conn_id = conn_id;
	ep->in_xa = true;
	return 0;
}

/* The device forgot the connection: its id may name a new one soon. */
static void rnic_ep_unhash(struct rnic_ep *ep)
{
	if (ep->in_xa)
		xa_erase(&ep->rib->conns, ep->conn_id);
	ep->in_xa = false;
}

/* Drop everything the endpoint holds and free it. */
void rnic_ep_release(struct rnic_ep *ep)
{
	struct rnic_ib *rib = ep->rib;

	rnic_ep_unhash(ep);
	list_del(&ep->list);
	if (ep->qp) {
		WRITE_ONCE(ep->qp->ep, NULL);
		rnic_qp_put(&ep->qp->ibqp);
	}
	if (ep->cm_id) {
		ep->cm_id->provider_data = NULL;
		ep->cm_id->rem_ref(ep->cm_id);
	}
	if (ep->port_sock)
		sock_release(ep->port_sock);
	kfree(ep);
	wake_up_all(&rib->ep_wq);
}

static void rnic_sockaddr(struct sockaddr_storage *ss, u8 family,
			  const u8 *addr, u16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == RNIC_AF_IPV6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, addr, 16);
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, addr, 4);
		s4->sin_port = htons(port);
	}
}

static void rnic_ep_addrs_from(struct rnic_ep *ep, const struct rnic_tuple *t)
{
	rnic_sockaddr(&ep->laddr, t->family, t->local_addr,
		      le16_to_cpu(t->local_port));
	rnic_sockaddr(&ep->raddr, t->family, t->remote_addr,
		      le16_to_cpu(t->remote_port));
}

static void rnic_upcall(struct rnic_ep *ep, struct iw_cm_id *cm_id,
			enum iw_cm_event_type type, int status,
			struct rnic_cm_work *w)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.local_addr = ep->laddr,
		.remote_addr = ep->raddr,
	};

	if (w && (type == IW_CM_EVENT_CONNECT_REQUEST ||
		  type == IW_CM_EVENT_CONNECT_REPLY)) {
		ev.private_data = w->pdata;
		ev.private_data_len = w->pdata_len;
		ev.ird = w->eqe.u.cm.ird;
		ev.ord = w->eqe.u.cm.ord;
	}
	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		ev.provider_data = ep;
	if (cm_id)
		cm_id->event_handler(cm_id, &ev);
}

/*
 * End the connection as iw_cm expects for the state it is in, then let
 * go of the endpoint (unless iw_cm still names it: a request not yet
 * accepted or rejected stays as DEAD until it is).
 */
void rnic_ep_force_close(struct rnic_ep *ep, int status)
{
	switch (ep->state) {
	case RNIC_EP_CONNECTING:
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
			    status ?: -ECONNRESET, NULL);
		break;
	case RNIC_EP_ACCEPTED:
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_ESTABLISHED, status,
			    NULL);
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_CLOSE, status, NULL);
		break;
	case RNIC_EP_ESTABLISHED:
	case RNIC_EP_CLOSING:
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_DISCONNECT, status,
			    NULL);
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_CLOSE, status, NULL);
		break;
	case RNIC_EP_REQ_RECV:
		rnic_ep_unhash(ep);
		ep->state = RNIC_EP_DEAD;
		return;
	case RNIC_EP_DEAD:
		return;
	}
	if (ep->qp)
		ep->qp->state = IB_QPS_ERR;
	rnic_ep_release(ep);
}

/* The event's errno-like status when it is one we know, else by code. */
static int rnic_cm_status(u8 code, u16 status)
{
	switch (status) {
	case ECONNRESET:
	case ECONNABORTED:
	case ETIMEDOUT:
	case ECONNREFUSED:
	case EPROTO:
		return -status;
	}
	switch (code) {
	case RNIC_CM_REJECTED: return -ECONNREFUSED;
	case RNIC_CM_TIMEOUT: return -ETIMEDOUT;
	case RNIC_CM_MPA_ERROR: return -EPROTO;
	case RNIC_CM_RESET: return -ECONNRESET;
	default: return 0;
	}
}

static void rnic_cm_connect_request(struct rnic_ib *rib,
				    struct rnic_cm_work *w, u32 conn_id)
{
	u32 listen_id = le32_to_cpu(w->eqe.u.cm.listen_id);
	struct rnic_listener *l = xa_load(&rib->listeners, listen_id);
	struct rnic_ep *ep;

	if (!l || xa_load(&rib->conns, conn_id))
		goto refuse;
	ep = rnic_ep_new(rib, conn_id, RNIC_EP_REQ_RECV);
	if (!ep)
		goto refuse;
	if (rnic_ep_set_conn(ep, conn_id)) {
		rnic_ep_release(ep);
		goto refuse;
	}
	rnic_ep_addrs_from(ep, &w->eqe.u.cm.tuple);
	rnic_upcall(ep, l->cm_id, IW_CM_EVENT_CONNECT_REQUEST, 0, w);
	return;
refuse:
	rnic_cm_cmd_obj(rib, RNIC_CMD_CM_ABORT, conn_id);
}

static void rnic_cm_handle(struct rnic_ib *rib, struct rnic_cm_work *w)
{
	u32 conn_id = le32_to_cpu(w->eqe.obj);
	u8 code = w->eqe.code;
	struct rnic_ep *ep;
	u16 status;

	if (code == RNIC_CM_CONNECT_REQUEST) {
		rnic_cm_connect_request(rib, w, conn_id);
		return;
	}
	ep = xa_load(&rib->conns, conn_id);
	if (!ep)
		return;	/* already torn down by the driver */

	switch (code) {
	case RNIC_CM_CONNECT_REPLY:
		if (ep->state != RNIC_EP_CONNECTING)
			break;
		rnic_ep_addrs_from(ep, &w->eqe.u.cm.tuple);
		ep->state = RNIC_EP_ESTABLISHED;
		if (ep->qp)
			ep->qp->state = IB_QPS_RTS;
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0, w);
		break;
	case RNIC_CM_ESTABLISHED:
		if (ep->state != RNIC_EP_ACCEPTED)
			break;
		ep->state = RNIC_EP_ESTABLISHED;
		if (ep->qp)
			ep->qp->state = IB_QPS_RTS;
		rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_ESTABLISHED, 0, NULL);
		break;
	case RNIC_CM_REJECTED:
		if (ep->state == RNIC_EP_CONNECTING) {
			rnic_upcall(ep, ep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
				    -ECONNREFUSED, w);
			rnic_ep_release(ep);
			break;
		}
		fallthrough;
	case RNIC_CM_CLOSED:
	case RNIC_CM_RESET:
	case RNIC_CM_TIMEOUT:
	case RNIC_CM_MPA_ERROR:
		status = le16_to_cpu(w->eqe.u.cm.status);
		rnic_ep_force_close(ep, rnic_cm_status(code, status));
		break;
	default:
		dev_warn_ratelimited(&rib->rdev->pdev->dev,
				     "unknown CM event %u for connection %u\n",
				     code, conn_id);
		break;
	}
}

static void rnic_cm_work_fn(struct work_struct *work)
{
	struct rnic_cm_work *w = container_of(work, struct rnic_cm_work, work);
	struct rnic_ib *rib = w->rib;

	mutex_lock(&rib->cm_lock);
	rnic_cm_handle(rib, w);
	mutex_unlock(&rib->cm_lock);
	kfree(w);
}

/* CM EQ handler (hard IRQ): copy the entry and its private data out. */
void rnic_cm_eq_event(struct rnic_eq *eq, const struct rnic_eqe *eqe)
{
	struct rnic_ib *rib = eq->rdev->ib;
	const void *slot = rnic_ring_entry(&eq->pdata, eq->cons);
	u16 len = le16_to_cpu(eqe->u.cm.pdata_len);
	struct rnic_cm_work *w;

	if (!rib || eqe->type != RNIC_EQE_CM)
		return;
	if (len > RNIC_CM_PDATA_SLOT)
		len = 0;	/* nonsense from the device: no private data */
	w = kmalloc(struct_size(w, pdata, len), GFP_ATOMIC);
	if (!w) {
		dev_err_ratelimited(&eq->rdev->pdev->dev,
				    "CM event %u for connection %u lost: no memory\n",
				    eqe->code, le32_to_cpu(eqe->obj));
		return;
	}
	INIT_WORK(&w->work, rnic_cm_work_fn);
	w->rib = rib;
	w->eqe = *eqe;
	w->pdata_len = len;
	memcpy(w->pdata, slot, len);
	queue_work(rib->cm_wq, &w->work);
}

/*
 * Close every connection in software: the device was reset (no more CM
 * events) or the ib_device is going away.  Requests iw_cm still holds stay
 * DEAD until it accepts or rejects them; on unregister nobody will.
 */
void rnic_cm_close_all(struct rnic_ib *rib, bool final)
{
	struct rnic_ep *ep, *tmp;

	mutex_lock(&rib->cm_lock);
	list_for_each_entry_safe(ep, tmp, &rib->eps, list) {
		rnic_ep_force_close(ep, -ECONNRESET);
		/* force_close may have freed ep; tmp is still valid. */
	}
	if (final) {
		list_for_each_entry_safe(ep, tmp, &rib->eps, list)
			rnic_ep_release(ep);
	}
	mutex_unlock(&rib->cm_lock);
}

static void rnic_cm_dead_work(struct work_struct *work)
{
	rnic_cm_close_all(container_of(work, struct rnic_ib, cm_dead_work),
			  false);
}

void rnic_cm_init(struct rnic_ib *rib)
{
	mutex_init(&rib->cm_lock);
	INIT_LIST_HEAD(&rib->eps);
	init_waitqueue_head(&rib->ep_wq);
	INIT_WORK(&rib->cm_dead_work, rnic_cm_dead_work);
}

/* Device reset: may be called with cm_lock held (from a failing command). */
void rnic_cm_dev_dead(struct rnic_ib *rib)
{
	queue_work(rib->cm_wq, &rib->cm_dead_work);
}
