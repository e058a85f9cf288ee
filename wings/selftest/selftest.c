/* SPDX-License-Identifier: MIT */
/* selftest=: the failure paths, made to happen on purpose so that the
 * tests can show each ends with a clear report (docs/tests.md). The wing
 * brings the option and its kinds (selftest_option.c) and hangs its hooks
 * on the core's points (smp/instrument.h); as the first bring-up
 * begins it arms the points of the one test asked, on the first AP to be
 * started. */
#include <stdbool.h>
#include <stdint.h>

#include "app/wing.h"
#include "smp/lapic.h"
#include "smp/instrument.h"
#include "smp/sipi.h"
#include "smp/smp.h"
#include "smp/wake.h"
#include "wings/selftest/selftest_option.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/paging.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* IA32_TIME_STAMP_COUNTER: writable, sets the TSC (SDM Vol. 3B §18.17,
 * "Time-Stamp Counter"; Vol. 4, MSR 10H). */
#define MSR_IA32_TSC 0x10

/* selftest=smi raises one SMI through the APM control port, 0xB2 on the
 * PIIX4 and ICH9 chipsets QEMU emulates (and the ACPI FADT SMI_CMD of
 * most PC firmware): writing it makes the chipset assert SMI# when APM
 * SMIs are enabled (Intel ICH9 datasheet §13.8.3.2, APM_CNT; SeaBIOS
 * enables them), with a value no firmware command uses (not ACPI
 * enable/disable, not a SeaBIOS call). */
#define APM_CNT_PORT 0xB2
#define APM_CMD_NONE 0x5A

/* The test asked (selftest=) and the AP it acts on. */
static enum selftest armed;
static uint32_t selftest_apic = APIC_ID_NONE;
/* selftest=tsc-skew: how far the AP's TSC moved, in ticks (AP side). */
static volatile int64_t tsc_skew_moved;

static void before_bring_up(void)
{
	if (armed == SELFTEST_BSP_FAULT)
		__asm__ volatile("ud2");
}

/* Only on the chosen AP's first bring-up: the cycles run undisturbed. */
static bool selftest_target(const struct cpu *c)
{
	return c->apic_id == selftest_apic && !c->boot_ticks;
}

/* Back by half the TSC's value, at most one second's worth: far enough
 * that no delay explains it, never below zero. */
static void skew_own_tsc(void)
{
	uint64_t before = rdtsc();
	uint64_t back = before / 2;
	uint64_t second = tsc_info()->khz * 1000;
	if (back > second)
		back = second;
	wrmsr(MSR_IA32_TSC, before - back);
	tsc_skew_moved = (int64_t)(rdtsc() - before);
}

/* The first free xAPIC ID above c's in steps of 0x10 (AP 1 -> 0x11). */
static uint32_t renumber_target(const struct cpu *c)
{
	for (uint32_t id = c->apic_id + 0x10; id <= XAPIC_MAX_ID; id += 0x10)
		if (!cpu_by_apic(id))
			return id;
	return APIC_ID_NONE;
}

/* Write this CPU's xAPIC ID register (writable on most implementations,
 * SDM Vol. 3A §11.4.6); false in x2APIC mode, where the ID is read-only. */
static bool set_xapic_id(uint32_t id)
{
	const struct lapic_status *st = lapic_status();
	volatile uint32_t *regs;

	if (st->x2apic || id > XAPIC_MAX_ID ||
	    !(regs = paging_map_phys(st->mmio_phys, 4096, MAP_UC)))
		return false;
	regs[XAPIC_ID_REG / 4] = id << XAPIC_ID_SHIFT;
	return lapic_id() == id;
}

static void renumber(struct cpu *c)
{
	uint32_t old = c->apic_id, id = renumber_target(c);

	if (id == APIC_ID_NONE || !set_xapic_id(id)) {
		kprintf("selftest: apic-renumber: APIC ID %u cannot be renumbered "
			"(x2APIC IDs are read-only)\n", old);
		return;
	}
	/* The trampoline's search and cpu_by_apic() find it by its new ID. */
	__atomic_store_n(&tramp_cpus[c->index].apic_id, id, __ATOMIC_RELEASE);
	__atomic_store_n(&c->apic_id, id, __ATOMIC_RELEASE);
	kprintf("selftest: APIC ID %u renumbered to %u in its xAPIC ID register "
		"(CPUID still says %u)\n", old, cpu_apic_id(), cpu_initial_apic_id());
}

static void ap_arrived(struct cpu *c)
{
	if (!selftest_target(c))
		return;
	if (armed == SELFTEST_AP_FAULT)
		__asm__ volatile("ud2");
	if (armed == SELFTEST_AP_HANG)
		halt_forever();
	if (armed == SELFTEST_APIC_RENUMBER)
		renumber(c);
	if (armed == SELFTEST_AP_LATE) {
		/* Arrive just after the BSP gave up (bounded, in case it
		 * never does): the hand-over must not count us online. */
		uint64_t deadline = tsc_deadline_us(10u * 1000 * 1000);
		while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_STARTING &&
		       !tsc_passed(deadline))
			cpu_relax();
	}
	if (armed == SELFTEST_TSC_SKEW)
		skew_own_tsc();
}

static void after_bring_up(const struct options *o)
{
	(void)o;
	if (armed != SELFTEST_TSC_SKEW)
		return;
	int64_t moved = tsc_skew_moved;
	if (moved < 0)
		kprintf("selftest: APIC ID %u set its TSC back by %llu ns (WRMSR "
			"IA32_TSC)\n", selftest_apic,
			(unsigned long long)tsc_ticks_to_ns(-(uint64_t)moved));
	else
		kprintf("selftest: APIC ID %u wrote IA32_TSC but its TSC did not "
			"go back (the CPU or emulator ignores the write)\n",
			selftest_apic);
}

static bool withhold_sipis(struct cpu *c)
{
	if (!selftest_target(c) || c->retries)
		return false;
	kprintf("selftest: APIC ID %u: INIT without STARTUP IPIs this time "
		"(a lost SIPI)\n", c->apic_id);
	return true;
}

/* A vector in no use (kernel/trap.h), in a priority class below
 * VEC_WAKE's, so that an unacknowledged one could not hide a wake-up. */
#define STRAY_TEST_VECTOR 0x41

static void parked(struct cpu *c, const struct wake_config *w)
{
	static bool done;
	struct cpu *idle = 0;

	if (done || c->apic_id != selftest_apic)
		return;
	done = true;
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	if (armed == SELFTEST_PARKED_NMI) {
		uint32_t before = __atomic_load_n(&c->nmis_parked, __ATOMIC_ACQUIRE);
		kprintf("selftest: NMI IPI sent to APIC ID %u (parked)\n", c->apic_id);
		ap_send_ipi(c, ICR_NMI, "NMI IPI", NULL);
		while (__atomic_load_n(&c->nmis_parked, __ATOMIC_ACQUIRE) == before &&
		       !tsc_passed(deadline))
			cpu_relax();
		return;
	}
	for (uint32_t i = 0; i < cpu_count && !idle; i++)
		if (!cpus[i].bsp && &cpus[i] != c && cpus[i].state == CPU_ONLINE)
			idle = &cpus[i];
	kprintf("selftest: vector 0x%x sent to APIC ID %u (parked)\n",
		STRAY_TEST_VECTOR, c->apic_id);
	ap_send_ipi(c, ICR_FIXED | STRAY_TEST_VECTOR, "stray IPI", NULL);
	if (!idle)
		return;
	uint32_t before = __atomic_load_n(&idle->strays, __ATOMIC_ACQUIRE);
	kprintf("selftest: vector 0x%x sent to APIC ID %u (online, idle)\n",
		STRAY_TEST_VECTOR, idle->apic_id);
	ap_send_ipi(idle, ICR_FIXED | STRAY_TEST_VECTOR, "stray IPI", NULL);
	while (__atomic_load_n(&idle->strays, __ATOMIC_ACQUIRE) == before &&
	       !tsc_passed(deadline))
		cpu_relax();
}

static void gave_up(struct cpu *c)
{
	uint64_t deadline = tsc_deadline_us(100000);
	while (!__atomic_load_n(&c->late_arrivals, __ATOMIC_ACQUIRE) &&
	       !tsc_passed(deadline))
		cpu_relax();
}

static void double_start(struct cpu *c, const struct wake_config *w, uint8_t vector)
{
	if (!selftest_target(c))
		return;
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);

	while (!ap_entered(c, WAKE_ONE) && !tsc_passed(deadline))
		cpu_relax();
	uint32_t seen = ap_last_stage(c, ap_entered(c, WAKE_ONE));
	ap_send_init(c, w);
	uint64_t start = c->marks.start;
	ap_prepare(c);
	c->marks.start = start;
	ap_send_startups(c, w, vector);
	kprintf("selftest: APIC ID %u stopped with INIT at stage %u (%s) and "
		"started again\n", c->apic_id, seen, ap_stage_name(seen));
}

/* selftest=smi: one SMI inside the first timed window's bracket (the
 * first online window of the cycles, before the start; the flush probe's
 * first window on the BSP). */
static void bracket_open(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	outb(APM_CNT_PORT, APM_CMD_NONE);
}

/* The points each test acts at (smp/instrument.h). bsp-fault acts
 * at the wing's own step before the bring-up, tsc-skew also after it. */
static uint32_t points_of(enum selftest t)
{
	switch (t) {
	case SELFTEST_AP_FAULT:
	case SELFTEST_AP_HANG:
	case SELFTEST_APIC_RENUMBER:
	case SELFTEST_TSC_SKEW:
		return SELFTEST_AT_AP_ARRIVED;
	case SELFTEST_AP_LATE:
		return SELFTEST_AT_AP_ARRIVED | SELFTEST_AT_GAVE_UP;
	case SELFTEST_DOUBLE_START:
		return SELFTEST_AT_SIPIS_SENT;
	case SELFTEST_LOST_SIPI:
		return SELFTEST_AT_WITHHOLD_SIPIS;
	case SELFTEST_STRAY_IPI:
	case SELFTEST_PARKED_NMI:
		return SELFTEST_AT_PARKED;
	case SELFTEST_SMI:
		return SELFTEST_AT_BRACKET_OPEN;
	default:
		return 0;
	}
}

/* As the first bring-up begins: the test asked, on the first AP to be
 * started. */
static uint32_t arm(void)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		if (!cpus[i].bsp && cpus[i].state == CPU_ABSENT) {
			selftest_apic = cpus[i].apic_id;
			break;
		}
	}
	if (armed == SELFTEST_SMI)
		kprintf("selftest: smi: one SMI (APM control port) inside the first timed "
			"window's bracket\n");
	return points_of(armed);
}

/* The option, read before anything runs (bsp-fault acts before the
 * bring-up); the APs read it too. */
static void options_parsed(const struct options *o, const struct boot_info *bi)
{
	(void)o;
	(void)bi;
	__atomic_store_n(&armed, selftest_options.selftest, __ATOMIC_RELEASE);
}

static const struct selftest_points points = {
	.arm = arm,
	.ap_arrived = ap_arrived,
	.sipis_sent = double_start,
	.withhold_sipis = withhold_sipis,
	.parked = parked,
	.gave_up = gave_up,
	.bracket_open = bracket_open,
};

WING(selftest) = {
	.name = "selftest",
	.options = WING_OPTIONS(selftest_option_rows, &selftest_options),
	.options_parsed = options_parsed,
	.before_bring_up = before_bring_up,
	.after_bring_up = after_bring_up,
	.selftest_points = &points,
};
