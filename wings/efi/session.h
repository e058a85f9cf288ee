/* SPDX-License-Identifier: MIT */
/* The A/B session: both kernel variants, K runs each, one run per boot in
 * interleaved order, unattended. Each boot of apstart.efi files the last
 * run's kept summary (NVRAM) under \apstart\results\session-NNNN\ or, if
 * none came back, records the run as interrupted; then counts down to the
 * next run (any key stops the session) and boots it with exit=reset. After
 * the last run it makes the session's table (wings/efi/table.h). What is
 * where: wings/efi/plan.h. */
#ifndef APSTART_EFI_SESSION_H
#define APSTART_EFI_SESSION_H

#include <efi.h>

#include "wings/efi/menu.h"
#include "wings/efi/volume.h"

#define SESSION_K_DEFAULT 10
/* One pass over every AP per run: the reference's figure (onlining all
 * 479 CPUs once took 65.83 s, a mean of 10 such runs). */
#define SESSION_CYCLES_DEFAULT 1
#define SESSION_WAIT_DEFAULT 10

struct session_config {         /* loader.cfg (wings/efi/config.c) */
	UINTN k;                /* session=K: start a session unattended */
	UINTN k_menu;           /* what the menu's 's' starts */
	UINTN cycles;           /* session_cycles= */
	CHAR8 options[CMDLINE_MAX + 1]; /* session_options=: more kernel options */
	UINTN wait_s;           /* session_wait=: countdown before each run */
	UINTN seed;             /* session_seed=: the order's (0: from the clock) */
	UINTN test_fail_run;    /* test_session_fail=N: run N gets selftest=ap-hang */
};

void session_config_defaults(struct session_config *c);

/* loader.cfg is an unsigned file anyone with the stick may write: its
 * session=K starts a session by itself (a run booted at every power-on,
 * unattended) only with Secure Boot off, where nothing on the stick is
 * trusted anyway. With Secure Boot on or unknown, K becomes what the
 * menu's 's' starts, and it is said: a session starts by a key press.
 * A session under way goes on either way (its plan.txt is read with
 * every count bounded: wings/efi/plan_text.h). */
void session_trust(struct session_config *c, BOOLEAN secure_boot_off);

/* Every boot, before the menu. Files or marks the run in flight, then
 * either fills run with the next run's kernel and returns TRUE (boot it;
 * if that fails call session_boot_failed), or returns FALSE: the menu
 * follows, with m's session lines set. */
BOOLEAN session_on_boot(struct volume *v, const struct session_config *c, struct menu *m,
			struct boot_entry *run);
/* The menu's 's' (new session) and 'r' (resume the stopped one): as
 * session_on_boot. */
BOOLEAN session_start(struct volume *v, const struct session_config *c, struct menu *m,
		      struct boot_entry *run);
BOOLEAN session_resume(struct volume *v, const struct session_config *c, struct menu *m,
		       struct boot_entry *run);
/* The run's kernel could not be started: the session stops there. */
void session_boot_failed(struct volume *v, struct menu *m);

#endif
