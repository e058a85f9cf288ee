/* SPDX-License-Identifier: MIT */
/* The phases of one AP start by name, in their order: the kernel prints
 * its @phase records with them (smp/phases.h, enum phase) and aplog reads
 * them back with the same list (tools/aplog), as it shares lib/stats.c. */
#ifndef APSTART_PHASE_NAMES_H
#define APSTART_PHASE_NAMES_H

/* All of them; the first PHASE_NAMES_CHAIN follow each other and add up
 * to the start's total, the last (sipi2) overlaps them. */
#define PHASE_NAMES_COUNT 12
#define PHASE_NAMES_CHAIN 11

extern const char *const phase_names[PHASE_NAMES_COUNT + 1]; /* NULL-terminated */

#endif
