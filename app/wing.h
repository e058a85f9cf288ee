/* SPDX-License-Identifier: MIT */
/* The core's one door to its wings. The core (boot/, app/, smp/,
 * realmode/, kernel/, lib/) brings APs up and down, times them and prints
 * the records on serial; everything else (the screen and its pages, the
 * summary kept in NVRAM, the experiments, the self-tests) is a wing in
 * wings/, which the core never names. A wing puts one struct wing into the
 * .wings section (WING() below); kmain() calls, at each step of the run,
 * every wing that has something to do there, in link order. A kernel
 * linked without wings (make WINGS=) is the minimal kernel: it runs and
 * reports exactly as with them, on serial only. docs/layout.md has the map.
 */
#ifndef APSTART_WING_H
#define APSTART_WING_H

#include <stdbool.h>
#include <stdint.h>

#include "app/options.h"
#include "realmode/trampoline_abi.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"

/* What the run is, for whoever shows it (the screen's header, the
 * result page): filled by kmain() as it learns it. */
struct run_facts {
	int wbinvd;              /* the trampoline's path executes WBINVD */
	const char *trampoline;  /* whose: "apstart", or a wing's ("linux") */
	const char *trampoline_fields; /* its @trampoline fields beyond kind= and
				  * wbinvd= ("" for the core's) */
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

/* A trampoline a wing installs instead of the core's (realmode/): the
 * trampoline provider (trampoline=linux: wings/linux_trampoline). The
 * core sends the SIPIs to sipi_page; the AP arrives in ap_entry()
 * (smp/ap_entry.h) with its slot's long-mode mark written. */
struct wing_trampoline {
	uint64_t sipi_page;      /* physical, page-aligned, below 1 MiB */
	struct tramp_header *header; /* its stand-in header (smp/trampoline.h:
				  * trampoline_use_other()) */
	int wbinvd;              /* its path executes WBINVD (@boot wbinvd=) */
	const char *name;        /* "linux": @trampoline kind= */
	const char *fields;      /* its further @trampoline fields, " key=value"... */
};

/* The low memory a trampoline may take: the highest run of whole free
 * pages for size bytes below the legacy hole, clear of all the core's
 * own picker avoids (the IVT and BIOS data area, the firmware's area
 * from the EBDA up, the kernel, the boot information, the wings'
 * reservations); 0 if there is none. */
typedef uint64_t (*low_memory_fn)(uint64_t size);

/* The steps of a run at which a wing may act, in the order they come.
 * Every member may be NULL. */
struct wing {
	const char *name;
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
	void (*options)(const struct options *o, const struct boot_info *bi);
	/* cpus[] is filled from the MADT; no AP has been started. */
	void (*cpus_found)(const struct options *o);
	/* Everything about the run is known: just before the measurement. */
	void (*run_starts)(const struct options *o, const struct run_facts *facts);
	/* The trampoline, before any SIPI, the wake configuration known:
	 * install one instead of the core's and fill *t (true), or leave it
	 * to the core (false). A wing asked for its trampoline that cannot
	 * run it stops the run (abort_run()) with the reason. */
	bool (*install_trampoline)(const struct options *o, low_memory_fn low,
				   struct wing_trampoline *t);
	/* Around the first bring-up of every AP. */
	void (*before_bring_up)(void);
	void (*after_bring_up)(const struct options *o);
	/* Instead of the offline/online cycles: true if this wing measured
	 * (*complete says whether it finished), false if it has nothing to
	 * do for these options. The first wing that measures is the run. */
	bool (*measure)(const struct options *o, bool *complete);
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
	/* A wing that measured: what its result is called on the result
	 * page ("flush probe"), and the page's lines, *n of them. */
	const char *result_title;
	const char *const *(*result_lines)(uint32_t *n);
};

#define WING(id) \
	static const struct wing wing_##id \
		__attribute__((used, section(".wings"), aligned(sizeof(void *))))

/* The wings linked in, from the linker script. */
extern const struct wing __wings_start[], __wings_end[];
#define for_each_wing(w) for (const struct wing *w = __wings_start; w < __wings_end; w++)

/* "screen,nvram,..." or "none", for the records. */
const char *wings_linked(void);
/* Is the wing of this name linked in? */
bool wing_linked(const char *name);
/* The RAM the wings hold (their reserved steps), at most max ranges into
 * out; returns how many. */
#define WINGS_RESERVED_MAX 4
uint32_t wings_reserved(struct phys_range *out, uint32_t max);
/* Every wing's before_end step, in link order. */
void wings_before_end(void);

#endif
