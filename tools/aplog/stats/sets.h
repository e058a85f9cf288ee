/* SPDX-License-Identifier: MIT */
/* A set of logs as the commands see them: the runs loaded, failed runs
 * left out with a warning, the per-APIC table, mean totals, and what the
 * runs share (wbinvd, cpus, cycles) for labels and warnings. */
#ifndef APLOG_SETS_H
#define APLOG_SETS_H

#include <stddef.h>

#include "tools/aplog/read/records.h"
#include "tools/aplog/stats/statistics.h"

/* The reference's three rows, in its order. */
enum row { ROW_OFFLINE, ROW_ONLINE, ROW_TOTAL, ROW_COUNT };
extern const char *const row_name[ROW_COUNT];

struct side {
	struct set set;
	struct table t;
	const char *label;
	char label_buf[80];
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
	size_t smi_marked;   /* usable runs' samples an SMI hit (smi= above 0) */
	/* Run-level values, one per run (tools/aplog/stats/verdict.h): the complete runs'
	 * totals per row (enum row), and each run's median sample per op. */
	uint64_t *row_value[ROW_COUNT];
	size_t nrow_value;
	uint64_t *run_median[OP_COUNT];
	size_t nrun_median[OP_COUNT];
	/* What ran the side: NULL for bare metal or a modelled flush, else
	 * the emulator or hypervisor ("QEMU TCG", ...) the records name. */
	const char *emulated;
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
/* Loads cli's A and B sets (needs '--'); warns where they differ;
 * refuses (1) one file on both sides or twice, a side that mixes builds,
 * and a label that its runs' @boot contradicts, unless --force. */
int load_two(struct side s[2], const char *purpose);

/* What ran a run, when the flush under test cost nothing there: an
 * emulator or a hypervisor (@env), and no flush model (@host); else NULL. */
const char *run_emulator(const struct run *r);
/* Whether a verdict on A against B can see the flush under test: not
 * when the sides differ in wbinvd only and ran emulated, unmodelled. */
bool sides_measurable(const struct side s[2]);
/* The line every table and verdict of an emulated side carries. */
void print_emulated_note(const struct side s[2], const char *prefix);

#endif
