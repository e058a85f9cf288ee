#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The house's rule, checked: the core's layers point down only, the core
# includes no wing, a wing uses the core, lib/ and only the wings its rule
# names, and nothing anywhere goes round in a circle.
#
# The rule itself is the table in docs/layout.md between
# "<!-- parts: ..." and "<!-- end -->" (one line a part: its folder, its
# kind, what it may use), so that the map and the check cannot disagree.
# Every folder that holds C or assembly must be covered by a part.
#
#   check.sh [--root DIR] [--core-map MAP] [BUILD_DIR OBJECT... [-- BUILD_DIR OBJECT...]...]
#       --root: check another tree (the lane plants faults in a copy).
#       --core-map: the map ld wrote for the core alone (make WINGS=:
#       build/wbinvd0-core/apstart.elf.map); LD_FLAGS (the environment)
#       says how the kernel is linked.
#       BUILD_DIR OBJECT...: the objects linked into one program (the
#       kernel; aplog), each under BUILD_DIR at its source's path; with
#       them, the symbols each object uses are checked too (a hand-written
#       extern that skips the headers) and calls count for circles. A
#       program's symbols resolve within that program only.
#
# Checks:
#   parts      every C/asm folder is covered by a part of the table
#   includes   each quoted #include / %include of each part names its own
#              part or one its rule allows (a core layer: itself and the
#              layers below it; never a wing)
#   symbols    each linked object's undefined symbols are defined in its
#              own part or one it may use (within its program)
#   circles    no loop among modules (x.c + x.h is one module) by
#              includes, or by calls between the objects of a program
#   core link  with --core-map: every object the core alone links lies in
#              a core folder (generated ones at their part's path too), and
#              each keeps code or data in the same link made with
#              --gc-sections (from the entry point and the kept sections):
#              the core is what make WINGS= links, and all of it is used
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --root ]; then root=$(cd "$2" && pwd); shift 2; fi
core_map=""
if [ "${1:-}" = --core-map ]; then core_map=$2; shift 2; fi
cd "$root" || exit 2
# The programs: "BUILD_DIR OBJECT..." groups, "--" between them.
programs=()
group=""
for a in "$@"; do
	if [ "$a" = -- ]; then
		[ -z "$group" ] || programs+=("$group")
		group=""
	else
		group+="${group:+ }$a"
	fi
done
[ -z "$group" ] || programs+=("$group")
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skip $1: $2"; }

# ---------------------------------------------------------------- the table
# part -> kind (core|wing|host|tests), part -> what it may use, and the core
# layers top-down.
declare -A kind uses rank
core=()
table=$(awk '/^<!-- parts:/ { on = 1; next } /^<!-- end/ { on = 0 } on' docs/layout.md)
while read -r folder k rest; do
	case "$folder" in ''|'#'*|part|----*) continue ;; esac
	folder=${folder%/}
	kind[$folder]=$k
	uses[$folder]=${rest//,/ }
	[ "$k" = core ] && { rank[$folder]=${#core[@]}; core+=("$folder"); }
done <<<"$table"
if [ ${#kind[@]} = 0 ]; then
	bad "the table of parts" "no '<!-- parts:' block in docs/layout.md"
	echo "layers: $pass passed, $fail failed, $skip skipped"
	exit 1
fi

# The part a path belongs to: the longest folder of the table it lies in,
# into $part (no subshell: it runs for every file and include; memoised).
declare -A part_memo
part_of() {
	local p=$1 best="" f
	if [ -n "${part_memo[$p]+set}" ]; then part=${part_memo[$p]}; return; fi
	for f in "${!kind[@]}"; do
		case "$p" in "$f"/*) [ ${#f} -gt ${#best} ] && best=$f ;; esac
	done
	part_memo[$p]=$best part=$best
}
# A relative path with its "." and ".." steps taken, into $norm.
normalise() {
	local -a out=() steps
	local s IFS=/
	read -r -a steps <<<"$1"
	for s in "${steps[@]}"; do
		case $s in
		'' | .) ;;
		..) [ ${#out[@]} -gt 0 ] && unset 'out[${#out[@]}-1]' ;;
		*) out+=("$s") ;;
		esac
	done
	norm="${out[*]}" # (joined by IFS, local here: no subshell)
}
# May part a use part b? Its own part; a core layer, the layers below it;
# another part, what its line names ("core" names every core layer).
may_use() {
	local a=$1 b=$2 u
	[ "$a" = "$b" ] && return 0
	if [ "${kind[$a]}" = core ]; then
		[ "${kind[$b]:-}" = core ] && [ "${rank[$b]}" -gt "${rank[$a]}" ]
		return
	fi
	for u in ${uses[$a]}; do
		[ "$u" = anything ] && return 0
		[ "$u" = "$b" ] && return 0
		[ "$u" = core ] && [ "${kind[$b]:-}" = core ] && return 0
	done
	return 1
}

# ---------------------------------------------------------------- the files
mapfile -t files < <(find . \( -path ./build -o -path ./.git -o -path './keys' \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' -o -name '*.asm' -o -name '*.inc' \) -print |
	sed 's|^\./||' | sort)
uncovered=$(for f in "${files[@]}"; do
	part_of "$f"
	[ -n "$part" ] || { [[ $f == */* ]] && echo "${f%/*}" || echo .; }
done | sort -u)
if [ -z "$uncovered" ]; then
	ok "every folder with C or assembly is a part of docs/layout.md's table (${#files[@]} files)"
else
	bad "every folder with C or assembly is a part of docs/layout.md's table" \
		"no part for: $(paste -sd' ' <<<"$uncovered")"
fi

# Each include, resolved: next to the file first (plain C rules), then
# from the top (-I.). "file part target target-part" per line.
inc_re='^([^:]+):[[:space:]]*[#%]include[[:space:]]+"([^"]+)"'
edges=$(grep -HE '^[[:space:]]*[#%]include[[:space:]]+"' -- "${files[@]}" | while IFS= read -r line; do
	[[ $line =~ $inc_re ]] || continue
	f=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
	part_of "$f"
	fp=$part
	[ -n "$fp" ] || continue
	if [[ $f == */* ]]; then dir=${f%/*}; else dir=.; fi
	if [ -f "$dir/$t" ]; then
		normalise "$dir/$t"
		r=$norm
	elif [ -f "$t" ]; then
		r=$t
	else
		continue # generated (build/...) or a system header in quotes
	fi
	part_of "$r"
	echo "$f $fp $r $part"
done)

declare -A why
while read -r f fp t tp; do
	[ -n "$f" ] || continue
	[ -n "$tp" ] || { why[$fp]+="; $f includes \"$t\" (in no part)"; continue; }
	may_use "$fp" "$tp" && continue
	if [ "${kind[$fp]}" = core ] && [ "${kind[$tp]}" = wing ]; then
		why[$fp]+="; $f includes \"$t\" (the core includes no wing)"
	elif [ "${kind[$fp]}" = core ]; then
		why[$fp]+="; $f includes \"$t\" ($tp/ is above $fp/)"
	else
		why[$fp]+="; $f includes \"$t\" ($fp/ may use: ${uses[$fp]:-nothing})"
	fi
done <<<"$edges"
for p in $(printf '%s\n' "${!kind[@]}" | sort); do
	[ "${kind[$p]}" = tests ] && continue
	if [ -z "${why[$p]:-}" ]; then
		ok "includes from $p/ follow its rule"
	else
		bad "includes from $p/ follow its rule" "${why[$p]#; }"
	fi
done

# ---------------------------------------------------------------- symbols
# Per program: symbol -> the object defining it; an object's part from its
# path under the program's build folder (generated objects, such as the
# font, belong to none). Every core and wing part says whether its objects
# follow the rule, and so does a host part with objects given.
sym_edges=""
declare -A swhy shown
for p in "${!kind[@]}"; do
	[ "${kind[$p]}" = core ] || [ "${kind[$p]}" = wing ] && shown[$p]=1
done
check_program() {
	local build=$1 obj rel op sym d dp
	shift
	local -A def
	# One nm for all the objects (each line "OBJECT:..." with -A).
	while read -r obj _ sym; do def[$sym]=${obj%%:*}; def[$sym]=${def[$sym]#"$build"/}; done \
		< <(nm -A --defined-only -g "$@")
	for obj in "$@"; do
		part_of "${obj#"$build"/}"
		[ -z "$part" ] || shown[$part]=1
	done
	while read -r obj _ sym; do
		rel=${obj%%:*} rel=${rel#"$build"/}
		part_of "$rel"
		op=$part
		[ -n "$op" ] || continue
		d=${def[$sym]:-}
		[ -n "$d" ] || continue # the linker script's symbols, libc's
		part_of "$d"
		dp=$part
		[ -n "$dp" ] || continue
		sym_edges+="${rel%.o} ${d%.o}"$'\n'
		may_use "$op" "$dp" || swhy[$op]+="; $rel uses $sym (defined in $d)"
	done < <(nm -A -u "$@")
}
if [ ${#programs[@]} = 0 ]; then
	skipped "symbols of the linked objects" "no objects given"
else
	for g in "${programs[@]}"; do
		read -r -a words <<<"$g"
		check_program "${words[@]}"
	done
	for p in $(printf '%s\n' "${!shown[@]}" | sort); do
		if [ -z "${swhy[$p]:-}" ]; then
			ok "symbols used by $p/ objects follow its rule"
		else
			bad "symbols used by $p/ objects follow its rule" "${swhy[$p]#; }"
		fi
	done
fi

# ---------------------------------------------------------------- circles
# Modules (path without .c/.h/.asm/.inc): an include or a call from one to
# another is an arrow. A circle is a strongly connected set of modules
# (Tarjan's algorithm, recursive awk); each is named once, with its arrows.
loops=$( { awk '{ a = $1; b = $3; sub(/\.(c|h|asm|inc)$/, "", a); sub(/\.(c|h|asm|inc)$/, "", b);
		if (a != b) print a, b }' <<<"$edges"
	awk 'NF == 2 && $1 != $2' <<<"$sym_edges"; } | sort -u |
	awk '
	function visit(v,   i, w) {
		index_of[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in index_of)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (on[w] && index_of[w] < low[v]) low[v] = index_of[w]
		}
		if (low[v] == index_of[v]) {
			n = 0; delete member
			do { w = stack[sp--]; on[w] = 0; member[w] = 1; n++ } while (w != v)
			if (n > 1) {
				line = ""
				for (e = 1; e <= ne; e++)
					if ((ea[e] in member) && (eb[e] in member))
						line = line (line == "" ? "" : ", ") ea[e] " -> " eb[e]
				print "{" line "}"
			}
		}
	}
	{ out[$1, ++nout[$1]] = $2; node[$1]; node[$2]; ea[++ne] = $1; eb[ne] = $2 }
	END { for (v in node) if (!(v in index_of)) visit(v) }')
if [ -z "$loops" ]; then
	ok "no circle among the modules (includes$([ ${#programs[@]} = 0 ] || echo ' and calls'))"
else
	bad "no circle among the modules" "$(paste -sd' ' <<<"$loops")"
fi

# ---------------------------------------------------------------- core link
# The objects of the core's own link (its map's LOAD lines), each by its
# path under the map's folder; then the same objects linked again with
# --gc-sections: an object none of whose sections with contents is kept
# is linked for nothing.
check_core_link() {
	local map=$1 dir objs=() o rel outside=() unused=() gc_out
	dir=$(dirname "$map")
	mapfile -t objs < <(awk '$1 == "LOAD" && $2 ~ /\.o$/ { print $2 }' "$map")
	if [ ${#objs[@]} = 0 ]; then
		bad "the core's link map" "no objects (LOAD lines) in $map"
		return
	fi
	for o in "${objs[@]}"; do
		rel=${o#"$dir"/}
		part_of "$rel"
		[ -n "$part" ] && [ "${kind[$part]}" = core ] || outside+=("$rel${part:+ ($part)}")
	done
	if [ ${#outside[@]} = 0 ]; then
		ok "the core alone links only core objects (${#objs[@]}, from $map)"
	else
		bad "the core alone links only core objects" "in no core folder: ${outside[*]}"
	fi
	# shellcheck disable=SC2086 # LD_FLAGS: the Makefile's words
	if ! gc_out=$(ld ${LD_FLAGS:?LD_FLAGS: how the kernel is linked} --gc-sections \
		--print-gc-sections -o "$dir/core-gc.elf" "${objs[@]}" 2>&1); then
		bad "the core links by itself, every object used" "ld: $(grep -v 'removing unused' <<<"$gc_out" | grep -m 2 -o "undefined reference to .*\|[^:]*error.*" | paste -sd' ')"
		return
	fi
	rm -f "$dir/core-gc.elf"
	local -A removed kept
	local sec
	while read -r o sec; do removed["$o $sec"]=1; done \
		< <(sed -n "s/^ld: removing unused section '\([^']*\)' in file '\([^']*\)'$/\2 \1/p" <<<"$gc_out")
	# Each object's allocated sections with contents (readelf: size,
	# flags A), one readelf for all (it names each file when given more
	# than one): an object is used when one of them is kept.
	while read -r o sec; do
		[ -n "${removed["$o $sec"]:-}" ] || kept[$o]=1
	done < <(readelf -SW "${objs[@]}" | awk -v f="${objs[0]}" '/^File: / { f = $2; next }
		/^ *\[ *[0-9]+\]/ { sub(/^ *\[ *[0-9]+\] */, "")
			if ($5 !~ /^0+$/ && $7 ~ /A/) print f, $1 }')
	for o in "${objs[@]}"; do
		[ -n "${kept[$o]:-}" ] || unused+=("${o#"$dir"/}")
	done
	if [ ${#unused[@]} = 0 ]; then
		ok "the core links by itself, every object used (none left whole by --gc-sections)"
	else
		bad "the core links by itself, every object used" "nothing of these is reached: ${unused[*]}"
	fi
}
[ -z "$core_map" ] || check_core_link "$core_map"

echo "layers: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
