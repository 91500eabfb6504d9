#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rnic VM lab: boot N TCG guests on one L2 segment and run a script in each.

Guests boot the extracted Debian kernel with a tiny initramfs and the host's root
read-only over 9p; each gets a writable output share, a pcap of its traffic and a
console log in the run directory. Every process started here (QEMUs, the relay,
the hub) is tracked by PID and ended on every exit path; a hung guest is killed by
the run's own timeout.

  lab.py --guests 2 --nic virtio --script tests/vm/guest/siw-pair.sh
"""
import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

LAB_DIR = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(LAB_DIR))
CACHE = os.environ.get('RNIC_CACHE', os.path.expanduser('~/.cache/rnic'))
# RNIC_QEMU: another build of the device, e.g. for an A/B of a device change
QEMU = os.environ.get('RNIC_QEMU') or os.path.join(CACHE, 'build', 'qemu', 'qemu-system-x86_64')
STAGE = os.path.join(CACHE, 'rdma-core', 'stage')
# A QEMU built with sanitizers (scripts/setup/qemu-asan.sh, docs/sanitizers.md)
# aborts at its first report, which lands in its log in the run directory; any
# report there fails the run. Other QEMUs ignore the sanitizer options.
sys.path.insert(0, os.path.join(TOP, 'tests', 'asan'))
import sanitizer_reports  # noqa: E402
FIRMWARE_DIRS = ['/usr/share/qemu', '/usr/share/seabios']


def die(msg):
    print('lab: error: ' + msg, file=sys.stderr)
    sys.exit(2)


def kernel(series):
    d = os.path.join(CACHE, 'kernel', series)
    if not os.path.exists(os.path.join(d, '.ready')) or not os.path.exists(os.path.join(d, 'vmlinuz')):
        die('guest kernel %s is not in %s: run ./rnic setup' % (series, d))
    with open(os.path.join(d, 'kver')) as f:
        kver = f.read().strip()
    return os.path.join(d, 'root'), kver, os.path.join(d, 'vmlinuz')


def initramfs(kroot, kver):
    """The initramfs is cached, keyed by the kernel and the files that make it."""
    h = hashlib.sha256(kver.encode())
    for f in ('mkinitramfs.sh', 'guest/initramfs-init'):
        with open(os.path.join(LAB_DIR, f), 'rb') as fh:
            h.update(fh.read())
    out = os.path.join(CACHE, 'lab', 'initrd-%s-%s.gz' % (kver, h.hexdigest()[:12]))
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run([os.path.join(LAB_DIR, 'mkinitramfs.sh'), kroot, kver, out], check=True)
    return out


class Lab:
    def __init__(self, args):
        self.args = args
        self.procs = []          # (name, Popen) of everything we started
        self.threads = []

    def start(self, name, cmd, log):
        fh = open(log, 'wb')
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((name, p))
        t = threading.Thread(target=self.pump, args=(name, p, fh), daemon=True)
        t.start()
        self.threads.append(t)
        return p

    def pump(self, name, p, fh):
        quiet = self.args.quiet
        for line in iter(p.stdout.readline, b''):
            fh.write(line)
            fh.flush()
            if not quiet:
                sys.stdout.write('[%s] %s' % (name, line.decode('utf-8', 'replace')))
                sys.stdout.flush()
        fh.close()

    def stop_all(self):
        """End exactly the processes this lab started (by PID), politely then firmly."""
        for _, p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.time() + 5
        for _, p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for t in self.threads:
            t.join(2)


def guest_cmd(a, i, vmlinuz, initrd, netdev_args):
    run = a.out
    mac = '52:54:00:00:00:%02x' % i
    nic = a.nics[i - 1]
    if nic == 'virtio':
        dev = 'virtio-net-pci,netdev=n0,mac=%s,romfile=' % mac
    elif nic == 'rnic':
        dev = 'rnic,netdev=n0,mac=%s' % mac
    else:
        die('unknown nic %r (virtio or rnic)' % nic)
    out = os.path.join(run, 'out%d' % i)
    os.makedirs(out, exist_ok=True)
    accel = 'kvm:tcg' if os.access('/dev/kvm', os.R_OK | os.W_OK) else 'tcg'
    cmd = [QEMU, '-machine', 'q35,accel=' + accel, '-cpu', 'max', '-m', str(a.mem), '-smp', '1',
           '-nodefaults', '-display', 'none', '-vga', 'none', '-no-reboot',
           '-chardev', 'stdio,id=con,signal=off', '-serial', 'chardev:con',
           '-kernel', vmlinuz, '-initrd', initrd,
           '-append', 'console=ttyS0 quiet panic=-1 oops=panic rnic.init=%s rnic.dir=%s rnic.id=%d'
           % (os.path.join(LAB_DIR, 'guest', 'guest-init.sh'), run, i),
           '-fsdev', 'local,id=root,path=/,security_model=none,readonly=on,multidevs=remap',
           '-device', 'virtio-9p-pci,fsdev=root,mount_tag=hostroot',
           '-fsdev', 'local,id=out,path=%s,security_model=none' % out,
           '-device', 'virtio-9p-pci,fsdev=out,mount_tag=rnicout',
           # The run directory live (no page cache, no overlay): guests see each
           # other's output appear there even when it lies under the host's /tmp.
           '-fsdev', 'local,id=run,path=%s,security_model=none,readonly=on' % run,
           '-device', 'virtio-9p-pci,fsdev=run,mount_tag=rnicrun',
           '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
           '-netdev', netdev_args, '-device', dev]
    if not a.no_pcap:
        cmd += ['-object', 'filter-dump,id=dump,netdev=n0,file=%s' % os.path.join(run, 'guest%d.pcap' % i)]
    for d in FIRMWARE_DIRS:
        cmd += ['-L', d]
    if a.trace:
        # The log backend (scripts/setup/qemu.sh) writes to -trace's file.
        patterns = a.trace.split(',')
        cmd += ['-trace', 'enable=%s,file=%s' % (patterns[0], trace_file(a, i))]
        for pat in patterns[1:]:
            cmd += ['-trace', 'enable=' + pat]
    cmd += a.qemu_arg
    return cmd


def trace_file(a, i):
    return os.path.join(a.out, 'guest%d.trace' % i)


def trace_check(a):
    """Each rnic guest's QEMU trace must have a line matching every
    --trace-expect pattern; prints the count of each event seen."""
    ok = True
    for i in range(1, a.guests + 1):
        if a.nics[i - 1] != 'rnic':
            continue
        try:
            with open(trace_file(a, i), 'rb') as f:
                lines = f.read().decode('utf-8', 'replace').splitlines()
        except OSError as e:
            print('trace-check: guest%d: %s' % (i, e))
            ok = False
            continue
        counts = {}
        for line in lines:
            m = re.search(r'\b(rnic_\w+) ', line)
            if m:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        print('trace-check: guest%d: %d lines: %s' % (
            i, len(lines), ', '.join('%s %d' % kv for kv in sorted(counts.items()))))
        for pat in a.trace_expect:
            hit = next((l for l in lines if re.search(pat, l)), None)
            if hit is None:
                print('trace-check: guest%d: no line matches %r' % (i, pat))
                ok = False
            else:
                print('trace-check: guest%d: %r: %s' % (i, pat, hit.strip()))
    return ok


def write_env(a, i, kroot, kver):
    n = a.guests
    env = {
        'RNIC_SCRIPT': os.path.abspath(a.script), 'RNIC_KROOT': kroot, 'RNIC_KVER': kver,
        'RNIC_LAB_DIR': LAB_DIR, 'RNIC_TOP': TOP, 'RNIC_CACHE': CACHE, 'RNIC_STAGE': STAGE,
        'RNIC_NIC': a.nics[i - 1], 'RNIC_GUESTS': str(n), 'RNIC_MTU': str(a.mtu),
        'RNIC_IP': '10.77.0.%d' % i, 'RNIC_PEER': '10.77.0.%d' % (2 if i == 1 else 1),
        'RNIC_ROLE': 'server' if i == 1 else 'client', 'RNIC_OUT': '/run/out',
    }
    # a work tree's driver build (docs/vm-lab.md), also from meson test's environment
    if os.environ.get('RNIC_GUEST_KO'):
        env['RNIC_GUEST_KO'] = os.environ['RNIC_GUEST_KO']
    for kv in a.env:
        k, _, v = kv.partition('=')
        env[k] = v
    with open(os.path.join(a.out, 'guest%d.env' % i), 'w') as f:
        for k, v in env.items():
            f.write("export %s='%s'\n" % (k, v.replace("'", "'\\''")))


def netdevs(a, lab):
    """One netdev argument per guest: a lone guest's socket points nowhere,
    two guests get cross-pointed unix dgram sockets (optionally through the
    impairment relay) or, with --wire stream, one unix stream connection; more
    are joined by a guest-less QEMU hub."""
    d = a.out
    sock = lambda name: os.path.join(d, name)
    dgram = 'dgram,id=n0,local.type=unix,local.path=%s,remote.type=unix,remote.path=%s'
    if a.guests == 1:
        return [dgram % (sock('g1.sock'), sock('none.sock'))]
    if a.guests == 2 and not a.relay and a.wire == 'stream':
        # A unix datagram socket queues only net.unix.max_dgram_qlen (10)
        # frames: bulk senders stall on a full peer queue. A stream socket
        # pushes back through its byte buffer instead. Not the default: it
        # makes siw-vs-siw perftest runs hit siw's accept races (docs/vm-lab.md).
        # Guest 2's QEMU retries until guest 1's QEMU listens; frames sent
        # before that are dropped (the netdev's link is down), as a dgram send
        # to a missing socket is.
        path = sock('wire.sock')
        return ['stream,id=n0,server=on,addr.type=unix,addr.path=%s' % path,
                'stream,id=n0,server=off,reconnect-ms=50,addr.type=unix,addr.path=%s' % path]
    if a.guests == 2 and not a.relay:
        return [dgram % (sock('g1.sock'), sock('g2.sock')), dgram % (sock('g2.sock'), sock('g1.sock'))]
    if a.guests == 2:
        cmd = [sys.executable, os.path.join(LAB_DIR, 'relay.py'),
               '--ra', sock('r1.sock'), '--rb', sock('r2.sock'),
               '--a', sock('g1.sock'), '--b', sock('g2.sock'), '--pcap', sock('relay.pcap')] + a.relay
        lab.start('relay', cmd, os.path.join(d, 'relay.log'))
        return [dgram % (sock('g1.sock'), sock('r1.sock')), dgram % (sock('g2.sock'), sock('r2.sock'))]
    hub = [QEMU, '-machine', 'none', '-nodefaults', '-display', 'none', '-monitor', 'none',
           '-serial', 'none']
    for i in range(1, a.guests + 1):
        hub += ['-netdev', dgram.replace('id=n0', 'id=s%d' % i) % (sock('hub%d.sock' % i), sock('g%d.sock' % i)),
                '-netdev', 'hubport,id=p%d,hubid=0,netdev=s%d' % (i, i)]
    lab.start('hub', hub, os.path.join(d, 'hub.log'))
    return [dgram % (sock('g%d.sock' % i), sock('hub%d.sock' % i)) for i in range(1, a.guests + 1)]


def guest_rc(status, log):
    """isa-debug-exit makes QEMU exit with (rc << 1) | 1; the console marker is the fallback."""
    if status is not None and status > 0 and status & 1:
        return status >> 1
    try:
        with open(log, 'rb') as f:
            for line in f.read().decode('utf-8', 'replace').splitlines()[::-1]:
                if line.startswith('RNIC-LAB-EXIT rc='):
                    return int(line.split('=', 1)[1])
    except OSError:
        pass
    return None


KEEP_RUNS = 8


def prune_runs(current):
    """Run directories hold full captures (a 256 MiB L2 run writes ~1 GB): keep
    only the newest few under $RNIC_CACHE/runs, never the current one."""
    root = os.path.join(CACHE, 'runs')
    try:
        dirs = [os.path.join(root, d) for d in os.listdir(root)]
    except OSError:
        return
    def mtime(d):
        try:
            return os.path.getmtime(d)
        except OSError:     # pruned meanwhile by a lab running in parallel
            return 0
    dirs = sorted((d for d in dirs if os.path.isdir(d) and d != current), key=mtime)
    for d in dirs[:max(0, len(dirs) - (KEEP_RUNS - 1))]:
        if not run_is_idle(d):
            continue    # another lab (a parallel test) is still writing it
        shutil.rmtree(d, ignore_errors=True)


def run_is_idle(d, quiet_s=1200):
    """True when nothing in run directory d changed for quiet_s seconds: no
    lab run lasts that long without its logs or captures growing."""
    try:
        newest = os.path.getmtime(d)
        for e in os.scandir(d):
            newest = max(newest, e.stat(follow_symlinks=False).st_mtime)
    except OSError:
        return True
    return time.time() - newest > quiet_s


def print_results(a):
    """Echo the guests' RESULT lines (what tests measured) into one file and stdout."""
    lines = []
    for i in range(1, a.guests + 1):
        try:
            with open(os.path.join(a.out, 'guest%d.log' % i), 'rb') as f:
                for line in f.read().decode('utf-8', 'replace').splitlines():
                    if line.startswith('RESULT '):
                        lines.append('guest%d %s' % (i, line[7:].strip()))
        except OSError:
            pass
    with open(os.path.join(a.out, 'results.txt'), 'w') as f:
        f.write(''.join(l + '\n' for l in lines))
    for l in lines:
        print('lab: result: ' + l)


def guest_checks(a):
    """The checks the guests announced (RNIC-PLAN NAME...) and reported
    (RNIC-CHECK ok|fail NAME [ports=P,..] [opcodes=O,..]), see
    guest/rnic-user-pair.sh: names in order, and per name {guest: (ok, fields)}."""
    plan, reports = [], {}
    for i in range(1, a.guests + 1):
        try:
            with open(os.path.join(a.out, 'guest%d.log' % i), 'rb') as f:
                lines = f.read().decode('utf-8', 'replace').splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if line.startswith('RNIC-PLAN '):
                plan += [n for n in line.split()[1:] if n not in plan]
            m = re.match(r'RNIC-CHECK (ok|fail) (\S+)(.*)$', line)
            if m:
                fields = dict(kv.split('=', 1) for kv in m.group(3).split() if '=' in kv)
                reports.setdefault(m.group(2), {})[i] = (m.group(1) == 'ok', fields)
                if m.group(2) not in plan:
                    plan.append(m.group(2))
    return plan, reports


def check_args(reports):
    """pcap-check --check NAME:PORTS:OPCODES for each check with a wire rule."""
    args = []
    for name, by_guest in reports.items():
        fields = next((f for _, f in by_guest.values() if f.get('ports') and f.get('opcodes')), None)
        if fields:
            args.append('--check=%s:%s:%s' % (name, fields['ports'], fields['opcodes']))
    return args


def sanitizer_check(a):
    """Sanitizer reports in the run's logs (QEMU's stderr is in guestN.log, hub.log)."""
    logs = sorted(os.path.join(a.out, f) for f in os.listdir(a.out) if f.endswith('.log'))
    found = sanitizer_reports.reports(logs)
    for r in found:
        print('lab: sanitizer report in ' + r)
    print('lab: sanitizers: %d report(s) in %d logs' % (len(found), len(logs)))
    return found


def tap_report(a, rcs, plan, reports, pcap_out, trace_ok, out, sanitized=()):
    """One TAP subtest per check (both guests said ok and every capture's rule
    for it held), per capture (the capture-wide rules), for --trace-expect, and
    per guest that ended without a check saying why. Returns whether all passed."""
    tests = []
    for name in plan:
        why = []
        for i in range(1, a.guests + 1):
            r = reports.get(name, {}).get(i)
            if r is None:
                why.append('guest%d: no result' % i)
            elif not r[0]:
                why.append('guest%d: failed' % i)
        for text in pcap_out.values():
            v = re.search(r': check %s: (.*)' % re.escape(name), text)
            if v and not v.group(1).startswith('OK'):
                why.append('capture: ' + v.group(1))
        tests.append((not why, name, '; '.join(why)))
    for i, text in sorted(pcap_out.items()):
        verdict = [l for l in text.splitlines() if l.startswith('pcap-check: ') and ': check ' not in l
                   and ' frames, ' not in l]
        ok = bool(verdict) and verdict[-1].endswith(': OK')
        tests.append((ok, 'pcap-check guest%d' % i, '' if ok else (verdict[-1] if verdict else 'no verdict')))
    if trace_ok is not None:
        tests.append((trace_ok, 'trace-check', '' if trace_ok else 'see the log (stderr)'))
    if sanitized:
        tests.append((False, 'sanitizers', '%d report(s), see the log (stderr)' % len(sanitized)))
    for i in sorted(rcs):
        failed_checks = any(not r.get(i, (True,))[0] for r in reports.values())
        if rcs[i] is None:
            tests.append((False, 'guest%d' % i, 'no result (timeout or crash)'))
        elif rcs[i] != 0 and not failed_checks:
            tests.append((False, 'guest%d' % i, 'rc=%d' % rcs[i]))
        elif not plan:
            tests.append((rcs[i] == 0, 'guest%d' % i, 'rc=%d' % rcs[i]))
    out.write('TAP version 13\n')
    for n, (ok, name, why) in enumerate(tests, 1):
        # The reason goes on a diagnostic line: after '#' on the test line
        # TAP allows only SKIP and TODO.
        out.write('%s %d - %s\n%s' % ('ok' if ok else 'not ok', n, name, '# %s\n' % why if why else ''))
    out.write('1..%d\n' % len(tests))
    out.flush()
    return all(t[0] for t in tests)


def pcap_check(a, extra=(), outputs=None):
    """Every lab run's wire is checked with Wireshark's iWARP dissectors."""
    # One checker per capture, all at once: on a large run the check is most
    # of the test's time and each tshark uses one core. Outputs are printed
    # in guest order when all are done.
    checker = [sys.executable, os.path.join(TOP, 'tests', 'conformance', 'pcap-check.py')]
    procs = []
    for i in range(1, a.guests + 1):
        pcap = os.path.join(a.out, 'guest%d.pcap' % i)
        log = open(os.path.join(a.out, 'pcap-check%d.txt' % i), 'w+')
        procs.append((subprocess.Popen(checker + a.pcap_check_arg + list(extra) + [pcap], stdout=log,
                                       stderr=subprocess.STDOUT), log))
    ok = True
    try:
        for i, (p, log) in enumerate(procs, 1):
            ok = p.wait() == 0 and ok
            log.seek(0)
            text = log.read()
            sys.stdout.write(text)
            if outputs is not None:
                outputs[i] = text
        sys.stdout.flush()
    finally:  # a timeout's SIGTERM ends the checkers too (their tshark dies on SIGPIPE)
        for p, log in procs:
            if p.poll() is None:
                p.terminate()
                p.wait()
            log.close()
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--guests', type=int, default=2)
    p.add_argument('--nic', default='virtio', help='virtio or rnic, or a comma list, one per guest')
    p.add_argument('--script', required=True, help='bash script run as the test in every guest')
    p.add_argument('--timeout', type=float, default=600, help='hard limit for the whole run (s)')
    p.add_argument('--kernel', default='6.12')
    p.add_argument('--mem', type=int, default=1024)
    p.add_argument('--mtu', type=int, default=1500)
    p.add_argument('--out', help='run directory (default: a new one under $RNIC_CACHE/runs)')
    p.add_argument('--env', action='append', default=[], help='KEY=VALUE for the guest scripts')
    p.add_argument('--wire', choices=('stream', 'dgram'), default=os.environ.get('RNIC_LAB_WIRE', 'dgram'),
                   help='two guests without relay: a pair of unix dgram sockets (default) or one unix '
                   'stream connection without the 10-frame queue limit (default from $RNIC_LAB_WIRE)')
    p.add_argument('--relay', nargs=argparse.REMAINDER, default=None,
                   help='put relay.py between two guests; the rest of the line is its options')
    p.add_argument('--qemu-arg', action='append', default=[], help='extra QEMU argument (each guest)')
    p.add_argument('--quiet', action='store_true', help='do not echo consoles')
    p.add_argument('--no-pcap-check', action='store_true',
                   help='skip the tshark iWARP check of the guests\' captures')
    p.add_argument('--no-pcap', action='store_true',
                   help='capture nothing (no filter-dump, whose per-frame writes cost the main loop '
                   'that moves the frames; for benchmarks) and so check no capture')
    p.add_argument('--trace', default=os.environ.get('RNIC_LAB_TRACE'),
                   help='QEMU trace-event patterns, comma-separated (e.g. rnic_eng_*), '
                   'logged to guestN.trace in the run directory (default from $RNIC_LAB_TRACE)')
    p.add_argument('--trace-expect', action='append', default=[],
                   help='regex that must match a line of every rnic guest\'s trace '
                   '(implies --trace rnic_eng_* when no --trace is given)')
    p.add_argument('--pcap-check-arg', action='append', default=[],
                   help='option for tests/conformance/pcap-check.py (e.g. --allow-terminate)')
    p.add_argument('--tap', action='store_true',
                   help='print TAP on stdout (everything else on stderr): a subtest per check the '
                   'guests report (RNIC-CHECK lines), per capture and per guest that failed otherwise; '
                   'the captures are checked even when a guest failed')
    a = p.parse_args()
    tap_out = sys.stdout
    if a.tap:
        sys.stdout = sys.stderr

    if not os.access(QEMU, os.X_OK):
        die('no QEMU at %s: run ./rnic setup' % QEMU)
    if a.guests < 1:
        die('--guests must be at least 1')
    nics = a.nic.split(',')
    a.nics = nics * a.guests if len(nics) == 1 else nics
    if len(a.nics) != a.guests:
        die('--nic lists %d NICs for %d guests' % (len(nics), a.guests))
    if a.relay is not None and a.guests != 2:
        die('--relay needs exactly two guests')
    if a.wire not in ('stream', 'dgram'):    # argparse checks choices, not an env default
        die('unknown wire %r (stream or dgram)' % a.wire)
    if not os.path.exists(a.script):
        die('no script %s' % a.script)
    if a.no_pcap:
        a.no_pcap_check = True
    if a.trace_expect and not a.trace:
        a.trace = 'rnic_eng_*'
    if not a.out:
        a.out = os.path.join(CACHE, 'runs', time.strftime('%Y%m%d-%H%M%S-') + str(os.getpid()))
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    os.environ.update(sanitizer_reports.options(os.environ))

    prune_runs(a.out)
    kroot, kver, vmlinuz = kernel(a.kernel)
    initrd = initramfs(kroot, kver)
    lab = Lab(a)
    # meson and CI end a test with SIGTERM: turn it into an exception so the
    # finally below ends the guests instead of leaving them orphaned.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    t0 = time.time()
    rcs = {}
    try:
        nets = netdevs(a, lab)
        guests = []
        for i in range(1, a.guests + 1):
            write_env(a, i, kroot, kver)
            log = os.path.join(a.out, 'guest%d.log' % i)
            guests.append((i, lab.start('g%d' % i, guest_cmd(a, i, vmlinuz, initrd, nets[i - 1]), log), log))
        deadline = t0 + a.timeout
        for i, proc, log in guests:
            try:
                status = proc.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                print('lab: guest%d timed out after %.0f s: killing it' % (i, a.timeout), file=sys.stderr)
                status = None
            rcs[i] = guest_rc(status, log) if status is not None else None
    finally:
        lab.stop_all()
    took = time.time() - t0
    sanitized = sanitizer_check(a)
    ok = all(rc == 0 for rc in rcs.values()) and not sanitized
    print_results(a)
    trace_ok = None
    if a.trace_expect and (ok or a.tap):
        trace_ok = trace_check(a)
        ok = ok and trace_ok
    if a.tap:
        plan, reports = guest_checks(a)
        pcap_out = {}
        if not a.no_pcap_check:
            pcap_check(a, check_args(reports), pcap_out)
        ok = tap_report(a, rcs, plan, reports, pcap_out, trace_ok, tap_out, sanitized) and ok
    elif ok and not a.no_pcap_check:
        ok = pcap_check(a, check_args(guest_checks(a)[1]))
    for i in sorted(rcs):
        print('lab: guest%d (%s): %s' % (i, a.nics[i - 1],
              'rc=%d' % rcs[i] if rcs[i] is not None else 'no result (timeout or crash)'))
    print('lab: %s in %.1f s; logs, pcaps and outputs in %s' % ('passed' if ok else 'FAILED', took, a.out))
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
