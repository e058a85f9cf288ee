; SPDX-License-Identifier: MIT
; The kernel's GDT (loaded by boot/start.asm on the way to long mode) and
; gdt_reload(), with which every AP leaves the trampoline's copy.

%include "kernel/gdt.inc"

global gdt64_ptr
global gdt_reload

section .text
bits 64

; void gdt_reload(void): load the kernel GDT and reload every segment
; register.
gdt_reload:
	lgdt [gdt64_ptr]
	LOAD_DATA_SEGMENTS
	pop rax                         ; return address
	push SEL_CODE64
	push rax
	retfq

section .data
align 16
gdt64:
	GDT_TABLE
gdt64_end:
align 16
gdt64_ptr:
	dw gdt64_end - gdt64 - 1
	dq gdt64                        ; 32-bit lgdt reads only the low 4 bytes
