#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The docs' examples of program output are made by the program: each is a
# block between a marker that names the command and an end marker,
#
#   <!-- output: aplog compare --label-a WBINVD=1 --label-b WBINVD=0
#        tests/aplog/ref/reference-wbinvd1.log -- tests/aplog/ref/reference-wbinvd0.log
#        | sed -n '/^Offline:/,/^Verdict:/p' -->
#       Offline:  40.42 s -> 40.33 s (-0.2%, 95% CI -1.6..+1.2%) no difference, mean of 10 runs
#       ...
#   <!-- end -->
#
# the block being the command's standard output, indented by the marker's
# own indentation plus four blanks (a code block, in a list item too). The
# command (a marker may run over several lines) is a bash command line run
# from the repository's top folder, with build/host first on PATH (aplog,
# as `make aplog` builds it), LC_ALL=C and TZ=UTC, 60 s at most, on the
# committed fixtures only (logs under tests/, docs/plots/: never a boot).
#
#   blocks.sh [--root DIR] [FILE...]            check: print one line per block
#   blocks.sh --update [--root DIR] [FILE...]   rewrite the blocks (make docs)
#
# FILE: by default README.md, docs/*.md and tools/aplog/README.md of DIR
# (default: this repository). Check prints "ok   FILE:LINE: COMMAND" or
# "FAIL FILE:LINE: ..." with the difference (the test protocol's lines) and
# exits 1 when a block is not what its command prints now, or the command
# fails to run (exit status 126/127, or no output).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
update=0
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1; shift ;;
	--root) root=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	-h|--help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "blocks.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
files=("$@")
if [ ${#files[@]} = 0 ]; then
	files=("$root/README.md" "$root"/docs/*.md "$root/tools/aplog/README.md")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_cmd CMD: its standard output, trailing blanks dropped, into $tmp/got;
# the status into $st, standard error into $tmp/err.
run_cmd() {
	(cd "$root" && PATH="$root/build/host:$PATH" LC_ALL=C TZ=UTC \
		timeout 60 bash -c "$1") </dev/null 2>"$tmp/err" | sed 's/[[:space:]]*$//' >"$tmp/got"
	st=${PIPESTATUS[0]}
}

# The markers of FILE, one per line: START END INDENT COMMAND (START: the
# marker's first line, END: the end marker's line).
markers() {
	awk '
	function flush_marker() {
		cmd = m; sub(/^[ \t]*<!-- output:[ \t]*/, "", cmd); sub(/[ \t]*-->[ \t]*$/, "", cmd)
		gsub(/[ \t]*\n[ \t]*/, " ", cmd)
	}
	inm { m = m "\n" $0; if ($0 ~ /-->[ \t]*$/) { inm = 0; flush_marker(); inb = 1 } next }
	/^[ \t]*<!-- output:/ {
		if (inb) { print "ERR " start " a marker inside the block of the one at line " start; exit }
		start = NR; m = $0; ind = $0; sub(/<.*/, "", ind)
		if ($0 ~ /-->[ \t]*$/) { flush_marker(); inb = 1 } else inm = 1
		next
	}
	inb && /^[ \t]*<!-- end -->[ \t]*$/ { printf "%d %d %d %s\n", start, NR, length(ind), cmd; inb = 0 }
	END { if (inm || inb) print "ERR " start " no <!-- end --> after the marker" }
	' "$1"
}

failed=0 blocks=0
for f in "${files[@]}"; do
	name=${f#"$root"/}
	mapfile -t ms < <(markers "$f")
	[ ${#ms[@]} = 0 ] && continue
	cp "$f" "$tmp/new"
	shift_by=0 # lines added to the file above the current block (--update)
	for m in "${ms[@]}"; do
		if [[ $m == ERR* ]]; then
			read -r _ line why <<<"$m"
			echo "FAIL $name:$line: $why"
			failed=1
			continue
		fi
		read -r start end ind cmd <<<"$m"
		blocks=$((blocks + 1))
		pad=$(printf '%*s' $((ind + 4)) '')
		run_cmd "$cmd"
		if [ "$st" = 126 ] || [ "$st" = 127 ] || [ "$st" = 124 ] || [ ! -s "$tmp/got" ]; then
			echo "FAIL $name:$start: $cmd: it did not run (exit status $st, $(wc -l <"$tmp/got") lines of output)"
			sed 's/^/     | /' "$tmp/err" | head -n 6
			failed=1
			continue
		fi
		sed "s/^./$pad&/" "$tmp/got" >"$tmp/want"
		# the marker's own lines: from START to the first '-->'
		mlines=$(sed -n "$((start + shift_by)),\$p" "$tmp/new" | awk '/-->[ \t]*$/ { print NR; exit }')
		: >"$tmp/have"
		[ $((end - start - mlines)) -gt 0 ] &&
			sed -n "$((start + shift_by + mlines)),$((end + shift_by - 1))p" "$tmp/new" |
			sed 's/[[:space:]]*$//' >"$tmp/have"
		if cmp -s "$tmp/have" "$tmp/want"; then
			[ $update = 0 ] && echo "ok   $name:$start: $cmd"
			continue
		fi
		if [ $update = 1 ]; then
			{
				head -n $((start + shift_by + mlines - 1)) "$tmp/new"
				cat "$tmp/want"
				tail -n +$((end + shift_by)) "$tmp/new"
			} >"$tmp/next"
			shift_by=$((shift_by + $(wc -l <"$tmp/want") - (end - start - mlines)))
			mv "$tmp/next" "$tmp/new"
			echo "updated $name:$start: $cmd"
		else
			echo "FAIL $name:$start: the block is not what its command prints now: $cmd"
			diff -u "$tmp/have" "$tmp/want" | tail -n +3 | head -n 16 | sed 's/^/     | /'
			echo "     | (make docs rewrites the blocks; commit the change with the one that made it)"
			failed=1
		fi
	done
	if [ $update = 1 ] && ! cmp -s "$f" "$tmp/new"; then
		cat "$tmp/new" >"$f"
	fi
done
if [ $update = 1 ]; then
	echo "blocks.sh: $blocks output blocks in ${#files[@]} files made from their commands"
fi
exit $failed
