#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The size of each part of the house (docs/layout.md's table of parts):
# its files and lines of code (C, assembly, shell, Python, make, the
# linker script), tests apart; then the core (its folders: what make
# WINGS= links, tests/layers/check.sh --core-map proves it), the kernel's
# wings and the host's tools. `make lines` prints the table that
# docs/layout.md shows; tests/docs checks that they agree.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
declare -A kind
while read -r folder k _; do
	case "$folder" in ''|'#'*|part) continue ;; esac
	kind[${folder%/}]=$k
done < <(awk '/^<!-- parts:/ { on = 1; next } /^<!-- end/ { on = 0 } on' docs/layout.md)
part_of() {
	local p=$1 best=""
	for f in "${!kind[@]}"; do
		case "$p" in "$f"/*) [ ${#f} -gt ${#best} ] && best=$f ;; esac
	done
	echo "$best"
}
declare -A files lines
while read -r f; do
	p=$(part_of "$f")
	[ -n "$p" ] || continue
	[ "${kind[$p]}" = tests ] && continue
	files[$p]=$((${files[$p]:-0} + 1))
	lines[$p]=$((${lines[$p]:-0} + $(wc -l <"$f")))
done < <(git ls-files -- '*.c' '*.h' '*.asm' '*.inc' '*.sh' '*.py' '*.mk' '*.ld' 'Makefile' | sort)
printf '    %-22s %-5s %6s %7s\n' part kind files lines
total_core=0 total_wing=0 total_host=0
for p in $(printf '%s\n' "${!kind[@]}" | sort); do
	[ "${kind[$p]}" = tests ] && continue
	printf '    %-22s %-5s %6s %7s\n' "$p" "${kind[$p]}" "${files[$p]:-0}" "${lines[$p]:-0}"
	case ${kind[$p]} in
	core) total_core=$((total_core + ${lines[$p]:-0})) ;;
	wing) total_wing=$((total_wing + ${lines[$p]:-0})) ;;
	host) total_host=$((total_host + ${lines[$p]:-0})) ;;
	esac
done
printf '    %-22s %-5s %6s %7s\n' "the core (make WINGS=)" "" "" "$total_core"
printf '    %-22s %-5s %6s %7s\n' "the kernel's wings" "" "" "$total_wing"
printf '    %-22s %-5s %6s %7s\n' "host tools" "" "" "$total_host"
