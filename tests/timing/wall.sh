# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The wall-clock timing gate, and its proof sized to the host it runs on.
# Sourced by tests/timing/run.sh, which builds the kernels, defines run()
# and the check counters (tests/protocol.sh) and sets APLOG, OUT, SMP,
# SLOW_BUILD and SLOWPARK_BUILD (the builds with the test-only spins,
# whose size the kernel options slow_tramp_ns= / slow_park_ns= set per
# boot). The entry point is wall_clock TAG GATE_SLOW QEMU-OPTIONS...
#
# Runs are the unit (docs/verdicts.md): the builds boot interleaved, one
# round after another, in a new random order each round (a fixed order
# would turn whatever one boot leaves to the next into a difference
# between builds); each boot is one observation (its median sample,
# aplog's online ns or offline settled_ns), and every verdict is the
# run-level one of aplog check --slower-than --paired: the two builds' runs
# of one round are a pair, their ratio one value, and the sign test gives
# the median ratio a distribution-free 95% interval. A busy host slows
# whole rounds (both runs of a pair) and now and then one run (one ratio
# of many): Welch's interval on unpaired runs, tried first, missed the
# slowed trampoline in 18 of 20 gate runs at load 6-8, where the paired
# interval on the same logs caught it. A build is flagged when that whole
# interval lies above +WALL_MARGIN_PCT.
#
# How small a change the gate resolves depends on the host: two runs of
# one build (an A/A) lie within +-2% of each other on a quiet host and
# +-20% on a busy one. So the lane measures it and sizes its proof from
# it, never the other way round:
#  1. WALL_CAL_ROUNDS rounds of WBINVD=0 against a second copy of itself:
#     the A/A's 95% interval [lo, hi] per row (at 9 pairs the 2nd smallest
#     and largest ratio: one stray run does not size the proof).
#  2. Each slowed build's spin is sized from its row: the margin widened
#     by the A/A's spread, w = max(hi, 1/lo), cubed:
#     1 + d = (1 + margin) * w^3, at least 1 + 2 * margin; spin = d times
#     the WBINVD=0 runs' median. A change of that size lies above the
#     margin by three of the A/A's half-widths. Replayed on the A/A ratios
#     of nine gate runs here (load 5-15; tests/verdicts/gate-sim.py on
#     tests/verdicts/gate-aa/, 10 000 gates a row), it was missed in 14 of
#     10 000 on average and 97 at most (the noisiest run: a third of its A/A
#     ratios 1.3-3.2x off), in 6.9 rounds on average; stopping at 24
#     rounds, 57 and 296; at 6, 1082 and 2436.
#  3. WALL_ROUNDS rounds of every build (WBINVD=1, WBINVD=0, its copy, the
#     slowed trampoline, the slowed park flush); six more while a slowed
#     build is not yet flagged, up to WALL_MAX_ROUNDS.
#  4. The verdicts: WBINVD=0 must not be flagged against WBINVD=1, nor
#     against its own copy either way (a false alarm); the resolution is
#     printed from the same rounds' A/A: changes >= (1 + margin) * w - 1
#     are told apart in that many rounds; each slowed build must be
#     flagged in its row, or the gate cannot catch the slowdown it was
#     shown here, and the lane fails.
# WALL_SLOW_NS / WALL_SLOWPARK_NS set a spin instead of sizing it (how to
# show the failing branch: a change below the resolution is not caught).
#
# The gate runs on single-threaded TCG (-accel tcg,thread=single; the
# multi-threaded default varies +-40% run to run on 2 host cores),
# everywhere. Where KVM has hardware virtualisation behind it, the same
# A/B also runs on KVM: WBINVD=0 must not be slower there either; the
# slowed builds' verdicts are shown for information.

WALL_CYCLES=20
WALL_ARGS="cycles=$WALL_CYCLES sipi_count=auto"
WALL_MARGIN_PCT=${WALL_MARGIN_PCT:-5}
WALL_CAL_ROUNDS=${WALL_CAL_ROUNDS:-9}
WALL_ROUNDS=${WALL_ROUNDS:-6}
WALL_MAX_ROUNDS=${WALL_MAX_ROUNDS:-36}
WALL_SLOW_NS=${WALL_SLOW_NS:-}
WALL_SLOWPARK_NS=${WALL_SLOWPARK_NS:-}
WALL_SEED=${WALL_SEED:-$(( $(date +%s) % 32768 ))}
# A boot takes ~1 s; a QEMU that printed nothing for 300 s was seen at
# load 12. Such a boot is tried once more after this many seconds.
WALL_BOOT_TIMEOUT=60
# The largest spin the kernel takes (SLOW_SPIN_MAX_NS, smp/instrument.h).
WALL_SPIN_MAX_NS=1000000
max_ratio=$(awk -v m="$WALL_MARGIN_PCT" 'BEGIN { printf "%.3f", 1 + m / 100 }')

# NAME -> "build kernel-args" of the five runs of a round.
wall_build() {
	case $1 in
	wbinvd1) echo "wbinvd1" ;;
	wbinvd0 | wbinvd0copy) echo "wbinvd0" ;;
	slow) echo "$SLOW_BUILD slow_tramp_ns=$wall_slow_ns" ;;
	slowpark) echo "$SLOWPARK_BUILD slow_park_ns=$wall_slowpark_ns" ;;
	esac
}

# shuffled WORD...: the words in a random order (bash's RANDOM, seeded
# with WALL_SEED once per mode: a run can be repeated in its order).
shuffled() {
	local a=("$@") i j t
	for ((i = ${#a[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${a[i]} a[i]=${a[j]} a[j]=$t
	done
	echo "${a[@]}"
}

# wall_round TAG PHASE ROUND NAME...: one boot of each, shuffled, into
# $OUT/wall-TAG-PHASE-NAME-rROUND.log. A boot without the kernel's verdict
# is tried once more; status 1 if it failed twice.
wall_round() {
	local tag=$1 phase=$2 r name b args log try
	r=$(printf %02d "$3") # the glob's order is the rounds' order: pairs
	shift 3
	for name in $(shuffled "$@"); do
		read -r b args <<<"$(wall_build "$name")"
		log=$OUT/wall-$tag-$phase-$name-r$r.log
		for try in 1 2; do
			# shellcheck disable=SC2086 # args: words by design
			run "$b" "$log" "${wall_opts[@]}" --timeout $WALL_BOOT_TIMEOUT -- $WALL_ARGS $args && continue 2
			echo "  timing: $log: $(tr -d '\r' <"$log" | tail -n 1)$([ $try = 1 ] && echo '; booting it again')"
		done
		wall_failed_boot=$log
		return 1
	done
}

# slower TAG PHASE OP A B -> aplog's verdict line (or its error); status 0
# OK, 1 REGRESSION, 2 no verdict.
slower() {
	local out st
	out=$($APLOG check --slower-than --paired --op "$3" --max-ratio "$max_ratio" \
		"$OUT"/wall-"$1"-"$2"-"$4"-r*.log -- "$OUT"/wall-"$1"-"$2"-"$5"-r*.log 2>&1)
	st=$?
	grep -E '^(OK|REGRESSION|NO VERDICT)' <<<"$out" || tail -n 1 <<<"$out"
	return $st
}

# flagged TAG PHASE OP A B: B flagged against A.
flagged() {
	slower "$@" >/dev/null
	[ $? = 1 ]
}

# ci_of LINE -> "LO HI" of its 95% CI, or status 1.
ci_of() {
	sed -n 's/.*95% CI \[\([0-9.]*\), \([0-9.]*\)\].*/\1 \2/p' <<<"$1" | grep .
}

# run_median TAG PHASE OP NAME... -> the median of those runs' medians, ns.
run_median() {
	local tag=$1 phase=$2 op=$3 name files=()
	shift 3
	for name in "$@"; do files+=("$OUT/wall-$tag-$phase-$name"-r*.log); done
	$APLOG medians --op "$op" "${files[@]}" | sed -n 's/.* median_ns=\([0-9]*\) .*/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# resolution LO HI -> the smallest change (%) told apart with that A/A:
# its interval's widest side times the margin.
resolution() {
	awk -v lo="$1" -v hi="$2" -v m="$WALL_MARGIN_PCT" \
		'BEGIN { w = hi > 1 / lo ? hi : 1 / lo; printf "%.1f", ((1 + m / 100) * w - 1) * 100 }'
}

# size_spin TAG OP WHAT -> the spin (ns) for the slowed build of row OP,
# sized from the calibration rounds' A/A; says how on stdout's first line.
size_spin() {
	local tag=$1 op=$2 what=$3 line ci base lo hi
	line=$(slower "$tag" cal "$op" wbinvd0 wbinvd0copy)
	ci=$(ci_of "$line") || { echo "no A/A interval: $line"; return 1; }
	base=$(run_median "$tag" cal "$op" wbinvd0 wbinvd0copy)
	[ -n "$base" ] || { echo "no $op samples in the calibration runs"; return 1; }
	read -r lo hi <<<"$ci"
	awk -v lo="$lo" -v hi="$hi" -v b="$base" -v m="$WALL_MARGIN_PCT" -v max=$WALL_SPIN_MAX_NS \
		-v what="$what" -v op="$op" 'BEGIN {
		w = hi > 1 / lo ? hi : 1 / lo
		f = (1 + m / 100) * w ^ 3; floor = 1 + 2 * m / 100
		if (f < floor) f = floor
		ns = int((f - 1) * b + 0.999); if (ns > max) ns = max
		printf "  %s: A/A 95%% CI [%s, %s], median run %d ns -> %s +%d ns (+%.1f%% = %.2f x %.3f^3, at least +%d%%%s)\n",
			op, lo, hi, b, what, ns, (f - 1) * 100, 1 + m / 100, w, 2 * m,
			ns == max ? "; capped: the largest spin the kernel takes" : ""
		print ns }'
}

wall_clock() { # tag gate_slow(0|1) qemu-run options...
	local tag=$1 gate_slow=$2
	shift 2
	wall_opts=("$@")
	local t0=$SECONDS r=0 res st out name op what var b ns aa ci lo hi base pct shown
	RANDOM=$WALL_SEED
	echo "timing: wall-clock mode $tag ($*, -smp $SMP, $WALL_ARGS; order shuffled per round, WALL_SEED=$WALL_SEED)"
	rm -f "$OUT"/wall-$tag-*.log

	# 1-2: the host's A/A, and the slowed builds sized from it.
	for ((r = 1; r <= WALL_CAL_ROUNDS; r++)); do
		wall_round $tag cal $r wbinvd0 wbinvd0copy ||
			{ fail "wall clock $tag: every boot gave a verdict" "$wall_failed_boot, twice"; return; }
	done
	echo "  $WALL_CAL_ROUNDS rounds of WBINVD=0 against its copy size the proof (the +$WALL_MARGIN_PCT% margin widened by the A/A's spread w = max(hi, 1/lo), cubed):"
	wall_slow_ns=$WALL_SLOW_NS wall_slowpark_ns=$WALL_SLOWPARK_NS
	for what in "online|slowed trampoline|wall_slow_ns" "offline|slowed park flush|wall_slowpark_ns"; do
		IFS='|' read -r op what var <<<"$what"
		if [ -n "${!var}" ]; then
			[[ ${!var} =~ ^[1-9][0-9]*$ ]] && [ "${!var}" -le $WALL_SPIN_MAX_NS ] ||
				{ fail "wall clock $tag: the $what's spin as given" "${var^^}=${!var}: want 1..$WALL_SPIN_MAX_NS ns"; return; }
			echo "  $op: $what +${!var} ns, as given (not sized)"
			continue
		fi
		out=$(size_spin $tag "$op" "$what") ||
			{ fail "wall clock $tag: the proof sized from the host's A/A" "$out"; return; }
		sed '$d' <<<"$out"
		printf -v "$var" %s "$(tail -n 1 <<<"$out")"
	done

	# 3: every build, WALL_ROUNDS rounds; six more while a slowed build
	# is not yet flagged (more runs narrow the interval of a real change).
	r=0
	while :; do
		local stop=$((r + 6))
		[ $r = 0 ] && stop=$WALL_ROUNDS
		[ $stop -gt "$WALL_MAX_ROUNDS" ] && stop=$WALL_MAX_ROUNDS
		while [ $r -lt $stop ]; do
			r=$((r + 1))
			wall_round $tag gate $r wbinvd1 wbinvd0 wbinvd0copy slow slowpark ||
				{ fail "wall clock $tag: every boot gave a verdict" "$wall_failed_boot, twice"; return; }
		done
		[ "$gate_slow" = 1 ] && [ $r -lt "$WALL_MAX_ROUNDS" ] || break
		flagged $tag gate online wbinvd0 slow && flagged $tag gate offline wbinvd0 slowpark && break
	done
	echo "  $r rounds; the verdicts (per-run medians paired by round, sign-test 95% CI, flagged above +$WALL_MARGIN_PCT%):"

	# 4: the verdicts.
	name="wall clock $tag: WBINVD=0 not slower than WBINVD=1"
	res=$(slower $tag gate online wbinvd1 wbinvd0)
	case $? in
	0) ok "$name ($res)" ;;
	1) fail "$name" "slower beyond the margin: $res" ;;
	*) fail "$name" "no verdict: ${res:-no output} (see $OUT/wall-$tag-gate-*.log)" ;;
	esac
	for what in "online|slowed trampoline|slow|$wall_slow_ns" "offline|slowed park flush|slowpark|$wall_slowpark_ns"; do
		IFS='|' read -r op what b ns <<<"$what"
		# The A/A: neither copy flagged against the other (a false
		# alarm), and what its interval says the gate resolves here.
		name="wall clock $tag: WBINVD=0 not told apart from its own copy ($op)"
		aa=$(slower $tag gate $op wbinvd0 wbinvd0copy)
		if ! ci=$(ci_of "$aa"); then
			fail "$name" "no verdict: ${aa:-no output}"
			continue
		fi
		read -r lo hi <<<"$ci"
		if awk -v lo="$lo" -v hi="$hi" -v r="$max_ratio" 'BEGIN { exit !(lo > r || hi < 1 / r) }'; then
			fail "$name" "a false alarm: the interval lies wholly beyond +-$WALL_MARGIN_PCT%: $aa"
		else
			ok "$name: $aa"
		fi
		base=$(run_median $tag gate "$op" wbinvd0 wbinvd0copy)
		pct=$(resolution "$lo" "$hi")
		echo "  resolution: the gate resolves changes >= $pct% of the $op path" \
			"($(awk -v p="$pct" -v b="${base:-0}" 'BEGIN { printf "%d of %d ns", p * b / 100, b }')) in $r rounds here" \
			"(a change that size in either WBINVD=0 copy of these rounds would have been flagged)"
		shown=$(awk -v n="$ns" -v b="${base:-1}" 'BEGIN { printf "%.1f", 100 * n / b }')
		name="wall clock $tag: $what (+$ns ns, +$shown% of the $op path) flagged in the $op row"
		res=$(slower $tag gate $op wbinvd0 $b)
		st=$?
		if [ "$gate_slow" = 0 ]; then
			echo "  (information) $name: $res"
		elif [ $st = 1 ]; then
			ok "$name: $res"
			awk -v s="$shown" -v p="$pct" 'BEGIN { exit !(s < p) }' &&
				echo "  (the +$shown% shown is below that resolution: caught in these rounds, not assured on this host)"
		else
			fail "$name" "it was NOT, after $r rounds: the gate cannot catch the slowdown it was shown here (it resolves >= $pct%): ${res:-no output}"
		fi
	done
	echo "  the same runs through aplog compare (WBINVD=1 against WBINVD=0):"
	$APLOG compare --label-a WBINVD=1 --label-b WBINVD=0 "$OUT"/wall-$tag-gate-wbinvd1-r*.log -- "$OUT"/wall-$tag-gate-wbinvd0-r*.log 2>&1 |
		grep -E '^(EMULATED|Offline|Online|Total|Verdict)' | sed 's/^/    /'
	echo "timing: wall-clock mode $tag took $((SECONDS - t0))s"
}
