/* SPDX-License-Identifier: MIT */
/* The core's one door to its wings (wings/, which the core never names;
 * docs/layout.md has the map, CONTRIBUTING.md how to add one). A wing puts
 * one struct wing into the .wings section (WING() below); kmain() and
 * app/run.c call its steps in link order, and wings_connect() hangs its
 * hook points on the layers that call them, once, before anything is
 * printed. No wing calls a lower layer's setter or reaches another wing
 * through the core. */
#ifndef APSTART_WING_H
#define APSTART_WING_H

#include <stdbool.h>
#include <stdint.h>

#include "app/options.h"
#include "realmode/trampoline_abi.h"
#include "smp/measure.h"
#include "kernel/acpi.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"

struct selftest_points;
struct trap_frame;

/* What the run is, for whoever shows it: filled by kmain() as it learns it. */
struct run_facts {
	int wbinvd;              /* the trampoline's path executes WBINVD */
	const char *trampoline;  /* whose: "apstart", or a wing's ("linux") */
	const char *trampoline_fields; /* further @trampoline fields ("": none) */
	uint32_t slow_tramp_ns;  /* test-only spin, 0 normally */
	const char *version;
	const char *park;        /* how an offline AP parks, e.g. "hlt" */
	const char *bringup;     /* the bring-up's mode as used (bringup_used) */
	const char *firmware;    /* "BIOS", "UEFI", "unknown" */
	const char *loader;      /* as the loader names itself */
	uint32_t cpus;           /* taking part, BSP included; 0: not known */
	uint32_t cycles;
};

/* A trampoline a wing installs instead of the core's (trampoline=linux):
 * the core sends the SIPIs to sipi_page; the AP arrives in ap_entry()
 * (smp/ap_entry.h) with its slot's long-mode mark written. */
struct wing_trampoline {
	uint64_t sipi_page;      /* physical, page-aligned, below 1 MiB */
	struct tramp_header *header; /* its stand-in header (smp/trampoline.h:
				  * trampoline_use_other()) */
	int wbinvd;              /* its path executes WBINVD (@boot wbinvd=) */
	const char *name;        /* "linux": @trampoline kind= */
	const char *fields;      /* its further @trampoline fields, " key=value"... */
};

/* The low memory a trampoline may take: the highest free pages for size
 * bytes below the legacy hole, clear of all the core's own page avoids
 * (memmap_pick_low_range(), app/main.c); 0 if there is none. */
typedef uint64_t (*low_memory_fn)(uint64_t size);

/* A measurement a wing makes instead of the cycles when its options ask
 * (probe=flush), chosen once before anything is measured (run_choose(),
 * app/run.h) and run after the first bring-up, where the cycles would. */
struct wing_run {
	const char *name;        /* the option that asks for it: "probe=flush" */
	const char *title;       /* what its result is called: "flush probe" */
	bool (*chosen)(void);    /* its options ask for it */
	bool (*measure)(const struct options *o); /* true: it finished */
	/* Its result in *n lines for people (the result page). */
	const char *const *(*summary)(uint32_t *n);
};

/* A screen a wing drives (kernel/console.h): write() gets what is printed
 * for people (CON_SCREEN), under the console lock; kind() names it for the
 * records ("vga-text", "framebuffer", "none" until it has one). */
struct wing_screen {
	const char *(*kind)(void);
	void (*write)(const char *text);
};

/* Every member may be NULL. */
struct wing {
	const char *name;
	/* Its options: WING_OPTIONS(rows, &store), parsed with the core's
	 * before any step below (app/options.h). */
	struct option_table options;

	/* ---- The run's steps, in the order they come (app/main.c, app/run.c) */
	/* Before anything is placed in memory, after a silent first pass over
	 * the command line (as Linux's early_param()): a wing may claim RAM
	 * (pstore=) clear of busy[], the kernel and its boot information. */
	void (*claim_memory)(const struct boot_info *bi, const struct options *o,
			     const struct busy_range *busy, uint32_t n);
	/* RAM the wing holds: kept out of the allocator and the trampoline's
	 * page. True and *out set if it holds any. */
	bool (*reserved)(struct phys_range *out);
	/* The loader's facts are read: a screen can start. */
	void (*boot_info)(const struct boot_info *bi, const struct run_facts *facts);
	/* The command line is parsed (its @warn records are printed). */
	void (*options_parsed)(const struct options *o, const struct boot_info *bi);
	/* The ACPI tables are read (the FADT's reset register, ...). */
	void (*tables_read)(const struct acpi_info *acpi);
	/* cpus[] is filled from the MADT; no AP has been started. */
	void (*cpus_found)(const struct options *o);
	/* Everything about the run is known: just before the measurement. */
	void (*run_starts)(const struct options *o, const struct run_facts *facts);
	/* Before any SIPI: install a trampoline instead of the core's and
	 * fill *t (true), or leave it to the core (false); one asked for that
	 * cannot run stops the run (abort_run()) with the reason. */
	bool (*install_trampoline)(const struct options *o, low_memory_fn low,
				   struct wing_trampoline *t);
	/* Around the first bring-up of every AP. */
	void (*before_bring_up)(void);
	void (*after_bring_up)(const struct options *o);
	/* A measurement it may make instead of the cycles (struct wing_run). */
	const struct wing_run *run;
	/* The cycles are over and their results are about to be printed
	 * (not after a wing's measurement). */
	void (*results)(void);
	/* The measurement is over; the APs are about to be parked for the
	 * end of the run. */
	void (*measured)(void);
	/* Just before the @end record (finished or aborted): a wing's last
	 * lines about the run. */
	void (*before_end)(void);
	/* The run is ending (pass or not, finished or aborted), before the
	 * machine is left: the last chance to keep the results. */
	void (*run_ends)(bool pass);
	/* The machine is to be reset (exit=reset: cold; exit=reboot: warm,
	 * RAM kept): each wing tries its way in link order and returns if the
	 * machine did not reset. */
	void (*reset)(bool warm);
	/* The machine stays halted with the results: a wing may show them
	 * until power-off (and not return). */
	void (*halted)(bool pass);

	/* ---- Hook points: called from inside the run by the layer named */
	/* The console (kernel/console.h): the screen this wing drives (one
	 * wing at most), and every printed piece with its targets, under the
	 * console lock, in print order. */
	const struct wing_screen *screen;
	void (*console_text)(unsigned targets, const char *text);
	/* The measurement (smp/measure.h), on the BSP between two timed
	 * windows: where it is, and each window of the cycles as it closes
	 * ([t0, t1] on the BSP's TSC). Each returns at once if it has nothing
	 * to do. */
	void (*progress)(const struct smp_progress *p);
	void (*window_timed)(const char *what, uint32_t apic, uint32_t cycle, uint64_t t0,
			     uint64_t t1);
	/* VEC_WING (kernel/trap.h), acknowledged, on the CPU that took it
	 * (one wing at most). */
	void (*interrupt)(void);
	/* An exception the wing may take back (kernel/trap.h; one wing at
	 * most). */
	bool (*fault_fixup)(struct trap_frame *f);
	/* The AP path's self-test points (smp/instrument.h; one wing). */
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
/* Every wing's step (or hook point) of that name, in link order, with
 * these arguments: WINGS_STEP(run_starts, &opt, &facts). */
#define WINGS_STEP(step, ...)                  \
	for_each_wing(w_)                      \
		if (w_->step)                  \
			w_->step(__VA_ARGS__)

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

#endif
