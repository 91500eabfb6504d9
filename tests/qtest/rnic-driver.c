/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test as the rnic driver (see rnic-driver.h).
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
#include "rnic-driver.h"

#define ADEPTH_LOG  3
#define ADEPTH      (1u << ADEPTH_LOG)

void rd_step(struct qt *q)
{
    qt_clock_step(q, 10000);
    usleep(200);
}

int rd_find(struct qt *q, int bus)
{
    uint32_t want = (uint32_t)RNIC_PCI_DEVICE_ID << 16 | RNIC_PCI_VENDOR_ID;
    int d;

    for (d = 0; d < 32; d++) {
        if (qt_pcib_read(q, bus, d << 3, 0) == want) {
            return d << 3;
        }
    }
    return -1;
}

void rd_map(struct rd *d)
{
    struct qt *q = d->q;

    qt_pcib_write(q, d->bus, d->devfn, 0x10, (uint32_t)d->bar0);
    qt_pcib_write(q, d->bus, d->devfn, 0x14, (uint32_t)(d->bar0 >> 32));
    qt_pcib_write(q, d->bus, d->devfn, 0x18, (uint32_t)d->bar2);
    qt_pcib_write(q, d->bus, d->devfn, 0x1c, (uint32_t)(d->bar2 >> 32));
    qt_pcib_write(q, d->bus, d->devfn, 0x20, (uint32_t)d->bar4);
    qt_pcib_write(q, d->bus, d->devfn, 0x24, (uint32_t)(d->bar4 >> 32));
    qt_pcib_write(q, d->bus, d->devfn, 0x04, 0x6);  /* memory, master */
}

uint64_t rd_alloc(struct rd *d, unsigned pages)
{
    uint64_t a = d->mem;

    d->mem += (uint64_t)pages * RNIC_PAGE_SIZE;
    if (d->mem > d->mem_end) {
        return 0;
    }
    qt_memset(d->q, a, 0, (size_t)pages * RNIC_PAGE_SIZE);
    return a;
}

void rd_pbl(struct rd *d, struct rnic_pbl *pbl, uint64_t base, unsigned pages)
{
    uint64_t list = rd_alloc(d, 1);
    unsigned i;

    for (i = 0; i < pages; i++) {
        uint64_t p = base + (uint64_t)i * RNIC_PAGE_SIZE;

        qt_memwrite(d->q, list + 8 * i, &p, 8);
    }
    memset(pbl, 0, sizeof(*pbl));
    pbl->addr = list;
    pbl->nentries = pages;
    pbl->page_shift = RNIC_PAGE_SHIFT;
    pbl->levels = 1;
}

uint32_t rd_reg(struct rd *d, uint32_t off)
{
    return qt_readl(d->q, d->bar0 + off);
}

void rd_set_reg(struct rd *d, uint32_t off, uint32_t val)
{
    qt_writel(d->q, d->bar0 + off, val);
}

void rd_doorbell(struct rd *d, uint32_t off, uint32_t obj, uint32_t flags,
                 uint32_t idx)
{
    qt_writeq(d->q, d->bar2 + off, RNIC_DB_VAL(obj, flags, idx));
}

bool rd_enable(struct rd *d)
{
    struct rnic_pbl sq, cq;
    int i;

    d->asq = rd_alloc(d, 1);
    d->acq = rd_alloc(d, 1);
    rd_pbl(d, &sq, d->asq, 1);
    rd_pbl(d, &cq, d->acq, 1);
    d->sq_tail = d->cq_head = 0;
    rd_set_reg(d, RNIC_REG_ADMQ_SQ_PBL_LO, (uint32_t)sq.addr);
    rd_set_reg(d, RNIC_REG_ADMQ_SQ_PBL_HI, (uint32_t)(sq.addr >> 32));
    rd_set_reg(d, RNIC_REG_ADMQ_CQ_PBL_LO, (uint32_t)cq.addr);
    rd_set_reg(d, RNIC_REG_ADMQ_CQ_PBL_HI, (uint32_t)(cq.addr >> 32));
    rd_set_reg(d, RNIC_REG_ADMQ_CFG, RNIC_ADMQ_CFG_SQ_LOG(ADEPTH_LOG) |
               RNIC_ADMQ_CFG_CQ_LOG(ADEPTH_LOG));
    rd_set_reg(d, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    for (i = 0; i < 2000; i++) {
        if (rd_reg(d, RNIC_REG_DEV_STATUS) & RNIC_STATUS_READY) {
            return true;
        }
        rd_step(d->q);
    }
    return false;
}

struct rnic_admin_cmd rd_mk(uint8_t opcode)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = opcode;
    return c;
}

unsigned rd_cmd(struct rd *d, struct rnic_admin_cmd *c)
{
    struct rnic_admin_cqe cqe;
    uint64_t slot = d->acq + (d->cq_head % ADEPTH) * RNIC_ADMIN_CQE_SIZE;
    uint8_t phase = ((d->cq_head / ADEPTH) & 1) ? 0 : 1;
    unsigned i;

    c->hdr.tag = ++d->tag;
    qt_memwrite(d->q, d->asq + (d->sq_tail % ADEPTH) * RNIC_ADMIN_CMD_SIZE,
                c, sizeof(*c));
    d->sq_tail++;
    rd_set_reg(d, RNIC_REG_ADMQ_SQ_TAIL, d->sq_tail);
    for (i = 0; i < (d->wait_steps ? d->wait_steps : 2000); i++) {
        qt_memread(d->q, slot, &cqe, sizeof(cqe));
        if ((cqe.flags & RNIC_CQE_PHASE) == phase) {
            d->cq_head++;
            rd_set_reg(d, RNIC_REG_ADMQ_CQ_HEAD, d->cq_head);
            d->result0 = cqe.result0;
            return cqe.tag == d->tag ? cqe.status : RD_TIMEOUT;
        }
        rd_step(d->q);
    }
    return RD_TIMEOUT;
}

unsigned rd_cmd_obj(struct rd *d, uint8_t opcode, uint32_t id)
{
    struct rnic_admin_cmd c = rd_mk(opcode);

    c.u.obj.id = id;
    return rd_cmd(d, &c);
}

static unsigned ring_pages(uint32_t entries, uint32_t size)
{
    return (entries * size + RNIC_PAGE_SIZE - 1) / RNIC_PAGE_SIZE;
}

unsigned rd_create_eq(struct rd *d, struct rd_eq *eq, uint32_t eqn,
                      unsigned log, uint8_t flags, uint64_t ring)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CREATE_EQ);
    unsigned pages = ring_pages(1u << log, RNIC_EQE_SIZE);

    memset(eq, 0, sizeof(*eq));
    eq->eqn = eqn;
    eq->depth = 1u << log;
    eq->ring = ring ? ring : rd_alloc(d, pages);
    c.u.create_eq.eqn = eqn;
    c.u.create_eq.log_depth = (uint8_t)log;
    c.u.create_eq.flags = flags;
    rd_pbl(d, &c.u.create_eq.ring, eq->ring, pages);
    if (flags & RNIC_EQ_F_CM) {
        pages = ring_pages(1u << log, RNIC_CM_PDATA_SLOT);
        eq->pdata = rd_alloc(d, pages);
        rd_pbl(d, &c.u.create_eq.pdata, eq->pdata, pages);
    }
    return rd_cmd(d, &c);
}

unsigned rd_create_pd(struct rd *d, uint32_t pdn)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CREATE_PD);

    c.u.create_pd.pdn = pdn;
    return rd_cmd(d, &c);
}

unsigned rd_create_cq(struct rd *d, struct rd_cq *cq, uint32_t cqn,
                      uint32_t eqn, unsigned log)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CREATE_CQ);
    unsigned pages = ring_pages(1u << log, RNIC_CQE_SIZE);

    memset(cq, 0, sizeof(*cq));
    cq->cqn = cqn;
    cq->depth = 1u << log;
    cq->ring = rd_alloc(d, pages);
    cq->dbrec = rd_alloc(d, 1);
    c.u.create_cq.cqn = cqn;
    c.u.create_cq.eqn = eqn;
    c.u.create_cq.log_depth = (uint8_t)log;
    c.u.create_cq.dbrec_addr = cq->dbrec;
    rd_pbl(d, &c.u.create_cq.ring, cq->ring, pages);
    return rd_cmd(d, &c);
}

unsigned rd_create_qp(struct rd *d, struct rd_qp *qp, uint32_t qpn,
                      uint32_t pdn, uint32_t cqn, unsigned sq_log,
                      unsigned rq_log)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CREATE_QP);
    struct rnic_cmd_create_qp *k = &c.u.create_qp;
    unsigned sp = ring_pages(1u << sq_log, RNIC_SQ_WQE_SIZE);
    unsigned rp = ring_pages(1u << rq_log, RNIC_RQ_WQE_SIZE);
    unsigned sts;

    memset(qp, 0, sizeof(*qp));
    qp->qpn = qpn;
    qp->sq_depth = 1u << sq_log;
    qp->rq_depth = 1u << rq_log;
    qp->sq = rd_alloc(d, sp);
    qp->rq = rd_alloc(d, rp);
    k->qpn = qpn;
    k->pdn = pdn;
    k->send_cqn = cqn;
    k->recv_cqn = cqn;
    k->srqn = RNIC_NO_SRQ;
    k->sq_log_depth = (uint8_t)sq_log;
    k->rq_log_depth = (uint8_t)rq_log;
    k->max_send_sge = RNIC_SQ_MAX_SGE;
    k->max_recv_sge = RNIC_RQ_MAX_SGE;
    k->max_inline = RNIC_SQ_MAX_INLINE;
    rd_pbl(d, &k->sq, qp->sq, sp);
    rd_pbl(d, &k->rq, qp->rq, rp);
    sts = rd_cmd(d, &c);
    if (sts != RNIC_STS_OK) {
        return sts;
    }
    c = rd_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = qpn;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    return rd_cmd(d, &c);
}

unsigned rd_reg_mr(struct rd *d, uint32_t stag, uint32_t pdn, uint64_t base,
                   unsigned pages)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_REG_MR);

    c.u.reg_mr.stag = stag;
    c.u.reg_mr.pdn = pdn;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.iova = base;
    c.u.reg_mr.length = (uint64_t)pages * RNIC_PAGE_SIZE;
    rd_pbl(d, &c.u.reg_mr.pages, base, pages);
    return rd_cmd(d, &c);
}

uint8_t rd_qp_state(struct rd *d, uint32_t qpn)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_QUERY_QP);
    struct rnic_qp_attr a;
    uint64_t buf = rd_alloc(d, 1);

    c.u.query_qp.qpn = qpn;
    c.u.query_qp.buf_len = sizeof(a);
    c.u.query_qp.buf_addr = buf;
    if (rd_cmd(d, &c) != RNIC_STS_OK) {
        return 0xff;
    }
    qt_memread(d->q, buf, &a, sizeof(a));
    return a.state;
}

unsigned rd_listen(struct rd *d, uint32_t id, const uint8_t ip[4],
                   uint16_t port)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CM_LISTEN);

    c.u.cm_listen.listen_id = id;
    c.u.cm_listen.backlog = 8;
    c.u.cm_listen.family = RNIC_AF_IPV4;
    c.u.cm_listen.port = port;
    memcpy(c.u.cm_listen.addr, ip, 4);
    return rd_cmd(d, &c);
}

unsigned rd_connect(struct rd *d, uint32_t qpn, const uint8_t lip[4],
                    const uint8_t rip[4], uint16_t rport,
                    const uint8_t mac[6], uint32_t *conn)
{
    return rd_connect_from(d, qpn, lip, 0, rip, rport, mac, conn);
}

unsigned rd_connect_from(struct rd *d, uint32_t qpn, const uint8_t lip[4],
                         uint16_t lport, const uint8_t rip[4], uint16_t rport,
                         const uint8_t mac[6], uint32_t *conn)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CM_CONNECT);
    struct rnic_cmd_cm_connect *k = &c.u.cm_connect;
    unsigned sts;

    k->qpn = qpn;
    k->tuple.family = RNIC_AF_IPV4;
    memcpy(k->tuple.local_addr, lip, 4);
    memcpy(k->tuple.remote_addr, rip, 4);
    k->tuple.local_port = lport;
    k->tuple.remote_port = rport;
    memcpy(k->next_hop_mac, mac, 6);
    k->ird = 4;
    k->ord = 4;
    k->mpa_rev = 2;
    k->mpa_flags = RNIC_MPA_CRC;
    sts = rd_cmd(d, &c);
    *conn = d->result0;
    return sts;
}

unsigned rd_accept(struct rd *d, uint32_t conn, uint32_t qpn)
{
    struct rnic_admin_cmd c = rd_mk(RNIC_CMD_CM_ACCEPT);

    c.u.cm_accept.conn_id = conn;
    c.u.cm_accept.qpn = qpn;
    c.u.cm_accept.ird = 4;
    c.u.cm_accept.ord = 4;
    c.u.cm_accept.mpa_flags = RNIC_MPA_CRC;
    return rd_cmd(d, &c);
}

bool rd_poll_eq(struct rd *d, struct rd_eq *eq, struct rnic_eqe *e)
{
    uint64_t slot = eq->ring + (uint64_t)(eq->cons & (eq->depth - 1)) *
                    RNIC_EQE_SIZE;
    uint8_t phase = ((eq->cons / eq->depth) & 1) ? 0 : 1;

    qt_memread(d->q, slot, e, sizeof(*e));
    if ((e->flags & RNIC_CQE_PHASE) != phase) {
        return false;
    }
    eq->cons++;
    rd_doorbell(d, RNIC_DB_EQ, eq->eqn, 0, eq->cons);
    return true;
}

bool rd_poll_cq(struct rd *d, struct rd_cq *cq, struct rnic_cqe *cqe)
{
    uint64_t slot = cq->ring + (uint64_t)(cq->cons & (cq->depth - 1)) *
                    RNIC_CQE_SIZE;
    uint8_t phase = ((cq->cons / cq->depth) & 1) ? 0 : 1;

    qt_memread(d->q, slot, cqe, sizeof(*cqe));
    if ((cqe->owner & RNIC_CQE_PHASE) != phase) {
        return false;
    }
    cq->cons++;
    qt_memwrite(d->q, cq->dbrec, &cq->cons, 4);
    return true;
}

void rd_send1(struct rd *d, struct rd_qp *qp, uint64_t wr_id, uint64_t addr,
              uint32_t len, uint32_t lkey)
{
    struct rnic_sq_wqe w;
    uint64_t slot = qp->sq + (uint64_t)(qp->sq_prod & (qp->sq_depth - 1)) *
                    RNIC_SQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = addr;
    w.data.sge[0].length = len;
    w.data.sge[0].lkey = lkey;
    qt_memwrite(d->q, slot, &w, sizeof(w));
    qp->sq_prod++;
    rd_doorbell(d, RNIC_DB_SQ, qp->qpn, 0, qp->sq_prod);
}

void rd_recv1(struct rd *d, struct rd_qp *qp, uint64_t wr_id, uint64_t addr,
              uint32_t len, uint32_t lkey)
{
    struct rnic_rq_wqe w;
    uint64_t slot = qp->rq + (uint64_t)(qp->rq_prod & (qp->rq_depth - 1)) *
                    RNIC_RQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = wr_id;
    w.num_sge = 1;
    w.sge[0].addr = addr;
    w.sge[0].length = len;
    w.sge[0].lkey = lkey;
    qt_memwrite(d->q, slot, &w, sizeof(w));
    qp->rq_prod++;
    rd_doorbell(d, RNIC_DB_RQ, qp->qpn, 0, qp->rq_prod);
}
