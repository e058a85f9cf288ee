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
#include "wings/efi/plan_text.h"
#include "wings/efi/volume.h"

_Static_assert(PLAN_CMDLINE_MAX == CMDLINE_MAX, "a plan's cmdline= is a menu entry's");

/* \apstart\results\session-NNNN (no trailing backslash) and files in it. */
void plan_dir(const struct plan *p, CHAR16 *buf, UINTN len);
void plan_file(const struct plan *p, const CHAR16 *name, CHAR16 *buf, UINTN len);
/* run-NNN-A-wbinvd1 (extension added by the caller). */
void plan_run_name(const struct plan *p, UINTN run, CHAR16 *buf, UINTN len);

/* Creates the folder and writes plan.txt. */
EFI_STATUS plan_create(struct volume *v, struct plan *p);
/* Reads session number's plan.txt (plan_parse); FALSE (with the reason
 * printed) if it is missing or not a plan. */
BOOLEAN plan_load(struct volume *v, UINTN number, struct plan *p);
/* Adds one line (a newline is added) to plan.txt. */
void plan_note(struct volume *v, const struct plan *p, const CHAR8 *line);

/* Seconds of the firmware clock (for estimates only: it may be off). */
UINT64 plan_now(void);
/* "2026-12-01T09:40:05" */
void plan_time_text(CHAR8 *buf, UINTN len);

#endif
