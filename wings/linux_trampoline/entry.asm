; SPDX-License-Identifier: MIT
; apstart's entry from Linux's trampoline: the address the kernel puts in
; trampoline_header.tr_start (realmode_setup.c). Linux's code runs
; unchanged from the SIPI to its jump here; from here on it is apstart's:
; the APIC ID, the AP's slot in the CPU table (linux_tr_hdr, the core
; trampoline's header layout: realmode/trampoline_abi.h), the AP's own
; stack, its long-mode (i386: paging-on) mark, and ap_entry(), which
; loads apstart's GDT and IDT as it does after the core's trampoline.
;
; x86_64 (trampoline_64.S's startup_64: jmpq *tr_start(%rip)): 64-bit
; mode on Linux's tr_gdt (CS __KERNEL_CS), paging on trampoline_pgd (a
; copy of the kernel's PML4), interrupts off, Linux's zero-limit IDT,
; RSP = the blob's one real-mode stack, which 6.6+ guards with tr_lock
; (taken in trampoline_start with lock bts; Linux's secondary_startup_64
; clears it once on its own stack, head_64.S): not touched here, the lock
; cleared once RSP is the AP's own.
; i386 (trampoline_32.S's startup_32: jmpl *%eax): 32-bit protected mode,
; CS = __BOOT_CS of the kernel's boot_gdt, DS still real mode's, paging
; off, no stack.

%include "realmode/asm_defs.inc"        ; layout: realmode/trampoline_abi.h
%include "kernel/gdt.inc"               ; SEL_*
%include "realmode/pad.inc"             ; PAD_POINT
%include "realmode/trampoline.inc"      ; STAMP_LONG, PAGED_C_ENTRY_32

global linux_tr_entry, linux_tr_hdr, linux_tr_lock

; What the entry reads, filled by the BSP before the first SIPI
; (realmode_setup.h): the header in the core trampoline's layout, and
; where Linux's tr_lock is (0: none).
section .data
align 8
linux_tr_hdr:
	times TRAMP_HDR_SIZE db 0
linux_tr_lock:
	dq 0

section .text

%ifdef ARCH_i386
extern gdt64_ptr

bits 32
linux_tr_entry:
	; apstart's GDT first (through CS: DS is still the real-mode
	; segment), so that its selectors hold from here on.
	lgdt [cs:gdt64_ptr]
	jmp SEL_CODE32:.kernel_cs
.kernel_cs:
	; The core trampoline's protected-mode entry, as is: esi + TRAMP_HDR
	; is the header; no real-mode mark (Linux's code takes none): 0.
	mov esi, linux_tr_hdr - TRAMP_HDR
	xor ebp, ebp
	xor edi, edi
	%include "realmode/protected_entry.inc" ; ebx = our slot, edi = APIC ID

	PAGED_C_ENTRY_32 .paged        ; paging on, the mark, ap_entry()
.halt:
	cli
	hlt
	jmp .halt

%else
bits 64
linux_tr_entry:
	; The arrival: its TSC, kept in r9d:r8d until the slot is known.
%if MARKS
	rdtsc
	mov r8d, eax
	mov r9d, edx
%endif
	lea rsi, [rel linux_tr_hdr]

	; The APIC ID as realmode/protected_entry.inc reads it (the ID
	; register, x2APIC MSR 0x802 or xAPIC MMIO + 0x20 bits 31:24, SDM
	; Vol. 3A §11.4.6, §11.12.5.1; CPUID's initial ID when the APIC is
	; off or its page above 4 GiB), in 64-bit code: the LAPIC page is
	; mapped, trampoline_pgd being the kernel's PML4.
	mov ecx, MSR_IA32_APIC_BASE
	rdmsr
	test eax, APIC_BASE_EN
	jz .initial_id
	test eax, APIC_BASE_EXTD
	jz .xapic
	mov ecx, MSR_X2APIC_ID
	rdmsr
	jmp .have_id
.xapic:
	test edx, edx
	jnz .initial_id
	and eax, APIC_BASE_ADDR_LOW     ; zero-extends into rax
	mov eax, [rax + XAPIC_ID_REG]
	shr eax, XAPIC_ID_SHIFT
	jmp .have_id
.initial_id:
	xor eax, eax
	cpuid
	cmp eax, 0x0B
	jb .leaf1
	mov eax, 0x0B
	xor ecx, ecx
	cpuid
	test ebx, ebx                   ; EBX[15:0] = 0: leaf not implemented
	jz .leaf1
	mov eax, edx
	jmp .have_id
.leaf1:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov eax, ebx
.have_id:
	; Our slot, by APIC ID.
	mov rdx, [rsi + HDR_CPU_TABLE]
	mov ecx, [rsi + HDR_CPU_COUNT]
.search:
	test ecx, ecx
	jz .no_slot
	cmp [rdx + TRAMP_CPU_APIC_ID], eax
	je .found
	add rdx, TRAMP_CPU_SIZE
	dec ecx
	jmp .search
.no_slot:
	mov [rsi + HDR_NO_SLOT_APIC], eax
	mov rcx, [rel linux_tr_lock]    ; let the next AP in, then stop
	test rcx, rcx
	jz .halt
	mov dword [rcx], 0
.halt:
	cli
	hlt
	jmp .halt
.found:
	mov edi, eax                    ; edi = APIC ID, rbx = our slot
	mov rbx, rdx
%if MARKS
	mov eax, r8d
	mov edx, r9d
%endif
	STAMP_LONG rbx, rsp             ; the mark, then our own stack
	; Off the shared real-mode stack: Linux's tr_lock (6.6+) cleared, as
	; head_64.S does once its AP is on its own stack.
	mov rax, [rel linux_tr_lock]
	test rax, rax
	jz .unlocked
	mov dword [rax], 0
.unlocked:
	; apstart's page tables, as the core's trampoline loads them.
	mov eax, [rsi + HDR_CR3]
	mov cr3, rax
	mov esi, [rbx + TRAMP_CPU_INDEX] ; ap_entry(apic_id, index)
	xor ebp, ebp
	mov rax, [rel linux_tr_hdr + HDR_C_ENTRY]
	call rax                        ; does not return
	jmp .halt
%endif
