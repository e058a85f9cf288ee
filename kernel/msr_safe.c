/* SPDX-License-Identifier: MIT */
/* RDMSR of an MSR that may not exist raises #GP(0) (SDM Vol. 2B, RDMSR:
 * "If the value in ECX specifies a reserved or unimplemented MSR
 * address"). The one RDMSR below has a global label; a fault at that
 * address resumes at the label after it with the "faulted" register
 * (EDI) cleared, which the caller reads as the result. Labels defined
 * twice would not assemble, so the instruction exists exactly once. */
#include "kernel/msr_safe.h"

#include <stdint.h>

extern const char msr_safe_insn[], msr_safe_resume[];

__attribute__((noinline, noclone)) bool msr_read_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo, hi, ok;

	__asm__ volatile("mov $1, %%edi\n\t"
			 "xor %%eax, %%eax\n\t"
			 "xor %%edx, %%edx\n\t"
			 ".globl msr_safe_insn\n"
			 "msr_safe_insn:\n\t"
			 "rdmsr\n"
			 ".globl msr_safe_resume\n"
			 "msr_safe_resume:\n\t"
			 : "=a"(lo), "=d"(hi), "=D"(ok)
			 : "c"(msr)
			 : "memory");
	*val = ok ? ((uint64_t)hi << 32) | lo : 0;
	return ok != 0;
}

bool msr_safe_fixup(struct trap_frame *f)
{
#if defined(__i386__)
	if (f->eip != (uintptr_t)msr_safe_insn)
		return false;
	f->eip = (uintptr_t)msr_safe_resume;
	f->edi = 0;
	f->eax = f->edx = 0;
#else
	if (f->rip != (uintptr_t)msr_safe_insn)
		return false;
	f->rip = (uintptr_t)msr_safe_resume;
	f->rdi = 0;
	f->rax = f->rdx = 0;
#endif
	return true;
}
