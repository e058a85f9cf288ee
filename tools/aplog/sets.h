/* SPDX-License-Identifier: MIT */
/* A set of logs as the commands see them: the runs loaded, failed runs
 * left out with a warning, the per-APIC table, mean totals, and what the
 * runs share (wbinvd, cpus, cycles) for labels and warnings. */
#ifndef APLOG_SETS_H
#define APLOG_SETS_H

#include <stddef.h>

#include "records.h"
#include "statistics.h"

struct side {
	struct set set;
	struct table t;
	const char *label;
	char label_buf[32];
	size_t usable, complete;
	double mean_total[OP_COUNT];
	int wbinvd;          /* 0 or 1; -1 mixed */
	long cpus, cycles;   /* -1 mixed */
	size_t modelled;     /* usable runs with @host flush_model= */
	const char *flush_model; /* their common model, NULL if they differ */
	const char *offline_figure; /* the usable runs' run_offline_figure(),
				       "mixed" if they differ */
	size_t nmi_marked;   /* usable runs' samples marked nmi=1 */
	int load_errors;     /* malformed input (side_load failed on it) */
};

/* name: "logs", "set A"...; purpose: what failed runs are left out of. */
int side_load(struct side *sd, const char *const *files, size_t n,
	      const char *name, const char *purpose);
void side_free(struct side *sd);
/* Labels: the user's, else the wbinvd setting the runs share, else A/B. */
void side_labels(struct side s[2]);
/* The one set of a single-set command (plot without '--'). */
void side_label_one(struct side *s);
/* Every table made from modelled runs says so (prefix: "" or "# "). */
void print_flush_note(const struct side *s, const char *prefix);
/* Every table says how many samples marked nmi=1 it left out (or kept,
 * with --with-nmi). */
void print_nmi_note(const struct side *s, const char *prefix);
/* Loads cli's A and B sets (needs '--'); warns where they differ. */
int load_two(struct side s[2], const char *purpose);

#endif
