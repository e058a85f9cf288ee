#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every extended regex given must match some line of the log.
#   expect.sh REGEX... LOG
set -uo pipefail
log=${!#}
bad=0
for ((i = 1; i < $#; i++)); do
	re=${!i}
	# No grep -q: it would stop reading at the first match, and tr, still
	# writing a log longer than one pipe write, would die of SIGPIPE,
	# which pipefail turns into "no match".
	if ! tr -d '\r' <"$log" | grep -E -- "$re" >/dev/null; then
		echo "expect: no line matches /$re/"
		bad=1
	fi
done
exit $bad
