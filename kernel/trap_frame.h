/* SPDX-License-Identifier: MIT */
/* What kernel/isr.asm saves of a CPU taking a vector, as the handlers and
 * the fixups (kernel/msr_safe.c, a wing's firmware call) see it. */
#ifndef APSTART_TRAP_FRAME_H
#define APSTART_TRAP_FRAME_H

#include <stdint.h>

#if defined(__i386__)
/* kernel/isr.asm's i386 frame: PUSHAD, then the stub's vector and error
 * code, then what the CPU pushed (from ring 0 no ESP and SS). */
struct trap_frame {
	uint32_t edi, esi, ebp, esp_at_pushad, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
};
#else
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};
#endif

#endif
