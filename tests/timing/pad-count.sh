#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a PAD build (make PAD_INSNS=K PAD_AT=..., realmode/instrument.inc) added,
# counted from the code itself: disassemble the plain and the padded
# build part by part (the trampoline's real-, protected- and long-mode
# code with their own bitness, split at the offsets its header records,
# and the kernel's text), drop addresses and displacements (padding moves
# what follows), and diff. Prints one line per part:
#   real|prot|long|park nops_added=N other_changes=M sites=S
# nops_added is the net number of instructions added; other_changes
# counts every changed line that is not a NOP form: it must
# be 0, or the pad is not "exactly K instructions". sites: how many copies
# of the pad point the part holds (park: one per WBINVD in park_ap(), of
# which one runs per offline), so nops_added = K x sites.
#   pad-count.sh build/wbinvd0 build/wbinvd0-padreal1
set -euo pipefail
base=$1 pad=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The three code parts of a trampoline blob after its header
# (tests/trampoline/blob.sh: offsets from the header, widths from the
# build's asm_defs), addresses dropped.
# shellcheck source=tests/trampoline/blob.sh
. "$(dirname "$0")/../trampoline/blob.sh"
parts() { # build-dir out-prefix
	local dir=$1 out=$2 arch='' p
	# ARCH=i386: its "long" part is the paged 32-bit code.
	case $(basename "$dir") in i386-*) arch=i386 ;; esac
	blob_parts "$dir/trampoline.bin" "$out-raw" "$arch"
	for p in real prot long; do
		awk '{ $1 = ""; $2 = ""; print }' "$out-raw-$p" | norm >"$out-$p"
	done
	# The park path: park_ap(), where flush_caches() is inlined once per
	# way of parking (MWAIT, HLT), each a WBINVD site followed by the pad;
	# the alignment fill after its last instruction is not code.
	objdump -d --no-show-raw-insn --disassemble=park_ap "$dir/apstart.elf" |
		grep -E '^[[:space:]]+[0-9a-f]+:' | cut -f2- | norm |
		awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && l[n] ~ /^(cs )?(nop|xchg %ax,%ax|data16)/) n--
			for (i = 1; i <= n; i++) print l[i] }' >"$out-park"
}
# Addresses and displacements move with the padding; instructions do not.
norm() { sed -E 's/0x[0-9a-fA-F]+/X/g; s/\b[0-9a-f]{4,}\b/X/g; s/<[^>]*>/<>/g; s/[[:space:]]+/ /g; s/^ //; s/ $//'; }

parts "$base" "$tmp/a"
parts "$pad" "$tmp/b"
for p in real prot long park; do
	d=$(diff "$tmp/a-$p" "$tmp/b-$p" | grep -E '^[<>]' || true)
	# nops_added: one-byte NOPs (what INSTRUMENT_PAD emits) in the padded
	# build less those in the plain one. Any changed line other than a
	# NOP form is an other_change. Multi-byte NOP forms (nopl, nopw,
	# xchg %ax,%ax, data16...) are the compiler's alignment fill before a
	# loop: padding may grow, shrink or remove it (seen: one nopl gone),
	# so they are neither counted nor an other_change.
	plus=$(grep -cx 'nop' "$tmp/b-$p" || true) minus=$(grep -cx 'nop' "$tmp/a-$p" || true)
	other=$(grep -vEc '^[<>] (cs )?(nop|xchg %ax,%ax|data16)' <<<"$d" || true)
	[ -n "$d" ] || other=0
	added=$((plus - minus))
	sites=1
	[ $p = park ] && sites=$(grep -cx wbinvd "$tmp/b-park" || true)
	echo "$p nops_added=$added other_changes=$other sites=$sites"
done
