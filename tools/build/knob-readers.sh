#!/bin/sh
# SPDX-License-Identifier: MIT
# knob-readers.sh 'MACRO...' SOURCE...: the SOURCEs that read one of the
# MACROs (the -D defines of the knobs a test variant sets), in their own
# text or in a header they include, directly or not: the files whose
# objects a test variant must compile itself (tools/build/plain-objects.mk).
# It reads the sources as they are now, every *.c and *.h of the tree
# (build/ aside; through symbolic links, as the docs lane's work folder
# has them). A name in a comment counts too, and an include is followed
# whether or not an #if around it holds; a SOURCE it did not find, or an
# include it cannot resolve, reads anything: when in doubt, a file reads
# the knob (its object is compiled again, never shared wrongly).
# An include names a file from the top folder (the build's -I.) or from
# the including file's folder, as the compiler finds it.
set -eu
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: knob-readers.sh 'MACRO...' SOURCE..." >&2; exit 2; }
macros=$1
shift
[ $# -gt 0 ] || exit 0
# shellcheck disable=SC2046 # the tree's paths have no blanks
awk -v macros="$macros" -v want="$*" '
BEGIN {
	n = split(macros, m, " ")
	for (i = 1; i <= n; i++) name[m[i]] = 1
}
FNR == 1 { file = FILENAME; known[file] = 1 }
!(file in reads) {
	# a macro as a whole word
	hit = 0
	for (mm in name) if (index($0, mm)) hit = 1
	line = hit ? $0 : ""
	while (match(line, /[A-Za-z_][A-Za-z0-9_]*/)) {
		if (substr(line, RSTART, RLENGTH) in name) reads[file] = 1
		line = substr(line, RSTART + RLENGTH)
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	dir = file
	if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
	nincs++
	from[nincs] = file
	top[nincs] = inc
	here[nincs] = tidy(dir == "." ? inc : dir "/" inc)
}
# tidy PATH: without "x/.." and "./" steps
function tidy(p,    q, n, i, k, out) {
	n = split(p, q, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (q[i] == "." || q[i] == "") continue
		if (q[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
		out[++k] = q[i]
	}
	p = ""
	for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
	return p
}
END {
	# An include names here[] when that file exists, else top[]; one
	# that names neither (a generated header?) may read anything.
	for (i = 1; i <= nincs; i++) {
		to[i] = (here[i] in known) ? here[i] : tidy(top[i])
		if (!(to[i] in known)) reads[from[i]] = 1
	}
	# Whoever includes a reader reads too, until nothing changes.
	do {
		more = 0
		for (i = 1; i <= nincs; i++)
			if ((to[i] in reads) && !(from[i] in reads)) { reads[from[i]] = 1; more = 1 }
	} while (more)
	# A SOURCE not read here (not found) may read anything.
	k = split(want, w, " ")
	for (i = 1; i <= k; i++) if ((w[i] in reads) || !(w[i] in known)) print w[i]
}' $(find -L . -path ./build -prune -o -path ./.git -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||')
