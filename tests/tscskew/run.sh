#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A TSC-skewed AP (make tscskew-tests): its cross-CPU figures (ap_ns,
# to_real_ns, settled_ns) must print as na, never as a wrapped number, and
# the warp test must say by how much it lags. selftest=tsc-skew makes the
# first AP set its TSC back with WRMSR IA32_TSC before it comes online.
#
# QEMU's TCG ignores that write (QEMU 7.2: helper_wrmsr() has no case for
# IA32_TSC or IA32_TSC_ADJUST, helper_rdtsc() adds only the SVM offset), so
# the run needs an emulator or accelerator that honours it; each of these
# is skipped, with the reason, where it cannot run:
#   bochs  Bochs (packages bochs bochsbios vgabios), Skylake-X model, 2 CPUs,
#          booting a lean CD through GRUB (tests/bochs/lean-iso.sh and
#          boot.sh, ~2 CPU-s); also shows Linux's park path on an Intel
#          CPU model: park=linux parks in MONITOR/MWAIT
#   kvm    QEMU with KVM, -smp 2 (any KVM QEMU can start, even a slow
#          paravirtual one: the timeout is generous)
# The log's records are checked by aplog verify (numbers exactly where @cpu
# says tsc_sync=1, na where it says 0), the console lines by expect.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=tests/protocol.sh
. tests/protocol.sh
APLOG=${APLOG:-build/host/aplog}
OUT=build/tscskew
ARGS="selftest=tsc-skew cycles=2 exit=halt"
BOCHS_TIMEOUT=${BOCHS_TIMEOUT:-300}
KVM_TIMEOUT=${KVM_TIMEOUT:-900}
mkdir -p "$OUT"

# The skewed AP (APIC ID 1, the first AP) must lag by a proven amount, its
# figures be na, and the write must have moved the TSC. A host whose
# emulator or KVM ignores a guest's WRMSR IA32_TSC (the kernel says so) has
# nothing to skew: the case is skipped with that reason, when the run
# itself is sound (it passed, with numbers where the TSCs agree).
check() { # name log
	local why
	# (grep -q would stop early and, under pipefail, fail the pipe by
	# tr's SIGPIPE: read the whole log)
	if tr -d '\r' <"$2" | grep -c '^selftest: APIC ID 1 wrote IA32_TSC but its TSC did not go back' >/dev/null &&
	   why=$("$APLOG" verify --cpus 2 --cycles 2 "$2" 2>&1); then
		skip "${1%% (*}" "this host ignores a guest's WRMSR IA32_TSC (the kernel: APIC ID 1 wrote IA32_TSC but its TSC did not go back), so no TSC can be skewed (log: $2)"
		return
	fi
	if why=$("$APLOG" verify --cpus 2 --cycles 2 "$2" 2>&1) &&
	   why=$(tests/qemu/expect.sh "^selftest: APIC ID 1 set its TSC back by [1-9][0-9]* ns" \
		"^@cpu cpu=1 apic=1 .* tsc_skew_ns=-[1-9][0-9]* tsc_sync=0" \
		"^@sample cpu=1 apic=1 cycle=1 op=online .* ap_ns=na to_real_ns=na " \
		"^@sample cpu=1 apic=1 cycle=1 op=offline .* settled_ns=na" "$2" 2>&1); then
		ok "$1: $(tr -d '\r' <"$2" | grep -m1 -o 'APIC ID 1 set its TSC back by [0-9]* ns'), its figures print as na"
	else
		fail "$1" "$(head -n 4 <<<"$why" | tr '\n' ' ')(log: $2)"
	fi
}

if ! make --no-print-directory WBINVD=0 SLOW_TRAMP_NS=0 SLOW_PARK_NS=0 build/wbinvd0/apstart.elf $APLOG >/dev/null; then
	fail "build" "make build/wbinvd0/apstart.elf $APLOG failed"
	summary tscskew
	exit 1
fi

# ------------------------------------------------------------------- Bochs
bochs_run() { # log -> boots a lean CD with $ARGS under Bochs until @end
	local log=$1 dir=$OUT/bochs
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	tests/bochs/lean-iso.sh "$OUT/skew.iso" build/wbinvd0/apstart.elf $ARGS || return 1
	tests/bochs/boot.sh "$dir" "$OUT/skew.iso" corei7_skylake_x 1:2:1 "$BOCHS_TIMEOUT"
	local st=$?
	cp "$dir/serial.txt" "$log"
	return $st
}

t0=$SECONDS
if ! command -v bochs >/dev/null || [ ! -f /usr/share/bochs/BIOS-bochs-latest ] ||
   [ ! -f /usr/share/bochs/VGABIOS-lgpl-latest ]; then
	skip "bochs" "Bochs not installed (apt-get install bochs bochsbios vgabios)"
	skip "bochs park=linux" "Bochs not installed"
elif ! bochs_run "$OUT/bochs.log"; then
	fail "bochs" "no @end within ${BOCHS_TIMEOUT}s (log: $OUT/bochs.log, $OUT/bochs/bochs.out)"
else
	check "bochs ($((SECONDS - t0))s)" "$OUT/bochs.log"
	if why=$("$APLOG" verify --cpus 2 --cycles 2 --boot park=linux --boot park_via=mwait \
		--boot park_flush=1 "$OUT/bochs.log" 2>&1); then
		ok "bochs park=linux: on the Skylake-X model it parks in MONITOR/MWAIT after WBINVD (mwait_play_dead) and comes back"
	else
		fail "bochs park=linux" "not mwait_play_dead on an Intel model: $(head -n 2 <<<"$why" | tr '\n' ' ')"
	fi
fi

# --------------------------------------------------------------------- KVM
. tools/run/kvm-usable.sh
t0=$SECONDS
if ! kvm_starts; then
	skip "kvm" "QEMU cannot start a KVM guest here (no usable /dev/kvm)"
elif ! kvm_usable && [ "${TSCSKEW_FULL:-0}" != 1 ]; then
	# A paravirtual KVM (~200x slower than TCG for ring-0 code, ~5 CPU-s
	# for this boot): make tscskew-long (TSCSKEW_FULL=1) boots it.
	skip "kvm" "a paravirtual KVM only: make tscskew-long boots it"
else
	# shellcheck disable=SC2086
	tools/run/qemu-run.sh --kernel build/wbinvd0/apstart.elf --smp 2 --accel kvm \
		--timeout "$KVM_TIMEOUT" -- ${ARGS% exit=halt} >"$OUT/kvm.log" 2>&1
	check "kvm ($((SECONDS - t0))s)" "$OUT/kvm.log"
fi

summary tscskew
