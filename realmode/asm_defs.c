/* SPDX-License-Identifier: MIT */
/* What realmode/trampoline.asm takes from C: the header and per-CPU table
 * layout (offset and width of every field), the values it writes, and
 * the stage numbers, all from realmode/trampoline_abi.h. */
#include "realmode/trampoline_abi.h"
#include "kernel/asm_defs.h"
#include "kernel/cpu.h"
#include "kernel/x86.h"

#define HDR_FIELD(NAME, member) \
	ASM_DEFINE(HDR_##NAME, offsetof(struct tramp_header, member)); \
	ASM_DEFINE(HDR_##NAME##_SIZE, sizeof(((struct tramp_header *)0)->member))

void realmode_asm_defs(void);

void realmode_asm_defs(void)
{
	ASM_DEFINE(TRAMP_MAGIC, TRAMP_MAGIC);
	ASM_DEFINE(TRAMP_VERSION, TRAMP_VERSION);
	ASM_DEFINE(TRAMP_HDR, TRAMP_HDR);
	ASM_DEFINE(TRAMP_HDR_SIZE, sizeof(struct tramp_header));
	ASM_DEFINE(TRAMP_FLAG_WBINVD, TRAMP_FLAG_WBINVD);
	ASM_DEFINE(TRAMP_SLOW_TICKS_AT, TRAMP_SLOW_TICKS_AT);
	ASM_DEFINE(APIC_ID_NONE, APIC_ID_NONE);
	ASM_DEFINE(MSR_IA32_APIC_BASE, MSR_IA32_APIC_BASE);
	ASM_DEFINE(APIC_BASE_EN, APIC_BASE_EN);
	ASM_DEFINE(APIC_BASE_EXTD, APIC_BASE_EXTD);
	ASM_DEFINE(APIC_BASE_ADDR_LOW, (uint32_t)APIC_BASE_ADDR);
	ASM_DEFINE(XAPIC_ID_REG, XAPIC_ID_REG);
	ASM_DEFINE(XAPIC_ID_SHIFT, XAPIC_ID_SHIFT);
	ASM_DEFINE(MSR_X2APIC_ID, MSR_X2APIC_ID);

	HDR_FIELD(MAGIC, magic);
	HDR_FIELD(VERSION, version);
	HDR_FIELD(SIZE, size);
	HDR_FIELD(CR3, cr3);
	HDR_FIELD(FLAGS, flags);
	HDR_FIELD(GDT_LIMIT, gdt_limit);
	HDR_FIELD(GDT_BASE, gdt_base);
	HDR_FIELD(PAD0, pad0);
	HDR_FIELD(FAR32_OFFSET, far32_offset);
	HDR_FIELD(FAR32_SELECTOR, far32_selector);
	HDR_FIELD(PAD1, pad1);
	HDR_FIELD(FAR64_OFFSET, far64_offset);
	HDR_FIELD(FAR64_SELECTOR, far64_selector);
	HDR_FIELD(PAD2, pad2);
	HDR_FIELD(C_ENTRY, c_entry);
	HDR_FIELD(CPU_TABLE, cpu_table);
	HDR_FIELD(CPU_COUNT, cpu_count);
	HDR_FIELD(REAL_ENTRIES, real_entries);
	HDR_FIELD(NO_SLOT_APIC, no_slot_apic);
	HDR_FIELD(OFF_CODE32, off_code32);
	HDR_FIELD(OFF_CODE64, off_code64);
	HDR_FIELD(OFF_CODE_END, off_code_end);

	ASM_DEFINE(TRAMP_CPU_SIZE, sizeof(struct tramp_cpu));
	ASM_DEFINE(TRAMP_CPU_APIC_ID, offsetof(struct tramp_cpu, apic_id));
	ASM_DEFINE(TRAMP_CPU_INDEX, offsetof(struct tramp_cpu, index));
	ASM_DEFINE(TRAMP_CPU_STACK_TOP, offsetof(struct tramp_cpu, stack_top));
	ASM_DEFINE(TRAMP_CPU_STAGE, offsetof(struct tramp_cpu, stage));
	ASM_DEFINE(TRAMP_CPU_TSC_REAL, offsetof(struct tramp_cpu, tsc[AP_MARK_REAL]));
	ASM_DEFINE(TRAMP_CPU_TSC_PROTECTED, offsetof(struct tramp_cpu, tsc[AP_MARK_PROTECTED]));
	ASM_DEFINE(TRAMP_CPU_TSC_LONG, offsetof(struct tramp_cpu, tsc[AP_MARK_LONG]));

	ASM_DEFINE(TRAMP_STAGE_REAL, TRAMP_STAGE_REAL);
	ASM_DEFINE(TRAMP_STAGE_PROTECTED, TRAMP_STAGE_PROTECTED);
	ASM_DEFINE(TRAMP_STAGE_LONG, TRAMP_STAGE_LONG);
	ASM_DEFINE(TRAMP_STAGE_STACK, TRAMP_STAGE_STACK);
	ASM_DEFINE(TRAMP_STAGE_NO_SLOT, TRAMP_STAGE_NO_SLOT);
}
