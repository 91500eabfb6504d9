#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./rnic install into a scratch prefix, then the installed qemu-system-x86_64,
# with no -L, boots: SeaBIOS (bios-256k.bin), iPXE for virtio-net-pci
# (efi-virtio.rom) and linuxboot_dma.bin for -kernel all come from
# PREFIX/share/qemu; the guest kernel (the cache's, no initrd) enumerates rnic
# (1af4:10f5) before it stops at the missing root filesystem.
#   qemu-install.sh TOP WORKDIR
set -euo pipefail
top=$1 work=$2
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# --no-setup: the run that calls this test has just run setup (./rnic test
# does, first); install's own setup would repeat it (24 s warm: most of it
# guest-driver.sh) and run ninja in the build directory under test.
"$top/rnic" install --no-setup --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; fail "./rnic install --no-setup --prefix $prefix"; }
grep -q "$prefix/bin/qemu-system-x86_64 -M q35" "$work/install.log" || fail "install printed no command line"
"$prefix/bin/qemu-img" --version >/dev/null || fail "installed qemu-img does not run"

vmlinuz=
for k in "$cache"/kernel/*/vmlinuz; do
	[ -e "$k" ] && [ -e "${k%/vmlinuz}/.ready" ] && vmlinuz=$k && break
done
[ -n "$vmlinuz" ] || fail "no guest kernel in $cache/kernel: run ./rnic setup"

qemu_pid=
cleanup() { [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true; }
trap cleanup EXIT
run() {
	"$prefix/bin/qemu-system-x86_64" -M q35 -m 512 -display none -no-reboot \
		-chardev file,id=dbg,path="$work/seabios.log" -device isa-debugcon,iobase=0x402,chardev=dbg \
		-serial file:"$work/serial.log" \
		-netdev user,id=n1 -device virtio-net-pci,netdev=n1,addr=0x5 \
		-netdev user,id=n0 -device rnic,netdev=n0 \
		-kernel "$vmlinuz" -append "console=ttyS0 panic=-1" \
		>"$work/qemu.out" 2>&1 &
	qemu_pid=$!
	for _ in $(seq 240); do
		grep -q 'Kernel panic\|VFS: Unable to mount' "$work/serial.log" 2>/dev/null && break
		kill -0 "$qemu_pid" 2>/dev/null || break
		sleep 0.5
	done
	kill "$qemu_pid" 2>/dev/null || true
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=
}
# One VM at a time on this host (tests/vm and benchmarks take the same lock),
# unless the caller already holds it and says so.
if [ "${RNIC_VM_LOCK_HELD:-}" = 1 ]; then
	run
else
	exec 9>/tmp/rnic-vm.lock
	flock 9
	run
	flock -u 9
fi

cat "$work/qemu.out" >&2
! grep -qi 'could not\|failed to find romfile\|option rom' "$work/qemu.out" ||
	fail "QEMU could not find firmware (above)"
grep -q 'SeaBIOS (version' "$work/seabios.log" || fail "SeaBIOS did not start"
# SeaBIOS lists a boot entry for a NIC only after running its option ROM.
grep -q 'Searching bootorder for: /pci@i0cf8/\*@5$' "$work/seabios.log" ||
	fail "virtio-net-pci's iPXE option ROM (efi-virtio.rom) did not run"
grep -q 'Searching bootorder for: /rom@genroms/linuxboot_dma.bin' "$work/seabios.log" ||
	fail "linuxboot_dma.bin was not loaded"
grep -q 'Linux version' "$work/serial.log" || fail "the kernel did not start (linuxboot_dma.bin)"
grep -qi '1af4:10f5' "$work/serial.log" || fail "the guest kernel did not enumerate rnic (1af4:10f5)"
echo "ok: $prefix/bin/qemu-system-x86_64 found its firmware without -L and booted $vmlinuz with rnic"
