/* SPDX-License-Identifier: MIT */
/* Where a bring-up's time goes: the @phase records of a set of runs,
 * per phase, pooled or per APIC ID (out/phase_tables.h shows them, with the
 * @round records of cycles_mode=parallel). */
#ifndef APLOG_PHASES_H
#define APLOG_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/aplog/stats/sets.h"

#define ALL_APICS (-1L)

/* Numeric phase figures (ns) of the usable runs, cycles >= 1 (the first
 * bring-up, cycle 0, is left out as the kernel's own table does), of one
 * APIC ID or ALL_APICS; na figures only counted. */
struct phase_pool {
	uint64_t *v[PHASE_COUNT];
	size_t n[PHASE_COUNT], na[PHASE_COUNT];
};
void phase_pool_build(const struct side *sd, long apic, struct phase_pool *p);
void phase_pool_free(struct phase_pool *p);
bool side_has_phases(const struct side *sd);
bool side_has_rounds(const struct side *sd);

#endif
