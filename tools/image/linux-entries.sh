#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make iso LINUX_IMAGE=...: a Linux kernel's realmode blob and its patched
# twin on the image, each with a menu entry of its own
# (docs/linux-trampoline.md): the LRM files (tools/run/linux-lrm.sh) go to
# MENU/boot/linux/ (the image's ISO 9660 tree), and the entries' list, as
# tools/image/mkgrubcfg.sh takes it in LINUX_ENTRIES, goes to stdout.
#
#   linux-entries.sh MENU INPUT     INPUT: a kernel image, vmlinux, build
#                                   tree, LRM file, or "running"
#   linux-entries.sh MENU           none: MENU/boot/linux/ removed
#
# Exit status: 0, 1 (the input refused: aprealmode's line on stderr), 2 usage.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: linux-entries.sh MENU [INPUT]" >&2; exit 2; }
dir=$1/boot/linux
if [ -z "${2:-}" ]; then
	rm -rf "$dir"
	exit 0
fi
mkdir -p "$dir" || exit 2
entries=() files=()
for kind in shipped twin; do
	opt=()
	[ $kind = twin ] && opt=(--twin)
	if ! lrm=$(tools/run/linux-lrm.sh "${opt[@]}" "$2"); then
		# An LRM file given as it is has no twin at hand: its entry alone.
		[ $kind = twin ] && [ ${#files[@]} = 1 ] && break
		exit 1
	fi
	check=$(build/host/aprealmode --check "$lrm") || exit 1
	ver=$(sed -n 's/^kernel: *Linux version \([^ ]*\).*/\1/p' <<<"$check")
	state=$(sed -n 's/^state: *from [^,]*, //p' <<<"$check")
	kernel=apstart-wbinvd0.elf
	grep -q '^layout: .*i386' <<<"$check" && kernel=apstart-i386-wbinvd0.elf
	name=${ver:-linux}
	name=${name//[^A-Za-z0-9._+-]/_}
	[ $kind = twin ] && name+=-twin
	cmp -s "$lrm" "$dir/$name.lrm" || cp "$lrm" "$dir/$name.lrm" || exit 2
	files+=("$name.lrm")
	case $state in
	"as shipped") what="as shipped" ;;
	patched*) what="patched" ;;
	*) what=$state ;;
	esac
	title="Linux ${ver:-?} trampoline ($what), 10 cycles"
	title=${title// /_}
	entries+=("/boot/linux/$name.lrm|$kernel|${title//[^A-Za-z0-9_.,:=+\/@%()-]/_}")
done
# Files of an earlier kernel go.
for f in "$dir"/*.lrm; do
	[[ " ${files[*]} " == *" ${f##*/} "* ]] || rm -f "$f"
done
echo "${entries[*]}"
