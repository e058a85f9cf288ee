/* SPDX-License-Identifier: MIT */
/* An A/B session's plan: \apstart\results\session-NNNN\plan.txt. Written
 * whole when the session starts, then one line added per step (a run
 * started, filed or interrupted; stopped, resumed, done), so a power cut
 * can cost at most the last line. The last state= line is where the
 * session stands; which runs are done is read from the run files beside
 * it (wings/efi/session.c). */
#ifndef APSTART_EFI_PLAN_H
#define APSTART_EFI_PLAN_H

#include <efi.h>

#include "wings/efi/menu.h"
#include "wings/efi/volume.h"

#define PLAN_K_MAX 100                  /* runs per variant */
#define PLAN_RUNS_MAX (2 * PLAN_K_MAX)
#define PLAN_NUMBER_MAX 9999            /* session-NNNN */

/* A is the code before the patch, B the patched code: the rows read
 * "A -> B" as the reference's "65.83 s -> 11.14 s". */
#define PLAN_WBINVD_A 1
#define PLAN_WBINVD_B 0

enum plan_state { PLAN_RUNNING, PLAN_STOPPED, PLAN_DONE };

struct plan {
	UINTN number;                        /* NNNN */
	UINTN k;                             /* runs per variant */
	UINTN runs;                          /* 2k */
	CHAR8 order[PLAN_RUNS_MAX + 1];      /* 'A' or 'B' per run, run 1 first */
	UINT64 seed;                         /* of the order */
	CHAR8 cmdline[CMDLINE_MAX + 1];      /* every run's kernel options */
	enum plan_state state;
	UINTN test_fail_run;                 /* tests: run given selftest=ap-hang */
	UINT64 first_start_s, last_start_s;  /* firmware clock of runs started */
	UINTN started;                       /* how many "started" lines */
};

/* Randomised pairs: run 2i-1, 2i is AB or BA by a coin from seed
 * (xorshift64*), so that neither variant always comes first in its pair
 * (no order or drift effect goes to one side) while both stay close in
 * time. */
void plan_make_order(struct plan *p);

/* \apstart\results\session-NNNN (no trailing backslash) and files in it. */
void plan_dir(const struct plan *p, CHAR16 *buf, UINTN len);
void plan_file(const struct plan *p, const CHAR16 *name, CHAR16 *buf, UINTN len);
/* run-NNN-A-wbinvd1 (extension added by the caller). */
void plan_run_name(const struct plan *p, UINTN run, CHAR16 *buf, UINTN len);
UINTN plan_run_wbinvd(const struct plan *p, UINTN run);

/* Creates the folder and writes plan.txt. */
EFI_STATUS plan_create(struct volume *v, struct plan *p);
/* Reads session number's plan.txt; FALSE (with the reason printed) if it
 * is missing or not a plan. */
BOOLEAN plan_load(struct volume *v, UINTN number, struct plan *p);
/* Adds one line (a newline is added) to plan.txt. */
void plan_note(struct volume *v, const struct plan *p, const CHAR8 *line);

/* Seconds of the firmware clock (for estimates only: it may be off). */
UINT64 plan_now(void);
/* "2026-12-01T09:40:05" */
void plan_time_text(CHAR8 *buf, UINTN len);

#endif
