/* SPDX-License-Identifier: MIT */
/* Leaving the kernel: under QEMU through isa-debug-exit with the verdict
 * as the process status; on real hardware every CPU halts with
 * interrupts off and the results stay on the screen. */
#include "app/run.h"

#include <stdint.h>

#include "app/kept_lines.h"
#include "app/wing.h"

#include "smp/events.h"
#include "smp/smp.h"
#include "kernel/abort.h"
#include "kernel/confound.h"
#include "kernel/console.h"
#include "kernel/qemu.h"
#include "kernel/reset.h"
#include "kernel/warn.h"

static enum exit_mode exit_mode = EXIT_HALT;
static const struct wing_run *chosen;

const struct wing_run *run_choose(void)
{
	chosen = NULL;
	for_each_wing(w) {
		if (!w->run || !w->run->chosen())
			continue;
		if (chosen) {
			kprintf("run: %s ignored: %s was asked for first\n", w->run->name,
				chosen->name);
			warn_record("what=option problem=second_run option=%s", w->run->name);
			continue;
		}
		chosen = w->run;
		kprintf("run: %s (the %s wing) instead of the offline/online cycles\n",
			chosen->name, w->name);
	}
	return chosen;
}

const struct wing_run *run_chosen(void)
{
	return chosen;
}

void run_set_exit_mode(enum exit_mode mode)
{
	exit_mode = mode;
}

/* finished: the run got to its report (not aborted), so the result and
 * QR pages have something to show while the machine stays halted. */
static void leave(bool pass, bool finished) __attribute__((noreturn));
static void leave(bool pass, bool finished)
{
	kept_lines_end();
	for_each_wing(w)
		if (w->run_ends)
			w->run_ends(pass);
	if (exit_mode == EXIT_QEMU)
		qemu_debug_exit(pass);
	if (exit_mode == EXIT_RESET)
		machine_reset();
	if (exit_mode == EXIT_REBOOT)
		machine_reboot_warm();
	if (finished)
		for_each_wing(w)
			if (w->halted)
				w->halted(pass);
	halt_forever();
}

/* The abort handler: the first CPU that ends a run early reports it. */
static void end_aborted(const char *why)
{
	kprintf("run aborted: %s\n", why);
	wings_before_end();
	kprintf("@end status=fail online=%u failed=%u warnings=%u\n",
		smp_count_state(CPU_ONLINE) + smp_count_state(CPU_PARKED),
		smp_count_state(CPU_FAILED), warn_count());
	leave(false, false);
}

void run_init(void)
{
	abort_set_handler(end_aborted);
}

bool run_verdict(uint32_t cycles, bool complete)
{
	for (uint32_t i = 0; i < cpu_count; i++) {
		if (!cpus[i].late_arrivals)
			continue;
		kprintf("smp: APIC ID %u reached C %u time(s) after it was "
			"given up on\n", cpus[i].apic_id, cpus[i].late_arrivals);
		warn_record("what=late_ap apic=%u arrivals=%u", cpus[i].apic_id,
			    cpus[i].late_arrivals);
	}
	events_report();
	confound_report();
	uint32_t failed = smp_count_state(CPU_FAILED);
	uint32_t online = 0, retries = 0;
	for (uint32_t i = 0; i < cpu_count; i++) {
		online += cpus[i].bsp || cpus[i].cycles_done == cycles;
		retries += cpus[i].retries;
	}
	bool pass = failed == 0 && complete;
	wings_before_end();
	kprintf("@end status=%s online=%u failed=%u warnings=%u nmis=%u strays=%u "
		"retries=%u smi_windows=%u\n", pass ? "pass" : "fail", online, failed, warn_count(),
		events_nmi_total(), events_stray_total(), retries, confound_smi_windows());
	return pass;
}

void run_finish(bool pass)
{
	if (!run_claim_end())
		halt_forever();
	leave(pass, true);
}
