/* Leaving the kernel. Under QEMU the isa-debug-exit device (port 0xF4)
 * turns our value v into the process status (v << 1) | 1: 1 = pass,
 * 3 = fail. On real hardware every CPU halts with interrupts off. */
#include "app/run.h"

#include <stdint.h>

#include "smp/smp.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/x86.h"

#define QEMU_DEBUG_EXIT_PORT 0xF4
#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000

static enum exit_mode exit_mode = EXIT_HALT;
static volatile uint32_t ended;

bool run_under_qemu(void)
{
	if (!cpu_has_hypervisor())
		return false;
	outw(FW_CFG_SELECTOR, FW_CFG_SIGNATURE);
	static const char want[4] = { 'Q', 'E', 'M', 'U' };
	for (int i = 0; i < 4; i++)
		if (inb(FW_CFG_DATA) != (uint8_t)want[i])
			return false;
	return true;
}

void run_set_exit_mode(enum exit_mode mode)
{
	exit_mode = mode;
}

bool run_aborted(void)
{
	return __atomic_load_n(&ended, __ATOMIC_ACQUIRE) != 0;
}

void halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

static void leave(bool pass)
{
	if (exit_mode == EXIT_QEMU)
		outl(QEMU_DEBUG_EXIT_PORT, pass ? 0 : 1);
	halt_forever();
}

void run_abort(const char *why)
{
	if (__atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL))
		halt_forever();
	kprintf("run aborted: %s\n", why);
	kprintf("@end status=fail online=%u failed=%u\n",
		smp_count_state(CPU_ONLINE) + smp_count_state(CPU_PARKED),
		smp_count_state(CPU_FAILED));
	leave(false);
	halt_forever();
}

void run_finish(bool pass)
{
	if (__atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL))
		halt_forever();
	leave(pass);
	halt_forever();
}
