# SPDX-License-Identifier: GPL-2.0-or-later
"""
What post_send/post_recv/post_srq_recv answer to a user's mistakes, through
the rnic provider and the real driver and device (run by rnic-user-pyverbs.sh
with the staged pyverbs): each bad work request returns EINVAL or ENOMEM with
bad_wr at it, the requests before it in the chain are posted, and the device
sees no error: the QP stays idle until moved to ERROR, which flushes exactly
the posted requests.  An idle (unconnected) iWARP QP accepts work requests and
holds them; a QP in ERROR accepts them and flushes them.

Usage: rnic-user-post-errors.py DEVICE.  Prints one line per check and a
RESULT line; exits 1 if any check failed.
"""
import errno
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

failed = []
passed = 0


def check(name, ok, detail=''):
    global passed
    print('%s %s%s' % ('ok  ' if ok else 'FAIL', name,
                       ': ' + detail if detail else ''))
    if ok:
        passed += 1
    else:
        failed.append(name)


def chain(wrs):
    for a, b in zip(wrs, wrs[1:]):
        a.next_wr = b
    return wrs[0]


def expect_refused(name, post, wrs, bad, err):
    """post(chain) must fail with err and bad_wr at wr_id bad."""
    # pyverbs copies the culprit into this one (and never frees WR lists).
    if isinstance(wrs[0], SendWR):
        bad_wr = SendWR(opcode=e.IBV_WR_BIND_MW)
    else:
        bad_wr = RecvWR(num_sge=1, sg=[SGE(0, 0, 0)])
    try:
        post(chain(wrs), bad_wr)
    except PyverbsRDMAError as ex:
        check(name, ex.error_code == err and bad_wr.wr_id == bad,
              'errno %d (%s), bad_wr %d (want %d)' %
              (ex.error_code, errno.errorcode.get(ex.error_code, '?'),
               bad_wr.wr_id, bad))
        return
    check(name, False, 'posted')


def qp_state(qp):
    attr, _ = qp.query(e.IBV_QP_STATE)
    return attr.qp_state


def drain(cq, want):
    """Poll until want completions came (or 10 s): [(wr_id, status)]."""
    got = []
    end = time.monotonic() + 10
    while len(got) < want and time.monotonic() < end:
        n, wcs = cq.poll(want - len(got))
        got += [(wc.wr_id, wc.status) for wc in wcs]
        if not n:
            time.sleep(0.01)
    time.sleep(0.2)
    n, wcs = cq.poll(16)
    return got + [(wc.wr_id, wc.status) for wc in wcs]


def main(dev):
    ctx = Context(name=dev)
    pd = PD(ctx)
    mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
    cq = CQ(ctx, 64)
    init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4,
                                max_send_sge=1, max_recv_sge=1),
                      sq_sig_all=1)
    qp = QP(pd, init)
    cap = init.cap
    print('QP caps: send_wr %d recv_wr %d send_sge %d recv_sge %d inline %d'
          % (cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge,
             cap.max_recv_sge, cap.max_inline_data))
    idle = qp_state(qp)

    def sge(length=8):
        return SGE(mr.buf, length, mr.lkey)

    def send(wr_id, nsge=1, opcode=e.IBV_WR_SEND, flags=e.IBV_SEND_SIGNALED,
             length=8):
        return SendWR(wr_id=wr_id, opcode=opcode, num_sge=nsge,
                      sg=[sge(length) for _ in range(nsge)], send_flags=flags)

    def recv(wr_id, nsge=1):
        return RecvWR(wr_id=wr_id, num_sge=nsge,
                      sg=[sge() for _ in range(nsge)])

    # Each refused chain posts its first request (wr_id 1x1), so these
    # sends stand in the SQ afterwards, and the receives in the RQ.
    expect_refused('send: one SGE more than max_send_sge', qp.post_send,
                   [send(101), send(102, nsge=cap.max_send_sge + 1)],
                   102, errno.EINVAL)
    expect_refused('send: inline one byte longer than max_inline_data',
                   qp.post_send,
                   [send(111), send(112, length=cap.max_inline_data + 1,
                                    flags=e.IBV_SEND_SIGNALED |
                                    e.IBV_SEND_INLINE)],
                   112, errno.EINVAL)
    expect_refused('send: IBV_WR_BIND_MW without a window', qp.post_send,
                   [send(121), SendWR(wr_id=122, opcode=e.IBV_WR_BIND_MW)],
                   122, errno.EINVAL)
    expect_refused('send: IBV_WR_TSO (not an RC opcode)', qp.post_send,
                   [send(131), send(132, opcode=e.IBV_WR_TSO)],
                   132, errno.EINVAL)
    expect_refused('send: an unknown send flag (IBV_SEND_IP_CSUM)',
                   qp.post_send,
                   [send(141), send(142, flags=e.IBV_SEND_SIGNALED |
                                    e.IBV_SEND_IP_CSUM)],
                   142, errno.EINVAL)
    bad = send(152, opcode=e.IBV_WR_RDMA_READ,
               flags=e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
    bad.set_wr_rdma(0x1234, 0x10000)
    expect_refused('send: inline on an RDMA Read', qp.post_send,
                   [send(151), bad], 152, errno.EINVAL)
    bad = send(162, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, length=4)
    bad.set_wr_atomic(0x1234, 0x10000, 1)
    expect_refused('send: Fetch-and-Add into 4 bytes (needs 8)', qp.post_send,
                   [send(161), bad], 162, errno.EINVAL)
    expect_refused('recv: one SGE more than max_recv_sge', qp.post_recv,
                   [recv(201), recv(202, nsge=cap.max_recv_sge + 1)],
                   202, errno.EINVAL)
    # The SQ holds 7 of its max_send_wr (the device takes none while idle).
    room = cap.max_send_wr - 7
    expect_refused('send: a chain one longer than the free SQ slots',
                   qp.post_send, [send(301 + i) for i in range(room + 1)],
                   301 + room, errno.ENOMEM)
    room_rq = cap.max_recv_wr - 1
    expect_refused('recv: a chain one longer than the free RQ slots',
                   qp.post_recv, [recv(401 + i) for i in range(room_rq + 1)],
                   401 + room_rq, errno.ENOMEM)
    check('no device error: the QP is still idle', qp_state(qp) == idle,
          'state %d (was %d)' % (qp_state(qp), idle))
    check('nothing completed while idle', cq.poll(1)[0] == 0)

    # ERROR flushes what the refused chains left posted, in order.
    qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
    sends = [101, 111, 121, 131, 141, 151, 161] + \
        [301 + i for i in range(room)]
    recvs = [201] + [401 + i for i in range(room_rq)]
    got = drain(cq, len(sends) + len(recvs))
    check('ERROR flushes exactly the posted requests',
          sorted(w for w, _ in got) == sorted(sends + recvs) and
          [w for w, _ in got if w in sends] == sends and
          all(s == e.IBV_WC_WR_FLUSH_ERR for _, s in got), str(got))

    # In ERROR a post succeeds and completes flushed; a bad one is refused.
    qp.post_send(send(501))
    qp.post_recv(recv(502))
    got = drain(cq, 2)
    check('ERROR: posts succeed and complete with IBV_WC_WR_FLUSH_ERR',
          sorted(got) == [(501, e.IBV_WC_WR_FLUSH_ERR),
                          (502, e.IBV_WC_WR_FLUSH_ERR)], str(got))
    expect_refused('ERROR: a bad request is still refused', qp.post_send,
                   [send(511, nsge=cap.max_send_sge + 1)], 511, errno.EINVAL)
    qp.close()

    sattr = SrqInitAttr(SrqAttr(max_wr=4, max_sge=1))
    try:
        srq = SRQ(pd, sattr)
    except PyverbsRDMAError as ex:
        print('no SRQ (%s): SRQ checks skipped' % ex)
        return
    expect_refused('srq: one SGE more than max_sge', srq.post_recv,
                   [recv(601), recv(602, nsge=sattr.max_sge + 1)],
                   602, errno.EINVAL)
    sinit = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                       cap=QPCap(max_send_wr=4, max_recv_wr=0,
                                 max_send_sge=1, max_recv_sge=0))
    sqp = QP(pd, sinit)
    expect_refused('recv on a QP that uses an SRQ', sqp.post_recv,
                   [recv(701)], 701, errno.EINVAL)
    check('no device error: the SRQ QP is still idle', qp_state(sqp) == idle)
    sqp.close()
    srq.close()


if __name__ == '__main__':
    try:
        main(sys.argv[1])
    except Exception as ex:  # a crash is a failure with its reason
        check('ran to the end', False, repr(ex))
    print('RESULT post-errors passed=%d failed=%d' % (passed, len(failed)))
    sys.exit(1 if failed else 0)
