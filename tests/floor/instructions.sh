#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU floor and the code agree: every instruction gcc emitted into the
# kernel's C objects is an 80386/80486 integer instruction, needs a CPUID
# feature that boot/cpu_floor.asm checks for that build, or is one of the
# few used only after their own CPUID check (GUARDED below). The kernel's
# message and docs/building.md name the same floor as the check's table.
# (The assembly is held to its CPU by NASM: boot/cpu_floor.asm and the
# entry up to the check are "cpu 386".)
#
#   tests/floor/instructions.sh       after make and make ARCH=i386
set -uo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/protocol.sh
. tests/protocol.sh

# The instructions of the 80386 and 80486 (and their x86-64 forms, which
# exist wherever long mode does), as objdump spells them (AT&T, with the
# operand-size suffix or without).
base_re='^(mov[bwlq]?|movabs[bwlq]?|movz[bw][wlq]|movs[bw][wlq]|movslq|movs[bwlq]?|lea[wlq]?|push[wlq]?|pop[wlq]?|pushf[wlq]?|popf[wlq]?|pusha[wl]?|popa[wl]?|(add|adc|sub|sbb|cmp|test|and|or|xor|not|neg|inc|dec)[bwlq]?|i?mul[bwlq]?|i?div[bwlq]?|(shl|shr|sal|sar|rol|ror|rcl|rcr)[bwlq]?|sh[lr]d[wlq]?|bt[crs]?[wlq]?|bs[fr][wlq]?|bswap|xchg[bwlq]?|xadd[bwlq]?|cmpxchg[bwlq]?|cltd|cltq|cqto|cwtl|cbtw|cwtd|call[lq]?|jmp[lq]?|ret[lq]?|lret[lq]?|iret[lq]?|leave[lq]?|j[a-z]+|set[a-z]+|loop[a-z]*|lods[bwlq]?|stos[bwlq]?|scas[bwlq]?|cmps[bwlq]?|cld|std|cli|sti|hlt|in[bwl]?|out[bwl]?|l[gi]dt[lq]?|s[gi]dt[lq]?|ltr|invlpg|wbinvd|invd|nop|pause|ud2|int3?)$'

# Instructions that need a CPUID feature: the name boot/cpu_floor.asm's
# table gives it.
needs_of() {
	case $1 in
	cmov*) echo CMOV ;;
	cmpxchg8b) echo CX8 ;;
	rdtsc) echo TSC ;;
	rdmsr|wrmsr) echo MSR ;;
	cpuid) echo CPUID ;;
	lfence|mfence) echo SSE2 ;;
	# The multi-byte NOP (0F 1F) has no CPUID bit: P6-family Intel CPUs
	# and every x86-64 CPU have it (SDM Vol. 2B, NOP).
	nopw|nopl) echo "long mode" ;;
	*) echo ;;
	esac
}

# Used only after their own CPUID check, with where it is made.
guarded_why() { # ARCH MNEMONIC
	case $2 in
	clflush|clflushopt|clwb|monitor|mwait) echo "smp/park.c, app/flush_probe.c: CPUID leaf 1 and 7 bits" ;;
	sfence) echo "app/flush_probe.c: after CLFLUSHOPT/CLWB only, which need it" ;;
	wbnoinvd) echo "app/flush_probe.c: CPUID 0x80000008 EBX[9]; without it, it runs as WBINVD" ;;
	lfence) [ "$1" = i386 ] && echo "kernel/x86.h: only when x86_lfence (CPUID SSE2)" ;;
	mfence) [ "$1" = i386 ] && echo "smp/lapic.c x2APIC ICR, smp/park.c MWAIT loop: CPUs with those have SSE2" ;;
	esac
	return 0
}

# The floor table of one build, from NASM's preprocessed source: the
# names of its "dd WORD, BITS, name_X" entries.
floor_of() { # ARCH
	local def=() names
	[ "$1" = i386 ] && def=(-DARCH_i386)
	names=$(nasm -E "${def[@]}" -I./ -I"build/$2/gen/" boot/cpu_floor.asm) || return 1
	local entry label
	for label in $(sed -n 's/^[[:space:]]*dd [a-z0-9_]*, [^,]*, \(name_[a-z0-9]*\)$/\1/p' <<<"$names"); do
		entry=$(sed -n "s/^$label: db \"\([^\"]*\)\", 0$/\1/p" <<<"$names")
		echo "$entry"
	done
}

# The sentence the kernel prints after "lacks ...": "The ARCH kernel
# needs CPUID with A, B and C".
needs_sentence() { # ARCH DIR
	local def=()
	[ "$1" = i386 ] && def=(-DARCH_i386)
	nasm -E "${def[@]}" -I./ -I"build/$2/gen/" boot/cpu_floor.asm |
		sed -n 's/^msg_needs: db "\. \(The [a-z0-9_]* kernel needs CPUID with [^:]*\):.*/\1/p'
}

for arch in i386 x86_64; do
	if [ $arch = i386 ]; then dir=i386-wbinvd0; else dir=wbinvd0; fi
	if ! floor=$(floor_of $arch $dir) || [ -z "$floor" ]; then
		fail "floor-table-$arch" "no floor table in boot/cpu_floor.asm (nasm -E)"
		continue
	fi
	objs=()
	for src in app/*.c smp/*.c kernel/*.c lib/*.c; do
		[ -f "build/$dir/${src%.c}.o" ] && objs+=("build/$dir/${src%.c}.o")
	done
	if [ ${#objs[@]} -lt 20 ]; then
		fail "floor-instructions-$arch" "only ${#objs[@]} C objects under build/$dir (make$([ $arch = i386 ] && echo ' ARCH=i386') first)"
		continue
	fi
	# "MNEMONIC FUNCTION" for every instruction, prefixes dropped.
	used=$(objdump -d -w --no-show-raw-insn "${objs[@]}" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
		/^ *[0-9a-f]+:\t/ {
			split($0, f, "\t"); n = split(f[2], w, " ")
			for (i = 1; i <= n; i++)
				if (w[i] !~ /^(lock|rep|repz|repe|repnz|repne|data16|cs|ds|es|ss|fs|gs|notrack|bnd|addr32)$/)
					break
			if (i <= n) print w[i], fn
		}' | sort -u -k1,1)
	bad=() guarded=() features=()
	while read -r m fn; do
		[ -n "$m" ] || continue
		[[ $m =~ $base_re ]] && continue
		need=$(needs_of "$m")
		if [ -n "$need" ] && grep -qxF "$need" <<<"$floor"; then
			grep -qxF "$need" < <(printf '%s\n' "${features[@]}") || features+=("$need")
			continue
		fi
		why=$(guarded_why $arch "$m")
		if [ -n "$why" ]; then
			guarded+=("$m")
			continue
		fi
		if [ -n "$need" ]; then
			bad+=("$m (first in $fn) needs $need, which boot/cpu_floor.asm does not check for $arch")
		else
			bad+=("$m (first in $fn): no rule says which CPU has it; add it to tests/floor/instructions.sh")
		fi
	done <<<"$used"
	if [ ${#bad[@]} = 0 ]; then
		ok "floor-instructions-$arch: beyond the 486 they need $(IFS=,; echo "${features[*]:-nothing}" | sed 's/,/, /g'); guarded: ${guarded[*]:-none}"
	else
		fail "floor-instructions-$arch" "${#bad[@]} instruction(s) above the floor ($(paste -sd ' ' <<<"$floor"))" "${bad[@]}"
	fi

	# The message and the docs name the table's features, in its order.
	sentence=$(needs_sentence $arch $dir)
	want=$(grep -vx CPUID <<<"$floor" | paste -sd ',' | sed 's/,\([^,]*\)$/ and \1/; s/,/, /g')
	if [ "$sentence" != "The $arch kernel needs CPUID with $want" ]; then
		fail "floor-message-$arch" "the kernel says '$sentence', its table is CPUID, $want"
	elif ! grep -qF "$sentence" <<<"$(tr '\n' ' ' <docs/building.md | tr -s ' ')"; then
		fail "floor-message-$arch" "docs/building.md does not say '$sentence'"
	else
		ok "floor-message-$arch: the message and docs/building.md: $sentence"
	fi
done

summary floor
