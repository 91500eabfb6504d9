#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot two standalone Debian images (tests/image/build-image.sh) with the QEMU
command lines of docs/using-rnic.md and run guest/pair-test.sh in one boot each.

The command lines are the manual's marked blocks (<!-- image-suite: NAME -->
before a ```sh block), with the manual's placeholders replaced: the QEMU
binary, the disks (a qcow2 overlay per guest on the cached image), the socket
path, the other host's address and port. The harness then adds what a test
needs and a user does not: the image's kernel and initrd (the images have no
bootloader), a small virtio disk with the test (serial "rnictest"; no 9p) and
firmware paths. Results come back on the serial console.

  pair.py --a trixie --b trixie --wire one-host

tests/conformance/image-matrix.py boots its pair through run_pair() below, with
its cells on the test disk and guest 1's wire captured.
"""
import argparse
import fcntl
import hashlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import io
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get('RNIC_CACHE', os.path.expanduser('~/.cache/rnic'))
QEMU = os.environ.get('RNIC_QEMU') or os.path.join(CACHE, 'build', 'qemu', 'qemu-system-x86_64')
QEMU_IMG = os.path.join(CACHE, 'build', 'qemu', 'qemu-img')
FIRMWARE_DIRS = ['/usr/share/qemu', '/usr/share/seabios']
MANUAL = os.path.join(TOP, 'docs', 'using-rnic.md')
LOCK = '/tmp/rnic-vm.lock'


def die(msg):
    print('image: error: ' + msg, file=sys.stderr)
    sys.exit(2)


def manual_blocks(path):
    """NAME -> the shell text of each marked ```sh block of the manual."""
    text = open(path).read()
    blocks = {}
    for m in re.finditer(r'<!-- image-suite: (\S+) -->\s*```sh\n(.*?)```', text, re.S):
        blocks[m.group(1)] = m.group(2)
    return blocks


def command(block):
    """The one command of a block: continuation lines joined, comments dropped."""
    lines = [l for l in block.splitlines() if not l.lstrip().startswith('#')]
    return shlex.split(' '.join(l.rstrip('\\').strip() for l in lines))


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def build_image(suite, kit):
    cmd = [os.path.join(HERE, 'build-image.sh'), suite] + ([kit] if kit else [])
    t0 = time.time()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    print('image: %s image %s (%.0f s)' % (suite, out, time.time() - t0))
    return out


def prune_images(current):
    """Each image and base is 0.7-1 GB: keep only the images just built or found
    and each release's newest base (an older base was made by an older recipe)."""
    root = os.path.join(CACHE, 'images')
    keep = {os.path.basename(d) for d in current}
    newest = {}
    for n in os.listdir(root):
        m = re.fullmatch(r'base-(bookworm|trixie)-[0-9a-f]{16}', n)
        if m and os.path.exists(os.path.join(root, n, '.ready')):
            t = os.path.getmtime(os.path.join(root, n, '.ready'))
            if m.group(1) not in newest or t > newest[m.group(1)][0]:
                newest[m.group(1)] = (t, n)
    keep |= {n for _, n in newest.values()}
    for n in os.listdir(root):
        if n not in keep and re.fullmatch(r'(base-)?(bookworm|trixie)-[0-9a-f]{16}', n):
            print('image: removing the stale %s' % n)
            shutil.rmtree(os.path.join(root, n), ignore_errors=True)


def prune_runs(root, current, keep=8):
    """Keep the newest few run directories (consoles, overlays: ~7 MB each)."""
    if root != os.path.join(CACHE, 'image-runs'):
        return
    dirs = sorted((os.path.join(root, d) for d in os.listdir(root)), key=os.path.getmtime)
    for d in [d for d in dirs if d != current][:-keep]:
        shutil.rmtree(d, ignore_errors=True)


def test_disk(path, env, extra=None):
    """A tar archive as a raw disk: run.sh (the pair test), its environment and
    the extra files (name: bytes) pair-test.sh picks up (conformance cells)."""
    with tarfile.open(path, 'w') as t:
        def add(name, data, mode=0o644):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            t.addfile(info, io.BytesIO(data))
        add('env', ''.join("export %s='%s'\n" % kv for kv in env.items()).encode())
        with open(os.path.join(HERE, 'guest', 'pair-test.sh'), 'rb') as f:
            add('pair-test.sh', f.read(), 0o755)
        add('run.sh', b'. /run/rnic-test/env\nexec bash /run/rnic-test/pair-test.sh\n', 0o755)
        for name, data in (extra or {}).items():
            add(name, data)


class Guest:
    def __init__(self, name, cmd, log):
        self.name, self.cmd, self.log = name, cmd, log
        self.t0 = time.time()
        self.started = self.t0
        self.boot_s = None
        self.rc = None
        self.checks = []
        self.plan = []
        self.results = []
        self.notes = []  # RETRY and HUNG lines: retries are named, hangs shown
        self.fh = open(log, 'wb')
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.thread = threading.Thread(target=self.pump, daemon=True)
        self.thread.start()

    def pump(self, quiet=True):
        for raw in iter(self.p.stdout.readline, b''):
            self.fh.write(raw)
            self.fh.flush()
            line = raw.decode('utf-8', 'replace').strip()
            # The first test line may follow the terminal resets systemd
            # writes to the console.
            if 'RNIC-IMAGE-START' in line and self.boot_s is None:
                self.boot_s = time.time() - self.t0
            elif line.startswith('RNIC-IMAGE-EXIT rc='):
                self.rc = int(line.split('=', 1)[1])
            elif line.startswith('CHECK '):
                self.checks.append(line[6:])
            elif line.startswith('PLAN '):
                self.plan = line[5:].split()
            elif line.startswith(('RETRY ', 'HUNG ')):
                self.notes.append(line)
            elif line.startswith('RESULT '):
                self.results.append(line[7:])
        self.fh.close()

    def stop(self):
        """End this guest's QEMU (the PID we started), politely then firmly."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.thread.join(2)


# What ./rnic guest-kit builds from (besides the pinned downloads its script
# names), and the stamp that ties a built kit to them.
KIT_SOURCES = ('guest-driver', 'include/rnic', 'provider', 'guest-kit', 'rnic')
KIT_STAMP = '.sources'


def read_file(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def kit_sources_key():
    """SHA-256 over the kit's source files (git's list of tracked and untracked,
    not ignored files, their content as on disk); None outside a git checkout."""
    r = subprocess.run(['git', '-C', TOP, 'ls-files', '-z', '-co', '--exclude-standard', '--'] +
                       list(KIT_SOURCES), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if r.returncode != 0 or not r.stdout:
        return None
    h = hashlib.sha256()
    for name in sorted(set(r.stdout.decode().split('\0')) - {''}):
        path = os.path.join(TOP, name)
        h.update(name.encode() + b'\0')
        if os.path.isfile(path):
            with open(path, 'rb') as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def kit_stamp(kit, key):
    """The sources' key and each .deb's SHA-256: a kit rebuilt from other
    sources (another checkout sharing the cache) no longer matches its stamp."""
    lines = ['sources ' + key]
    for name in sorted(os.listdir(kit)):
        if name.endswith('.deb'):
            with open(os.path.join(kit, name), 'rb') as f:
                lines.append('%s %s' % (hashlib.sha256(f.read()).hexdigest(), name))
    return '\n'.join(lines) + '\n'


def prepare(a_suite, b_suite, kit=None):
    """The kit (built from this tree unless given) and both releases' images:
    {release: image directory}."""
    if not os.access(QEMU, os.X_OK):
        die('no QEMU at %s: run ./rnic setup' % QEMU)
    if not kit:
        # The kit of this tree, as a user builds it (12 s when warm: it
        # repackages every time), unless the kit there was built from the
        # same sources (image-build, the suite's first test, just did).
        kit = os.path.join(CACHE, 'images', 'kit')
        os.makedirs(kit, exist_ok=True)
        with open(os.path.join(CACHE, 'images', 'kit.lock'), 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            key = kit_sources_key()
            if key and kit_stamp(kit, key) == read_file(os.path.join(kit, KIT_STAMP)):
                print('image: the kit in %s is built from these sources (%s)' % (kit, key[:16]))
            else:
                subprocess.run([os.path.join(TOP, 'rnic'), 'guest-kit', kit], check=True,
                               stdout=subprocess.DEVNULL)
                if key:
                    with open(os.path.join(kit, KIT_STAMP), 'w') as f:
                        f.write(kit_stamp(kit, key))
    images = {}
    for s in (a_suite, b_suite):
        if s not in images:
            images[s] = build_image(s, kit)
    return images


def manual_commands(wire, out):
    """The manual's two command lines for WIRE, placeholders replaced; the MACs."""
    blocks = manual_blocks(MANUAL)
    names = {'one-host': ('one-host-vm1', 'one-host-vm2'), 'two-hosts': ('two-hosts-a', 'two-hosts-b')}[wire]
    port = str(free_port())
    subst = {  # the manual's placeholders (whole strings, one pass per token)
        'qemu-system-x86_64': QEMU,
        'vm1.qcow2': os.path.join(out, 'vm1.qcow2'), 'vm2.qcow2': os.path.join(out, 'vm2.qcow2'),
        '/tmp/rnic-wire.sock': os.path.join(out, 'wire.sock'),
        '0.0.0.0': '127.0.0.1', '192.0.2.1': '127.0.0.1', '5555': port,
    }
    cmds, macs = [], []
    for n in names:
        if n not in blocks:
            die('%s has no block marked image-suite: %s' % (MANUAL, n))
        pat = re.compile('|'.join(re.escape(k) for k in subst))
        cmd = [pat.sub(lambda m: subst[m.group(0)], x) for x in command(blocks[n])]
        mac = re.search(r'mac=([0-9a-f:]{17})', ' '.join(cmd))
        if not mac or '-device' not in cmd:
            die('block %s has no -device rnic with a mac' % n)
        macs.append(mac.group(1))
        cmds.append(cmd)
    print('image: command lines from %s (%s, %s)' % (MANUAL, names[0], names[1]))
    return cmds, macs


def capture_args(cmd, pcap):
    """What the harness adds to capture a guest's rnic wire: QEMU's filter-dump
    on the netdev the manual's -device rnic uses."""
    netdev = re.search(r'rnic,(?:[^ ]*,)?netdev=([^, ]+)', ' '.join(cmd))
    if not netdev:
        die('no -device rnic,netdev=... in %s' % shlex.join(cmd))
    return ['-object', 'filter-dump,id=rnicwire,netdev=%s,file=%s' % (netdev.group(1), pcap)]


def run_pair(a_suite, b_suite, images, wire, out, timeout, nvme_mib=32, extra=None, capture=None,
             env=None, trace=None):
    """One boot of the pair under the VM lock, guest/pair-test.sh in each (plus
    EXTRA files on both test disks); CAPTURE: pcap path of guest 1's wire; ENV:
    more of pair-test.sh's environment (CHECKS, REPEAT, CHECK_S); TRACE: a
    pattern of QEMU trace events written to vmN.trace. Returns (guests, seconds)."""
    env_more = env
    qemu_img = QEMU_IMG if os.access(QEMU_IMG, os.X_OK) else shutil.which('qemu-img')
    if not qemu_img:
        die('no qemu-img (%s): run ./rnic setup' % QEMU_IMG)
    os.makedirs(out, exist_ok=True)
    prune_runs(os.path.dirname(out), out)
    cmds, macs = manual_commands(wire, out)
    guests = []
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    # A caller that already holds the lock (a wrapper that rebuilt QEMU under
    # it) says so; taking it again here would wait for ourselves forever.
    lock = None
    if os.environ.get('RNIC_VM_LOCK_HELD') != '1':
        lock = open(LOCK, 'w')
        t_lock = time.time()
        fcntl.flock(lock, fcntl.LOCK_EX)
        print('image: took %s after %.0f s' % (LOCK, time.time() - t_lock))
    t0 = time.time()
    try:
        for i, (suite, cmd) in enumerate(zip((a_suite, b_suite), cmds), 1):
            img = images[suite]
            disk = os.path.join(out, 'vm%d.qcow2' % i)
            subprocess.run([qemu_img, 'create', '-q', '-f', 'qcow2', '-b', os.path.join(img, 'disk.raw'),
                            '-F', 'raw', disk], check=True)
            env = {'ROLE': 'server' if i == 1 else 'client', 'IP': '10.0.0.%d' % i,
                   'PEER': '10.0.0.%d' % (3 - i), 'PEER_MAC': macs[2 - i], 'NVME_MIB': str(nvme_mib)}
            env.update(env_more or {})
            tdisk = os.path.join(out, 'test%d.tar' % i)
            test_disk(tdisk, env, extra)
            full = cmd + ['-kernel', os.path.join(img, 'vmlinuz'), '-initrd', os.path.join(img, 'initrd.img'),
                          # No login on the console while the test writes to it
                          # (agetty's vhangup would cut the test's output off).
                          # The test disk may take longer than systemd's 90 s to
                          # show up in a TCG guest on a loaded host: waiting for a
                          # device is a start job (systemd 252, Debian 12) or has
                          # its own default (254 on, Debian 13).
                          '-append', 'root=LABEL=rnicroot rw console=ttyS0 quiet net.ifnames=0 panic=-1 rnic_image.test '
                          'systemd.mask=serial-getty@ttyS0.service systemd.default_timeout_start_sec=600 '
                          'systemd.default_device_timeout_sec=600',
                          '-drive', 'file=%s,format=raw,if=none,id=rnictest,readonly=on' % tdisk,
                          '-device', 'virtio-blk-pci,drive=rnictest,serial=rnictest', '-no-reboot']
            if capture and i == 1:
                full += capture_args(cmd, capture)
            if trace:
                full += ['-trace', 'enable=%s,file=%s' % (trace, os.path.join(out, 'vm%d.trace' % i))]
            for d in FIRMWARE_DIRS:
                full += ['-L', d]
            with open(os.path.join(out, 'vm%d.cmd' % i), 'w') as f:
                f.write(shlex.join(full) + '\n')
            guests.append(Guest('vm%d-%s' % (i, suite), full, os.path.join(out, 'vm%d.log' % i)))
        deadline = t0 + timeout
        for g in guests:
            try:
                g.p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                print('image: %s timed out after %.0f s' % (g.name, timeout))
    finally:
        for g in guests:
            g.stop()
        if lock:
            lock.close()
    for g in guests:
        g.thread.join(2)
    return guests, time.time() - t0


def guest_ok(g):
    """The guest's own verdict: exit 0, every check ok, and all of them ran
    (the guest's PLAN names them before it starts)."""
    ran = {c.rpartition(' ')[0] for c in g.checks}
    return (g.rc == 0 and len(g.plan) >= 7 and set(g.plan) <= ran and
            all(c.endswith(' ok') for c in g.checks))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--a', required=True, help='release of guest 1 (server): bookworm or trixie')
    ap.add_argument('--b', required=True, help='release of guest 2 (client)')
    ap.add_argument('--wire', choices=('one-host', 'two-hosts'), default='one-host',
                    help="the manual's -netdev stream pair over a unix socket (one host) or TCP (two hosts)")
    ap.add_argument('--kit', default=os.environ.get('RNIC_GUEST_KIT'),
                    help='guest kit directory (default: ./rnic guest-kit builds it from this tree)')
    ap.add_argument('--timeout', type=float, default=420)
    ap.add_argument('--nvme-mib', type=int, default=32)
    ap.add_argument('--checks', help='the pair checks to run, in order (default: rping,write-bw,read-lat,nvmeof)')
    ap.add_argument('--repeat', type=int, default=1, help='run each pair check N times in the one boot')
    ap.add_argument('--check-seconds', type=int, default=120,
                    help="each pair check's deadline in the guests (per attempt)")
    ap.add_argument('--server-late', type=float, default=0,
                    help="guest 1 starts each pair check's server this many seconds late")
    ap.add_argument('--trace', metavar='PATTERN', help="QEMU trace events to vmN.trace, e.g. 'rnic_*'")
    ap.add_argument('--build-only', action='store_true', help='build (or find) the images and stop')
    ap.add_argument('--out', help='run directory (default: a new one under $RNIC_CACHE/image-runs)')
    a = ap.parse_args()

    images = prepare(a.a, a.b, a.kit)
    if a.build_only:
        if {a.a, a.b} == {'bookworm', 'trixie'}:
            prune_images(images.values())
        return
    out = os.path.abspath(a.out or new_run_dir())
    env = {'REPEAT': str(a.repeat), 'CHECK_S': str(a.check_seconds), 'SERVER_LATE': str(a.server_late)}
    if a.checks:
        known = ('rping', 'write-bw', 'read-lat', 'nvmeof')
        checks = a.checks.replace(',', ' ').split()
        if not checks or any(c not in known for c in checks):
            die('--checks takes %s' % ', '.join(known))
        env['CHECKS'] = ' '.join(checks)
    guests, took = run_pair(a.a, a.b, images, a.wire, out, a.timeout, a.nvme_mib, env=env, trace=a.trace)
    ok = len(guests) == 2
    for g in guests:
        ok = ok and guest_ok(g)
        bad = [c for c in g.checks if not c.endswith(' ok')]
        print('image: %s: boot to test %s s, rc=%s, %d checks, failed: %s' % (
            g.name, '%.1f' % g.boot_s if g.boot_s else '-', g.rc, len(g.checks), ', '.join(bad) or 'none'))
        for c in g.checks:
            print('image:   %s %s' % (g.name, c))
        missing = [c for c in g.plan if c not in {x.rpartition(' ')[0] for x in g.checks}]
        if missing:
            print('image: %s: never reported: %s' % (g.name, ', '.join(missing)))
        for n in g.notes:
            print('image: %s: %s' % (g.name, n))
        for r in g.results:
            print('image: result %s %s' % (g.name, r))
    print('image: %s %s<->%s (%s) in %.1f s; logs in %s' % (
        'passed' if ok else 'FAILED', a.a, a.b, a.wire, took, out))
    sys.exit(0 if ok else 1)


def new_run_dir():
    return os.path.join(CACHE, 'image-runs', time.strftime('%Y%m%d-%H%M%S-') + str(os.getpid()))


if __name__ == '__main__':
    main()
