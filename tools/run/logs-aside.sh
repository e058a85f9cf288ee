# SPDX-License-Identifier: MIT
# Sourced by the tools that write a session's logs into a fixed folder
# (tools/run/ab.sh: build/ab; tools/linux/vm/bench.sh: build/bench-linux):
# an earlier session's logs are never written over, but moved aside.
#
# logs_aside DIR FILE...: when any FILE (names in DIR, globs allowed)
# exists, moves them all into DIR/earlier-DATE-TIME/ (the time of the
# newest of them; -2, -3... when that folder is taken) and prints
# "earlier-DATE-TIME"; prints nothing when there is none. Returns 1 when
# it cannot.
logs_aside() {
	local dir=$1 f files=() newest= to n=1
	shift
	for f in "$@"; do
		for f in "$dir"/$f; do # (each argument a glob)
			[ -e "$f" ] || continue
			files+=("$f")
			[ -n "$newest" ] && [ ! "$f" -nt "$newest" ] || newest=$f
		done
	done
	[ ${#files[@]} -gt 0 ] || return 0
	to=earlier-$(date -r "$newest" +%Y%m%d-%H%M%S)
	local base=$to
	while ! mkdir "$dir/$to" 2>/dev/null; do
		n=$((n + 1))
		[ $n -le 999 ] || return 1
		to=$base-$n
	done
	mv "${files[@]}" "$dir/$to/" || return 1
	echo "$to"
}
