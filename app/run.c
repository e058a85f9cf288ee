/* SPDX-License-Identifier: MIT */
/* Leaving the kernel: under QEMU through isa-debug-exit with the verdict
 * as the process status; on real hardware every CPU halts with
 * interrupts off and the results stay on the screen. */
#include "app/run.h"

#include <stdint.h>

#include "app/pager.h"
#include "app/summary_save.h"

#include "smp/smp.h"
#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/qemu.h"
#include "kernel/reset.h"
#include "kernel/warn.h"

static enum exit_mode exit_mode = EXIT_HALT;

void run_set_exit_mode(enum exit_mode mode)
{
	exit_mode = mode;
}

/* finished: the run got to its report (not aborted), so the result and
 * QR pages have something to show while the machine stays halted. */
static void leave(bool pass, bool finished) __attribute__((noreturn));
static void leave(bool pass, bool finished)
{
	summary_save();
	if (exit_mode == EXIT_QEMU)
		qemu_debug_exit(pass);
	if (exit_mode == EXIT_RESET)
		machine_reset();
	if (finished)
		pager_run(pass);
	halt_forever();
}

/* The abort handler: the first CPU that ends a run early reports it. */
static void end_aborted(const char *why)
{
	kprintf("run aborted: %s\n", why);
	kprintf("@end status=fail online=%u failed=%u warnings=%u\n",
		smp_count_state(CPU_ONLINE) + smp_count_state(CPU_PARKED),
		smp_count_state(CPU_FAILED), warn_count());
	leave(false, false);
}

void run_init(void)
{
	abort_set_handler(end_aborted);
}

void run_finish(bool pass)
{
	if (!run_claim_end())
		halt_forever();
	leave(pass, true);
}
