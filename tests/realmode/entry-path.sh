#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real-mode instructions of an LRM file's blob from trampoline_start
# to the far jump into protected mode, in the order the AP meets them:
# straight on (a lock loop's pause and jmp listed, though an AP that finds
# the lock free skips them), across the ljmpw to its target, one
# instruction a line (ndisasm -b16),
# addresses and numbers as N so that two builds whose code moved compare
# equal. The path of a twin must be the shipped blob's without its wbinvd
# line, and that of a tree built with the patch (tests/realmode/run.sh,
# source.sh).
#   entry-path.sh FILE.lrm
set -euo pipefail
f=$1
u32() { od -An -tu4 -j "$1" -N4 "$f" | tr -d ' '; }
off=$(u32 16) size=$(u32 20) ts=$(u32 40)
t=$(mktemp)
trap 'rm -f "$t" "$t.insn"' EXIT
dd if="$f" of="$t" bs=1 skip="$off" count="$size" status=none
at=$ts
for _ in $(seq 64); do
	dd if="$t" of="$t.insn" bs=1 skip="$at" count=16 status=none
	line=$(ndisasm -b16 -o "$at" "$t.insn" | sed -n 1p)
	insn=$(sed -E 's/^[0-9A-F]+ +[0-9A-F]+ +//' <<<"$line")
	len=$(($(awk '{ print length($2) }' <<<"$line") / 2))
	sed -E 's/0x[0-9a-f]+/N/g; s/ +/ /g' <<<"$insn"
	case $insn in
	"jmp dword "*:*) exit 0 ;; # ljmpl: into protected mode, the path's end
	"jmp 0x"*:0x*) at=$((${insn##*:})) ;; # the ljmpw: on at its target
	*) at=$((at + len)) ;;
	esac
done
echo "entry-path.sh: no far jump into protected mode within 64 instructions" >&2
exit 1
