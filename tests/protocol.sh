# SPDX-License-Identifier: MIT
# The test protocol every lane follows, for lanes written in bash (source
# this file). One line per check, starting in column 0:
#
#   ok   NAME
#   FAIL NAME: WHY
#   skip NAME: REASON
#
# and, last, "LANE: N passed, M failed, K skipped". Anything else a lane
# prints (details under a FAIL, progress) is indented or begins with the
# lane's own name, so it never reads as a check. tests/run-all.sh sums the
# last lines and lists every skip with its reason.

t_passed=0 t_failed=0 t_skipped=0

ok() { # NAME
	t_passed=$((t_passed + 1))
	echo "ok   $1"
}

fail() { # NAME WHY [DETAIL...]: details go below, indented
	t_failed=$((t_failed + 1))
	echo "FAIL $1: ${2:-failed}"
	shift 2 2>/dev/null || shift $#
	local d
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/     | /'
	done
}

skip() { # NAME REASON
	t_skipped=$((t_skipped + 1))
	echo "skip $1: $2"
}

# check NAME COMMAND...: ok when COMMAND succeeds; else FAIL, the last
# lines of its output joined into one as the reason (a reason spread over
# lines would put unindented text among the check lines).
check() {
	local name=$1 why
	shift
	if why=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(tail -n 4 <<<"$why" | paste -sd ' ')"; fi
}

# check_status NAME WANT-STATUS REGEX STATUS OUTPUT: ok when a command
# exited with WANT-STATUS and its OUTPUT matches the extended REGEX; else
# FAIL, with the output below.
check_status() {
	local name=$1 want=$2 re=$3 st=$4 out=$5
	if [ "$st" != "$want" ]; then
		fail "$name" "exit status $st, want $want" "$out"
	elif ! grep -Eq -- "$re" <<<"$out"; then
		fail "$name" "output lacks /$re/" "$out"
	else
		ok "$name"
	fi
}

# summary LANE: the last line; returns 1 if anything failed.
summary() {
	echo "$1: $t_passed passed, $t_failed failed, $t_skipped skipped"
	[ "$t_failed" -eq 0 ]
}

# lane_start NAME: $out (build/test-logs) and $work, the lane's scratch
# folder in it, removed at exit; finish prints NAME's summary line and
# exits.
lane_start() {
	lane_name=$1
	out=build/test-logs
	mkdir -p "$out"
	work=$(mktemp -d "$out/$1-tmp.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}
finish() {
	summary "$lane_name"
	exit
}
# need_files TARGET FILE...: a missing input is one failure naming it and
# the make target that builds it, and the end of the lane.
need_files() {
	local target=$1 f
	shift
	for f in "$@"; do
		[ -f "$f" ] || { fail "inputs" "missing $f (run: make $target)"; finish; }
	done
}
