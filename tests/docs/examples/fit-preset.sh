#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The preset aplog fit writes (docs/flush-probe.md), from the probe run
# of tests/docs/fixtures/flush-probe.log (a known model), as known.log.
set -euo pipefail
fx=$(cd "$(dirname "$0")/../fixtures" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp "$fx/flush-probe.log" "$t/known.log"
cd "$t"
aplog fit --out fitted.preset known.log >/dev/null
cat fitted.preset
