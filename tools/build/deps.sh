#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages the build and tests need (tools/build/packages.list).
#
#   deps.sh [--install] [NEED...]   install what is missing (as root, with
#                                   apt-get); not root: print the command
#   deps.sh --check [NEED...]       only say what is missing, and how to
#                                   install it; exit 1 if anything is
#   deps.sh --list [NEED...]        print the package names
#
# NEED: build, run, iso, uefi, sign, test, optional, ci (tools/build/packages.list
# says what each is for; test takes run, iso, uefi and sign with it). Default: build
# test optional. Optional packages are installed with the others but never
# make a check fail. make run asks only for what that run needs (build run,
# and iso, uefi with FIRMWARE=); make test for build test.
set -euo pipefail

list=$(dirname "${BASH_SOURCE[0]}")/packages.list
mode=install
case "${1:-}" in
--install) shift ;;
--check) mode=check; shift ;;
--list) mode=list; shift ;;
-h|--help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
-*) echo "deps: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
needs=("$@")
[ ${#needs[@]} -gt 0 ] || needs=(build test optional)
for n in "${needs[@]}"; do
	case "$n" in
	build|run|iso|uefi|sign|optional|ci) ;;
	test) needs+=(run iso uefi sign) ;; # make test boots all of them
	*) echo "deps: unknown need '$n'" >&2; exit 2 ;;
	esac
done

present() { # WHAT...: every command is on PATH, every /file exists
	local w
	for w in "$@"; do
		case "$w" in
		/*) [ -e "$w" ] || return 1 ;;
		*) command -v "$w" >/dev/null 2>&1 || return 1 ;;
		esac
	done
}

missing=() missing_optional=()
while read -r pkg need what; do
	case "$pkg" in '' | '#'*) continue ;; esac
	[[ " ${needs[*]} " == *" $need "* ]] || continue
	if [ $mode = list ]; then
		echo "$pkg"
		continue
	fi
	# shellcheck disable=SC2086
	present $what && continue
	if [ "$need" = optional ]; then missing_optional+=("$pkg"); else missing+=("$pkg"); fi
done <"$list"
[ $mode = list ] && exit 0

all=("${missing[@]}" "${missing_optional[@]}")
[ ${#all[@]} -eq 0 ] && exit 0
# Each command as it would be typed by a user who is not root.
cmd="sudo apt-get update && sudo apt-get install -y ${all[*]}"
if [ $mode = check ]; then
	if [ ${#missing[@]} -gt 0 ]; then
		echo "deps: missing packages: ${missing[*]}" >&2
		echo "deps: install them with: $cmd" >&2
		echo "deps: (or, as root: make deps)" >&2
		exit 1
	fi
	echo "deps: optional, not installed: ${missing_optional[*]} (make deps installs them, as root)" >&2
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing ${all[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${all[@]}" >/dev/null
elif [ ${#missing[@]} -gt 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: install them with: $cmd" >&2
	exit 1
else
	echo "deps: optional, not installed: ${missing_optional[*]} ($cmd)" >&2
fi
