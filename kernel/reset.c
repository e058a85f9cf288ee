/* SPDX-License-Identifier: MIT */
/* Resetting the machine, the chipset's ways (the firmware's ResetSystem,
 * where UEFI runtime services were handed over, is the uefi wing's and
 * comes first: app/run.c). exit=reset: the keyboard controller's reset
 * line, which PC-compatible machines and QEMU wire to the CPUs' reset.
 * exit=reboot keeps RAM (pstore=): warm at every step, in the order
 * Linux's reboot tries (arch/x86/kernel/reboot.c: ACPI, keyboard
 * controller, EFI, CF9); each step says what it tries, and the next one
 * follows if the machine is still running a moment later. */
#include "kernel/reset.h"

#include <stdint.h>

#include "kernel/abort.h"
#include "kernel/console.h"
#include "kernel/paging.h"
#include "kernel/x86.h"

/* 8042: status port, input-buffer-full bit, "pulse output port bit 0"
 * (the CPU reset line) command (IBM PC AT Technical Reference, keyboard
 * controller). */
#define KBC_STATUS 0x64
#define KBC_STATUS_IBF 0x02
#define KBC_CMD_RESET 0xFE
/* BIOS data area reset flag: 0x1234 tells a BIOS's POST the reset is warm
 * (skip the memory test; IBM PC AT BIOS listing, 0040:0072). Linux writes
 * it for reboot=warm. */
#define BDA_RESET_FLAG 0x472
#define BDA_RESET_WARM 0x1234
/* Reset Control Register, I/O 0xCF9 (Intel PCH datasheets, RST_CNT):
 * bit 1 SYS_RST (hard reset), bit 2 RST_CPU (0->1 starts the reset),
 * bit 3 FULL_RST (power cycle: RAM lost). Warm: 0x02, then 0x06. */
#define RST_CNT 0xCF9
#define RST_CNT_SYS_RST 0x02
#define RST_CNT_RST_CPU 0x04
#define RST_CNT_FULL_RST 0x08

static bool have_acpi_reset;
static uint8_t acpi_space, acpi_value;
static uint64_t acpi_addr;

void reset_use_acpi(const struct acpi_info *acpi)
{
	have_acpi_reset = acpi->have_reset_reg;
	acpi_space = acpi->reset_space;
	acpi_addr = acpi->reset_addr;
	acpi_value = acpi->reset_value;
}

/* A moment for a reset to take: about 10 ms on this side of 10 GHz, any
 * CPU (no timer needed). */
static void wait_a_moment(void)
{
	for (uint32_t spins = 0; spins < 10000000; spins++)
		cpu_relax();
}

static void kbc_pulse(void)
{
	for (uint32_t spins = 0; spins < 1000000 && (inb(KBC_STATUS) & KBC_STATUS_IBF); spins++)
		cpu_relax();
	outb(KBC_STATUS, KBC_CMD_RESET);
}

void machine_reset(void)
{
	kbc_pulse();
	wait_a_moment();
	kprintf("reset: the machine did not reset; halting\n");
	halt_forever();
}

/* ACPI 6.5 §4.8.3.6: write RESET_VALUE to RESET_REG. Where the register is
 * the chipset's RST_CNT and the value asks for a full reset (power cycle),
 * the full-reset bit is left out: this reset is to keep RAM. */
static void acpi_reset(void)
{
	uint8_t v = acpi_value;

	if (acpi_space == 1 && acpi_addr == RST_CNT && (v & RST_CNT_FULL_RST)) {
		v &= (uint8_t)~RST_CNT_FULL_RST;
		kprintf("reset: the FADT's value 0x%x would power-cycle (FULL_RST): 0x%x\n",
			acpi_value, v);
	}
	kprintf("reset: warm, through the FADT reset register (%s 0x%llx <- 0x%x)\n",
		acpi_space ? "I/O" : "memory", (unsigned long long)acpi_addr, v);
	if (acpi_space == 1) {
		outb((uint16_t)acpi_addr, v);
	} else {
		volatile uint8_t *r = paging_map_phys(acpi_addr, 1, MAP_UC);
		if (r)
			*r = v;
	}
}

void machine_reboot_warm(void)
{
	if (have_acpi_reset) {
		acpi_reset();
		wait_a_moment();
	}
	phys_write16(BDA_RESET_FLAG, BDA_RESET_WARM);
	kprintf("reset: warm, through the keyboard controller (BIOS flag 0x472 = 0x1234)\n");
	kbc_pulse();
	wait_a_moment();
	kprintf("reset: warm, through port 0xCF9 (0x02, then 0x06)\n");
	uint8_t cf9 = inb(RST_CNT) & (uint8_t)~(RST_CNT_SYS_RST | RST_CNT_RST_CPU | RST_CNT_FULL_RST);
	outb(RST_CNT, cf9 | RST_CNT_SYS_RST);
	wait_a_moment();
	outb(RST_CNT, cf9 | RST_CNT_SYS_RST | RST_CNT_RST_CPU);
	wait_a_moment();
	kprintf("reset: the machine did not reset; halting\n");
	halt_forever();
}
