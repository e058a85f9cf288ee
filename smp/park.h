/* SPDX-License-Identifier: MIT */
/* Where an offlined AP goes (park=): Linux's native_play_dead() path, as
 * Linux 6.6 takes it on this CPU, or one of the experiments. */
#ifndef APSTART_PARK_H
#define APSTART_PARK_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"
#include "lib/keyword.h"

struct cpu;

/* What a parked AP does on this machine. */
struct park_plan {
	enum park_mode mode;
	bool mwait;       /* MONITOR/MWAIT loop, else HLT loop */
	bool clflush;     /* CLFLUSH the line before each MONITOR */
	bool flush;       /* WBINVD after reporting dead */
	const char *why;  /* how the variant was chosen */
	const char *code; /* the same as one word (@boot park_why=) */
};

/* BSP, before any AP starts: decide the plan from this CPU's CPUID, as
 * Linux decides from the boot CPU's vendor and each CPU's feature flags
 * (all CPUs are taken to be alike). */
void park_setup(enum park_mode mode);
const struct park_plan *park_plan(void);
/* park=: linux, hlt, mwait, init (smp/modes.c). */
extern const struct keyword park_words[];
/* The MWAIT hint Linux's mwait_play_dead() computes, from CPUID leaf 5 of
 * the CPU this runs on. */
uint32_t park_mwait_hint(void);

/* AP, asked to go offline: report dead, then park as planned (quiet:
 * report and halt, no flush, for the end of the run). Only INIT (or
 * NMI/SMI) leaves this. */
void park_ap(struct cpu *c, bool quiet) __attribute__((noreturn));

#endif
