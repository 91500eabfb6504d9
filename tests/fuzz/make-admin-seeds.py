#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-admin (program format in fuzz-admin.c): driver-like
bring-ups of every object kind (EQs, L2 queues, user contexts, PDs, CQs,
SRQs, QPs, MRs, fast-register, memory windows, CM listen/connect), work
posted by doorbell,
then hostile variants: wrong pages, destroys out of order, resets mid-way."""
import os, struct, sys

PG = 4096
LIST = 0x1000          # level-1 list: entry k names page 16 + k


def pbl(first_page, n, shift=12, levels=1):
    """A page list for n pages from page first_page (>= 16)."""
    return struct.pack('<QIBBH', LIST + 8 * (first_page - 16), n, shift, levels, 0)


def cmd(opcode, body):
    return bytes([0, opcode, len(body)]) + body


def mem(addr, data):
    out = b''
    while data:
        chunk, data = data[:255], data[255:]
        out += bytes([1, addr // PG, (addr % PG) >> 8, addr % 256, len(chunk)]) + chunk
        addr += len(chunk)
    return out


def db(page, off, obj, flags, idx):
    return bytes([2, page, off // 8]) + struct.pack('<Q', idx << 32 | flags | obj)


def reg(off, val):
    return bytes([3, off >> 8, off & 0xff]) + struct.pack('<I', val)


def time(ms):
    return bytes([5, ms])


RESET = bytes([6])
obj = lambda op, i: cmd(op, struct.pack('<II', i, 0))

# Bring-up pieces.  Pages: 16 async EQ, 17 CM EQ, 18-25 CM pdata, 26 comp EQ,
# 27 CQ, 28 CQ2, 29 SQ, 30 RQ, 31 SRQ, 32-35 MR data, 36 TX ring, 37 RX ring,
# 38-39 L2 buffers, 40 fast-reg list, 41 scratch (pdata, query buffers).
eqs = (cmd(0x08, struct.pack('<IBBH', 1, 6, 1, 0) + pbl(16, 1) + bytes(16)) +
       cmd(0x08, struct.pack('<IBBH', 2, 6, 2, 0) + pbl(17, 1) + pbl(18, 8)) +
       cmd(0x08, struct.pack('<IBBH', 3, 6, 0, 0) + pbl(26, 1) + bytes(16)) +
       db(0, 0x20, 3, 1 << 24, 0))
pd = cmd(0x12, struct.pack('<II', 1, 0))
cq = lambda n, page, uctx=0: cmd(0x14, struct.pack('<IIIB3sQ', n, 3, uctx, 7, b'', 0x29000 + 8 * n) + pbl(page, 1))
srq = cmd(0x16, struct.pack('<IIIBBH', 1, 1, 0, 5, 2, 4) + pbl(31, 1))
qp = lambda srqn=0xffffffff, rq=5: cmd(0x19, struct.pack('<IIIIIIBBBBHH', 1, 1, 0, 1, 2, srqn, 4, rq if srqn == 0xffffffff else 0, 2, 2, 64, 0) + pbl(29, 1) + (pbl(30, 1) if srqn == 0xffffffff else bytes(16)))
reg_mr = lambda stag=0x0101, access=0xf, pages=4, length=4 * PG, flags=0: cmd(0x20, struct.pack('<IIIIQQ', stag, 1, access, flags, 0x10000000, length) + pbl(32, pages))
rereg_mr = lambda stag=0x0102, access=0x7, pages=2, length=2 * PG: cmd(0x23, struct.pack('<IIIIQQ', stag, 1, access, 0, 0x30000000, length) + pbl(34, pages))
resize_cq = lambda n, log, page, dbrec: cmd(0x1d, struct.pack('<IB3sQ', n, log, b'', dbrec) + pbl(page, 1))
alloc_mr = cmd(0x21, struct.pack('<IIII', 0x0202, 1, 4, 0))
alloc_mw = lambda stag, mwtype, pdn=1: cmd(0x24, struct.pack('<IIB3sI', stag, pdn, mwtype, b'', 0))
modify_qp = lambda mask, state=0, access=0: cmd(0x1a, struct.pack('<IIBBBBI', 1, mask, state, 4, 4, 0, access))
query_qp = cmd(0x1b, struct.pack('<IIQ', 1, 256, 41 * PG))
query_stats = cmd(0x01, struct.pack('<QII', 41 * PG, 512, 0))
set_port = cmd(0x02, bytes([2, 0, 0, 0, 0, 7]) + struct.pack('<HI', 1500, 0))
listen = cmd(0x30, struct.pack('<IIBBH', 0, 8, 4, 0, 5000) + bytes(16))
tuple_ = struct.pack('<B3s16s16sHH', 4, b'', bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1]), 40000, 5000)
connect = cmd(0x32, struct.pack('<II', 1, 0) + tuple_ + bytes([2, 0, 0, 0, 0, 1]) + struct.pack('<HBBBBHHQ', 0, 4, 4, 2, 1, 8, 0, 41 * PG))
txq = cmd(0x0a, struct.pack('<IIB7s', 0, 3, 4, b'') + pbl(36, 1))
rxq = cmd(0x0c, struct.pack('<IIB7s', 0, 3, 4, b'') + pbl(37, 1))
uctx = cmd(0x10, struct.pack('<II', 1, 0))
upd = cmd(0x12, struct.pack('<II', 2, 1))


def sge(addr, length, lkey):
    return struct.pack('<QII', addr, length, lkey)


def sq_wqe(opcode, flags=1, count=1, ex=0, op=bytes(48), data=b''):
    w = struct.pack('<QBBHI', 7, opcode, flags, count, ex) + op + data
    return w + bytes(256 - len(w))


def rq_wqe(n=1, addr=0x10000000, length=64, lkey=0x0101):
    w = struct.pack('<QHHI', 9, n, 0, 0) + sge(addr, length, lkey) * n
    return w + bytes(128 - len(w))


base = eqs + pd + cq(1, 27) + cq(2, 28)
full = base + qp() + reg_mr()
send = sq_wqe(0, data=sge(0x10000000, 100, 0x0101))
fastreg_op = struct.pack('<QQII', 0x20000000, 2 * PG, 0x0203, 7) + struct.pack('<QIBBH', 40 * PG, 2, 12, 1, 0) + bytes(8)
l2_tx = struct.pack('<QHBBI', 38 * PG, 60, 0, 0, 0)
l2_rx = struct.pack('<QHHBBH', 39 * PG, 2048, 0, 0, 0, 0)
frame = bytes([2, 0, 0, 0, 0, 7, 2, 0, 0, 0, 0, 1, 0x08, 0x06]) + bytes(46)

seeds = {
    'nop': cmd(0x00, b''),
    'bad-opcodes': b''.join(cmd(op, bytes(range(24))) for op in (0x03, 0x0e, 0x1f, 0x2f, 0x37, 0xff)),
    'eqs': eqs + query_stats + set_port,
    'objects': full + srq + alloc_mr + query_qp,
    'destroy-order': full + obj(0x13, 1) + obj(0x15, 1) + obj(0x22, 0x0101) + obj(0x1c, 1) + obj(0x15, 1) + obj(0x13, 1) + obj(0x09, 3),
    'post-send': full + mem(29 * PG, send) + db(0, 0x00, 1, 0, 1) + modify_qp(1, 4) + db(0, 0x00, 1, 0, 2),
    'post-recv': full + mem(30 * PG, rq_wqe() + rq_wqe(7)) + db(0, 0x08, 1, 0, 2) + db(0, 0x08, 1, 0, 9999),
    'srq': base + srq + qp(1) + reg_mr() + mem(31 * PG, rq_wqe()) + db(0, 0x10, 1, 0, 1) + cmd(0x17, struct.pack('<IHH', 1, 2, 0)),
    'fastreg': full + alloc_mr + mem(40 * PG, struct.pack('<QQ', 33 * PG, 34 * PG)) + mem(29 * PG, sq_wqe(8, op=fastreg_op, count=0)) + db(0, 0x00, 1, 0, 1) + mem(29 * PG + 256, sq_wqe(7, ex=0x0203, count=0)) + db(0, 0x00, 1, 0, 2),
    # QP 1 flushes 4 receives into 2-entry CQ 3 (page 42), idle QP 2 sends
    # on it: the overrun fails QP 2 too (QP_FATAL).
    'cq-overrun-qps': base + cmd(0x14, struct.pack('<IIIB3sQ', 3, 3, 0, 1, b'', 0x29000 + 24) + pbl(42, 1)) +
        cmd(0x19, struct.pack('<IIIIIIBBBBHH', 1, 1, 0, 1, 3, 0xffffffff, 4, 5, 2, 2, 64, 0) + pbl(29, 1) + pbl(30, 1)) +
        cmd(0x19, struct.pack('<IIIIIIBBBBHH', 2, 1, 0, 3, 2, 0xffffffff, 4, 5, 2, 2, 64, 0) + pbl(43, 1) + pbl(44, 1)) +
        reg_mr() + mem(30 * PG, rq_wqe() * 4) + db(0, 0x08, 1, 0, 4) + modify_qp(1, 4) + obj(0x1c, 2) + obj(0x1c, 1) + obj(0x15, 3),
    'cq-arm-overflow': full + db(0, 0x18, 1, 1 << 24, 0) + db(0, 0x18, 1, 1 << 25, 5000) + db(0, 0x18, 9, 0, 0),
    'l2': eqs + txq + rxq + mem(36 * PG, l2_tx) + mem(38 * PG, frame) + db(0, 0x28, 0, 1 << 24, 1) + mem(37 * PG, l2_rx) + db(0, 0x30, 0, 1 << 24, 1) + bytes([7, len(frame)]) + frame + obj(0x0b, 0) + obj(0x0d, 0),
    'uctx': eqs + uctx + upd + cq(3, 27, 1) + db(1, 0x18, 3, 1 << 24, 0) + db(2, 0x18, 3, 0, 0) + db(0, 0x18, 3, 0, 0) + obj(0x11, 1) + db(1, 0x18, 3, 0, 0),
    'cm': full + listen + modify_qp(2, access=0xe) + connect + time(200) + time(200) + obj(0x35, 0) + time(50) + obj(0x36, 0) + obj(0x31, 0),
    'cm-frame': full + set_port + listen + bytes([8, 1]) + bytes([7, 54]) + bytes([2, 0, 0, 0, 0, 7, 2, 0, 0, 0, 0, 1, 8, 0]) + bytes([0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]) + struct.pack('>HHIIBBHHH', 40000, 5000, 1, 0, 0x50, 0x02, 65535, 0, 0),
    'reset-mid': full + mem(29 * PG, send) + db(0, 0x00, 1, 0, 1) + RESET + full,
    'admq-regs': reg(0x114, 1000) + reg(0x118, 77) + reg(0x008, 0) + reg(0x110, 0x0303) + reg(0x008, 1) + RESET,
    'hostile-mr': base + reg_mr(pages=0xffffffff) + reg_mr(0x0301, length=1 << 62) + reg_mr(0x0401, flags=1) + cmd(0x20, struct.pack('<IIIIQQ', 0x0501, 1, 1, 0, 0, 4 * PG) + struct.pack('<QIBBH', 0xfffffffffffff000, 4, 12, 2, 0)),
    # RESIZE_CQ with a CQE waiting (grow, shrink below it, onto bad pages),
    # REREG_MR of a REG_MR, a fast-register and a missing MR.
    'resize-cq': full + mem(29 * PG, send) + db(0, 0x00, 1, 0, 1) + modify_qp(1, 4) +
        resize_cq(1, 7, 45, 0x29000 + 64) + resize_cq(1, 1, 46, 0x29000 + 72) +
        cmd(0x1d, struct.pack('<IB3sQ', 1, 7, b'', 0x29000 + 80) + struct.pack('<QIBBH', 0xfffffffffffff000, 1, 12, 1, 0)) +
        resize_cq(2, 8, 47, 0x29000 + 88) + obj(0x1c, 1) + obj(0x15, 1),
    'rereg-mr': full + alloc_mr + rereg_mr() + rereg_mr(pages=1, length=PG, access=1) +
        rereg_mr(0x0202) + rereg_mr(0x0909) + rereg_mr(pages=0xffffffff) + obj(0x22, 0x0102),
    # Memory windows: type 1 and 2 in PD 1, a bad type, an index an MR
    # holds, BIND_MW / LOCAL_INV WQEs (flushed: no connection), DEREG_MR of
    # a window, DEALLOC_MW of an MR, the MR deregistered last.
    'mw': full + reg_mr(0x0301, access=0x17) + alloc_mw(0x0401, 1) + alloc_mw(0x0501, 2) +
        alloc_mw(0x0601, 3) + alloc_mw(0x0301, 1) + alloc_mw(0x0701, 2, pdn=9) +
        mem(29 * PG, sq_wqe(0x0b, count=0, op=struct.pack('<QQIII', 0x10000000, PG, 0x0402, 0x0301, 6) + bytes(20))) +
        mem(29 * PG + 256, sq_wqe(0x07, count=0, ex=0x0502)) + db(0, 0x00, 1, 0, 2) + modify_qp(1, 4) +
        obj(0x22, 0x0401) + obj(0x25, 0x0301) + obj(0x25, 0x0401) + obj(0x1c, 1) + obj(0x25, 0x0501) + obj(0x22, 0x0301),
    'hostile-rings': eqs + pd + cmd(0x14, struct.pack('<IIIB3sQ', 1, 3, 0, 30, b'', 0) + pbl(27, 1)) + cmd(0x14, struct.pack('<IIIB3sQ', 2, 3, 0, 7, b'', 1 << 40) + struct.pack('<QIBBH', 2 * PG, 1, 12, 1, 0)),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, prog in seeds.items():
    with open(os.path.join(out, 'seed-' + name), 'wb') as f:
        f.write(prog)
