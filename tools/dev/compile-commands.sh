#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compilation database for clangd (make compile_commands.json), from the
# compiler lines of a dry run (make -n -B V=1 ...) on standard input: one
# entry per C file, with the flags of the first line that compiles it (the
# kernel's freestanding flags before the host tests' for the same file).
# No bear, no compiler wrapper: what make would run is what clangd gets.
#   make -n -B V=1 TARGETS... | compile-commands.sh > compile_commands.json
set -euo pipefail

dir=$(pwd)
json() { # string -> JSON string body
	local s=${1//\\/\\\\}
	printf '%s' "${s//\"/\\\"}"
}

declare -A seen
first=1
echo "["
while read -r -a words; do
	[ ${#words[@]} -gt 0 ] || continue
	case "${words[0]##*/}" in gcc | cc | clang | *-gcc | gcc-[0-9]* | clang-[0-9]*) ;; *) continue ;; esac
	flags=() sources=()
	for ((i = 1; i < ${#words[@]}; i++)); do
		w=${words[$i]}
		case "$w" in
		-o) i=$((i + 1)) ;;          # the output: per-file entries say -c
		-l* | -L*) ;;                # link flags
		-c) ;;
		*.c) sources+=("$w") ;;
		*) flags+=("$w") ;;
		esac
	done
	for src in "${sources[@]}"; do
		[ -z "${seen[$src]:-}" ] || continue
		seen[$src]=1
		[ $first = 1 ] || echo ","
		first=0
		printf '  { "directory": "%s", "file": "%s",\n    "command": "%s" }' \
			"$(json "$dir")" "$(json "$src")" \
			"$(json "${words[0]} ${flags[*]} -c $src")"
	done
done < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta')  # recipes continued with \
[ $first = 1 ] || echo
echo "]"
