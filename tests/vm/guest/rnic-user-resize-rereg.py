# SPDX-License-Identifier: GPL-2.0-or-later
"""
ibv_resize_cq under traffic and ibv_rereg_mr used remotely (issue 20),
through the rnic provider, the real driver and the device, over an rdma_cm
connection of this guest to its own address (run by rnic-user-pyverbs.sh
with the staged pyverbs; two processes, the server forked).

CQ: the client posts 448 signaled 4 KiB RDMA Writes with at most a CQ's
worth in flight, its CQ made with 64 entries and resized while completions
keep arriving (to 1024 after 30, to 300 after 200); before the second, a
shrink to 2 below the CQEs waiting is refused and changes nothing; every
WR completes exactly once, successfully.

MR: the server registers buffer A (64 KiB), the client writes a pattern
into it; the server re-registers the MR onto buffer B (CHANGE_TRANSLATION
and CHANGE_ACCESS: remote read added) and sends the new rkey; the client
writes a second pattern and reads it back through the new rkey; the server
finds B holding exactly the second pattern and A still the first. Last,
a Read through the old rkey must fail (the key changed), A and B unharmed.

Usage: rnic-user-resize-rereg.py ADDRESS PORT.  Prints one line per check
and a RESULT line; exits 1 if any check failed.
"""
import mmap
import multiprocessing as mp
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import CMID, AddrInfo
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPCap, QPInitAttr

SIZE = 64 * 1024
SIG = e.IBV_SEND_SIGNALED
WRITES = 448

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


def poll(cq, want, seconds=60):
    """Up to want completions within seconds: [(status, opcode, byte_len)]."""
    got = []
    end = time.monotonic() + seconds
    while len(got) < want and time.monotonic() < end:
        n, wcs = cq.poll(min(want - len(got), 16))
        got += [(wc.status, wc.opcode, wc.byte_len) for wc in wcs]
        if not n:
            time.sleep(0.001)
    return got


def pattern(seed):
    return bytes((i * 7 + seed) & 0xff for i in range(SIZE))


def init_attr(cq):
    return QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=512, max_recv_wr=1,
                                max_send_sge=1, max_recv_sge=1))


def server(addr, port, pipe):
    who = 'server'
    # librdmacm makes the QP (and its CQs) at get_request: the server only
    # owns the MR the client reaches.
    listen = CMID(creator=AddrInfo(src=addr, src_service=str(port),
                                   port_space=ce.RDMA_PS_TCP,
                                   flags=ce.RAI_PASSIVE),
                  qp_init_attr=QPInitAttr(qp_type=e.IBV_QPT_RC,
                                          cap=QPCap(max_send_wr=4,
                                                    max_recv_wr=4)))
    listen.listen()
    pipe.send('listening')
    cmid = listen.get_request()
    access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
    a = mmap.mmap(-1, SIZE)
    b = mmap.mmap(-1, SIZE)
    mr = MR(listen.pd, SIZE, access, address=addr_of(a))
    cmid.accept()
    pipe.send((mr.buf, mr.rkey))

    pipe.recv()                         # the client wrote pattern 1 into A
    check(who, 'a-holds-pattern-1', bytes(a[:SIZE]) == pattern(1))
    # Onto B, remote read added.
    old_rkey = mr.rkey
    mr.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION | e.IBV_REREG_MR_CHANGE_ACCESS,
             pd=listen.pd, addr=addr_of(b), length=SIZE,
             access=access | e.IBV_ACCESS_REMOTE_READ)
    check(who, 'rereg-new-key', mr.rkey != old_rkey,
          'rkey %#x -> %#x' % (old_rkey, mr.rkey))
    pipe.send((addr_of(b), mr.rkey, old_rkey))
    pipe.recv()                         # pattern 2 written and read back
    check(who, 'b-holds-pattern-2', bytes(b[:SIZE]) == pattern(2))
    check(who, 'a-unchanged-after-rereg', bytes(a[:SIZE]) == pattern(1))
    pipe.send('checked')
    pipe.recv()                         # the old-rkey Read was tried
    check(who, 'b-unharmed-by-old-rkey', bytes(b[:SIZE]) == pattern(2))
    check(who, 'a-unharmed-by-old-rkey', bytes(a[:SIZE]) == pattern(1))
    pipe.send((passed, failed))


def addr_of(m):
    """The address of an mmap's first byte."""
    import ctypes
    return ctypes.addressof(ctypes.c_char.from_buffer(m))


def client(addr, port, pipe):
    who = 'client'
    cmid = CMID(creator=AddrInfo(dst=addr, dst_service=str(port),
                                 port_space=ce.RDMA_PS_TCP))
    cq = CQ(cmid.context, 64)
    cmid.create_qp(init_attr(cq))
    cmid.connect()
    raddr, rkey = pipe.recv()
    src = MR(cmid.pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    src.write(pattern(1), SIZE)

    # 4 KiB Writes, at most a CQ's worth in flight, the CQ resized in the
    # middle of the stream.
    done, posted, resized = [], 0, []
    plan = list(range(WRITES))
    while len(done) < len(plan):
        while posted < len(plan) and posted - len(done) < min(cq.cqe, 250):
            cmid.post_write(src, 4096, raddr + (plan[posted] % 16) * 4096,
                            rkey, SIG)
            posted += 1
        done += poll(cq, 1, 60)
        if not done or done[-1][0] != e.IBV_WC_SUCCESS:
            break
        if len(done) == 30 and not resized:
            cq.resize(1024)
            resized.append(cq.cqe)
        if len(done) == 200 and len(resized) == 1:
            # CQEs pile up unpolled (up to 250 posted): a shrink below
            # them is refused, one to 300 is not.
            time.sleep(5)
            try:
                cq.resize(2)
                resized.append('accepted')
            except PyverbsRDMAError as err:
                resized.append('refused errno %d' % err.error_code)
            cq.resize(300)
            resized.append(cq.cqe)
    check(who, 'send-cq-resized-under-traffic',
          len(done) == len(plan) and all(s == e.IBV_WC_SUCCESS
                                         for s, _, _ in done),
          '%d of %d, resizes %s' % (len(done), len(plan), resized))
    check(who, 'send-cq-shrink-below-waiting-refused',
          len(resized) == 3 and resized[1].startswith('refused'),
          str(resized))
    # The whole of A gets pattern 1.
    cmid.post_write(src, SIZE, raddr, rkey, SIG)
    w = poll(cq, 1)
    check(who, 'write-pattern-1-whole',
          len(w) == 1 and w[0][0] == e.IBV_WC_SUCCESS, str(w))
    pipe.send('written')

    # The re-registered MR, remotely: Write pattern 2, Read it back.
    baddr, brkey, old_rkey = pipe.recv()
    src.write(pattern(2), SIZE)
    cmid.post_write(src, SIZE, baddr, brkey, SIG)
    w = poll(cq, 1)
    check(who, 'write-through-new-rkey',
          len(w) == 1 and w[0][0] == e.IBV_WC_SUCCESS, str(w))
    dst = MR(cmid.pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    cmid.post_read(dst, SIZE, baddr, brkey, SIG)
    r = poll(cq, 1)
    check(who, 'read-through-new-rkey',
          len(r) == 1 and r[0][0] == e.IBV_WC_SUCCESS and
          dst.read(SIZE, 0) == pattern(2), str(r))
    pipe.send('read')
    pipe.recv()
    # The old key is gone: a Read through it fails (and ends the
    # connection), a Write could complete here before the peer refuses it.
    cmid.post_read(dst, 4096, baddr, old_rkey, SIG)
    o = poll(cq, 1, 30)
    check(who, 'read-through-old-rkey-fails',
          len(o) == 1 and o[0][0] != e.IBV_WC_SUCCESS, str(o))
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
    print('RESULT resize-rereg-rnic passed=%d failed=%d' %
          (passed + srv_passed, len(total_failed)))
    return 1 if total_failed or srv.exitcode else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
