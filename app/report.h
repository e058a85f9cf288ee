/* SPDX-License-Identifier: MIT */
/* Human table and machine-readable records of a finished run. */
#ifndef APSTART_REPORT_H
#define APSTART_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/stats.h"

/* One AP's figures in ns, as its @cpusum record gives them: online the
 * BSP's figure, offline the one the Offline total uses (settled_ns when
 * every AP has it, else until reported dead). */
struct ap_result {
	uint32_t cpu;             /* index into cpus[] */
	uint32_t cycles;          /* cycles done */
	uint64_t online_median, online_min, online_max;
	uint64_t offline_median, offline_max;
};

/* The run as report_results() found it, for the result page. */
struct run_result {
	uint32_t cycles;          /* per AP, as asked */
	uint32_t aps;             /* APs that were started */
	uint32_t complete;        /* of those, APs with every cycle done */
	struct stats online, offline; /* every sample of every AP, in the
				       * figure the totals use */
	bool offline_settled;     /* offline: settled_ns (else reported dead) */
	uint32_t n;               /* APs with samples, in cpus[] order */
	const struct ap_result *ap;
};

/* Prints the per-CPU table, @cpusum records, totals and @summary records;
 * returns true if every AP that was started completed all its cycles. */
bool report_results(uint32_t cycles);
/* What the last report_results() printed; NULL before it ran. */
const struct run_result *report_result(void);
/* The @cpusum record of one AP, newline included, as printed. */
void report_cpusum_line(char *buf, uint32_t size, const struct ap_result *a);

#endif
