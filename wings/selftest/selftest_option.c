/* SPDX-License-Identifier: MIT */
/* selftest= parsed (wings/selftest/selftest_option.h). */
#include "wings/selftest/selftest_option.h"

struct selftest_options selftest_options;

const struct keyword selftest_words[] = {
	{ "none", SELFTEST_NONE }, { "bsp-fault", SELFTEST_BSP_FAULT },
	{ "ap-fault", SELFTEST_AP_FAULT }, { "ap-hang", SELFTEST_AP_HANG },
	{ "double-start", SELFTEST_DOUBLE_START },
	{ "apic-renumber", SELFTEST_APIC_RENUMBER }, { "ap-late", SELFTEST_AP_LATE },
	{ "tsc-skew", SELFTEST_TSC_SKEW }, { "lost-sipi", SELFTEST_LOST_SIPI },
	{ "stray-ipi", SELFTEST_STRAY_IPI }, { "parked-nmi", SELFTEST_PARKED_NMI },
	{ "smi", SELFTEST_SMI },
	{ NULL, 0 },
};

const struct option_row selftest_option_rows[1] = {
	OPTION_ROW(struct selftest_options, selftest, SELFTEST_NONE,
		   .keywords = selftest_words),
};
