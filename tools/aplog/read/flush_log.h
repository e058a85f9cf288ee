/* SPDX-License-Identifier: MIT */
/* The flush probe's records (@probe, @flush; wings/experiments/flush_probe.c) read from
 * logs, and the curve they make: one point per (op, at_once, dirty_kib).
 * A point's values: at_once=1, every window; at_once=N, each round's
 * makespan, first start to last end (the round: one run's repeat; where
 * the TSCs were not known to agree, the slowest CPU's window). A round
 * in which a CPU opened its window only after the first CPU's had closed
 * was not at once, and is left out. Windows an SMI hit (smi>0)
 * are left out unless counted; a round with one is left out whole. */
#ifndef APLOG_FLUSH_LOG_H
#define APLOG_FLUSH_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flush_op { FOP_WBINVD, FOP_WBNOINVD, FOP_CLFLUSHOPT, FOP_CLWB, FOP_COUNT };
extern const char *const flush_op_names[FOP_COUNT];

struct flush_rec {
	uint32_t run, apic, at_once, rep;
	uint32_t dirty_kib;
	enum flush_op op;
	uint64_t ns;
	uint32_t smi, khz;
	bool has_start;         /* at once: start_ns= was a number */
	uint64_t start_ns;      /* after the round's first start */
};

struct flush_point {
	enum flush_op op;
	uint32_t at_once, dirty_kib;
	uint64_t *v;       /* sorted ascending */
	size_t n;
	size_t smi_left_out;
	size_t skewed_left_out; /* at-once rounds whose CPUs did not start at
				 * once: one opened its window after the first
				 * one's had closed */
	uint64_t best, median, max; /* best = the lowest: a host, an SMI, a
				     * preemption only ever add time */
};

struct flush_log {
	struct flush_rec *r;
	size_t n, cap;
	uint32_t runs;          /* @boot records seen */
	uint32_t llc_kib, socket_cpus, cpus, at_once_kib; /* the last @probe */
	bool probe_seen;
	char model[128];        /* @host flush_model= of the last run, "" */
	char brand[64];         /* @env brand= */
	size_t bad_lines;
	struct flush_point *pt;
	size_t npt;
};

/* Appends the file's records; 0, or -1 after a message (unreadable). */
int flush_log_load(struct flush_log *l, const char *path);
/* Builds l->pt, sorted by op, at_once, dirty_kib. */
void flush_log_points(struct flush_log *l, bool smi_counted);
const struct flush_point *flush_log_find(const struct flush_log *l, enum flush_op op,
					 uint32_t at_once, uint32_t dirty_kib);
void flush_log_free(struct flush_log *l);

#endif
