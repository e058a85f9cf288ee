#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The documentation cannot drift: the README front page stays short and
# leads to both quick starts within a screen, links every docs/*.md, every
# relative link in README.md and docs/*.md resolves (file and #anchor),
# every docs/*.md has its contents list, every example of program output
# is what its command prints now from a committed fixture (blocks.sh; the
# package lines from tools/build/packages.list among them; a changed format
# is shown to fail), the lists that say they are complete are (kernel
# options in docs/running.md, aplog's commands and options in
# tools/aplog/README.md, make test's lanes in docs/tests.md), and the
# front page's commands run here (those that can; the others are named as
# skipped, with the reason).
#   tests/docs/run.sh            (make docs-tests)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=tests/protocol.sh
. tests/protocol.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the front page: short, both quick starts within the first screen
n=$(wc -l <README.md)
if [ "$n" -le 200 ]; then ok "README.md is a front page: $n lines (at most 200)"
else fail "README.md is a front page (at most 200 lines)" "$n lines"; fi
first=$(head -n 24 README.md)
for s in "Measure it on your machine" "Try it under QEMU" "Two commands"; do
	if grep -q "\[$s\](#" <<<"$first"; then ok "the first screen (24 lines) links '$s'"
	else fail "the first screen (24 lines) links '$s'" "no such link in the first 24 lines"; fi
done

# ---- the AP path, file by file: a reading of an evening (the files the
# README names between its ap-path marks, at most 3,000 lines), with the
# CPU record (smp/smp.h) among them
mapfile -t path_files < <(awk '/^<!-- ap-path/ { on = 1; next } /^<!-- end/ { on = 0 } on' README.md |
	grep -o '`[a-z_/]*\.\(c\|h\|asm\|inc\)`' | tr -d '`' | sort -u)
path_lines=0 path_missing=()
for f in "${path_files[@]}"; do
	if [ -f "$f" ]; then path_lines=$((path_lines + $(wc -l <"$f"))); else path_missing+=("$f"); fi
done
if [ ${#path_files[@]} = 0 ] || [ ${#path_missing[@]} -gt 0 ]; then
	fail "README.md's AP path names files that exist" "${path_missing[*]:-no files between the ap-path marks}"
elif ! printf '%s\n' "${path_files[@]}" | grep -qx smp/smp.h; then
	fail "README.md's AP path reads smp/smp.h (struct cpu)" "not among: ${path_files[*]}"
elif [ $path_lines -gt 3000 ]; then
	fail "README.md's AP path reads in an evening (at most 3000 lines)" "$path_lines lines in ${#path_files[@]} files"
else
	ok "README.md's AP path reads in an evening: ${#path_files[@]} files, $path_lines lines, smp/smp.h among them"
fi

# ---- every docs/*.md is linked from the front page and has contents
for f in docs/*.md; do
	if grep -q "](${f})" README.md; then ok "README.md links $f"
	else fail "README.md links $f" "add it to the front page's 'More' list"; fi
	# a contents list: links to its own headings, before the first section
	n=$(awk '/^## / { exit } /^ *- \[.*\]\(#/ { n++ } END { print n + 0 }' "$f")
	if [ "$n" -ge 1 ]; then ok "$f has a contents list ($n entries)"
	else fail "$f has a contents list" "no list of links to its sections before its first '## ' heading"; fi
done

# ---- every relative link resolves, anchors included (GitHub's slugs)
slugs() { # FILE: the anchors of its headings
	grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ //' | tr 'A-Z' 'a-z' |
		sed -E 's/[^a-z0-9_ -]//g; s/ /-/g'
}
broken=0
declare -A anchors have_slugs
for f in README.md docs/*.md tools/aplog/README.md; do
	dir=$(dirname "$f")
	while IFS= read -r link; do
		target=${link%%#*} anchor=
		[[ $link == *'#'* ]] && anchor=${link#*#}
		if [ -n "$target" ]; then
			path=$dir/$target
			if [ ! -e "$path" ]; then
				broken=1; fail "$f: link $link" "no file $path"; continue
			fi
		else
			path=$f
		fi
		if [ -n "$anchor" ] && [[ $path == *.md ]] && [ -z "${have_slugs[$path]:-}" ]; then
			have_slugs[$path]=1 # each file's anchors read once, not once a link
			while IFS= read -r a; do anchors["$path#$a"]=1; done < <(slugs "$path")
		fi
		if [ -n "$anchor" ] && [[ $path == *.md ]] && [ -z "${anchors["$path#$anchor"]:-}" ]; then
			broken=1; fail "$f: link $link" "no heading with the anchor #$anchor in $path"
		fi
	done < <(grep -oE '\]\([^)[:space:]]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//' | grep -vE '^[a-z]+:')
done
[ $broken = 0 ] && ok "every relative link in README.md, docs/*.md, tools/aplog/README.md resolves (files and anchors)"

# ---- complete where they say they are: every kernel option in
# docs/running.md, every aplog command and option in tools/aplog/README.md,
# every lane of make test in docs/tests.md; each check names what is missing.
mapfile -t kopts < <(awk -f tools/build/kernel-options.awk smp/modes.c app/options.c wings/*/*.c)
missing=() nopt=0
for l in "${kopts[@]}"; do
	read -r kind a b <<<"$l"
	case $kind in
	bad) missing+=("(a row of an option table this check cannot read:$a $b)") ;;
	opt)
		nopt=$((nopt + 1))
		# the option's row: | `NAME=WORD\|WORD` | ...
		cell=$(grep -m1 -o "^| \`$a=[^\`]*\`" docs/running.md | sed "s/^| \`$a=//; s/\`\$//; s/\\\\|/|/g")
		if ! grep -q "^| \`$a=" docs/running.md; then missing+=("$a="); continue; fi
		[ "$b" = - ] && continue
		IFS='|' read -ra words <<<"$b"
		for w in "${words[@]}"; do
			[[ "|$cell|" == *"|$w|"* ]] || missing+=("$a=$w")
		done ;;
	alias) grep -q "\`$b=" docs/running.md || missing+=("$b= (Linux's $a=)") ;;
	word) grep -q "\`$a\`" docs/running.md || missing+=("$a (Linux's word)") ;;
	esac
done
if [ "$nopt" -lt 20 ]; then
	fail "docs/running.md lists every kernel option" "only $nopt options read from the option tables (tools/build/kernel-options.awk out of step with them?)"
elif [ ${#missing[@]} = 0 ]; then
	ok "docs/running.md lists every kernel option ($nopt, from the core's and the wings' option tables) and each of its words"
else
	fail "docs/running.md lists every kernel option" "missing from its table: ${missing[*]}"
fi

# aplog: its commands from aplog --help, each command's options from
# aplog COMMAND --help; README-aplog's "## Commands" synopsis of the
# command must name each.
cmds=$(build/host/aplog --help | awk '/^usage:/ { next } /^  [a-z]/ { print $1; next } /^   / { next } { exit }' | uniq)
syn=$(awk '/^## Commands/ { on = 1; next } on && /^## / { exit } on' tools/aplog/README.md)
missing=() nc=0 no=0
for c in $cmds; do
	nc=$((nc + 1))
	text=$(awk -v c="$c" '$1 == "aplog" { on = ($2 == c) } $1 != "aplog" && !/^ {8,}/ { on = 0 } on' <<<"$syn")
	if [ -z "$text" ]; then missing+=("aplog $c"); continue; fi
	for o in $(build/host/aplog "$c" --help | sed -n '/^options:/,$p' | grep -oE '^  --[a-z-]+'); do
		[ "$o" = --help ] && continue
		no=$((no + 1))
		grep -qE -- "$o([^a-z-]|\$)" <<<"$text" || missing+=("aplog $c $o")
	done
done
if [ "$nc" -lt 10 ]; then
	fail "tools/aplog/README.md lists every aplog command and option" "aplog --help listed only $nc commands"
elif [ ${#missing[@]} = 0 ]; then
	ok "tools/aplog/README.md lists every aplog command ($nc) and each of its options ($no, from aplog COMMAND --help)"
else
	fail "tools/aplog/README.md lists every aplog command and option" "missing from its Commands section: ${missing[*]}"
fi

# make test's lanes (tests/lanes) and docs/tests.md's table: a row for
# each lane, and no row for a target that is not one (unless it says it is
# "not a test").
lanes=$(grep -v '^[[:punct:]]' tests/lanes | awk 'NF { print $1 "-tests" }')
rows=$(sed -n 's/^| `make \([a-z0-9-]*\)` | \(.*\)/\1 \2/p' docs/tests.md)
missing=() extra=()
for t in $lanes; do grep -q "^$t " <<<"$rows" || missing+=("$t"); done
while read -r t what; do
	grep -qx -- "$t" <<<"$lanes" || [[ $what == "not a test"* ]] || extra+=("$t")
done <<<"$rows"
if [ "$(wc -w <<<"$lanes")" -lt 10 ]; then
	fail "docs/tests.md's table has every lane of make test" "only $(wc -w <<<"$lanes") lanes read from tests/lanes"
elif [ ${#missing[@]} = 0 ] && [ ${#extra[@]} = 0 ]; then
	ok "docs/tests.md's table has every lane of make test ($(wc -w <<<"$lanes"), from tests/lanes) and no other"
else
	fail "docs/tests.md's table has every lane of make test, and no other" \
		"${missing[*]:+missing: ${missing[*]}}${missing[*]:+${extra[*]:+; }}${extra[*]:+not lanes of tests/lanes: ${extra[*]}}"
fi

# ---- the examples of output: each block is what its command prints now
# (tests/docs/blocks.sh; the package lines are such blocks too).
blocks() { # blocks.sh's lines, counted as this lane's checks
	local l
	while IFS= read -r l; do
		case $l in
		"ok   "*) t_passed=$((t_passed + 1)) ;;
		"FAIL "*) t_failed=$((t_failed + 1)) ;;
		esac
		printf '%s\n' "$l"
	done
}
blocks < <(tests/docs/blocks.sh)
n=$(cat README.md docs/*.md tools/aplog/README.md | grep -c '^ *<!-- output:')
if [ "$n" -ge 30 ]; then ok "the docs show $n examples of output made by their commands"
else fail "the docs show their examples of output made by their commands" "only $n <!-- output: ... --> blocks"; fi

# docs/session.md's table.txt was written by apstart.efi (a fixture from
# the session lane): its rows must be the ones aplog compare prints for
# that folder now, as the session lane checks for a fresh session (one
# tools/aplog/stats/verdict.c for both).
sd=tests/docs/fixtures/session/session-0001
want=$(grep -E '^(Offline|Online|Total): ' "$sd/table.txt")
got=$(build/host/aplog compare "$sd" 2>/dev/null | grep -E '^(Offline|Online|Total): ')
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok "docs/session.md's table.txt ($sd) has the rows aplog compare prints for its folder"
else
	fail "docs/session.md's table.txt has the rows aplog compare prints for its folder" \
		"they differ: refresh the fixture (tests/docs/fixtures/make.sh session), then make docs" \
		"$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -n 8)"
fi

# A changed output format fails those checks, and `make docs` (blocks.sh
# --update) rewrites the blocks: shown on a copy of the docs, with an
# aplog whose every " -> " reads " => ".
fake=$tmp/fake
mkdir -p "$fake/build/host" "$fake/tools"
for e in "$root"/*; do
	case ${e##*/} in build|docs|tools|README.md) ;; *) ln -s "$e" "$fake/" ;; esac
done
# Every tool linked, but aplog's manual copied: the update must write the
# copy, never the tree's own file.
mkdir -p "$fake/tools/aplog"
for e in "$root"/tools/*; do [ "${e##*/}" = aplog ] || ln -s "$e" "$fake/tools/"; done
for e in "$root"/tools/aplog/*; do [ "${e##*/}" = README.md ] || ln -s "$e" "$fake/tools/aplog/"; done
for e in "$root"/build/host/*; do [ "${e##*/}" = aplog ] || ln -s "$e" "$fake/build/host/"; done
cp -r "$root/docs" "$fake/docs"
cp "$root/README.md" "$fake/"
cp "$root/tools/aplog/README.md" "$fake/tools/aplog/"
printf '#!/usr/bin/env bash\nset -o pipefail\n"%s" "$@" | sed "s/ -> / => /g"\n' "$root/build/host/aplog" >"$fake/build/host/aplog"
chmod +x "$fake/build/host/aplog"
# Three files hold enough of aplog's blocks for the proof (the front page,
# docs/verdicts.md, aplog's manual, the copy the update must write): the
# same code reads and writes every file's blocks, and every block of
# every file was checked above; the whole set three times more cost
# ~20 CPU-s.
fake_files=("$fake/README.md" "$fake/docs/verdicts.md" "$fake/tools/aplog/README.md")
tests/docs/blocks.sh --root "$fake" "${fake_files[@]}" >"$tmp/changed" 2>&1
st=$?
nfail=$(grep -c '^FAIL ' "$tmp/changed")
want=$(grep -c '^ *<!-- output: .*aplog' "$fake/docs/verdicts.md")
if [ $st = 1 ] && [ "$nfail" -ge 3 ] && grep -q '^FAIL docs/verdicts.md:[0-9]*: the block is not what its command prints now: aplog compare' "$tmp/changed" &&
	grep -q '^     | +.* => ' "$tmp/changed"; then
	ok "a changed output format (aplog printing ' => ' for ' -> ') fails $nfail blocks, each named, e.g. $(grep -m1 '^FAIL docs/verdicts.md' "$tmp/changed" | cut -d: -f1-2 | cut -c6-)"
else
	fail "a changed output format fails the blocks" "exit $st, $nfail blocks failed (docs/verdicts.md has $want made by aplog)" "$(head -n 8 "$tmp/changed")"
fi
if tests/docs/blocks.sh --update --root "$fake" "${fake_files[@]}" >"$tmp/updated" 2>&1 &&
	tests/docs/blocks.sh --root "$fake" "${fake_files[@]}" >"$tmp/after" 2>&1 &&
	grep -q '^    Online:   65.77 s => 11.19 s' "$fake/docs/verdicts.md"; then
	ok "make docs (blocks.sh --update) rewrites them: $(grep -c '^updated ' "$tmp/updated") blocks, then the check passes"
else
	fail "make docs (blocks.sh --update) rewrites the blocks" "the check still fails after it" "$(grep -v '^ok ' "$tmp/after" | head -n 6)"
fi
sed -i 's/^    Online:   65.77 s => 11.19 s/    Online:   65.78 s => 11.19 s/' "$fake/docs/verdicts.md"
if ! tests/docs/blocks.sh --root "$fake" "$fake/docs/verdicts.md" >"$tmp/edited" 2>&1 &&
	grep -q '^     | -    Online:   65.78 s' "$tmp/edited"; then
	ok "a block edited by hand (65.77 -> 65.78 s) fails, with the line that differs"
else
	fail "a block edited by hand fails" "it passed" "$(head -n 6 "$tmp/edited")"
fi

# ---- the front page's commands: run what can run here
# Code lines of the README (indented by 4 or more); bare-metal commands
# need a USB disk or a serial line, the QEMU ones run as printed, in order
# (the QEMU section's logs then stand in for serial captures).
mapfile -t cmds < <(grep -E '^ {4,}(make|build/host/aplog|picocom|sudo) ' README.md | sed -E 's/^ +//; s/ +# .*$//')
if [ ${#cmds[@]} -ge 8 ]; then ok "the front page shows its commands (${#cmds[@]} code lines)"
else fail "the front page shows its commands" "only ${#cmds[@]} code lines found"; fi
# Run them in a folder of their own, build/ being the repository's.
work=$tmp/work
mkdir -p "$work"
for e in "$root"/*; do ln -s "$e" "$work/"; done
deferred=()
run_cmd() { # CMD: runs it in $work, 300 s at most
	local c=$1 st
	(cd "$work" && timeout 300 bash -c "$c") >"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = 0 ]; then ok "front page command runs: $c"
	else fail "front page command runs: $c" "exit status $st" "$(tail -n 6 "$tmp/out")"; fi
}
for c in "${cmds[@]}"; do
	case $c in
	"sudo apt-get"*) ok "front page command checked, not run (installs packages): ${c:0:60}..." ;;
	"make test") skip "front page command: make test" "it is what runs this lane" ;;
	"make usb "*)
		# needs a USB disk: only its recipe, which would refuse a wrong device
		if (cd "$work" && make -n ${c#make } >"$tmp/out" 2>&1) && grep -q 'tools/image/usb-write.sh' "$tmp/out"; then
			ok "front page command parses (make -n): $c"
		else
			fail "front page command parses (make -n): $c" "make -n failed" "$(tail -n 4 "$tmp/out")"
		fi
		skip "front page command: $c" "writing a stick needs a USB disk" ;;
	picocom*) skip "front page command: $c" "needs a serial line to another machine" ;;
	*wbinvd1-\**) deferred+=("$c") ;; # the serial captures: after QEMU's logs exist
	*) run_cmd "$c" ;;
	esac
done
# The QEMU runs' logs as the serial captures of the bare-metal section.
if [ -e "$work/build/wbinvd1.log" ] && [ -e "$work/build/wbinvd0.log" ]; then
	cp "$work/build/wbinvd1.log" "$work/wbinvd1-1.log"
	cp "$work/build/wbinvd0.log" "$work/wbinvd0-1.log"
fi
for c in "${deferred[@]}"; do run_cmd "$c"; done

summary docs
