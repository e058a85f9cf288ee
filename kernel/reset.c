/* SPDX-License-Identifier: MIT */
/* Resetting the machine (exit=reset): the firmware's ResetSystem when UEFI
 * runtime services are usable, else the keyboard controller's reset line,
 * which PC-compatible machines and QEMU wire to the CPUs' reset. */
#include "kernel/reset.h"

#include <stdint.h>

#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/efi_runtime.h"
#include "kernel/x86.h"

/* 8042: status port, input-buffer-full bit, "pulse output port bit 0"
 * (the CPU reset line) command (IBM PC AT Technical Reference, keyboard
 * controller). */
#define KBC_STATUS 0x64
#define KBC_STATUS_IBF 0x02
#define KBC_CMD_RESET 0xFE

void machine_reset(void)
{
	if (efi_runtime_usable()) {
		efi_status st = efi_reset_system();
		kprintf("reset: ResetSystem returned %s\n", efi_status_name(st));
	}
	for (uint32_t spins = 0; spins < 1000000 && (inb(KBC_STATUS) & KBC_STATUS_IBF); spins++)
		cpu_relax();
	outb(KBC_STATUS, KBC_CMD_RESET);
	for (uint32_t spins = 0; spins < 10000000; spins++)
		cpu_relax();
	kprintf("reset: the machine did not reset; halting\n");
	halt_forever();
}
