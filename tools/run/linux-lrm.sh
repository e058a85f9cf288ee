#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The LRM file (Linux's realmode blob for trampoline=linux,
# docs/linux-trampoline.md) for a run: make run LINUX_IMAGE=..., make ab,
# make iso LINUX_IMAGE=... call this.
#
#   linux-lrm.sh [--twin] [--out DIR] INPUT
#
# INPUT   an LRM file (checked with aprealmode --check and used as it is),
#         or what aprealmode takes: a kernel image (vmlinuz, bzImage), a
#         vmlinux, a Linux build tree, or "running" (/boot/vmlinuz-$(uname -r))
# --twin  the patched twin of INPUT's blob (aprealmode --twin) instead: the
#         blob as the reference patch leaves it (refused for an LRM file,
#         whose shipped blob is not at hand, and for a blob without WBINVD)
# --out   where the files go (default build/lrm): NAME.lrm and NAME-twin.lrm,
#         NAME from INPUT, made again when INPUT is newer
#
# Prints the file's path on stdout. Exit status: 0, 1 (aprealmode refused
# the input: its one line on stderr), 2 usage.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
die() { echo "linux-lrm: $*" >&2; exit 2; }
twin=0 out=build/lrm input=
while [ $# -gt 0 ]; do
	case $1 in
	--twin) twin=1; shift ;;
	--out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) [ -z "$input" ] || die "one INPUT only"; input=$1; shift ;;
	esac
done
[ -n "$input" ] || die "no INPUT (an LRM file, a kernel image, a build tree or 'running')"
aprealmode=build/host/aprealmode
[ -x $aprealmode ] || make --no-print-directory aprealmode >/dev/null ||
	die "cannot build $aprealmode"
src=$input
[ "$input" = running ] && src=/boot/vmlinuz-$(uname -r)
[ -e "$src" ] || { echo "linux-lrm: $input: no such file or folder" >&2; exit 1; }

if [ -f "$src" ] && cmp -s -n 5 <(printf APLRM) "$src"; then
	[ $twin = 0 ] || { echo "linux-lrm: $input: an LRM file: its twin comes from the image or tree it was made from (aprealmode --twin)" >&2; exit 1; }
	$aprealmode --check "$src" >/dev/null || exit 1
	echo "$src"
	exit 0
fi
# A name that tells the inputs apart: the file or folder name and a hash
# of its full path.
name=$(basename "$(realpath "$src")")
name=${name//[^A-Za-z0-9._+-]/_}-$(realpath "$src" | sha256sum | cut -c1-8)
mkdir -p "$out" || die "cannot make $out"
lrm=$out/$name.lrm twinf=$out/$name-twin.lrm
stamp=$src
[ -d "$src" ] && stamp=$src/arch/x86/realmode/rm/realmode.bin
if [ ! -s "$lrm" ] || [ "$stamp" -nt "$lrm" ] || { [ $twin = 1 ] && [ ! -s "$twinf" ]; }; then
	rm -f "$lrm" "$twinf"
	args=(-o "$lrm")
	[ $twin = 1 ] && args+=(--twin "$twinf")
	$aprealmode "${args[@]}" "$src" >"$out/$name.txt" || { rm -f "$lrm" "$twinf"; exit 1; }
fi
[ $twin = 1 ] && echo "$twinf" || echo "$lrm"
