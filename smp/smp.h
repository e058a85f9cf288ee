/* SPDX-License-Identifier: MIT */
/* Per-CPU records, keyed by APIC ID, and the bring-up entry points. */
#ifndef APSTART_SMP_H
#define APSTART_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/phases.h"
#include "smp/wakeup.h"
#include "realmode/trampoline_abi.h"
#include "kernel/acpi.h"
#include "kernel/config.h"

enum cpu_state {
	CPU_ABSENT = 0,   /* listed, never started */
	CPU_STARTING,     /* INIT-SIPI-SIPI sent, waiting for it */
	CPU_ONLINE,       /* running the idle loop */
	CPU_GOING_OFFLINE,/* acknowledged an offline request */
	CPU_PARKED,       /* reported dead; parks (smp/park.c) until INIT */
	CPU_FAILED,       /* did not come online / did not park in time */
	CPU_SKIPPED,      /* not started: disabled, beyond maxcpus, unreachable */
};

/* Stages an AP reports, continuing the trampoline's (enum tramp_stage in
 * realmode/trampoline_abi.h). */
enum ap_stage {
	AP_STAGE_C_ENTRY = 5,  /* in ap_entry() on its own stack */
	AP_STAGE_TABLES = 6,   /* kernel GDT and IDT loaded */
	AP_STAGE_LAPIC = 7,    /* local APIC enabled */
	AP_STAGE_ONLINE = 8,   /* reported online */
};

/* What the BSP asks of an online AP (it wakes it with VEC_WAKE). */
enum cpu_request {
	REQ_NONE = 0,
	REQ_OFFLINE = 1,    /* go offline the way park= says (timed) */
	REQ_TSC_CHECK = 2,  /* take part in the TSC warp test (smp/tsc_sync.c) */
	REQ_HALT = 3,       /* end of run: report and halt, no flush */
};

/* A cross-CPU figure that means nothing: the AP's TSC is not
 * synchronised with the BSP's, or the difference came out negative. */
#define TICKS_NA INT64_MIN

struct cpu {
	uint32_t apic_id;
	uint32_t index;
	uint32_t madt_flags;
	bool bsp;
	const char *skip_reason;      /* set for CPU_SKIPPED */
	const char *skip_code;        /* the same as one word, for @cpu records */

	volatile uint32_t state;      /* enum cpu_state */
	volatile uint32_t request;    /* enum cpu_request, set by the BSP */
	/* Its trampoline slot: the stage it reached and the AP's TSC at
	 * each phase (realmode/trampoline_abi.h), written by the AP. */
	struct tramp_cpu *slot;
	struct bsp_marks marks;       /* the BSP's steps of its last start */
	uint32_t real_entries;        /* the header's count at that start */

	uint32_t fail_stage;          /* last stage seen when it failed */
	uint32_t esr;                 /* APIC error bits seen after SIPIs */
	uint32_t late_arrivals;       /* reached C after we gave up on it */
	uint32_t retries;             /* wake-ups sent again (sipi_retry=) */

	/* Events (smp/events.c), counted in NMI or interrupt context on
	 * this CPU, reported by the BSP: */
	volatile uint32_t nmis;       /* NMIs taken */
	volatile uint32_t nmis_parked;/* of them, while parked (CPU_PARKED) */
	volatile uint32_t nmi_reason; /* port 0x61 at the last one */
	volatile uint32_t strays;     /* stray interrupts taken */
	volatile uint32_t stray_vector; /* the last one's vector */
	uint32_t nmis_reported, strays_reported;

	volatile uint64_t tsc_settled;/* AP's TSC when parked, about to halt */

	bool tsc_synced;              /* warp test passed (smp/tsc_sync.c) */
	int64_t tsc_skew;             /* AP minus BSP TSC it proved, ticks */

	uint64_t boot_ticks;          /* first bring-up: INIT to online */
	/* Per cycle [cycles]. BSP TSC ticks: */
	uint64_t *online_ticks;       /* first INIT -> the BSP sees it online */
	uint64_t *offline_ticks;      /* request -> the BSP sees it dead */
	/* AP TSC minus BSP TSC, or TICKS_NA: */
	int64_t *ap_ticks;            /* first INIT -> its own online mark */
	int64_t *settled_ticks;       /* request -> flushed, about to halt */
	uint32_t cycles_done;
};

/* Read by APs: set once by the BSP before any AP starts. */
extern enum bsp_wait smp_bsp_wait;
extern uint32_t smp_bsp_apic;

extern struct cpu cpus[APSTART_MAX_CPUS];
extern uint32_t cpu_count;

struct cpu *cpu_by_apic(uint32_t apic_id);
/* Can every AP be woken by the all-excluding-self shorthand? NULL if so,
 * else why not (smp/smp.c). */
const char *smp_broadcast_refused(void);
/* Test hook (selftest=apic-renumber): c now answers to new_id; its
 * record and trampoline slot follow. */
void smp_renumber(struct cpu *c, uint32_t new_id);

/* Fill cpus[] from the MADT, apply maxcpus (0: all); the BSP is the CPU
 * we run on. */
bool smp_setup(const struct acpi_info *acpi, uint32_t maxcpus);
/* Install the trampoline in the free low page phys, with a stack for
 * every CPU in cpus[] (after smp_setup). */
bool smp_install_trampoline(uint64_t phys);
/* The default INIT delay for this CPU (SDM Vol. 3A §9.4.4.1). */
uint32_t smp_default_init_delay_us(void);

uint32_t smp_count_state(enum cpu_state s);

/* Bring every usable AP online once (timed as its boot), then run the
 * offline/online cycles. Samples are kept in each struct cpu. The wake
 * configuration of smp_bring_up() holds for the whole run. */
void smp_bring_up(const struct wake_config *w);
void smp_run_cycles(const struct wake_config *w, uint32_t cycles);
/* Where the bring-up and the cycles are, for a live display. The hook is
 * called on the BSP between two timed windows, never inside one: at the
 * start of each phase (done = 0) and after every bring-up or cycle. */
enum smp_phase { SMP_PHASE_BRING_UP, SMP_PHASE_CYCLES };
struct smp_progress {
	enum smp_phase phase;
	uint32_t cpu, cpus;     /* the AP at work (1-based) of the phase's APs */
	uint32_t cycle, cycles; /* cycles phase: its cycle just done */
	uint32_t done, total;   /* bring-ups or cycles finished, of all */
};
void smp_set_progress_hook(void (*hook)(const struct smp_progress *p));

/* Halt every online AP (end of run): not timed, no flush, whatever
 * park= says (480 WBINVDs would add 40 s to the end of a big run). */
void smp_park_all(const struct wake_config *w);
/* Samples kept per figure (online, offline, ap, settled) for all APs and
 * cycles together: 1000 cycles of 1000 APs. The store is allocated at its
 * used size from free RAM (kernel/bootmem.h): 5 x 8 MiB at most. */
#define SMP_SAMPLES_MAX (1u << 20)
/* Cycles that fit the sample pool for this many APs. */
uint32_t smp_max_cycles(uint32_t aps);

#endif
