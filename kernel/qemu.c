/* SPDX-License-Identifier: MIT */
#include "kernel/qemu.h"

#include <stdint.h>

#include "kernel/cpu.h"
#include "kernel/x86.h"

#define QEMU_DEBUG_EXIT_PORT 0xF4
#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000

bool qemu_detect(void)
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

void qemu_debug_exit(bool pass)
{
	outl(QEMU_DEBUG_EXIT_PORT, pass ? 0 : 1);
}
