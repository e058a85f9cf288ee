#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The citation convention (CONTRIBUTING.md, "Citing the specifications"),
# checked over every source, script and document of the tree:
#
#   form       an SDM citation names its volume: "SDM Vol. 3A §11.6.1",
#              "SDM Vol. 3A Table 11-1", "SDM Vol. 2A, CPUID"; not
#              "SDM §11.6.1", "SDM Figure 11-8", "SDM 3A ...", "SDM
#              Vol. 3A, 10.11.7.1" (a section without §)
#   full title the SDM's full title or order number (325462) at most once
#              a file: it is named in full in CONTRIBUTING.md only
#   editions   an edition note ("... in older editions") at most once a
#              file; which edition the numbers follow is said in
#              CONTRIBUTING.md, the one file exempt
#   declared   CONTRIBUTING.md names the SDM's order number with its
#              revision (325462-0NNUS)
#
#   citations.sh [--root DIR]   (make layers-tests; --root checks a copy)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${1:-}" = --root ]; then root=$(cd "$2" && pwd); shift 2; fi
# shellcheck source=tests/protocol.sh
. "$here/../protocol.sh"
cd "$root" || exit 2

mapfile -t files < <(find . \( -path ./build -o -path ./.git \) -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.asm' -o -name '*.inc' -o -name '*.S' \
	-o -name '*.sh' -o -name '*.md' -o -name '*.mk' -o -name Makefile -o -name '*.py' \
	-o -name '*.ld' \) -print | sed 's|^\./||' | grep -vx 'tests/layers/citations.sh' | sort)

# One pass: for each file, its lines without comment leaders, joined, so a
# citation broken over two comment lines reads as one. Prints one record
# a finding: RULE <TAB> FILE:LINE <TAB> TEXT, and "cites N" a file with
# SDM citations.
findings=$(awk '
function flush(   i, p, s, rest, line, n) {
	if (file == "") return
	if (titles > 1) print "title\t" file ":" title_at "\t" titles " lines name the full title or 325462"
	if (editions > 1 && file != "CONTRIBUTING.md")
		print "edition\t" file ":" edition_at "\t" editions " edition notes"
	n = 0
	s = text
	p = 0
	while ((i = index(s, "SDM")) > 0) {
		p += i
		rest = substr(s, i + 3)
		s = rest
		# a word of its own: not inside a longer name
		if (i > 1 && substr(text, p - 1, 1) ~ /[A-Za-z0-9_]/) { p += 2; continue }
		if (rest ~ /^[A-Za-z0-9_]/) { p += 2; continue }
		line = line_of(p)
		if (rest ~ /^[ ,]*Vol\. (1|2|2[A-D]|3[A-D]|4)([^A-Za-z0-9]|$)/) {
			n++
			sub(/^[ ,]*Vol\. [0-9][A-D]?/, "", rest)
			if (rest ~ /^[ ,]*[0-9]+\.[0-9]/)
				print "form\t" file ":" line "\tsection without \"§\": SDM" substr(s, 1, 24)
		} else {
			sub(/^[ ,]*/, "", rest)
			if (rest ~ /^([0-9]|Vol|vol|VOL|Figure|Fig\.|Table|Chapter|Section|Appendix)/ || index(rest, "§") == 1)
				print "form\t" file ":" line "\tno \"Vol. N\": SDM" substr(s, 1, 24)
		}
		p += 2
	}
	if (n) print "cites\t" file "\t" n
}
function line_of(p,   k) {
	for (k = nlines; k > 1; k--) if (start[k] <= p) return k
	return 1
}
FNR == 1 {
	flush()
	file = FILENAME; text = ""; nlines = 0; titles = 0; editions = 0
	title_at = 0; edition_at = 0
}
{
	l = $0
	sub(/^[ \t]*(\/\*+|\*+\/?|\/\/+|;+|#+|<!--)?[ \t]*/, "", l)
	sub(/[ \t]*(\*\/|-->)[ \t]*$/, "", l)
	start[++nlines] = length(text) + 1
	text = text l " "
	low = tolower($0)
	if (low ~ /software developer.s manual/ || $0 ~ /325462/) { if (!titles++) title_at = FNR }
	if ((k = gsub(/(^|[^a-z])editions?([^a-z]|$)/, "", low)) > 0) {
		if (!editions) edition_at = FNR
		editions += k
	}
}
END { flush() }
' "${files[@]}")

sdm_files=$(awk -F'\t' '$1 == "cites"' <<<"$findings" | wc -l)
sdm_cites=$(awk -F'\t' '$1 == "cites" { n += $3 } END { print n + 0 }' <<<"$findings")
report() { # RULE NAME WHY
	local rule=$1 name=$2 why=$3 rows
	rows=$(awk -F'\t' -v r="$rule" '$1 == r { print $2 ": " $3 }' <<<"$findings")
	if [ -z "$rows" ]; then ok "$name"
	else
		local details=()
		mapfile -t details <<<"$rows"
		fail "$name" "$why (${#details[@]})" "${details[@]}"
	fi
}
report form "citations: every SDM citation names its volume ($sdm_cites in $sdm_files files)" \
	'write "SDM Vol. N §x.y" (CONTRIBUTING.md, Citing the specifications)'
report title "citations: the SDM's full title or order number at most once a file (${#files[@]} files)" \
	'the full title is named once, in CONTRIBUTING.md'
report edition "citations: an edition note at most once a file" \
	'the edition is said once, in CONTRIBUTING.md'
if grep -Eq '325462-0[0-9]{2}US' CONTRIBUTING.md 2>/dev/null; then
	ok "citations: CONTRIBUTING.md names the SDM's order number and revision"
else
	fail "citations: CONTRIBUTING.md names the SDM's order number and revision" \
		"no 325462-0NNUS in CONTRIBUTING.md"
fi
summary citations
