/* SPDX-License-Identifier: MIT */
/* An A/B session's plan as text: what plan.txt holds (wings/efi/plan.h
 * says where it lives and when a line is added), written and read back.
 * Pure C, no firmware calls: the host's unit tests and fuzzers build it
 * as apstart.efi does. The stick is anyone's to write, and apstart.efi
 * reads this file on every boot of a session, signed and with Secure
 * Boot on: the reader bounds every count before anything uses it. */
#ifndef APSTART_EFI_PLAN_TEXT_H
#define APSTART_EFI_PLAN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wings/efi/test_hooks.h"

#define PLAN_K_MAX 100                  /* runs per variant */
#define PLAN_RUNS_MAX (2 * PLAN_K_MAX)
#define PLAN_NUMBER_MAX 9999            /* session-NNNN */
#define PLAN_CMDLINE_MAX 255            /* CMDLINE_MAX of wings/efi/menu.h */
#define PLAN_WHY_MAX 160                /* plan_parse's reason */

/* A is the code before the patch, B the patched code: the rows read
 * "A -> B" as the reference's "65.83 s -> 11.14 s". */
#define PLAN_WBINVD_A 1
#define PLAN_WBINVD_B 0

enum plan_state { PLAN_RUNNING, PLAN_STOPPED, PLAN_DONE };

struct plan {
	size_t number;                       /* NNNN */
	size_t k;                            /* runs per variant */
	size_t runs;                         /* 2k */
	char order[PLAN_RUNS_MAX + 1];       /* 'A' or 'B' per run, run 1 first */
	uint64_t seed;                       /* of the order */
	char cmdline[PLAN_CMDLINE_MAX + 1];  /* every run's kernel options */
	enum plan_state state;
	size_t test_fail_run;                /* test builds: run given selftest=ap-hang */
	uint64_t first_start_s, last_start_s; /* firmware clock of runs started */
	size_t started;                      /* how many "started" lines */
};

/* Randomised pairs: run 2i-1, 2i is AB or BA by a coin from seed
 * (xorshift64*), so that neither variant always comes first in its pair
 * (no order or drift effect goes to one side) while both stay close in
 * time. k must be 1..PLAN_K_MAX. */
void plan_make_order(struct plan *p);

/* 1 for an A run, 0 for a B run (run counts from 1). */
unsigned plan_run_wbinvd(const struct plan *p, size_t run);

/* The text plan.txt starts with (created: when, as text); its length,
 * or -1 if it does not fit in len bytes. */
int plan_format(const struct plan *p, const char *created, char *buf, size_t len);

/* Reads a whole plan.txt into p (p->number is left as the caller set
 * it). true if it is a plan apstart.efi could have written: a state=
 * line, runs_per_variant= 1..PLAN_K_MAX, order= of exactly k A's and k
 * B's, every number whole and within its bound; else false and why (a
 * phrase). test_fail_run= is read only with APSTART_EFI_TEST_HOOKS. */
bool plan_parse(const uint8_t *text, size_t size, struct plan *p, char *why, size_t why_len);

#endif
