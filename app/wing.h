/* SPDX-License-Identifier: MIT */
/* The core's one door to its wings. The core (boot/, app/, smp/,
 * realmode/, kernel/, lib/) brings APs up and down, times them and prints
 * the records on serial; everything else (the screen and its pages, the
 * summary kept in NVRAM, the experiments, the self-tests, the console
 * kept for Linux) is a wing in wings/, which the core never names. A wing
 * puts one struct wing into the .wings section (WING() below): the
 * options it brings, what it does at the run's steps, and what it hangs
 * on the core's hook points. A kernel linked without wings (make WINGS=)
 * is the minimal kernel: it runs and reports exactly as with them, on
 * serial only. docs/layout.md has the map; CONTRIBUTING.md says how to
 * add a wing.
 *
 * Who calls what: kmain() (app/main.c) and app/run.c call each wing's
 * steps, in link order; wings_connect() (app/wing.c) hangs the hook
 * points on the layers that call them, once, before anything is printed.
 * No wing calls a setter of a lower layer itself, and no wing reaches
 * another through the core. */
#ifndef APSTART_WING_H
#define APSTART_WING_H

#include <stdbool.h>
#include <stdint.h>

#include "app/options.h"
#include "smp/measure.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"

struct selftest_points;

/* What the run is, for whoever shows it (the screen's header, the
 * result page): filled by kmain() as it learns it. */
struct run_facts {
	int wbinvd;              /* the trampoline variant */
	uint32_t slow_tramp_ns;  /* test-only spin, 0 normally */
	const char *version;
	const char *park;        /* how an offline AP parks, e.g. "hlt" */
	const char *bringup;     /* the bring-up's mode as used: a refused
				  * broadcast shows its fallback, parallel */
	const char *firmware;    /* "BIOS", "UEFI", "unknown" */
	const char *loader;      /* as the loader names itself */
	char cpu_model[49];      /* brand string, or vendor family model */
	uint32_t cpus;           /* taking part, BSP included; 0: not known */
	uint32_t cycles;
};

/* A measurement a wing makes instead of the offline/online cycles, when
 * its options ask for it (probe=flush: the experiments wing). The core
 * chooses the run once, before anything is measured, and says which
 * (app/run.h: run_choose()); the chosen one runs after the first
 * bring-up, where the cycles would. */
struct wing_run {
	const char *name;        /* the option that asks for it: "probe=flush" */
	const char *title;       /* what its result is called: "flush probe" */
	bool (*chosen)(void);    /* its options ask for it */
	bool (*measure)(const struct options *o); /* true: it finished */
	/* Its result in a few lines for people (the result page): *n of them,
	 * 0 when there is none. */
	const char *const *(*summary)(uint32_t *n);
};

/* A screen a wing drives (kernel/console.h): what is printed for people
 * (CON_SCREEN, records and all: the writer leaves the records out) is
 * handed to write() under the console lock; kind() names it for the
 * records ("vga-text", "framebuffer", "none" until it has one). */
struct wing_screen {
	const char *(*kind)(void);
	void (*write)(const char *text);
};

/* Every member may be NULL. */
struct wing {
	const char *name;
	/* The options the wing brings: its rows, parsed with the core's from
	 * the command line into its own struct (app/options.h), before any
	 * step below; WING_OPTIONS(rows, &store). A kernel built without the
	 * wing names it when one of them is given (problem=no_wing). */
	struct option_table options;

	/* ---- The run's steps, in the order they come (app/main.c, app/run.c) */
	/* Before anything is placed in memory, after a silent first pass over
	 * the command line (as Linux's early_param()): a wing may claim RAM
	 * the loader handed over (pstore=), clear of busy[], what the kernel
	 * and its boot information occupy. */
	void (*claim_memory)(const struct boot_info *bi, const struct options *o,
			     const struct busy_range *busy, uint32_t n);
	/* RAM the wing holds: kept out of the allocator and the trampoline's
	 * page. True and *out set if it holds any. */
	bool (*reserved)(struct phys_range *out);
	/* The loader's facts are read (a screen can start: what is printed
	 * from here on shows on it); facts has the firmware and loader. */
	void (*boot_info)(const struct boot_info *bi, const struct run_facts *facts);
	/* The command line is parsed (its @warn records are printed). */
	void (*options_parsed)(const struct options *o, const struct boot_info *bi);
	/* cpus[] is filled from the MADT; no AP has been started. */
	void (*cpus_found)(const struct options *o);
	/* Everything about the run is known: just before the measurement. */
	void (*run_starts)(const struct options *o, const struct run_facts *facts);
	/* Around the first bring-up of every AP. */
	void (*before_bring_up)(void);
	void (*after_bring_up)(const struct options *o);
	/* A measurement it may make instead of the cycles (struct wing_run). */
	const struct wing_run *run;
	/* The measurement is over; the APs are about to be parked for the
	 * end of the run. */
	void (*measured)(void);
	/* Just before the @end record (finished or aborted): a wing's last
	 * lines about the run. */
	void (*before_end)(void);
	/* The run is ending (pass or not, finished or aborted), before the
	 * machine is left: the last chance to keep the results. */
	void (*run_ends)(bool pass);
	/* The machine stays halted with the results (real hardware, exit=halt,
	 * the run finished): a wing may show them until power-off. Does not
	 * return if it takes the screen. */
	void (*halted)(bool pass);

	/* ---- Hook points: called from inside the run by the layer named */
	/* The console (kernel/console.h): the screen this wing drives (one
	 * wing at most), and every printed piece, with the targets it went
	 * to (CON_SERIAL, CON_SCREEN), under the console lock, in print
	 * order, from the first line on. */
	const struct wing_screen *screen;
	void (*console_text)(unsigned targets, const char *text);
	/* The measurement (smp/measure.h), on the BSP between two timed
	 * windows, never inside one: where it is, and each timed window of
	 * the cycles as it closes ("online"/"offline", [t0, t1] on the BSP's
	 * TSC). Each must return at once when the wing has nothing to do. */
	void (*progress)(const struct smp_progress *p);
	void (*window_timed)(const char *what, uint32_t apic, uint32_t cycle, uint64_t t0,
			     uint64_t t1);
	/* VEC_WING (kernel/trap.h), acknowledged, in interrupt context on
	 * the CPU that took it (one wing at most). */
	void (*interrupt)(void);
	/* The AP path's self-test points (smp/selftest_points.h): what the
	 * wing does at each (one wing at most). */
	const struct selftest_points *selftest_points;
};

#define WING_OPTIONS(rows, store) OPTION_TABLE(rows, store)

#define WING(id) \
	static const struct wing wing_##id \
		__attribute__((used, section(".wings"), aligned(sizeof(void *))))

/* The wings linked in, from the linker script; at most WINGS_MAX. */
#define WINGS_MAX 16
extern const struct wing __wings_start[], __wings_end[];
#define for_each_wing(w) for (const struct wing *w = __wings_start; w < __wings_end; w++)

/* Hangs the wings' hook points on the layers that call them; first
 * thing in kmain(), before anything is printed. */
void wings_connect(void);
/* "screen,nvram,..." or "none", for the records. */
const char *wings_linked(void);
/* What the command line is parsed into: the core's options o, every
 * linked wing's table, and the options of the wings this kernel was built
 * without. */
void wings_option_targets(struct option_targets *t, struct options *o);
/* The RAM the wings hold (their reserved steps), at most max ranges into
 * out; returns how many. */
#define WINGS_RESERVED_MAX 4
uint32_t wings_reserved(struct phys_range *out, uint32_t max);
/* Every wing's before_end step, in link order. */
void wings_before_end(void);

#endif
