/* SPDX-License-Identifier: MIT */
/* Records and the human-readable table, in apstart's format (README,
 * "Output") so that aplog reads both alike. */
#ifndef LINUX_HOTPLUG_REPORT_H
#define LINUX_HOTPLUG_REPORT_H

#include <stdint.h>
#include <stddef.h>

#include "cpus.h"

enum lh_op { LH_OFFLINE, LH_ONLINE };

/* ns[op][slot * cycles + k]: slot = index among the selected CPUs. */
struct lh_samples {
	uint64_t *ns[2];
	uint32_t cycles;
	size_t slots;
};

int lh_samples_alloc(struct lh_samples *s, size_t slots, uint32_t cycles);
void lh_samples_free(struct lh_samples *s);

void lh_print_sample(const struct lh_cpu *c, uint32_t cycle, enum lh_op op,
		     uint64_t ns);

/* Per-CPU table, @summary per op, and the Offline/Online/Total lines. */
void lh_report(const struct lh_cpus *cs, const struct lh_samples *s);

#endif
