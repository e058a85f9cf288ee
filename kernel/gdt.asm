; SPDX-License-Identifier: MIT
; The kernel's GDT (loaded by boot/start.asm on the way to long mode, or
; for ARCH=i386 to paged protected mode: the same table, whose 64-bit
; code descriptor i386 never loads) and gdt_reload(), with which every AP
; leaves the trampoline's copy.

%include "kernel/gdt.inc"

global gdt64_ptr
global gdt_reload

section .text

; void gdt_reload(void): load the kernel GDT and reload every segment
; register.
%ifdef ARCH_i386
bits 32
gdt_reload:
	lgdt [gdt64_ptr]                ; limit and the low 4 bytes of the base
	LOAD_DATA_SEGMENTS
	jmp SEL_CODE32:.cs_reloaded
.cs_reloaded:
	ret
%else
bits 64
gdt_reload:
	lgdt [gdt64_ptr]
	LOAD_DATA_SEGMENTS
	pop rax                         ; return address
	push SEL_CODE64
	push rax
	retfq
%endif

section .data
align 16
gdt64:
	GDT_TABLE
gdt64_end:
align 16
gdt64_ptr:
	dw gdt64_end - gdt64 - 1
%ifdef ARCH_i386
	dd gdt64, 0
%else
	dq gdt64                        ; 32-bit lgdt reads only the low 4 bytes
%endif
