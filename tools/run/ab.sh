#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make ab: the reference's table from one command. Builds two variants,
# boots them K times each under QEMU, interleaved in randomised pairs, one
# log per run under the output folder, then prints aplog compare's rows
# and verdict (each run one observation: docs/verdicts.md).
#
#   ab.sh [--runs K] [--a 'MAKEVARS'] [--b 'MAKEVARS'] [--out DIR]
#         [--seed N] [qemu-run.sh options...] -- [kernel args...]
#
# --runs K      runs per variant (default 10, as the reference's "mean of
#               10 runs")
# --a, --b      make variables of each variant (default 'WBINVD=1' and
#               'WBINVD=0': the unpatched and the patched trampoline). Each
#               side is built in its own folder, so '--a WBINVD=0 --b
#               WBINVD=0' compares two separate builds of one variant (A/A).
#               Two words are not make's: LINUX_IMAGE=FILE (a kernel image,
#               tree, LRM file or "running") runs that side through Linux's
#               own trampoline (trampoline=linux, its blob as the boot
#               module, tools/run/linux-lrm.sh), LINUX_PATCHED=1 through
#               its patched twin (docs/linux-trampoline.md).
# --out DIR     where the builds and logs go (default build/ab); the logs
#               of an earlier session there are moved into
#               DIR/earlier-DATE-TIME/ (never written over), the builds
#               kept (make rebuilds what changed, variables included)
# --seed N      the order of each pair (default: from the clock; printed)
# --tcg-thread single|multi
#               under TCG, one host thread for every vCPU (default) or one
#               each: single-threaded TCG spreads a run's totals far less
#               from run to run on a busy host (measured: offline totals of
#               eight -smp 4 boots at load 8 within 0.4-0.75 ms but two
#               outliers, against 8-80 ms multi-threaded), which is what
#               a verdict on runs needs; no effect under KVM
# Every other option goes to tools/run/qemu-run.sh as it is (--smp, --accel,
# --machine, --timeout, --flush, --emulator, --cpu...), the same for every
# run.
#
# Order: pairs, each holding one run of each variant, the order inside a
# pair drawn at random. Pairs keep the two variants close in time (a host
# that drifts, a hog that comes and goes, hit both alike); the coin keeps
# a fixed A-then-B order from turning the host's rhythm (caches warmed
# by the first boot, a periodic job) into an effect.
#
# Exit status: 0 a verdict (faster, slower, no difference); 1 a run or a
# build failed (the failed runs' logs are kept and named with their last
# line; a run without the kernel's @end status=pass, QEMU refusing to
# start included, is a failed run); 2 no verdict (too few runs, or not
# measurable here) or bad usage. With EXIT_WHY set (tools/run/exit-status.mk),
# the reason for a 2 goes to that file: make prints it last.
set -uo pipefail
cd "$(dirname "$0")/../.."

usage() { sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=tools/run/exit-why.sh
. tools/run/exit-why.sh
die() { exit_why "ab: $*"; exit 2; }

runs=10 va='WBINVD=1' vb='WBINVD=0' out=build/ab seed= qemu_opts=() tcg_thread=single
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) [ $# -ge 2 ] || die "--runs needs a value"; runs=$2; shift 2 ;;
	--a) [ $# -ge 2 ] || die "--a needs a value"; va=$2; shift 2 ;;
	--b) [ $# -ge 2 ] || die "--b needs a value"; vb=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
	--seed) [ $# -ge 2 ] || die "--seed needs a value"; seed=$2; shift 2 ;;
	--tcg-thread) [ $# -ge 2 ] || die "--tcg-thread needs a value"; tcg_thread=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	--*) qemu_opts+=("$1"); [ $# -ge 2 ] && [[ $2 != --* ]] && { qemu_opts+=("$2"); shift; }; shift ;;
	*) die "unexpected '$1' (kernel arguments go after --)" ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || die "--runs must be 1..999, not '$runs'"
case $tcg_thread in
single) qemu_opts+=(--tcg-single) ;;
multi) ;;
*) die "--tcg-thread must be single or multi, not '$tcg_thread'" ;;
esac
[ -z "$seed" ] || [[ $seed =~ ^[0-9]{1,9}$ ]] || die "--seed must be a number, not '$seed'"
[ -n "$seed" ] || seed=$(( $(date +%s) % 1000000000 ))
for v in "$va" "$vb"; do
	for w in $v; do
		[[ $w =~ ^[A-Z_][A-Z0-9_]*=[^\ ]*$ ]] || die "'$w' in '$v' is not a make variable (NAME=VALUE)"
	done
done
# A side's LINUX_IMAGE= and LINUX_PATCHED=: its LRM file (set later) and
# what is left for make.
declare -A lrm=([a]= [b]=) kvars=([a]= [b]=)
for side in a b; do
	image= patched=0
	vars=$va
	[ $side = b ] && vars=$vb
	for w in $vars; do
		case $w in
		LINUX_IMAGE=*) image=${w#LINUX_IMAGE=} ;;
		LINUX_PATCHED=0|LINUX_PATCHED=1) patched=${w#LINUX_PATCHED=} ;;
		LINUX_PATCHED=*) die "'$w': LINUX_PATCHED is 0 or 1" ;;
		*) kvars[$side]+="$w " ;;
		esac
	done
	if [ -n "$image" ]; then
		twin=()
		[ "$patched" = 1 ] && twin=(--twin)
		lrm[$side]=$(tools/run/linux-lrm.sh "${twin[@]}" "$image") ||
			die "side ${side^^}: no LRM file from LINUX_IMAGE=$image (the reason above)"
	elif [ "$patched" = 1 ]; then
		die "side ${side^^}: LINUX_PATCHED=1 needs LINUX_IMAGE="
	fi
done
case "$out" in "" | / | . | ..) die "--out '$out' is not a folder of its own" ;; esac
# shellcheck disable=SC2086 # one blank between the variables
va=$(echo $va) vb=$(echo $vb)
args="$*"
aplog=build/host/aplog

mkdir -p "$out" || die "cannot make $out"
# An earlier session's logs are kept: moved aside (tools/run/logs-aside.sh).
# shellcheck source=tools/run/logs-aside.sh
. tools/run/logs-aside.sh
earlier=$(logs_aside "$out" 'run-*.log' plan.txt compare.txt) ||
	die "cannot move the earlier session's logs aside in $out"
[ -z "$earlier" ] || echo "ab: the earlier session's logs are in $out/$earlier/"
# One build per side, in a folder of its own (OUT=...).
for side in a b; do
	vars=${kvars[$side]}
	# shellcheck disable=SC2086 # the variables are words by design
	if ! make --no-print-directory $vars OUT="$out/build-$side" "$out/build-$side/apstart.elf" \
		>"$out/build-$side.log" 2>&1; then
		echo "ab: building $side ($vars) failed; see $out/build-$side.log" >&2
		tail -5 "$out/build-$side.log" >&2
		exit 1
	fi
done
make --no-print-directory "$aplog" >/dev/null || { echo "ab: building aplog failed" >&2; exit 1; }

# The plan: K pairs, each in an order drawn by the seeded coin.
RANDOM=$seed
order=()
for ((i = 1; i <= runs; i++)); do
	if ((RANDOM % 2)); then order+=(a b); else order+=(b a); fi
done
{
	echo "# make ab: $runs run$([ "$runs" = 1 ] || echo s) per variant in randomised pairs, seed $seed"
	echo "a: $va"
	echo "b: $vb"
	echo "qemu-run.sh options: ${qemu_opts[*]:-(defaults)}"
	echo "kernel args: ${args:-(none)}"
	for side in a b; do
		[ -z "${lrm[$side]}" ] || echo "$side: Linux's trampoline: ${lrm[$side]} (trampoline=linux)"
	done
	echo "order: ${order[*]}"
} >"$out/plan.txt"
echo "ab: A = $va, B = $vb: $runs run$([ "$runs" = 1 ] || echo s) each, in randomised pairs (seed $seed: $out/plan.txt)"

tty=0
[ -t 2 ] && tty=1
now_ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(now_ms) n=0 failed=() total=${#order[@]}
declare -A count=([a]=0 [b]=0) logs=([a]= [b]=)
for side in "${order[@]}"; do
	n=$((n + 1))
	count[$side]=$((count[$side] + 1))
	log=$(printf '%s/run-%03d-%s.log' "$out" "$n" "$side")
	# What is left, this run included, at the mean time per run so far,
	# rounded up: never "0 s" while a run is going.
	left=
	if [ $n -gt 1 ]; then
		ms=$((($(now_ms) - t0) * (total - n + 1) / (n - 1)))
		left="; about $(((ms + 999) / 1000)) s left"
	fi
	line=$(printf 'ab: run %d of %d: %s (%s), its run %d of %d%s' "$n" "$total" "${side^^}" \
		"$([ $side = a ] && echo "$va" || echo "$vb")" "${count[$side]}" "$runs" "$left")
	if [ $tty = 1 ]; then printf '\r\033[K%s' "$line" >&2; else echo "$line" >&2; fi
	if [ -n "${lrm[$side]}" ]; then
		tools/run/qemu-run.sh --kernel "$out/build-$side/apstart.elf" "${qemu_opts[@]}" \
			--module "${lrm[$side]}" -- "trampoline=linux${args:+ $args}" >"$log" 2>&1
	else
		tools/run/qemu-run.sh --kernel "$out/build-$side/apstart.elf" "${qemu_opts[@]}" -- "$args" \
			>"$log" 2>&1
	fi
	st=$?
	# A run the kernel finished (pass or fail) goes to aplog compare,
	# which counts a failed one and leaves it out of the rows; one without
	# a verdict (QEMU refused, a timeout) has nothing to read.
	[ $st = 2 ] || logs[$side]+="$log"$'\n'
	[ $st = 0 ] || failed+=("$log (exit $st): $(tr -d '\r' <"$log" | grep -a . | tail -n 1)")
done
[ $tty = 1 ] && printf '\r\033[K' >&2
secs=$((($(now_ms) - t0 + 500) / 1000))
echo "ab: $total runs in $secs s; logs in $out/run-NNN-{a,b}.log"

label() { # side vars -> the label: the variables, and the side when both match;
	# a side through Linux's trampoline: its LRM file's name (twin: patched)
	local l=$2
	if [ -n "${lrm[$1]}" ]; then
		# "Linux 6.1.0-57-amd64's trampoline, patched (apstart's twin edit)"
		local check ver state
		check=$(build/host/aprealmode --check "${lrm[$1]}" 2>/dev/null)
		ver=$(sed -n 's/^kernel: *Linux version \([^ ]*\).*/\1/p' <<<"$check")
		state=$(sed -n 's/^state: *from [^,]*, //p' <<<"$check")
		l="Linux ${ver:-?}'s trampoline, ${state:-$(basename "${lrm[$1]}")}"
		[ -z "${kvars[$1]// /}" ] || l+=" ${kvars[$1]% }"
	fi
	if [ "$va" = "$vb" ]; then echo "$l (build $1)"; else echo "$l"; fi
}
cmp=1
if [ -n "${logs[a]}" ] && [ -n "${logs[b]}" ]; then
	mapfile -t la <<<"${logs[a]%$'\n'}"
	mapfile -t lb <<<"${logs[b]%$'\n'}"
	"$aplog" compare --label-a "$(label a "$va")" --label-b "$(label b "$vb")" \
		"${la[@]}" -- "${lb[@]}" | tee "$out/compare.txt"
	cmp=${PIPESTATUS[0]}
else
	echo "ab: no rows: a side has no run the kernel finished" | tee "$out/compare.txt"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "ab: ${#failed[@]} of $total runs failed (kept, left out of the rows), each with its last line:" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
[ "$cmp" = 0 ] || exit 1
verdict=$(grep -E '^Verdict: (none|not measurable)' "$out/compare.txt")
[ -z "$verdict" ] || { exit_why "ab: no verdict (exit 2): ${verdict#Verdict: }"; exit 2; }
exit 0
