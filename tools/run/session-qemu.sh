#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A whole A/B session under OVMF, as a stick would run it on a machine
# left alone (not in make test: make session-k10; docs/session.md):
#
#   session-qemu.sh [--k K] [--smp N] [--cpu MODEL] [--cycles C] [--timeout S]
#                   [--out DIR]
#       one writable copy of build/iso-test/apstart-test-efi.iso with
#       loader.cfg session=K, one of OVMF_VARS_4M.fd; boots until the
#       table is made (2K + 1 boots), then prints the per-boot times, the
#       wall time, the bytes each run kept and table.txt. Logs in DIR
#       (default build/test-logs/session-k<K>-smp<N>).
#   session-qemu.sh [--cpu MODEL] --bytes N...
#       one OVMF boot per CPU count N (cycles=1 exit=reset, as a session's
#       run): the bytes the kernel kept in NVRAM and in how many variables.
# --smp takes QEMU's -smp syntax (4, 4,maxcpus=8); --cpu another CPU model
# (tools/run/iso-run.sh --cpu). OVMF_CODE and OVMF_VARS name other firmware
# files (tools/run/iso-run.sh).
#
# Exit status 0 when the session ran to its table (or every boot kept its
# summary); 1 otherwise; 2 no verdict: a boot that ended without the
# kernel's @end where one was due (QEMU refused to start, a firmware file
# it cannot use, a timeout) stops the session, with iso-run's last line
# (QEMU's own message) as the last line; or bad usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
iso=build/iso-test/apstart-test-efi.iso
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
k=10 smp=8 cycles=1 timeout_s=600 out= bytes=() cpu=()
die() { echo "session-qemu: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--k|--smp|--cpu|--cycles|--timeout|--out) [ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case $1 in
	--k) k=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--cpu) cpu=(--cpu "$2"); shift 2 ;;
	--cycles) cycles=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--bytes) shift; bytes=("$@"); break ;;
	*) die "unknown option '$1' (see the comment at the top)" ;;
	esac
done
for n in "$k" "$cycles" "$timeout_s" "${bytes[@]}"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "'$n' is not a positive number"
done
[[ $smp =~ ^[1-9][0-9]*(,.*)?$ ]] || die "--smp must be a CPU count (QEMU -smp syntax), not '$smp'"
[ -f "$iso" ] || die "no $iso (make $iso)"
export MTOOLS_SKIP_CHECK=1
ansi() { tr -d '\r' | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g'; }
# no_verdict RUN-FILE WHAT: a boot iso-run had no verdict for (exit 2)
# stops here; iso-run's last line (QEMU's own message) is the last line.
no_verdict() {
	echo "session-qemu: no verdict (exit 2): $2; iso-run said (all of it: $1):" >&2
	grep -a . "$1" | tail -n 2 >&2
	exit 2
}

if [ ${#bytes[@]} -gt 0 ]; then
	out=${out:-build/test-logs/session-bytes}
	mkdir -p "$out"
	rc=0
	printf '%6s %8s %6s %9s\n' cpus bytes parts bytes/cpu
	for n in "${bytes[@]}"; do
		cp "$OVMF_VARS" "$out/vars-$n.fd"
		tools/run/iso-run.sh --firmware uefi --media usb --loader gnu-efi --iso build/apstart.iso \
			--smp "$n" "${cpu[@]}" --vars "$out/vars-$n.fd" --timeout "$timeout_s" --log "$out/smp$n.log" \
			-- cycles=1 exit=reset >"$out/smp$n.run" 2>&1
		[ $? != 2 ] || no_verdict "$out/smp$n.run" "the boot at -smp $n"
		line=$(ansi <"$out/smp$n.log" | grep -a '^save: summary kept in NVRAM' | tail -n 1)
		if [[ $line =~ kept\ in\ NVRAM,\ ([0-9]+)\ bytes ]]; then
			b=${BASH_REMATCH[1]} parts=1
			[[ $line =~ \(([0-9]+)\ parts ]] && parts=${BASH_REMATCH[1]}
			printf '%6s %8s %6s %9s\n' "$n" "$b" "$parts" $((b / n))
		else
			printf '%6s %8s\n' "$n" "none: $(ansi <"$out/smp$n.log" | grep -a '^save:' | tail -n 1)"
			rc=1
		fi
	done
	exit $rc
fi

out=${out:-build/test-logs/session-k$k-smp$smp}
rm -rf "$out" && mkdir -p "$out"
img=$out/stick.img vars=$out/vars.fd
cp "$iso" "$img" && cp "$OVMF_VARS" "$vars" || die "cannot copy the image or the vars file"
printf 'timeout=60\nresults_wait=0\nsession=%s\nsession_cycles=%s\nsession_wait=1\n' "$k" "$cycles" \
	>"$out/loader.cfg"
tools/image/esp-populate.sh --config "$out/loader.cfg" "$img" || die "cannot write loader.cfg"
read -r off _ < <(tools/image/esp-offset.sh "$img")
printf 'wait ^table: on the screen\nscreendump %s/table.ppm\n' "$out" >"$out/last.script"

echo "session-qemu: K=$k per variant, -smp $smp, cycles=$cycles, OVMF under TCG; $((2 * k + 1)) boots"
t0=$(date +%s.%N)
rc=1
for ((b = 1; b <= 2 * k + 1; b++)); do
	tb=$(date +%s.%N)
	script=()
	[ $b = $((2 * k + 1)) ] && script=(--screen-script "$out/last.script")
	tools/run/iso-run.sh --firmware uefi --media usb --disk "$img" --vars "$vars" --smp "$smp" "${cpu[@]}" \
		--timeout "$timeout_s" --log "$out/boot$b.log" "${script[@]}" >"$out/boot$b.run" 2>&1
	st=$?
	printf 'session-qemu: boot %2d: %6.1f s (iso-run status %s)\n' "$b" \
		"$(awk -v a="$tb" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$st"
	if ansi <"$out/boot$b.log" | grep -a '^table: on the screen' >/dev/null; then
		rc=0
		break
	fi
	# Every boot but the table's runs a kernel to its @end (then a reset).
	[ $st != 2 ] || no_verdict "$out/boot$b.run" "boot $b ended without the kernel's @end"
done
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
printf 'session-qemu: wall time %.0f s for %d boots\n' "$wall" "$b"
mcopy -s -n -i "$img@@$off" ::/apstart/results/session-0001 "$out/" 2>/dev/null
if [ -d "$out/session-0001" ]; then
	echo "session-qemu: bytes kept per run (the kernel's summary, as filed):"
	wc -c "$out"/session-0001/run-*.log | sed 's/^/  /'
	echo "session-qemu: table.txt:"
	sed 's/^/  /' "$out/session-0001/table.txt" 2>/dev/null
fi
exit $rc
