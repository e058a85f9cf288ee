#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a command on the logs of a make bench-linux session (or of a make ab
# one: linux-flush, docs/linux-trampoline.md) kept in
# tests/docs/fixtures/SET/ (docs/linux-trace.md): in a temporary folder
# that holds them, *.log.gz decompressed (Linux's traced runs are ~1 MiB
# of records each), so that the command names them as bench-linux does.
#   bench-linux.sh SET -- COMMAND [ARGS...]
set -euo pipefail
fx=$(cd "$(dirname "$0")/../fixtures" && pwd)/$1
[ "${2:-}" = -- ] || { echo "usage: bench-linux.sh SET -- COMMAND [ARGS...]" >&2; exit 2; }
shift 2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
for f in "$fx"/*; do
	case $f in
	*.gz) gzip -dc "$f" >"$t/$(basename "${f%.gz}")" ;;
	*) cp "$f" "$t/" ;;
	esac
done
cd "$t"
"$@"
