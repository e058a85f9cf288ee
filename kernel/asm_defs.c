/* SPDX-License-Identifier: MIT */
/* Constants of the platform that its assembly uses: GDT selectors and
 * descriptors (boot/start.asm, kernel/gdt.asm, realmode/trampoline.asm
 * through kernel/gdt.inc), the UART (boot/cpu_floor.asm). */
#include "kernel/asm_defs.h"
#include "kernel/gdt.h"
#include "kernel/serial.h"

void kernel_asm_defs(void);

void kernel_asm_defs(void)
{
	ASM_DEFINE(SEL_CODE32, SEL_CODE32);
	ASM_DEFINE(SEL_DATA, SEL_DATA);
	ASM_DEFINE(SEL_CODE64, SEL_CODE64);
	ASM_DEFINE(GDT_DESC_CODE32, GDT_DESC_CODE32);
	ASM_DEFINE(GDT_DESC_DATA, GDT_DESC_DATA);
	ASM_DEFINE(GDT_DESC_CODE64, GDT_DESC_CODE64);
	ASM_DEFINE(SERIAL_COM1, SERIAL_COM1);
	ASM_DEFINE(UART_THR, UART_THR);
	ASM_DEFINE(UART_DLL, UART_DLL);
	ASM_DEFINE(UART_IER, UART_IER);
	ASM_DEFINE(UART_DLM, UART_DLM);
	ASM_DEFINE(UART_FCR, UART_FCR);
	ASM_DEFINE(UART_LCR, UART_LCR);
	ASM_DEFINE(UART_MCR, UART_MCR);
	ASM_DEFINE(UART_LSR, UART_LSR);
	ASM_DEFINE(UART_SCR, UART_SCR);
	ASM_DEFINE(LCR_8N1, LCR_8N1);
	ASM_DEFINE(LCR_DLAB, LCR_DLAB);
	ASM_DEFINE(LSR_THRE, LSR_THRE);
	ASM_DEFINE(FCR_ON, FCR_ON);
	ASM_DEFINE(MCR_ON, MCR_ON);
}
