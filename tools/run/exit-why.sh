# SPDX-License-Identifier: MIT
# Sourced by the tools whose exit status make brings to the shell
# (tools/run/exit-status.mk: make run's tools/run/run-view.sh, tools/run/ab.sh,
# make bench-linux's tools/linux/vm/bench.sh, make lava's
# tools/lab/lava/run-job.sh).
#
# exit_why TEXT: the reason for a failure, as the last line printed. Under
# make (EXIT_WHY names a file) make prints it, as the text of the error it
# stops with, after everything else; run alone, it is printed here, on
# stderr.
exit_why() {
	if [ -n "${EXIT_WHY:-}" ]; then
		printf '%s\n' "$*" >"$EXIT_WHY"
	else
		printf '%s\n' "$*" >&2
	fi
}
