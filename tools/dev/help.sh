#!/bin/sh
# SPDX-License-Identifier: MIT
# make help: tools/dev/help.txt, its line "@knobs" replaced by one line per
# knob of tools/build/knobs.mk that the text does not already name, as
# the Makefile hands them over: NAME=VALUES, then what it does. Lines
# are wrapped at 100 columns, under the text's second column.
#   help.sh HELP.TXT [NAME=VALUES WHAT]...
set -eu
text=$1
shift
[ $(($# % 2)) = 0 ] || { echo "help.sh: NAME=VALUES without its text" >&2; exit 2; }
while [ $# -gt 0 ]; do printf '%s\t%s\n' "$1" "$2"; shift 2; done |
	awk -v text="$text" '
	# wrap: the first column, then the words, continuing under column 26
	function show(first, rest,    n, w, i, out) {
		# (out ends in a blank until the first word is in)
		out = sprintf("  %-22s ", first)
		if (length(first) > 22) out = out " "
		n = split(rest, w, " ")
		for (i = 1; i <= n; i++) {
			if (length(out) + 1 + length(w[i]) > 100 && out !~ /^ *$/) {
				print out
				out = sprintf("%25s", "")
				out = out w[i]
			} else
				out = out (out ~ / $/ ? "" : " ") w[i]
		}
		print out
	}
	{ k = index($0, "\t"); name[NR] = substr($0, 1, k - 1); what[NR] = substr($0, k + 1) }
	END {
		while ((getline l < text) > 0) {
			if (match(l, /^  [A-Z0-9_]+=/)) named[substr(l, 3, RLENGTH - 3)] = 1
			lines[++nl] = l
		}
		for (i = 1; i <= nl; i++) {
			if (lines[i] != "@knobs") { print lines[i]; continue }
			for (j = 1; j <= NR; j++) {
				v = name[j]
				sub(/=.*/, "", v)
				if (!(v in named)) show(name[j], what[j])
			}
		}
	}'
