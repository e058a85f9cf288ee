/* SPDX-License-Identifier: MIT */
/* The text of an A/B session's table (wings/efi/table.h shows and keeps
 * it): the reference's three rows (Offline, Online, Total) with their
 * intervals and verdicts, one observation per run, by
 * tools/aplog/stats/verdict.c (the same computation and wording as `aplog
 * compare`), then every run's line. Built from the run files as they are on the stick. Pure C: the
 * host's unit tests and fuzzers build it as apstart.efi does. */
#ifndef APSTART_EFI_TABLE_TEXT_H
#define APSTART_EFI_TABLE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wings/efi/plan_text.h"

#define TABLE_ROWS 3               /* Offline, Online, Total */
#define TABLE_LINE_MAX 160         /* one run's line */
#define TABLE_TEXT_MAX (16 * 1024 + PLAN_RUNS_MAX * TABLE_LINE_MAX)
/* A run's total beyond this is no measurement (aplog's NS_MAX, 1e6 s). */
#define TABLE_NS_MAX 1000000000000000ull

/* One variant's runs. */
struct table_side {
	uint64_t v[TABLE_ROWS][PLAN_K_MAX]; /* the rows' values of the runs in the figures */
	size_t n;                           /* runs in the figures */
	size_t failed, interrupted, missing;
	size_t over;                        /* passing runs past the plan's k: not counted */
};

struct table {
	const struct plan *p;
	struct table_side side[2];          /* A, B */
	char run_line[PLAN_RUNS_MAX][TABLE_LINE_MAX];
	char machine[160];                  /* from the first run file */
	const char *emu;                    /* the emulator a run file names, or NULL */
	char text[TABLE_TEXT_MAX];          /* table_finish's */
	size_t text_len;
	size_t rows_start, rows_end;        /* text[rows_start, rows_end): the rows */
};

void table_start(struct table *t, const struct plan *p);
/* Run number run (from 1): its file's bytes d, or d NULL when there is
 * none (then interrupted: whether its .interrupted mark is there). A run
 * the plan does not have is ignored, and a side never takes more than
 * min(k, PLAN_K_MAX) runs into its figures, whatever the plan and the
 * files say (plan_parse refuses such plans; this holds without it). */
void table_add_run(struct table *t, size_t run, const uint8_t *d, size_t size, bool interrupted);
/* The whole table into t->text. */
void table_finish(struct table *t);

#endif
