// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demultiplexing: connections in a chained hash table keyed by the 4-tuple
 * (the local address is the engine's own), listeners in a small table by port.
 * Both are O(1) per segment for thousands of connections.
 */
#include "tcp_int.h"

struct rne_tcp_conn *tcp_lookup(struct rne_tcp *t,
                                const struct rne_ipaddr *raddr,
                                uint16_t lport, uint16_t rport)
{
    struct rne_tcp_conn *c = t->last;
    if (c && c->lport == lport && c->rport == rport &&
        rne_ipaddr_eq(&c->raddr, raddr)) {
        return c;
    }
    uint32_t h = tcp_tuple_hash(t, raddr, lport, rport);
    for (c = t->hash[h & t->hmask]; c; c = c->hnext) {
        if (c->hash == h && c->lport == lport && c->rport == rport &&
            rne_ipaddr_eq(&c->raddr, raddr)) {
            t->last = c;
            return c;
        }
    }
    return NULL;
}

void tcp_hash_insert(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    c->hash = tcp_tuple_hash(t, &c->raddr, c->lport, c->rport);
    struct rne_tcp_conn **b = &t->hash[c->hash & t->hmask];
    c->hnext = *b;
    *b = c;
    c->in_hash = true;
}

void tcp_hash_remove(struct rne_tcp_conn *c)
{
    if (c->t->last == c) {
        c->t->last = NULL;
    }
    if (!c->in_hash) {
        return;
    }
    struct rne_tcp_conn **p = &c->t->hash[c->hash & c->t->hmask];
    while (*p && *p != c) {
        p = &(*p)->hnext;
    }
    if (*p) {
        *p = c->hnext;
    }
    c->hnext = NULL;
    c->in_hash = false;
}

struct rne_tcp_listener *tcp_listener_find(struct rne_tcp *t, uint16_t port)
{
    for (struct rne_tcp_listener *l = t->lhash[port & 63]; l; l = l->next) {
        if (l->port == port) {
            return l;
        }
    }
    return NULL;
}
