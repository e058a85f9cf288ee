#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-linux: Linux's own CPU hotplug next to apstart's, on the same
# QEMU configuration, in one invocation (docs/linux-trace.md).
#
# Without --flush:
#   1. Debian's kernel (tools/linux/vm/fetch.sh) boots with a busybox
#      initramfs holding the static linux-hotplug, which cycles every AP
#      through sysfs CYCLES times with --trace (Linux's cpuhp tracepoints),
#      2 x ROUNDS times in the one boot, rcu_expedited 0 and 1 alternating;
#      each of those runs is one observation.
#   2. apstart (WBINVD=1: Debian's trampoline_64.S has the WBINVD too)
#      boots ROUNDS times with cycles=CYCLES on the same -machine/-cpu/
#      -smp/-m: as many runs as Linux has with rcu_expedited=0, so that
#      Linux against apstart is a comparison of two sets that can carry a
#      verdict (each boot one observation; one boot used to give "no
#      verdict: 3 and 1 runs").
#   3. Linux's boot-time bring-up from its own log; Linux's time state by
#      state (aplog cpuhp) beside apstart's per-phase table (aplog stats);
#      rcu_expedited 0 -> 1 (aplog compare, aplog cpuhp A -- B); Linux
#      against apstart (aplog compare).
# With --flush SPEC (the patch emulated, tools/flushmodel):
#   ROUNDS x 2 boots of Linux alone, interleaved: every flush charged by
#   SPEC, then SPEC,free=low1m (the trampoline's WBINVD, below 1 MiB,
#   free; hlt_play_dead()'s in kernel text still charged); each boot runs
#   linux-hotplug --trace once and is one observation. Prints Linux's own
#   Offline/Online/Total rows (aplog compare), the per-state split of the
#   difference (aplog cpuhp) and where the plugin saw the flushes.
# --tcg-thread single (make's default, TCG_THREAD) runs every vCPU on one
# host thread: on this busy 2-core host a run's figures then spread far
# less (Linux's online per write at -smp 8: 141-172 ms single-threaded
# against 100-1700 ms multi-threaded at load ~15); with the flush model a
# hold then stops the whole guest, so hlt_play_dead()'s flush, which the AP
# runs after reporting dead, lands in the offline write (the control CPU's
# last callbacks wait for it), in both variants alike.
# Logs: build/bench-linux/ (flush runs: build/bench-linux/flush/); an
# earlier bench's are moved to build/bench-linux/earlier-DATE-TIME/.
# Exit status: 0 every boot passed and the tables were made; 1 a boot or
# a table failed; 2 no verdict: QEMU refused to start or a boot ended
# without its guest's verdict (the run that says so stops here, with
# qemu-run's last lines, QEMU's own message last), or bad usage.
#   bench.sh --smp N --cycles K [--rounds R] [--flush SPEC] [--accel A]
#            [--machine M] [--timeout S] [--wbinvd 0|1] [--tcg-thread single|multi]
set -uo pipefail
cd "$(dirname "$0")/../../.."

smp=8 cycles=10 accel=auto machine=pc timeout_s=600 wbinvd=1 rounds= flush= tcg_thread=multi
while [ $# -gt 0 ]; do
	case "$1" in
	--smp) smp=$2; shift 2 ;;
	--cycles) cycles=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--flush) flush=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--wbinvd) wbinvd=$2; shift 2 ;;
	--tcg-thread) tcg_thread=$2; shift 2 ;;
	*) echo "bench-linux: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$smp" ] || smp=8
[ -n "$accel" ] || accel=auto
[ -n "$machine" ] || machine=pc
[ -n "$rounds" ] || rounds=$([ -n "$flush" ] && echo 5 || echo 3)
case "$cycles" in ''|*[!0-9]*|0) echo "bench-linux: CYCLES must be a positive number, not '$cycles'" >&2; exit 2 ;; esac
case "$rounds" in ''|*[!0-9]*|0) echo "bench-linux: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2 ;; esac
case "$wbinvd" in 0|1) ;; *) echo "bench-linux: --wbinvd must be 0 or 1" >&2; exit 2 ;; esac
case "$tcg_thread" in ''|multi) tcg_opt=() ;; single) tcg_opt=(--tcg-single) ;;
*) echo "bench-linux: TCG_THREAD must be single or multi, not '$tcg_thread'" >&2; exit 2 ;; esac
[[ $smp =~ ^[1-9][0-9]*$ ]] && [ "$smp" -ge 2 ] || { echo "bench-linux: SMP must be a CPU count of at least 2, not '$smp'" >&2; exit 2; }

LH=build/host/linux-hotplug APLOG=build/host/aplog KERNEL=build/wbinvd$wbinvd/apstart.elf
need=("$LH" "$APLOG")
[ -n "$flush" ] && need+=(build/host/flushmodel.so) || need+=("$KERNEL")
for f in "${need[@]}"; do
	[ -e "$f" ] || { echo "bench-linux: $f not built (run: make bench-linux)" >&2; exit 2; }
done
out=build/bench-linux
mkdir -p "$out"
# An earlier bench's logs are kept: moved aside (tools/run/logs-aside.sh).
# shellcheck source=tools/run/logs-aside.sh
. tools/run/logs-aside.sh
earlier=$(logs_aside "$out" '*.log' '*.txt' '*.err' flush) ||
	{ echo "bench-linux: cannot move the earlier logs aside in $out" >&2; exit 2; }
[ -z "$earlier" ] || echo "bench-linux: the earlier logs are in $out/$earlier/"

dir=$(tools/linux/vm/fetch.sh) || { echo "bench-linux: cannot get Debian's kernel (see above)" >&2; exit 2; }
tools/linux/vm/mkinitramfs.sh "$dir/busybox" "$LH" "$out/initramfs.cpio" || exit 2
versions=$(tr '\n' ';' <"$dir/versions" | sed 's/;$//; s/;/, /')

# shellcheck source=tools/run/exit-why.sh
. tools/run/exit-why.sh
# no_verdict LOG WHAT: a boot qemu-run had no verdict for (exit 2) ends the
# bench, with qemu-run's last two lines (QEMU's own message last).
no_verdict() {
	echo "bench-linux: no verdict (exit 2): $2; its log: $1" >&2
	grep -a . "$1" | tail -n 2 | head -n 1 >&2
	exit_why "bench-linux: no verdict (exit 2): $(grep -a . "$1" | tail -n 1)"
	exit 2
}

# boot_linux LOG EXTRA-CMDLINE [qemu-run options...]: one boot of Linux.
# no_timer_check: under TCG on a loaded host Linux's boot-time check of the
# IO-APIC timer (a few ticks in a busy loop) can miss them and panic ("IO-APIC
# + timer doesn't work!", 1 boot in 10 at load ~14 here); the check is about
# the board's wiring, not hotplug, and is skipped as on most VMs.
boot_linux() {
	local log=$1 extra=$2
	shift 2
	tools/run/qemu-run.sh --kernel "$dir/vmlinuz" --initrd "$out/initramfs.cpio" --smp "$smp" \
		--accel "$accel" --machine "$machine" --timeout "$timeout_s" "${tcg_opt[@]}" "$@" \
		-- "console=ttyS0 loglevel=4 panic=-1 no_timer_check lh_cycles=$cycles lh_wbinvd=1 lh_trace=1 $extra" 2>&1 |
		tr -d '\r' >"$log"
	return "${PIPESTATUS[0]}"
}

# ------------------------------------------------------------ the patch emulated
if [ -n "$flush" ]; then
	fo=$out/flush
	rm -rf "$fo"
	mkdir -p "$fo"
	# The flush model's view: free=low1m added to SPEC for the patched side.
	case ",$flush," in *,free=*|*,only=*) echo "bench-linux: FLUSH='$flush' already says which flushes are free; give the model only (e.g. FLUSH=xeon6985p)" >&2; exit 2 ;; esac
	echo "=== bench-linux FLUSH=$flush: SMP=$smp CYCLES=$cycles ROUNDS=$rounds MACHINE=$machine TCG_THREAD=$tcg_thread ($versions)"
	echo "    Linux itself, unpatched, $rounds x 2 boots interleaved: every WBINVD charged,"
	echo "    then the trampoline's (below 1 MiB) free: the patch, emulated. Logs: $fo/"
	t0=$SECONDS
	fails=0
	for r in $(seq 1 "$rounds"); do
		for v in charged free; do
			spec=$flush
			[ $v = free ] && spec="$flush,free=low1m"
			log=$fo/$v-r$r.log
			boot_linux "$log" "" --flush "$spec"
			st=$?
			# QEMU never ran the guest (it refused, or the plugin did):
			# every other boot would do the same. The log then holds
			# only the runner's, QEMU's and the plugin's lines.
			if [ $st = 2 ] && ! grep -Eavq '^(qemu-run: |qemu(-system-[a-z0-9_]+)?: |@host |flushmodel: |$)' "$log"; then
				no_verdict "$log" "round $r ($v): Linux never started"
			fi
			if [ $st != 0 ]; then
				# Kept apart (.failed): the tables read the boots that passed.
				echo "bench-linux: round $r ($v) did not pass; its log: $log.failed" >&2
				grep -E '^(qemu-run|@fail|@end|linux-vm:|linux-hotplug:|\[ *[0-9.]+\] Kernel panic)' "$log" | tail -8 >&2
				mv "$log" "$log.failed"
				fails=$((fails + 1))
			fi
		done
		echo "    round $r/$rounds done ($((SECONDS - t0)) s)"
	done
	n_a=$(ls "$fo"/charged-r*.log 2>/dev/null | wc -l) n_b=$(ls "$fo"/free-r*.log 2>/dev/null | wc -l)
	[ "$n_a" -gt 0 ] && [ "$n_b" -gt 0 ] || { echo "bench-linux: no boot of a variant passed; see $fo/" >&2; exit 1; }
	grep -h -m1 '^qemu-run: flush model' $(ls "$fo"/charged-r*.log | head -1) $(ls "$fo"/free-r*.log | head -1)
	echo "    boots that passed: $n_a with every flush charged, $n_b with the trampoline's free"
	echo
	echo "=== Linux's own table: trampoline flush charged -> free (aplog compare, each boot one run)"
	"$APLOG" compare --label-a "flush charged" --label-b "trampoline flush free" \
		"$fo"/charged-r*.log -- "$fo"/free-r*.log >"$fo/compare.txt" 2>"$fo/compare.err"
	cmp_rc=$?
	cat "$fo/compare.txt"
	[ $cmp_rc = 0 ] || cat "$fo/compare.err" >&2
	echo
	echo "=== The difference, state by state (aplog cpuhp)"
	"$APLOG" cpuhp --label-a charged --label-b free "$fo"/charged-r*.log -- "$fo"/free-r*.log
	echo
	echo "=== Where the plugin saw the flushes (per boot, mean over the boots)"
	for v in charged free; do
		n=$(ls "$fo"/$v-r*.log | wc -l)
		cat "$fo"/$v-r*.log | awk -v v="$v" -v n="$n" '
			/^flushmodel: site vaddr=/ {
				split($3, a, "="); split($5, c, "="); low = length(a[2]) <= 7
				k = (low ? "below 1 MiB" : "kernel text") ($6 == "charged=yes" ? ", charged" : ", free")
				cnt[k] += c[2] }
			/^flushmodel: total / { for (i = 3; i <= NF; i++) if ($i ~ /^charged_ns=/) ns += substr($i, 12) }
			END { printf "  %-8s", v; for (k in cnt) printf "  %s: %.1f", k, cnt[k] / n
			      printf "  (%.3f s charged per boot)\n", ns / n / 1e9 }'
	done
	echo "  (below 1 MiB: the AP trampoline, $((smp - 1)) APs x (1 + $cycles) entries per boot, and SeaBIOS's own two on the BSP;"
	echo "   kernel text: hlt_play_dead(), one per offline; the plugin's per-site lines are in each log)"
	mtr=$(cat "$fo"/charged-r*.log | grep -m1 '^flushmodel: charged ' | sed 's/^flushmodel: charged //')
	echo
	echo "MODELLED: every WBINVD Linux executed was held by the QEMU flushmodel plugin for what"
	echo "the model charges ($mtr); everything else is Linux's own time under TCG on this host."
	[ "$tcg_thread" = single ] &&
		echo "Single-threaded TCG: a hold stops the whole guest, so Offline holds hlt_play_dead()'s flush (both variants)."
	[ $fails = 0 ] && [ $cmp_rc = 0 ] || { echo "bench-linux: $fails boot(s) failed, compare exit $cmp_rc; see $fo/" >&2; exit 1; }
	exit 0
fi

# ------------------------------------------------------------ Linux and apstart
echo "=== bench-linux: SMP=$smp CYCLES=$cycles ROUNDS=$rounds MACHINE=$machine TCG_THREAD=$tcg_thread ($versions)"
echo "--- Linux: boot, then $((2 * rounds)) runs of linux-hotplug --trace --cycles $cycles, rcu_expedited 0/1 alternating (serial log: $out/linux.log)"
t0=$SECONDS
boot_linux "$out/linux.log" "lh_runs=$((2 * rounds)) lh_rcu=alt" \
	--timeout "$((timeout_s * rounds))"
linux_rc=$?
grep -E '^qemu-run:' "$out/linux.log"
echo "    $((SECONDS - t0)) s, exit $linux_rc"
[ $linux_rc != 2 ] || no_verdict "$out/linux.log" "the Linux boot"
# Each run to the file of its variant: the lines from "linux-vm: run N
# rcu_expedited=E" to the next such line.
rm -f "$out/linux-rcu0.log" "$out/linux-rcu1.log"
awk -v o="$out" '/^linux-vm: run [0-9]+ rcu_expedited=/ { split($4, a, "="); f = o "/linux-rcu" a[2] ".log" }
	f { print > f }' "$out/linux.log"
echo "--- apstart WBINVD=$wbinvd: $rounds boots, cycles=$cycles, each one run (serial logs: $out/apstart-rN.log)"
t0=$SECONDS
rm -f "$out"/apstart*.log
ap_rc=0 aps=()
for r in $(seq 1 "$rounds"); do
	log=$out/apstart-r$r.log
	tools/run/qemu-run.sh --kernel "$KERNEL" --smp "$smp" --accel "$accel" --machine "$machine" \
		--timeout "$timeout_s" "${tcg_opt[@]}" -- "cycles=$cycles" 2>&1 | tr -d '\r' >"$log"
	st=${PIPESTATUS[0]}
	[ $r = 1 ] && grep -E '^qemu-run:' "$log"
	[ $st != 2 ] || no_verdict "$log" "apstart's boot $r"
	[ $st = 0 ] || { ap_rc=$st; echo "    boot $r: exit $st" >&2; }
	aps+=("$log")
done
echo "    $((SECONDS - t0)) s, exit $ap_rc"

echo
echo "=== Boot-time bring-up of the APs"
sed -n 's/^linux-hotplug: kernel log: /Linux log:    /p' "$out/linux.log" | sort -u
lb=$(sed -n 's/^@linux_bringup cpus=\([0-9]*\) ns=\([0-9]*\).*/\1 \2/p' "$out/linux.log" | head -1)
if [ -n "$lb" ]; then
	set -- $lb
	awk -v c="$1" -v ns="$2" 'BEGIN { printf "Linux:        %.1f ms from \"smp: Bringing up secondary CPUs\" to \"smp: Brought up ... %d CPUs\" (printk times)\n", ns / 1e6, c }'
else
	echo "Linux:        no bring-up lines in the kernel log"
fi
awk '/^@cpu .*boot_ns=/ { sub(/.*boot_ns=/, ""); s += $1; n++ }
	END { if (n) printf "apstart:      %.3f ms: sum of the %d APs'"'"' first bring-up (@cpu boot_ns)\n", s / 1e6, n;
	      else print "apstart:      no @cpu records" }' "${aps[0]}"
lin=$out/linux-rcu0.log
[ -s "$lin" ] || lin=$out/linux.log
echo
echo "=== Linux: where the time goes, state by state (aplog cpuhp; the rcu_expedited=0 runs)"
"$APLOG" cpuhp "$lin"
cpuhp_rc=$?
echo
echo "=== apstart: where its online time goes, phase by phase (aplog stats, $rounds boots)"
"$APLOG" stats "${aps[@]}"
echo
echo "=== aplog stats: Linux (sysfs writes, rcu_expedited=0 runs)"
"$APLOG" stats "$lin"
if [ -s "$out/linux-rcu1.log" ]; then
	echo
	echo "=== Linux, rcu_expedited 0 -> 1 (runs interleaved in one boot; aplog compare, aplog cpuhp)"
	"$APLOG" compare --label-a rcu_expedited=0 --label-b rcu_expedited=1 "$out/linux-rcu0.log" -- "$out/linux-rcu1.log"
	"$APLOG" cpuhp --label-a expedited=0 --label-b expedited=1 "$out/linux-rcu0.log" -- "$out/linux-rcu1.log"
fi
echo
echo "=== aplog compare --label-a linux --label-b apstart (rcu_expedited=0 runs) -- apstart-r*.log ($rounds boots)"
"$APLOG" compare --label-a linux --label-b apstart "$lin" -- "${aps[@]}"
cmp_rc=$?
echo "(timeline: build/host/aplog trace --out $out/linux.json $lin; open it in ui.perfetto.dev)"
if [ "$linux_rc" != 0 ] || [ "$ap_rc" != 0 ] || [ "$cmp_rc" != 0 ] || [ "$cpuhp_rc" != 0 ]; then
	echo "bench-linux: a run failed (Linux exit $linux_rc, apstart exit $ap_rc, compare $cmp_rc, cpuhp $cpuhp_rc); see $out/" >&2
	grep -E '^(@fail|linux-vm:|linux-hotplug:)' "$out/linux.log" | tail -20 >&2
	exit 1
fi
