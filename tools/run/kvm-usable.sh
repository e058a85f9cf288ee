#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exit 0 when KVM has hardware virtualisation behind it (kvm_intel or
# kvm_amd loaded, /dev/kvm readable and writable). A paravirtual KVM such
# as kvm_pvm emulates ring-0 code ~200x slower than TCG and cannot run
# OVMF, so it does not count. Run it, or source it for kvm_usable().
kvm_usable() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	[ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]
}
# kvm_starts: can QEMU create a KVM guest at all here, even on a slow
# paravirtual KVM? For short tests that need KVM itself (x2APIC, TSC
# writes), not for timing.
kvm_starts() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	echo quit | timeout 20 qemu-system-x86_64 -accel kvm -machine q35 \
		-cpu host,-arch-capabilities -display none -nodefaults -S \
		-monitor stdio >/dev/null 2>&1
}
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	kvm_usable
fi
