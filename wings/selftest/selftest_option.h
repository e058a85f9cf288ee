/* SPDX-License-Identifier: MIT */
/* selftest=, the selftest wing's one option: which failure path to make
 * happen on purpose (docs/running.md), on the first AP to be started (the
 * BSP for bsp-fault). The kinds are the wing's; the core has only the
 * points they act at (smp/instrument.h). Pure: host tests parse it. */
#ifndef APSTART_SELFTEST_OPTION_H
#define APSTART_SELFTEST_OPTION_H

#include "app/options.h"
#include "lib/keyword.h"

/* tsc-skew: that AP sets its TSC back (WRMSR IA32_TSC) before it comes
 * online, so the warp test must find it out of step and its cross-CPU
 * figures must print as na. lost-sipi: that AP's first wake-up sends INIT
 * but no STARTUP IPI, so that only sipi_retry brings it online.
 * stray-ipi: the BSP sends that AP, once parked, and an idle online AP an
 * interrupt vector nobody handles. parked-nmi: the BSP sends that AP,
 * once parked, an NMI IPI; it must go back to its park loop and come
 * online at the next wake-up. smi: the BSP raises one System Management
 * Interrupt inside one timed window's bracket, which must come out marked
 * smi=1 (needs a machine with SMM: QEMU's pc/q35 with SeaBIOS). */
enum selftest { SELFTEST_NONE, SELFTEST_BSP_FAULT, SELFTEST_AP_FAULT,
		SELFTEST_AP_HANG, SELFTEST_DOUBLE_START, SELFTEST_APIC_RENUMBER,
		SELFTEST_AP_LATE, SELFTEST_TSC_SKEW, SELFTEST_LOST_SIPI,
		SELFTEST_STRAY_IPI, SELFTEST_PARKED_NMI, SELFTEST_SMI };
extern const struct keyword selftest_words[];

struct selftest_options {
	enum selftest selftest; /* default none */
};
extern struct selftest_options selftest_options;
extern const struct option_row selftest_option_rows[1];

#endif
