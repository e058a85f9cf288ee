/* SPDX-License-Identifier: MIT */
/* Per-CPU records, keyed by APIC ID, and the CPU table's set-up. */
#ifndef APSTART_SMP_H
#define APSTART_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "realmode/trampoline_abi.h"
#include "kernel/acpi.h"
#include "kernel/config.h"
#include "kernel/trap.h"

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

/* How the BSP waits for an AP: spinning on its state (default), or halted
 * until the AP's IPI, which lets an instruction-counting emulator run the
 * AP at once (deterministic timing mode). */
enum bsp_wait { BSP_WAIT_SPIN, BSP_WAIT_HLT };

/* The BSP's TSC at each of its steps of one start of one AP. In parallel
 * and broadcast bring-up, start is the round's, shared by every AP
 * (smp/phases.h makes the phases of a start from them). */
struct bsp_marks {
	uint64_t start, init_assert, init_deassert, sipi1, sipi2, seen;
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
	bool sipi_failed;             /* this start: a STARTUP IPI failed, no more */
	bool sipis_withheld;          /* this attempt: a self-test keeps its STARTUP
				       * IPIs back (smp/instrument.h) */
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

/* AP: tell the BSP its state changed (in bsp_wait=hlt mode it sleeps
 * until an AP's VEC_WAKE IPI; otherwise it spins and this does nothing).
 * Here, beside the data it reads: ap_entry.c and park.c both call it. */
static inline void ap_notify_bsp(void)
{
	if (smp_bsp_wait == BSP_WAIT_HLT)
		lapic_send_ipi(smp_bsp_apic, ICR_FIXED | VEC_WAKE);
}

extern struct cpu cpus[APSTART_MAX_CPUS];
extern uint32_t cpu_count;

struct cpu *cpu_by_apic(uint32_t apic_id);
/* Can every AP be woken by the all-excluding-self shorthand? NULL if so,
 * else why not (smp/smp.c). */
const char *smp_broadcast_refused(void);

/* Fill cpus[] from the MADT, apply maxcpus (0: all); the BSP is the CPU
 * we run on. */
bool smp_setup(const struct acpi_info *acpi, uint32_t maxcpus);
/* The trampoline's per-CPU table, one slot per entry of cpus[]
 * (realmode/trampoline_abi.h), for smp/trampoline.c to install. */
extern struct tramp_cpu *tramp_cpus;

/* The default INIT delay for this CPU (SDM Vol. 3A §9.4.4.1). */
uint32_t smp_default_init_delay_us(void);

uint32_t smp_count_state(enum cpu_state s);

#endif
