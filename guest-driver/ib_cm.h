/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Connection endpoints shared by the iw_cm ops (ib_cm.c) and the CM event
 * handling (ib_cm_event.c).  Everything here is under rnic_ib.cm_lock.
 */
#ifndef RNIC_IB_CM_H
#define RNIC_IB_CM_H

#include <linux/net.h>
#include <linux/socket.h>

#include "ib.h"

struct rnic_listener {
	struct iw_cm_id *cm_id;		/* holds a reference */
	u32 listen_id;
	struct socket *port_sock;	/* keeps the guest's TCP off the port */
};

enum rnic_ep_state {
	RNIC_EP_CONNECTING,	/* active: CM_CONNECT sent */
	RNIC_EP_REQ_RECV,	/* passive: request handed to iw_cm */
	RNIC_EP_ACCEPTED,	/* passive: CM_ACCEPT sent */
	RNIC_EP_ESTABLISHED,
	RNIC_EP_CLOSING,	/* CM_DISCONNECT/CM_ABORT sent */
	RNIC_EP_DEAD,		/* connection gone, iw_cm still names us */
};

struct rnic_ep {
	struct list_head list;		/* rnic_ib.eps */
	struct rnic_ib *rib;
	u32 conn_id;
	bool in_xa;			/* conn_id is in rnic_ib.conns */
	enum rnic_ep_state state;
	struct iw_cm_id *cm_id;		/* holds a reference when set */
	struct rnic_qp *qp;		/* holds a reference when set */
	struct socket *port_sock;	/* active side's local port */
	struct sockaddr_storage laddr, raddr;
};

/* ib_cm.c */
int rnic_cm_cmd_obj(struct rnic_ib *rib, u8 opcode, u32 conn_id);

/* ib_cm_event.c */
struct rnic_ep *rnic_ep_new(struct rnic_ib *rib, u32 conn_id,
			    enum rnic_ep_state state);
int rnic_ep_set_conn(struct rnic_ep *ep, u32 conn_id);
void rnic_ep_release(struct rnic_ep *ep);
void rnic_ep_force_close(struct rnic_ep *ep, int status);

#endif /* RNIC_IB_CM_H */
