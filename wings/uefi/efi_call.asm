; SPDX-License-Identifier: MIT
; Calling UEFI runtime services from the kernel (wings/uefi/efi_runtime.c).
;
;   uint64_t efi_call(const void *fn, uint64_t a1, ..., uint64_t a5)
;
; System V in (RDI = fn, RSI, RDX, RCX, R8, R9 = a1..a5), Microsoft x64 out
; (RCX, RDX, R8, R9, then the stack; 32 bytes of shadow space; RSP 16-byte
; aligned at the CALL), as UEFI 2.10 §2.3.4.2 requires. The firmware runs
; on a stack of its own with interrupts off, and with the x87/SSE state
; that section describes: the kernel is built without SSE and may have left
; CR4.OSFXSR clear, while firmware compiled for x64 may use SSE
; (CR0.EM = 0, CR0.TS = 0, CR0.MP = 1, CR4.OSFXSR = CR4.OSXMMEXCPT = 1;
; x87 control word 0x037F, MXCSR 0x1F80). CR0, CR4 and RFLAGS are put
; back afterwards.
;
; efi_call_recover: where the exception handler resumes the kernel when
; the firmware faults (RAX holds the status to return).

%define CR0_MP (1 << 1)
%define CR0_EM (1 << 2)
%define CR0_TS (1 << 3)
%define CR4_OSFXSR     (1 << 9)
%define CR4_OSXMMEXCPT (1 << 10)
%define FIRMWARE_STACK_SIZE 32768

global efi_call, efi_call_recover

section .text
bits 64
efi_call:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	pushfq
	cli
	mov [rel saved_rsp], rsp
	mov r10, cr0
	mov [rel saved_cr0], r10
	and r10, ~(CR0_EM | CR0_TS)
	or r10, CR0_MP
	mov cr0, r10
	mov r10, cr4
	mov [rel saved_cr4], r10
	or r10, CR4_OSFXSR | CR4_OSXMMEXCPT
	mov cr4, r10
	fninit                          ; control word 0x037F
	ldmxcsr [rel mxcsr_default]

	mov rax, rdi                    ; fn
	mov r11, r9                     ; a5
	mov r9, r8                      ; a4
	mov r8, rcx                     ; a3
	mov rcx, rsi                    ; a1 (a2 stays in RDX)
	lea rsp, [rel firmware_stack + FIRMWARE_STACK_SIZE]
	sub rsp, 48                     ; shadow space, a5, padding: stays 16-aligned
	mov [rsp + 32], r11
	call rax
restore:
	mov rsp, [rel saved_rsp]
	mov r10, [rel saved_cr4]
	mov cr4, r10
	mov r10, [rel saved_cr0]
	mov cr0, r10
	popfq
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

efi_call_recover:
	jmp restore

section .rodata
align 4
mxcsr_default: dd 0x1F80

section .bss
align 8
saved_rsp: resq 1
saved_cr0: resq 1
saved_cr4: resq 1
alignb 16
firmware_stack: resb FIRMWARE_STACK_SIZE
