# SPDX-License-Identifier: GPL-2.0-or-later
"""
A CQ overrun as a user-space application sees it (issue 20), through the
rnic provider and the real driver and device (run by rnic-user-pyverbs.sh
with the staged pyverbs).  QP A receives into a small CQ and posts more
receives than that CQ holds; QP B, idle, sends on the small CQ and receives
on a big one.  Moving A to ERROR flushes its receives into the small CQ,
which overruns.  Checked: ibv_get_async_event returns IBV_EVENT_CQ_ERR,
then IBV_EVENT_QP_FATAL (for B, the QP bound to the CQ that was not in
ERROR yet); B is in IBV_QPS_ERR and its receives are flushed on the big CQ;
the small CQ returns exactly the completions that fit, in order, and
nothing afterwards; everything can be destroyed.

Usage: rnic-user-cq-overrun.py DEVICE.  Prints one line per check and a
RESULT line; exits 1 if any check failed.
"""
import signal
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR

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


def next_event(ctx, seconds):
    """The next async event type, or None after seconds (SIGALRM)."""
    signal.signal(signal.SIGALRM, lambda *_: None)
    signal.alarm(seconds)
    try:
        ev = ctx.get_async_event()
    except PyverbsRDMAError:
        return None
    finally:
        signal.alarm(0)
    kind = ev.event_type
    ev.ack()
    return kind


def poll_all(cq, want, seconds=5):
    """Poll until want completions (or seconds): [(wr_id, status)]."""
    got = []
    end = time.monotonic() + seconds
    while len(got) < want and time.monotonic() < end:
        n, wcs = cq.poll(want - len(got))
        got += [(wc.wr_id, wc.status) for wc in wcs]
        if not n:
            time.sleep(0.01)
    return got


def qp_state(qp):
    attr, _ = qp.query(e.IBV_QP_STATE)
    return attr.qp_state


def main(dev):
    ctx = Context(name=dev)
    pd = PD(ctx)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    big = CQ(ctx, 64)
    small = CQ(ctx, 4)
    depth = small.cqe
    n = depth + 4
    print('small CQ depth %d, %d receives flushed into it' % (depth, n))

    def qp(scq, rcq, recv_wr):
        return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq,
                                 cap=QPCap(max_send_wr=4, max_recv_wr=recv_wr,
                                           max_send_sge=1, max_recv_sge=1)))

    def recv(q, wr_id):
        q.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                           sg=[SGE(mr.buf, 64, mr.lkey)]))

    qa = qp(big, small, n)
    qb = qp(small, big, 4)
    for i in range(n):
        recv(qa, 100 + i)
    recv(qb, 300)
    recv(qb, 301)

    qa.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
    first = next_event(ctx, 10)
    check('IBV_EVENT_CQ_ERR first', first == e.IBV_EVENT_CQ_ERR,
          'event %s' % first)
    second = next_event(ctx, 10)
    check('then IBV_EVENT_QP_FATAL', second == e.IBV_EVENT_QP_FATAL,
          'event %s' % second)
    check('no further event', next_event(ctx, 2) is None)
    check('QP B (idle, bound to the CQ) is in IBV_QPS_ERR',
          qp_state(qb) == e.IBV_QPS_ERR, 'state %d' % qp_state(qb))

    got = poll_all(small, n, 3)
    want = [(100 + i, e.IBV_WC_WR_FLUSH_ERR) for i in range(depth)]
    check('the CQ in error returns the %d completions that fit, in order'
          % depth, got == want,
          '%d polled, first %s, last %s' % (len(got), got[:1], got[-1:]))
    recv(qb, 302)
    check('and nothing afterwards', poll_all(small, 1, 1) == [])
    got = poll_all(big, 3, 5)
    check("B's receives complete flushed on its healthy CQ",
          got == [(300, e.IBV_WC_WR_FLUSH_ERR), (301, e.IBV_WC_WR_FLUSH_ERR),
                  (302, e.IBV_WC_WR_FLUSH_ERR)], str(got))
    qa.close()
    qb.close()
    small.close()
    big.close()
    check('QPs and CQs destroyed', True)


if __name__ == '__main__':
    try:
        main(sys.argv[1])
    except Exception as ex:  # a crash is a failure with its reason
        check('ran to the end', False, repr(ex))
    print('RESULT cq-overrun passed=%d failed=%d' % (passed, len(failed)))
    sys.exit(1 if failed else 0)
