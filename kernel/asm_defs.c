/* SPDX-License-Identifier: MIT */
/* Constants of the platform that its assembly uses: GDT selectors and
 * descriptors (boot/start.asm, kernel/gdt.asm, realmode/trampoline.asm
 * through kernel/gdt.inc). */
#include "kernel/asm_defs.h"
#include "kernel/gdt.h"

void kernel_asm_defs(void);

void kernel_asm_defs(void)
{
	ASM_DEFINE(SEL_CODE32, SEL_CODE32);
	ASM_DEFINE(SEL_DATA, SEL_DATA);
	ASM_DEFINE(SEL_CODE64, SEL_CODE64);
	ASM_DEFINE(GDT_DESC_CODE32, GDT_DESC_CODE32);
	ASM_DEFINE(GDT_DESC_DATA, GDT_DESC_DATA);
	ASM_DEFINE(GDT_DESC_CODE64, GDT_DESC_CODE64);
}
