/* SPDX-License-Identifier: MIT */
/* The out-of-line parts of the test hooks (smp/test_hooks.h). */
#include "smp/test_hooks.h"

#include "smp/trampoline.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

enum selftest test_selftest;
static uint32_t selftest_apic = APIC_ID_NONE;

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

void test_hooks_ap_selftest(const struct cpu *c)
{
	if (!selftest_target(c))
		return;
	if (test_selftest == SELFTEST_AP_FAULT)
		__asm__ volatile("ud2");
	if (test_selftest == SELFTEST_AP_HANG)
		halt_forever();
}

void test_hooks_double_start(struct cpu *c, const struct wake_config *w,
			     uint8_t vector)
{
	if (!selftest_target(c))
		return;
	struct tramp_header *h = trampoline_header();
	uint64_t deadline = tsc_deadline_us((uint64_t)w->ap_timeout_ms * 1000);

	while (h->stage == TRAMP_STAGE_NONE && !tsc_passed(deadline))
		cpu_relax();
	uint32_t seen = h->stage;
	ap_send_init(c, w);
	c->stage = 0;
	h->stage = TRAMP_STAGE_NONE;
	h->stage_apic = APIC_ID_NONE;
	__atomic_store_n(&c->state, CPU_STARTING, __ATOMIC_RELEASE);
	ap_send_startup_ipis(c, w, vector);
	kprintf("selftest: APIC ID %u stopped with INIT at stage %u (%s) and "
		"started again\n", c->apic_id, seen, ap_stage_name(seen));
}

void icount_fence_stop(void)
{
	cpu_relax();
	lapic_timer_stop();
}

uint32_t test_hooks_slow_spin_ticks(void)
{
	return (uint32_t)((uint64_t)APSTART_SLOW_TRAMP_NS * tsc_info()->khz / 1000000);
}
