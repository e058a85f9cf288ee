#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make run-chroot-test (long, not in make test): does `make run` work for a
# new user who is not root, on a Debian with only the packages make run
# needs? In a throw-away Debian (debootstrap --variant=minbase into
# build/chroot/, Debian 12 as the host), a clean copy of the repository
# (git archive HEAD) owned by an ordinary user:
#   1. only make and the shell's basics: make run stops, exit 2, naming the
#      missing packages and a command with sudo on each apt-get;
#   2. that command, run as printed by the user (sudo installed for it);
#   3. make run SMP=2 ARGS=cycles=1: exit 0, the per-CPU table and the three
#      rows last, the log it names holds the records; the packages of make
#      test (OVMF, Bochs, clang, ...) are still absent.
# Needs root (debootstrap, chroot, mounts) and the Debian mirror apt uses.
#   tests/chroot/run.sh [--keep]     (--keep: leave build/chroot/ for a look)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=tests/protocol.sh
. tests/protocol.sh

keep=0
[ "${1:-}" = --keep ] && keep=1
dir=$root/build/chroot
sysroot=$dir/root
log=$dir/log
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")

if [ "$(id -u)" != 0 ]; then
	skip "chroot" "needs root (debootstrap, chroot, mounts)"
	summary chroot
	exit 0
fi
if ! command -v debootstrap >/dev/null; then
	skip "chroot" "debootstrap is not installed (apt-get install debootstrap)"
	summary chroot
	exit 0
fi
# The mirror apt already uses (no host is named here).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)

cleanup() {
	for m in dev/pts dev proc; do
		mountpoint -q "$sysroot/$m" && umount -l "$sysroot/$m"
	done
	[ $keep = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
cleanup
mkdir -p "$dir"
: >"$log"

t0=$SECONDS
# shellcheck disable=SC2086
if debootstrap --variant=minbase --include=make,ca-certificates "$suite" "$sysroot" $mirror >>"$log" 2>&1; then
	ok "debootstrap $suite minbase with make only ($((SECONDS - t0))s)"
else
	fail "debootstrap $suite minbase" "see $log" "$(tail -n 5 "$log")"
	summary chroot
	exit 1
fi
cp /etc/resolv.conf "$sysroot/etc/resolv.conf"
mount -t proc proc "$sysroot/proc"
mount --bind /dev "$sysroot/dev"
mount --bind /dev/pts "$sysroot/dev/pts"
in_root() { chroot "$sysroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
in_user() { # CMD: as the user, in the clone, a login-like environment
	chroot "$sysroot" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/dev USER=dev \
		/usr/sbin/runuser -u dev -- /bin/bash -c "cd ~/apstart && $1"
}
in_root useradd -m -s /bin/bash dev >>"$log" 2>&1
mkdir -p "$sysroot/home/dev/apstart"
git archive HEAD | tar -x -C "$sysroot/home/dev/apstart"
in_root chown -R dev:dev /home/dev/apstart

# 1. make run, not root, nothing but make: it stops and says how.
in_user "make run SMP=2 ARGS=cycles=1" >"$dir/run1.out" 2>&1
st=$?
cmdline=$(sed -n 's/^deps: install them with: //p' "$dir/run1.out")
# What it asks for: packages of make run's list only (those minbase lacks),
# the build tools and QEMU among them, and sudo on each apt-get.
allowed=" $(tools/deps.sh --list build run | tr '\n' ' ') "
asked=${cmdline#sudo apt-get update && sudo apt-get install -y }
extra=$(for p in $asked; do [[ $allowed == *" $p "* ]] || printf '%s ' "$p"; done)
if [ $st = 2 ] && [ "$asked" != "$cmdline" ] && [ -z "$extra" ] &&
	[[ " $asked " == *" build-essential "* ]] && [[ " $asked " == *" qemu-system-x86 "* ]] &&
	! grep -q 'No such file' "$dir/run1.out"; then
	ok "make run, not root, packages missing: exit 2, prints: $cmdline"
else
	fail "make run, not root, packages missing: exit 2 and the install command" "exit $st" "$(tail -n 6 "$dir/run1.out")"
fi

# 2. The command as printed, by the user (sudo for it, as a desktop has).
in_root apt-get install -y -q sudo >>"$log" 2>&1
echo 'dev ALL=(ALL) NOPASSWD: ALL' >"$sysroot/etc/sudoers.d/dev"
chmod 440 "$sysroot/etc/sudoers.d/dev"
t0=$SECONDS
if [ -n "$cmdline" ] && in_user "DEBIAN_FRONTEND=noninteractive $cmdline" >"$dir/install.out" 2>&1; then
	ok "the printed command works as printed ($((SECONDS - t0))s)"
else
	fail "the printed command works as printed" "see $dir/install.out" "$(tail -n 5 "$dir/install.out")"
fi

# 3. make run now works; make test's own packages are still not there.
t0=$SECONDS
in_user "make run SMP=2 ARGS=cycles=1 RUN_LOG=build/chroot-run.log" >"$dir/run2.out" 2>&1
st=$?
tail -n 9 "$dir/run2.out" >"$dir/run2.tail"
if [ $st = 0 ] && grep -Eq '^ cpu +apic +median' "$dir/run2.tail" && grep -q '^Total: ' "$dir/run2.tail" &&
	grep -q '^make run: pass, exit 0; the whole record stream' "$dir/run2.tail" &&
	grep -q '^@end status=pass online=2' "$sysroot/home/dev/apstart/build/chroot-run.log"; then
	ok "make run as user dev with only the build and QEMU packages: exit 0, table and three rows ($((SECONDS - t0))s)"
else
	fail "make run as user dev with only the build and QEMU packages" "exit $st" "$(cat "$dir/run2.tail")"
fi
missing=$(in_user "tools/deps.sh --check test" 2>&1 | sed -n 's/^deps: missing packages: //p')
if grep -qw ovmf <<<"$missing" && grep -qw bochs <<<"$missing" && grep -qw clang <<<"$missing"; then
	ok "make test's packages are absent all along (deps.sh --check test: missing $(wc -w <<<"$missing"))"
else
	fail "make test's packages are absent all along" "deps.sh --check test says missing: '$missing'"
fi

summary chroot
