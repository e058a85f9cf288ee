/* SPDX-License-Identifier: MIT */
/* The phases of a set's starts (stats/phases.h) and its parallel rounds, as
 * the stats, compare and csv commands print them. */
#ifndef APLOG_PHASE_TABLES_H
#define APLOG_PHASE_TABLES_H

#include "tools/aplog/stats/sets.h"

/* stats: the per-phase table, then the parallel rounds (if any). */
void print_phases(const struct side *sd);
void print_rounds(const struct side *sd);
/* compare: per-phase medians A -> B, when both sides have phases. */
void print_phase_compare(const struct side s[2]);
/* csv --phases: one row per @phase record. */
void print_phase_csv(const struct set *set);

#endif
