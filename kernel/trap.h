/* IDT and CPU exceptions. */
#ifndef APSTART_TRAP_H
#define APSTART_TRAP_H

#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

void idt_init(void);  /* once, on the BSP */
void idt_load(void);  /* on every CPU */

#endif
