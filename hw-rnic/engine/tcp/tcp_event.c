/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events for the upper layer: queued on the connection while the engine
 * works, taken by the upper layer (rne_tcp_pull) once its call into the
 * engine has returned, so the upper layer never runs inside the engine.
 */
#include "tcp_int.h"

void tcp_conn_event(struct rne_tcp_conn *c, unsigned ev)
{
    struct rne_tcp *t = c->t;

    c->ev |= (uint8_t)ev;
    if (c->in_ready) {
        return;
    }
    c->in_ready = true;
    c->rnext = NULL;
    if (t->ready_tail) {
        t->ready_tail->rnext = c;
    } else {
        t->ready = c;
    }
    t->ready_tail = c;
}

void tcp_conn_output_owed(struct rne_tcp_conn *c)
{
    c->out_owed = true;
    tcp_conn_event(c, 0);
}

/* What input owed c goes out now, with what the upper layer queued since. */
static void owed_output(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;

    c->out_owed = false;
    tcp_begin(t, t->now);
    tcp_output(c);
    tcp_end(t);
}

/*
 * The upper layer is done with the last event's connection: dropped (by it
 * or before), it goes back to the pool now, unless a CLOSED of its own is
 * still to be taken.
 */
static void release_held(struct rne_tcp *t)
{
    struct rne_tcp_conn *c = t->held;

    t->held = NULL;
    if (c && c->dead && !c->in_ready) {
        tcp_begin(t, t->now);
        c->dnext = t->dead;
        t->dead = c;
        tcp_end(t);
    }
}

bool rne_tcp_pull(struct rne_tcp *t, struct rne_tcp_event *ev)
{
    struct rne_tcp_conn *c = t->out_next;

    t->out_next = NULL;
    if (c && c->out_owed) {
        owed_output(c);
    }
    release_held(t);
    while ((c = t->ready)) {
        t->ready = c->rnext;
        if (!t->ready) {
            t->ready_tail = NULL;
        }
        c->in_ready = false;
        ev->conn = c;
        ev->user = c->user;
        ev->listen_user = c->listen_user;
        ev->events = c->ev;
        ev->err = c->ev_err;
        ev->time_wait = c->ev_time_wait;
        ev->acked = c->ev_acked;
        ev->emss = c->emss;
        c->ev = 0;
        c->ev_acked = 0;
        if (c->dead && (ev->events & RNE_TCP_EV_ACCEPTED)) {
            /* gone before anybody took it: nobody to tell */
            ev->events = 0;
        }
        if (ev->events & RNE_TCP_EV_ACCEPTED) {
            ev->user = NULL;
        } else if (c->dead || !ev->user) {
            /* a reset connection or one nobody reads has no data to read */
            tcp_begin(t, t->now);
            tcp_rd_drop(c);
            tcp_end(t);
            ev->events &= ~RNE_TCP_EV_READABLE;
        }
        /* a dropped one was kept for this event, its last */
        t->held = c;
        if (ev->events &&
            (ev->user || (ev->events & RNE_TCP_EV_ACCEPTED))) {
            t->out_next = c->out_owed ? c : NULL;
            return true;
        }
        /* an event nobody takes */
        if (c->out_owed) {
            owed_output(c);
        }
        release_held(t);
    }
    if (t->rd_conn) {
        /* the frame goes with this pull: what is left unread is kept */
        tcp_rd_frame_end(t);
        return rne_tcp_pull(t, ev);
    }
    return false;
}

/*
 * Is the event's connection still the receiver's?  A callback that aborted
 * it (or let it go) ends the event; the handle stays valid until the next
 * rne_tcp_pull, so asking is safe.
 */
static bool still_user(const struct rne_tcp_event *ev)
{
    return ev->conn->user == ev->user;
}

/* Every readable octet to ops->recv, span by span; the window stays. */
static void deliver_readable(struct rne_tcp *t, struct rne_tcp_conn *c,
                             void *user)
{
    struct rne_iov sp;

    /* the callback may abort c: the next span is asked for afresh */
    while (c->user == user && rne_tcp_peek(c, &sp, 1)) {
        if (t->ops->recv) {
            t->ops->recv(t->opaque, c, user, sp.base, sp.len);
        }
        if (c->user == user) {
            tcp_rd_take(c, (uint32_t)sp.len);
        }
    }
}

void rne_tcp_deliver(struct rne_tcp *t)
{
    struct rne_tcp_event ev;

    while (rne_tcp_pull(t, &ev)) {
        if (ev.events & RNE_TCP_EV_ACCEPTED) {
            ev.user = t->ops->accept ?
                      t->ops->accept(t->opaque, ev.listen_user, ev.conn) :
                      NULL;
            if (!ev.user) {
                rne_tcp_abort(ev.conn, t->now);
                continue;
            }
            rne_tcp_set_user(ev.conn, ev.user);
        }
        /* each callback while the connection is still the receiver's */
        if ((ev.events & RNE_TCP_EV_EMSS) && t->ops->emss) {
            t->ops->emss(t->opaque, ev.conn, ev.user, ev.emss);
        }
        if ((ev.events & RNE_TCP_EV_CONNECTED) && t->ops->connected &&
            still_user(&ev)) {
            t->ops->connected(t->opaque, ev.conn, ev.user);
        }
        if ((ev.events & RNE_TCP_EV_READABLE) && still_user(&ev)) {
            deliver_readable(t, ev.conn, ev.user);
        }
        if ((ev.events & RNE_TCP_EV_PEER_CLOSED) && t->ops->peer_closed &&
            still_user(&ev)) {
            t->ops->peer_closed(t->opaque, ev.conn, ev.user);
        }
        if ((ev.events & RNE_TCP_EV_ACKED) && t->ops->acked &&
            still_user(&ev)) {
            t->ops->acked(t->opaque, ev.conn, ev.user, ev.acked);
        }
        if ((ev.events & RNE_TCP_EV_CLOSED) && t->ops->closed &&
            still_user(&ev)) {
            t->ops->closed(t->opaque, ev.conn, ev.user, ev.err);
        }
    }
}
