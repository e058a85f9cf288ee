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
# A macro whose #define mentions one of the MACROs (or such a macro, and
# so on) stands for it: a file reads the knob where it uses that macro,
# not where the header that defines it is included. So a header's lines
# that only define such macros, or give a MACRO its default (#ifndef M /
# #define M 0), make no includer a reader (smp/instrument.h holds the
# knobs' defaults and the macros of their points, and nearly every AP-path
# file includes it; issue 39: a knob build compiled 31 files, not the few
# that use a knob).
set -eu
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: knob-readers.sh 'MACRO...' SOURCE..." >&2; exit 2; }
macros=$1
shift
[ $# -gt 0 ] || exit 0
files=$(find -L . -path ./build -prune -o -path ./.git -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||')
# The answer is kept in build/gen/knob-readers/, keyed by the MACROs, the
# SOURCEs and the tree's list of files, and used again while no *.c or *.h
# (nor this script) is newer than it: every make of a knob variant asks,
# and reading the tree costs ~0.2 CPU-s a time (make iso asks twice, a
# lane's knob builds dozens of times).
cache_dir=build/gen/knob-readers
cache=$cache_dir/$(printf '%s\n' "$macros" "$*" "$files" | cksum | tr ' ' '-')
# shellcheck disable=SC2086 # the tree's paths have no blanks
if [ -f "$cache" ] && [ -z "$(find -L $files tools/build/knob-readers.sh -newer "$cache" | head -1)" ]; then
	cat "$cache"
	exit 0
fi
mkdir -p "$cache_dir"
trap 'rm -f "$cache.$$"' EXIT
# The files are read twice: first every #define (the macros that stand
# for a MACRO), then the uses.
# shellcheck disable=SC2086 # the tree's paths have no blanks
awk -v macros="$macros" -v want="$*" '
BEGIN {
	n = split(macros, m, " ")
	for (i = 1; i <= n; i++) name[m[i]] = 1
}
FNR == 1 { file = FILENAME; pass = (file in known) ? 2 : 1; known[file] = 1; cont = 0; pending = "" }
# ---- pass 1: each macro'"'"'s definition, continuation lines joined
pass == 1 {
	if (cont) { body[def] = body[def] " " $0; cont = /\\$/; next }
	if ($0 ~ /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]/) {
		def = $0
		sub(/^[ \t]*#[ \t]*define[ \t]+/, "", def)
		rest = def
		match(def, /^[A-Za-z_][A-Za-z0-9_]*/)
		def = substr(def, 1, RLENGTH)
		body[def] = body[def] " " substr(rest, RLENGTH + 1)
		cont = /\\$/
	}
	next
}
FNR == 1 && !grown {
	# the macros that stand for a MACRO, until nothing changes
	grown = 1
	do {
		more = 0
		for (d in body) if (!(d in name) && uses(body[d])) { name[d] = 1; more = 1 }
	} while (more)
}
# ---- pass 2: the uses; the lines that define one of the names (or give
# a MACRO its default) are not uses
cont { cont = /\\$/; next }
$0 ~ /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]/ {
	d = $0
	sub(/^[ \t]*#[ \t]*define[ \t]+/, "", d)
	match(d, /^[A-Za-z_][A-Za-z0-9_]*/)
	d = substr(d, 1, RLENGTH)
	if (d in name) { cont = /\\$/; if (d == pending) pending = ""; next }
}
pending != "" { reads[file] = 1; pending = "" }
$0 ~ /^[ \t]*#[ \t]*ifndef[ \t]+[A-Za-z_]/ {
	d = $0
	sub(/^[ \t]*#[ \t]*ifndef[ \t]+/, "", d)
	sub(/[^A-Za-z0-9_].*/, "", d)
	if (d in name) { pending = d; next } # a use unless the next line defines it
}
!(file in reads) && uses($0) { reads[file] = 1 }
# uses TEXT: one of the names as a whole word
function uses(text,    hit, mm) {
	hit = 0
	for (mm in name) if (index(text, mm)) { hit = 1; break }
	if (!hit) return 0
	while (match(text, /[A-Za-z_][A-Za-z0-9_]*/)) {
		if (substr(text, RSTART, RLENGTH) in name) return 1
		text = substr(text, RSTART + RLENGTH)
	}
	return 0
}
pass == 2 && /^[ \t]*#[ \t]*include[ \t]*"/ {
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
}' $files $files >"$cache.$$"
cat "$cache.$$"
mv -f "$cache.$$" "$cache"
