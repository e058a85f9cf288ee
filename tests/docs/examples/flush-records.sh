#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The flush probe's and the victims' records as the kernel prints them
# (docs/flush-probe.md): the first of each kind from the fixtures that
# tests/docs/fixtures/make.sh made as the flushprobe lane runs them.
set -euo pipefail
fx=$(cd "$(dirname "$0")/../fixtures" && pwd)
first() { # FILE REGEX: the first such line, without its CR
	grep -a -m1 -E "$2" "$fx/$1" | tr -d '\r'
}
first flush-probe.log '^@probe '
first flush-probe.log '^@flush .* at_once=1 '
first flush-probe.log '^@flush .* at_once=2 '
first flush-probe.log '^@probe_end '
first flush-victims.log '^@victim_quiet '
first flush-victims.log '^@victim what=flush '
first victims-cycles.log '^@victim what=online '
first victims-cycles.log '^@victim_end '
first victims-cycles.log '^@sample '
first flush-probe.log '^@end '
