#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every extended regex given must match some line of the log.
#   expect.sh REGEX... LOG
set -uo pipefail
log=${!#}
bad=0
for ((i = 1; i < $#; i++)); do
	re=${!i}
	# Not grep -q: it would stop at the first match, tr would die of
	# SIGPIPE on a long log, and pipefail would call that "no match".
	if ! tr -d '\r' <"$log" | grep -E -- "$re" >/dev/null; then
		echo "expect: no line matches /$re/"
		bad=1
	fi
done
exit $bad
