/* SPDX-License-Identifier: MIT */
/* RDMSR or WRMSR of an MSR that may not exist raises #GP(0) (SDM Vol.
 * 2B, RDMSR/WRMSR: "If the value in ECX specifies a reserved or
 * unimplemented MSR address"). A fault at an instruction's global label
 * resumes at the label after it with the "faulted" register (EDI)
 * cleared, which the caller reads; each label, so each instruction, once. */
#include "kernel/msr_safe.h"

#include "kernel/trap_frame.h"

#include <stdint.h>

extern const char msr_safe_insn[], msr_safe_resume[];
extern const char msr_safe_wr_insn[], msr_safe_wr_resume[];

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

__attribute__((noinline, noclone)) bool msr_write_safe(uint32_t msr, uint64_t val)
{
	uint32_t ok;

	__asm__ volatile("mov $1, %%edi\n\t"
			 ".globl msr_safe_wr_insn\n"
			 "msr_safe_wr_insn:\n\t"
			 "wrmsr\n"
			 ".globl msr_safe_wr_resume\n"
			 "msr_safe_wr_resume:\n\t"
			 : "=D"(ok)
			 : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : "memory");
	return ok != 0;
}

/* Where a fault at INSN resumes, or 0 for an address of neither. */
static uintptr_t resume_after(uintptr_t insn)
{
	if (insn == (uintptr_t)msr_safe_insn)
		return (uintptr_t)msr_safe_resume;
	if (insn == (uintptr_t)msr_safe_wr_insn)
		return (uintptr_t)msr_safe_wr_resume;
	return 0;
}

/* A fault was this file's RDMSR or WRMSR: resume after it, as failed. */
bool msr_safe_fixup(struct trap_frame *f)
{
#if defined(__i386__)
	uintptr_t to = resume_after(f->eip);
	if (!to)
		return false;
	f->eip = to;
	f->edi = 0;
	f->eax = f->edx = 0;
#else
	uintptr_t to = resume_after(f->rip);
	if (!to)
		return false;
	f->rip = to;
	f->rdi = 0;
	f->rax = f->rdx = 0;
#endif
	return true;
}
