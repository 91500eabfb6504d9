# SPDX-License-Identifier: GPL-2.0-or-later
"""
Memory windows from user verbs (issue 20), through the rnic provider, the
real driver and the device, over an rdma_cm connection of this guest to its
own address (two processes, the server forked), QPs made by the
application (pyverbs QP objects, their numbers given to rdma_cm).

The server registers a 64 KiB MR with IBV_ACCESS_MW_BIND and binds a type 1
window (ibv_bind_mw) over its second 8 KiB and a type 2 window
(IBV_WR_BIND_MW) over its third 8 KiB.  The client writes a pattern through
each window's rkey and reads it back; the server finds each pattern exactly
inside its window and the rest of the MR untouched; ibv_dereg_mr of the MR
fails with EBUSY while windows are bound.  Then the server invalidates the
type 2 window (IBV_WR_LOCAL_INV) and a Read through it must fail.

Usage: rnic-user-mw.py ADDRESS PORT.  Prints one line per check and a
RESULT line; exits 1 if any check failed.
"""
import errno
import multiprocessing as mp
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import CMID, AddrInfo, ConnParam
from pyverbs.cq import CQ
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

SIZE = 64 * 1024
WIN = 8192
REMOTE = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ

failed = []
passed = 0


def check(who, name, ok, detail=''):
    global passed
    print('%s %s %s%s' % ('ok  ' if ok else 'FAIL', who, name,
                          ': ' + detail if detail else ''), flush=True)
    if ok:
        passed += 1
    else:
        failed.append(name)


def poll(cq, want=1, seconds=30):
    """Up to want completions within seconds: [(status, opcode)]."""
    got = []
    end = time.monotonic() + seconds
    while len(got) < want and time.monotonic() < end:
        n, wcs = cq.poll(want - len(got))
        got += [(wc.status, wc.opcode) for wc in wcs]
        if not n:
            time.sleep(0.001)
    return got


def pattern(seed, n=WIN):
    return bytes((i * 13 + seed) & 0xff for i in range(n))


def make_qp(ctx):
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=8, max_recv_wr=4,
                                     max_send_sge=1, max_recv_sge=1)))
    return pd, cq, qp


def server(addr, port, pipe):
    who = 'server'
    listen = CMID(creator=AddrInfo(src=addr, src_service=str(port),
                                   port_space=ce.RDMA_PS_TCP,
                                   flags=ce.RAI_PASSIVE))
    listen.listen()
    pipe.send('listening')
    cmid = listen.get_request()
    pd, cq, qp = make_qp(cmid.context)
    mr = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
    before = pattern(7, SIZE)
    mr.write(before, SIZE)
    cmid.accept(ConnParam(resources=4, depth=4, qp_num=qp.qp_num))

    # Type 1 (ibv_bind_mw) over [8 KiB, 16 KiB).
    mw1 = MW(pd, e.IBV_MW_TYPE_1)
    key1 = mw1.rkey
    qp.bind_mw(mw1, MWBind(MWBindInfo(mr, mr.buf + WIN, WIN, REMOTE),
                           e.IBV_SEND_SIGNALED))
    w = poll(cq)
    check(who, 'bind-type1', w == [(e.IBV_WC_SUCCESS, e.IBV_WC_BIND_MW)] and
          mw1.rkey != key1, '%s rkey %#x -> %#x' % (w, key1, mw1.rkey))
    # Type 2 (IBV_WR_BIND_MW) over [16 KiB, 24 KiB).
    mw2 = MW(pd, e.IBV_MW_TYPE_2)
    wr = SendWR(opcode=e.IBV_WR_BIND_MW)
    wr.set_bind_wr(mw2, MWBindInfo(mr, mr.buf + 2 * WIN, WIN, REMOTE))
    qp.post_send(wr)
    w = poll(cq)
    rkey2 = wr.rkey
    check(who, 'bind-type2', w == [(e.IBV_WC_SUCCESS, e.IBV_WC_BIND_MW)],
          str(w))
    pipe.send((mr.buf + WIN, mw1.rkey, mr.buf + 2 * WIN, rkey2))

    pipe.recv()                     # both patterns written and read back
    got = mr.read(SIZE, 0)
    want = before[:WIN] + pattern(1) + pattern(2) + before[3 * WIN:]
    check(who, 'patterns-exactly-in-windows', got == want)
    try:
        mr.close()
        check(who, 'dereg-busy-while-bound', False, 'deregistered')
    except PyverbsRDMAError as err:
        check(who, 'dereg-busy-while-bound', err.error_code == errno.EBUSY,
              'errno %d' % err.error_code)
    # Revoke the type 2 window on its QP.
    inv = SendWR(opcode=e.IBV_WR_LOCAL_INV)
    inv.imm_data = rkey2            # pyverbs carries invalidate_rkey here
    qp.post_send(inv)
    w = poll(cq)
    check(who, 'local-inv-type2', w == [(e.IBV_WC_SUCCESS,
                                         e.IBV_WC_LOCAL_INV)], str(w))
    pipe.send('revoked')
    pipe.recv()                     # the Read through it was tried
    check(who, 'mr-unharmed-after-revoke', mr.read(SIZE, 0) == want)
    mw1.close()
    mw2.close()
    pipe.send((passed, failed))


def client(addr, port, pipe):
    who = 'client'
    cmid = CMID(creator=AddrInfo(dst=addr, dst_service=str(port),
                                 port_space=ce.RDMA_PS_TCP))
    pd, cq, qp = make_qp(cmid.context)
    cmid.connect(ConnParam(resources=4, depth=4, qp_num=qp.qp_num))
    a1, k1, a2, k2 = pipe.recv()
    src = MR(pd, 2 * WIN, e.IBV_ACCESS_LOCAL_WRITE)
    dst = MR(pd, 2 * WIN, e.IBV_ACCESS_LOCAL_WRITE)
    src.write(pattern(1) + pattern(2), 2 * WIN)
    for i, (addr_, key) in enumerate(((a1, k1), (a2, k2))):
        wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(src.buf + i * WIN, WIN, src.lkey)])
        wr.set_wr_rdma(key, addr_)
        qp.post_send(wr)
        w = poll(cq)
        check(who, 'write-through-type%d' % (i + 1),
              w == [(e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_WRITE)], str(w))
        wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                    sg=[SGE(dst.buf + i * WIN, WIN, dst.lkey)])
        wr.set_wr_rdma(key, addr_)
        qp.post_send(wr)
        w = poll(cq)
        check(who, 'read-through-type%d' % (i + 1),
              w == [(e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_READ)] and
              dst.read(WIN, i * WIN) == pattern(i + 1), str(w))
    pipe.send('written')
    pipe.recv()                     # the type 2 window is revoked
    wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(dst.buf, 64, dst.lkey)])
    wr.set_wr_rdma(k2, a2)
    qp.post_send(wr)
    w = poll(cq)
    check(who, 'read-after-revoke-fails',
          len(w) == 1 and w[0][0] != e.IBV_WC_SUCCESS, str(w))
    pipe.send('tried')
    return pipe.recv()


def main(addr, port):
    a, b = mp.Pipe()
    srv = mp.Process(target=server, args=(addr, port, b))
    srv.start()
    a.recv()
    res = client(addr, port, a)
    srv.join(60)
    srv_passed, srv_failed = res
    total_failed = failed + list(srv_failed)
    print('RESULT mw-rnic passed=%d failed=%d' %
          (passed + srv_passed, len(total_failed)))
    return 1 if total_failed or srv.exitcode else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
