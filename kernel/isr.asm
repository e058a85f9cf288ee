; SPDX-License-Identifier: MIT
; Interrupt entry stubs, one for each of the 256 vectors: normalise the
; stack to one trap_frame layout (vector, error code, then the CPU's frame)
; and call trap_dispatch(). Every vector has a gate, so that an interrupt
; nobody asked for (a stray IPI, a misrouted device interrupt) is counted
; and survived instead of becoming a #GP through an empty gate.

extern trap_dispatch
global isr_table

%macro ISR_NOERR 1
isr_%1:
	push 0                          ; no error code for this vector
	push %1
	jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_%1:
	push %1                         ; CPU pushed an error code
	jmp isr_common
%endmacro

; A pointer-sized table entry.
%ifdef ARCH_i386
%define DPTR dd
%else
%define DPTR dq
%endif

section .text
%ifdef ARCH_i386
bits 32
%else
bits 64
%endif

; Vectors with an error code: SDM Vol. 3A §6.15 (Table 6-1).
ISR_NOERR 0
ISR_NOERR 1
ISR_NOERR 2
ISR_NOERR 3
ISR_NOERR 4
ISR_NOERR 5
ISR_NOERR 6
ISR_NOERR 7
ISR_ERR   8
ISR_NOERR 9
ISR_ERR   10
ISR_ERR   11
ISR_ERR   12
ISR_ERR   13
ISR_ERR   14
ISR_NOERR 15
ISR_NOERR 16
ISR_ERR   17
ISR_NOERR 18
ISR_NOERR 19
ISR_NOERR 20
ISR_ERR   21
ISR_NOERR 22
ISR_NOERR 23
ISR_NOERR 24
ISR_NOERR 25
ISR_NOERR 26
ISR_NOERR 27
ISR_NOERR 28
ISR_ERR   29
ISR_ERR   30
ISR_NOERR 31
%assign i 32
%rep 256 - 32
ISR_NOERR i                             ; interrupts: no error code
%assign i i+1
%endrep

%ifdef ARCH_i386
; i386: the frame is the CPU's EIP, CS, EFLAGS (no ESP/SS from ring 0),
; vector and error code, then PUSHAD's eight registers.
isr_common:
	pushad
	cld
	push esp                        ; struct trap_frame *
	call trap_dispatch
	add esp, 4
	popad
	add esp, 8                      ; vector, error code
	iretd
%else
isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp                    ; struct trap_frame *
	call trap_dispatch
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                     ; vector, error code
	iretq
%endif

section .rodata
align 8
isr_table:                              ; vectors 0..255
%assign i 0
%rep 256
	DPTR isr_ %+ i
%assign i i+1
%endrep
