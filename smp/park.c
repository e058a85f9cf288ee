/* SPDX-License-Identifier: MIT */
/* The offline path. park=linux follows what an offlined CPU does in
 * Linux 6.6, arch/x86/kernel/smpboot.c:
 *
 *   native_play_dead()
 *     play_dead_common()     cpuhp_ap_report_dead(): the CPU reports dead,
 *                            which ends the BSP's wait (cpuhp_bp_sync_dead()
 *                            in takedown_cpu(), kernel/cpu.c); then
 *                            local_irq_disable()
 *     mwait_play_dead()      not on AMD/Hygon; needs MWAIT, CLFLUSH and
 *                            CPUID leaf 5: the hint from leaf 5, WBINVD,
 *                            then CLFLUSH/MONITOR/MWAIT forever
 *     cpuidle_play_dead()    an idle driver's enter_dead: apstart has
 *                            none, so this step is skipped
 *     hlt_play_dead()        WBINVD if family >= 4, then HLT forever
 *
 * The flush comes after the report: the BSP has stopped waiting while the
 * AP still flushes. settled_ns (the AP's timestamp just before it halts)
 * is what shows that flush. The other modes are experiments without it. */
#include "smp/park.h"

#include "smp/instrument.h"
#include "smp/smp.h"
#include "kernel/abort.h"
#include "kernel/cpu.h"
#include "kernel/x86.h"

/* CPUID bits (SDM Vol. 2A, CPUID: leaf 1 ECX[3] MONITOR/MWAIT, EDX[19]
 * CLFSH; leaf 5 ECX[0] "enumeration of MONITOR/MWAIT extensions", EDX
 * four bits per C-state: the number of its sub C-states, C0 first). */
#define CPUID1_ECX_MONITOR  (1u << 3)
#define CPUID1_EDX_CLFSH    (1u << 19)
#define CPUID_LEAF_MWAIT    5
#define CPUID5_ECX_EMX      (1u << 0)
#define MWAIT_SUBSTATE_BITS 4
#define MWAIT_SUBSTATE_MASK 0xFu

/* One cache line per CPU to monitor, as Linux's per-CPU mwait_cpu_dead
 * ("x86/smp: Use dedicated cache-line for mwait_play_dead()"). Nothing
 * writes it to wake the CPU: INIT does that. */
struct park_line {
	volatile uint32_t armed;
} __attribute__((aligned(64)));

static struct park_line park_lines[APSTART_MAX_CPUS];
static struct park_plan plan;

const struct park_plan *park_plan(void)
{
	return &plan;
}

static bool has_monitor(void)
{
	return cpuid(1, 0).ecx & CPUID1_ECX_MONITOR;
}

static bool has_clflush(void)
{
	return cpuid(1, 0).edx & CPUID1_EDX_CLFSH;
}

/* Linux's MONITOR errata, set in init_intel() (arch/x86/kernel/cpu/
 * intel.c), Intel family 6 only:
 *   X86_BUG_CLFLUSH_MONITOR, with CLFLUSH: models 29 (Xeon 7400
 *     "Dunnington"), 46 (Nehalem-EX), 47 (Westmere-EX): erratum AAI65,
 *     a CLFLUSH of the line must come before MONITOR (Linux 6.6);
 *   X86_BUG_MONITOR, with MWAIT: model 0x5C (Goldmont, Apollo Lake) in
 *     Linux 6.6; 0xBD (Lunar Lake M) added by "x86/cpu: Add
 *     INTEL_LUNARLAKE_M to X86_BUG_MONITOR" (Nov 2024, 6.13, stable
 *     back to 6.11): a write to the monitored line may not wake MWAIT. */
#define INTEL_FAM6_CORE2_DUNNINGTON 29
#define INTEL_FAM6_NEHALEM_EX       46
#define INTEL_FAM6_WESTMERE_EX      47
#define INTEL_FAM6_ATOM_GOLDMONT    0x5C
#define INTEL_FAM6_LUNARLAKE_M      0xBD

static bool intel_family6(void)
{
	return cpu_is_intel() && cpu_family() == 6;
}

static bool bug_clflush_monitor(void)
{
	uint32_t m = cpu_model();
	return intel_family6() && has_clflush() &&
	       (m == INTEL_FAM6_CORE2_DUNNINGTON || m == INTEL_FAM6_NEHALEM_EX ||
		m == INTEL_FAM6_WESTMERE_EX);
}

static bool bug_monitor(void)
{
	uint32_t m = cpu_model();
	return intel_family6() && has_monitor() &&
	       (m == INTEL_FAM6_ATOM_GOLDMONT || m == INTEL_FAM6_LUNARLAKE_M);
}

/* mwait_play_dead()'s conditions, in its order; *code is the reason as
 * one word for @boot park_why=. Linux 6.6 does not consult X86_BUG_MONITOR
 * here: INIT, not a write to the line, is what ends this wait (and from
 * 6.12 smp_kick_mwait_play_dead() sends an IPI on those models besides
 * its write), so a broken-MONITOR model still parks in MWAIT, as Linux. */
static const char *linux_mwait_refusal(const char **code)
{
	if (cpu_is_amd()) {
		*code = "amd";
		return "AMD/Hygon: Linux skips mwait_play_dead(), hlt_play_dead()";
	}
	if (!has_monitor()) {
		*code = "no_monitor";
		return "no MONITOR/MWAIT: hlt_play_dead()";
	}
	if (!has_clflush()) {
		*code = "no_clflush";
		return "no CLFLUSH: hlt_play_dead()";
	}
	if (cpuid(0, 0).eax < CPUID_LEAF_MWAIT) {
		*code = "no_cpuid_leaf5";
		return "no CPUID leaf 5: hlt_play_dead()";
	}
	return 0;
}

/* park=mwait waits as Linux's MWAIT idle does, so it follows the idle
 * routine's choice (prefer_mwait_c1_over_halt(), arch/x86/kernel/
 * process.c: "Monitor has a bug. Fallback to HALT") and its CLFLUSH
 * (mwait_idle_with_hints(), arch/x86/include/asm/mwait.h: only with
 * X86_BUG_CLFLUSH_MONITOR). */
static void plan_mwait_experiment(void)
{
	if (!has_monitor()) {
		plan.code = "no_monitor";
		plan.why = "no MONITOR/MWAIT on this CPU: HLT instead";
	} else if (bug_monitor()) {
		plan.code = "x86_bug_monitor";
		plan.why = "X86_BUG_MONITOR model (MONITOR wake-ups unreliable): "
			   "HLT instead, as Linux's idle";
	} else {
		plan.mwait = true;
		plan.clflush = bug_clflush_monitor();
		plan.code = plan.clflush ? "x86_bug_clflush_monitor" : "mwait";
		plan.why = plan.clflush ? "MONITOR/MWAIT, CLFLUSH first "
					  "(X86_BUG_CLFLUSH_MONITOR), no flush"
					: "MONITOR/MWAIT, no flush";
	}
}

void park_setup(enum park_mode mode)
{
	const char *refused, *code = 0;

	plan = (struct park_plan){ .mode = mode };
	switch (mode) {
	case PARK_LINUX:
		refused = linux_mwait_refusal(&code);
		plan.mwait = !refused;
		plan.clflush = plan.mwait; /* mwait_play_dead(): always */
		plan.flush = true;
		plan.why = refused ? refused
			   : bug_monitor() ? "mwait_play_dead() (X86_BUG_MONITOR "
					     "model: Linux parks in MWAIT all the same)"
					   : "mwait_play_dead()";
		plan.code = refused ? code
			    : bug_monitor() ? "mwait_play_dead_bug_monitor"
					    : "mwait_play_dead";
		break;
	case PARK_MWAIT:
		plan_mwait_experiment();
		break;
	case PARK_HLT:
		plan.code = "hlt";
		plan.why = "cli; hlt, no flush";
		break;
	case PARK_INIT:
		plan.code = "init";
		plan.why = "cli; hlt, then INIT from the BSP, no flush";
		break;
	}
}

/* The deepest C-state and sub-state leaf 5 lists, as mwait_play_dead()
 * picks them: without the extensions bit, hint 0. Where leaf 5 lists no
 * sub-state above C0, Linux's formula gives 0xFFFFFFFF (sub-state 0 - 1);
 * we use 0, the C1 hint, instead. */
uint32_t park_mwait_hint(void)
{
	if (cpuid(0, 0).eax < CPUID_LEAF_MWAIT)
		return 0;
	struct cpuid_regs r = cpuid(CPUID_LEAF_MWAIT, 0);
	if (!(r.ecx & CPUID5_ECX_EMX))
		return 0;
	uint32_t cstate = 0, substates = 0;
	uint32_t edx = r.edx >> MWAIT_SUBSTATE_BITS; /* skip C0 */
	for (uint32_t i = 0; i < 7 && edx; i++, edx >>= MWAIT_SUBSTATE_BITS) {
		if (edx & MWAIT_SUBSTATE_MASK) {
			cstate = i;
			substates = edx & MWAIT_SUBSTATE_MASK;
		}
	}
	if (!substates)
		return 0;
	return (cstate << MWAIT_SUBSTATE_BITS) | (substates - 1);
}

/* play_dead_common(): report first. Interrupts are already off: the idle
 * loop checks its requests with them off (Linux disables them right
 * after the report). */
static void report_dead(struct cpu *c)
{
	__atomic_store_n(&c->state, CPU_PARKED, __ATOMIC_RELEASE);
	ap_notify_bsp();
}

static void flush_caches(void)
{
	wbinvd();
	INSTRUMENT_PARK_FLUSHED();
}

/* The last thing before the halting loop: settled_ns ends here. */
static void settled(struct cpu *c)
{
	__atomic_store_n(&c->tsc_settled, rdtsc(), __ATOMIC_RELEASE);
	ap_notify_bsp();
}

/* mwait_play_dead()'s loop. CLFLUSH before MONITOR: Linux's workaround for
 * Xeon 7400 erratum AAI65, kept since a wake-up can come back round (an
 * NMI ends MWAIT; its handler returns here and the loop re-arms). */
static void mwait_forever(volatile uint32_t *line, uint32_t hint, bool flush_line)
	__attribute__((noreturn));
static void mwait_forever(volatile uint32_t *line, uint32_t hint, bool flush_line)
{
	for (;;) {
		if (flush_line) {
			mfence();
			clflush(line);
			mfence();
		}
		monitor(line);
		mfence();
		mwait(hint);
	}
}

void park_ap(struct cpu *c, bool quiet)
{
	report_dead(c);
	if (quiet) {
		settled(c);
		halt_forever();
	}
	if (plan.mwait) {
		/* As mwait_play_dead(): CPUID leaf 5 on this CPU, arm the
		 * line, flush, loop. */
		uint32_t hint = park_mwait_hint();
		volatile uint32_t *line = &park_lines[c->index].armed;
		*line = 1;
		if (plan.flush)
			flush_caches();
		settled(c);
		mwait_forever(line, hint, plan.clflush);
	}
	/* hlt_play_dead(): WBINVD "if family >= 4", true of every CPU that
	 * runs this kernel, then HLT. */
	if (plan.flush)
		flush_caches();
	settled(c);
	halt_forever();
}
