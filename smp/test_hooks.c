/* SPDX-License-Identifier: MIT */
/* The out-of-line parts of the test hooks (smp/test_hooks.h). */
#include "smp/test_hooks.h"

#include "smp/sipi.h"
#include "smp/trampoline.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* IA32_TIME_STAMP_COUNTER: writable, sets the TSC (SDM Vol. 3B §18.17,
 * "Time-Stamp Counter"; Vol. 4, MSR 10H). */
#define MSR_IA32_TSC 0x10

enum selftest test_selftest;
static uint32_t selftest_apic = APIC_ID_NONE;
/* selftest=tsc-skew: how far the AP's TSC moved, in ticks (AP side). */
static volatile int64_t tsc_skew_moved;

void test_hooks_setup(enum selftest s)
{
	test_selftest = s;
	for (uint32_t i = 0; i < cpu_count; i++) {
		if (!cpus[i].bsp && cpus[i].state == CPU_ABSENT) {
			selftest_apic = cpus[i].apic_id;
			break;
		}
	}
}

void test_hook_before_bring_up(void)
{
	if (test_selftest == SELFTEST_BSP_FAULT)
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

static void renumber(struct cpu *c)
{
	uint32_t old = c->apic_id, id = renumber_target(c);

	if (id == APIC_ID_NONE || !lapic_set_xapic_id(id)) {
		kprintf("selftest: apic-renumber: APIC ID %u cannot be renumbered "
			"(x2APIC IDs are read-only)\n", old);
		return;
	}
	smp_renumber(c, id);
	kprintf("selftest: APIC ID %u renumbered to %u in its xAPIC ID register "
		"(CPUID still says %u)\n", old, cpu_apic_id(), cpu_initial_apic_id());
}

void test_hooks_ap_selftest(struct cpu *c)
{
	if (!selftest_target(c))
		return;
	if (test_selftest == SELFTEST_AP_FAULT)
		__asm__ volatile("ud2");
	if (test_selftest == SELFTEST_AP_HANG)
		halt_forever();
	if (test_selftest == SELFTEST_APIC_RENUMBER)
		renumber(c);
	if (test_selftest == SELFTEST_AP_LATE) {
		/* Arrive just after the BSP gave up (bounded, in case it
		 * never does): the hand-over must not count us online. */
		uint64_t deadline = tsc_deadline_us(10u * 1000 * 1000);
		while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_STARTING &&
		       !tsc_passed(deadline))
			cpu_relax();
	}
	if (test_selftest == SELFTEST_TSC_SKEW)
		skew_own_tsc();
}

void test_hook_after_bring_up(void)
{
	if (test_selftest != SELFTEST_TSC_SKEW)
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

bool test_hooks_lose_sipis(struct cpu *c)
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

void test_hooks_parked(struct cpu *c, const struct wake_config *w)
{
	static bool done;
	struct cpu *idle = 0;

	if (done || c->apic_id != selftest_apic)
		return;
	done = true;
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);
	if (test_selftest == SELFTEST_PARKED_NMI) {
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

void test_hooks_gave_up(struct cpu *c)
{
	uint64_t deadline = tsc_deadline_us(100000);
	while (!__atomic_load_n(&c->late_arrivals, __ATOMIC_ACQUIRE) &&
	       !tsc_passed(deadline))
		cpu_relax();
}

void test_hooks_double_start(struct cpu *c, const struct wake_config *w,
			     uint8_t vector)
{
	if (!selftest_target(c))
		return;
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);

	while (!ap_entered(c, true) && !tsc_passed(deadline))
		cpu_relax();
	uint32_t seen = ap_last_stage(c, ap_entered(c, true));
	ap_send_init(c, w);
	uint64_t start = c->marks.start;
	ap_prepare(c);
	c->marks.start = start;
	ap_send_startup_ipis(c, w, vector, false);
	kprintf("selftest: APIC ID %u stopped with INIT at stage %u (%s) and "
		"started again\n", c->apic_id, seen, ap_stage_name(seen));
}

void icount_fence_stop(void)
{
	cpu_relax();
	lapic_timer_stop();
}

/* The spins' sizes, ns; each stays 0 in a build without that spin. */
static uint32_t slow_tramp_ns = APSTART_SLOW_TRAMP_NS;
static uint32_t slow_park_ns = APSTART_SLOW_PARK_NS;

void test_hooks_slow_spins(uint32_t tramp_ns, uint32_t park_ns)
{
	if (APSTART_SLOW_TRAMP_NS)
		slow_tramp_ns = tramp_ns;
	if (APSTART_SLOW_PARK_NS)
		slow_park_ns = park_ns;
}

uint32_t test_hooks_slow_spin_ticks(void)
{
	return (uint32_t)((uint64_t)slow_tramp_ns * tsc_info()->khz / 1000000);
}

void test_hooks_slow_park_spin(void)
{
	uint64_t ticks = (uint64_t)slow_park_ns * tsc_info()->khz / 1000000;
	uint64_t start = rdtsc();
	while (rdtsc() - start < ticks)
		cpu_relax();
}
