#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Assert what a finished run's serial log must contain.
#   check-log.sh WBINVD CPUS_ONLINE CYCLES LOG
# CPUS_ONLINE counts the BSP; every AP must have CYCLES nonzero samples per
# direction, and the run must end with "@end status=pass".
set -euo pipefail
wbinvd=$1 cpus=$2 cycles=$3 log=$4

tr -d '\r' <"$log" | awk -v wbinvd="$wbinvd" -v cpus="$cpus" -v cycles="$cycles" '
function val(key,   i, kv) {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
	return ""
}
/^@boot / { boots++; if (val("wbinvd") != wbinvd) err("@boot wbinvd=" val("wbinvd") ", want " wbinvd)
            if (val("cpus") != cpus) err("@boot cpus=" val("cpus") ", want " cpus) }
/^@sample / { op = val("op"); apic = val("apic"); ns = val("ns")
              if (op != "online" && op != "offline") err("bad op: " $0)
              if (ns !~ /^[0-9]+$/ || ns + 0 <= 0) err("zero or bad time: " $0)
              n[apic, op]++; seen[apic] = 1; samples++ }
/^@end / { ends++; status = val("status"); online = val("online"); failed = val("failed") }
/^EXCEPTION/ { err("exception: " $0) }
function err(m) { print "check-log: " m; bad = 1 }
END {
	if (boots != 1) err("expected one @boot, got " boots + 0)
	if (ends != 1) err("expected one @end, got " ends + 0)
	if (status != "pass") err("@end status=" status)
	if (online != cpus) err("@end online=" online ", want " cpus)
	if (failed != 0) err("@end failed=" failed)
	aps = 0
	for (a in seen) {
		aps++
		if (n[a, "online"] != cycles || n[a, "offline"] != cycles)
			err("apic " a ": " n[a, "online"] + 0 " online / " n[a, "offline"] + 0 " offline samples, want " cycles)
	}
	if (aps != cpus - 1) err(aps " APs with samples, want " cpus - 1)
	exit bad
}'
