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

# The three code parts of a trampoline blob, as tests/trampoline/check.sh
# splits it (offsets from the header, widths from the build's asm_defs).
parts() { # build-dir out-prefix
	local dir=$1 out=$2 bin=$1/trampoline.bin defs=$1/gen/realmode/asm_defs.inc
	def() { awk -v n="$1" '$1 == "%define" && $2 == n { print $3 }' "$defs"; }
	field() { od -An -tu"$(def "HDR_$1_SIZE")" -j $(($(def TRAMP_HDR) + $(def "HDR_$1"))) \
		-N"$(def "HDR_$1_SIZE")" "$bin" | tr -d ' '; }
	local hdr size c32 c64 end
	hdr=$(def TRAMP_HDR) size=$(field SIZE) c32=$(field OFF_CODE32)
	c64=$(field OFF_CODE64) end=$(field OFF_CODE_END)
	part() { dd if="$bin" bs=1 skip="$1" count=$(($2 - $1)) status=none | ndisasm -b "$3" - |
		awk '{ $1 = ""; $2 = ""; print }' | norm >"$out-$4"; }
	part $((hdr + size)) "$c32" 16 real
	part "$c32" "$c64" 32 prot
	# ARCH=i386: its "long" part is the paged 32-bit code.
	local bits=64
	case $(basename "$dir") in i386-*) bits=32 ;; esac
	part "$c64" "$end" $bits long
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
