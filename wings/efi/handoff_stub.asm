; SPDX-License-Identifier: MIT
; The last code apstart.efi runs, after ExitBootServices: leave long mode
; for 32-bit protected mode with paging off, copy the kernel's segments to
; their load addresses, enter it as a Multiboot2 i386 kernel (Multiboot2
; §3.3: EAX magic, EBX info, flat 32-bit CS/DS/ES/SS, paging off,
; interrupts off). wings/efi/handoff.c copies handoff_start..handoff_end to
; a page below 4 GiB (identity mapped, as UEFI maps all memory) and fills
; the fields at the end of that copy; the code finds them relative to its
; own address, so it runs wherever it is copied.
;
; The copy happens with paging off because firmware page tables may map
; boot-services pages read-only, and the kernel may be loaded over them.
; Leaving long mode: SDM Vol. 3A §10.8.5.4 (compatibility mode, CR0.PG=0,
; then EFER.LME=0).

%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*, LOAD_DATA_SEGMENTS

%define CR0_PG    (1 << 31)
%define CR4_PCIDE (1 << 17)             ; must be 0 to clear CR0.PG (SDM Vol. 3A §4.10.1)
%define EFER_MSR  0xC0000080
%define EFER_LME  (1 << 8)
%define MB2_BOOT_MAGIC 0x36D76289
; One record per segment, struct handoff_segment in wings/efi/handoff.c.
%define SEG_DST    0
%define SEG_SRC    4
%define SEG_FILESZ 8
%define SEG_MEMSZ  12
%define SEG_SIZE   16
%define MAX_SEGS   4

global handoff_start, handoff_end
global handoff_entry, handoff_info, handoff_nseg, handoff_segs

section .text
bits 64
align 16
handoff_start:
	cli
	cld
	lea rbx, [rel handoff_start]    ; this copy's address, below 4 GiB
	lea rax, [rbx + (gdt - handoff_start)]
	mov [rbx + (gdt_ptr + 2 - handoff_start)], rax
	lgdt [rbx + (gdt_ptr - handoff_start)]
	mov rax, cr4
	and rax, ~CR4_PCIDE
	mov cr4, rax
	lea rax, [rbx + (compat - handoff_start)]
	push SEL_CODE32
	push rax
	retfq                           ; into 32-bit compatibility mode

bits 32
compat:
	LOAD_DATA_SEGMENTS
	mov eax, cr0
	and eax, ~CR0_PG                ; long mode off: protected mode, no paging
	mov cr0, eax
	mov ecx, EFER_MSR
	rdmsr
	and eax, ~EFER_LME
	wrmsr

	mov edx, [ebx + (handoff_nseg - handoff_start)]
	lea ebp, [ebx + (handoff_segs - handoff_start)]
.segment:
	test edx, edx
	jz .enter
	mov edi, [ebp + SEG_DST]
	mov esi, [ebp + SEG_SRC]
	mov ecx, [ebp + SEG_FILESZ]
	rep movsb
	mov ecx, [ebp + SEG_MEMSZ]
	sub ecx, [ebp + SEG_FILESZ]
	xor eax, eax
	rep stosb                       ; .bss
	add ebp, SEG_SIZE
	dec edx
	jmp .segment
.enter:
	mov ecx, [ebx + (handoff_entry - handoff_start)]
	mov eax, MB2_BOOT_MAGIC
	mov ebx, [ebx + (handoff_info - handoff_start)]
	jmp ecx

align 8
gdt:
	GDT_TABLE
gdt_end:
gdt_ptr:
	dw gdt_end - gdt - 1
	dq 0                            ; base: set above, where the copy runs
align 4
handoff_entry: dd 0                     ; kernel entry (32-bit)
handoff_info:  dd 0                     ; Multiboot2 information
handoff_nseg:  dd 0
handoff_segs:  times MAX_SEGS * SEG_SIZE db 0
handoff_end:
