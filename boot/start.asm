; SPDX-License-Identifier: MIT
; 32-bit entry from Multiboot1/2 -> identity-mapped long mode -> kmain().
; ARCH=i386 (nasm -DARCH_i386): identity-mapped 32-bit paging instead,
; and kmain() called in protected mode.
; In:  EAX = boot loader magic, EBX = physical address of the info block,
;      protected mode, paging off, interrupts off (Multiboot2 §3.3).

%define CR0_PE   (1 << 0)
%define CR0_WP   (1 << 16)
%define CR0_PG   (1 << 31)
%define CR4_PAE  (1 << 5)
%define CR4_PSE  (1 << 4)
%define EFER_MSR 0xC0000080
%define EFER_LME (1 << 8)
%define PTE_P    (1 << 0)
%define PTE_W    (1 << 1)
%define PTE_PS   (1 << 7)           ; 2 MiB (i386: 4 MiB) page in a PDE

%define BOOT_STACK_SIZE 16384

%include "kernel/gdt.inc"               ; SEL_*, LOAD_DATA_SEGMENTS

extern cpu_floor_check                  ; boot/cpu_floor.asm
extern kmain
extern gdt64_ptr                        ; kernel/gdt.asm
extern __bss_start, __bss_end
%ifdef ARCH_i386
extern x86_lfence                       ; kernel/cpu.c
%endif

global _start32

section .text
bits 32
; Until the CPU floor is checked, nothing newer than the 80386.
cpu 386
_start32:
	cli
	cld
	mov edi, eax                    ; keep magic and info across the setup
	mov esi, ebx

	; Zero .bss ourselves: the loaders are not required to.
	mov ebx, edi
	mov edi, __bss_start
	mov ecx, __bss_end
	sub ecx, edi
	shr ecx, 2
	xor eax, eax
	rep stosd
	mov edi, ebx

	mov esp, boot_stack + BOOT_STACK_SIZE
	call cpu_floor_check            ; returns only on a CPU that has it all
cpu default

%ifdef ARCH_i386
	; SSE2 (CPUID 1 EDX bit 26, SDM Vol. 2A, CPUID) decides whether RDTSC
	; is fenced with LFENCE (kernel/x86.h).
	mov eax, 1
	cpuid
	bt edx, 26
	setc [x86_lfence]

	; Identity map 0-4 GiB with 32-bit paging, no PAE (SDM Vol. 3A §4.3):
	; 1024 PDEs of 4 MiB pages, except the first 4 MiB, mapped with a
	; 4 KiB page table so that no large page spans the fixed-MTRR ranges
	; of the first megabyte (SDM Vol. 3A §12.11.9). Write-back here;
	; kernel/paging.c makes the LAPIC and framebuffer pages uncached.
	xor ecx, ecx
.pd32:
	mov eax, ecx
	shl eax, 22
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 4], eax
	inc ecx
	cmp ecx, 1024
	jb .pd32
	xor ecx, ecx
.pt32:
	mov eax, ecx
	shl eax, 12
	or eax, PTE_P | PTE_W
	mov [boot_pt0 + ecx * 4], eax
	inc ecx
	cmp ecx, 1024
	jb .pt32
	mov eax, boot_pt0
	or eax, PTE_P | PTE_W
	mov [boot_pd], eax

	mov eax, cr4
	or eax, CR4_PSE
	mov cr4, eax
	mov eax, boot_pd
	mov cr3, eax
	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	lgdt [gdt64_ptr]                ; 32-bit lgdt: limit and low 4 bytes
	jmp SEL_CODE32:protected_entry
%else
	; Identity map 0-4 GiB: PML4[0] -> PDPT, PDPT[0..3] -> four page
	; directories of 2 MiB pages, except the first 2 MiB, mapped with 4 KiB
	; pages so that one large page never spans the fixed-MTRR ranges of the
	; first megabyte (the MTRR rule cited for the i386 map above).
	mov eax, boot_pdpt
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	xor ecx, ecx
.pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .pdpt

	xor ecx, ecx                    ; 2048 PDEs, entry i maps i * 2 MiB
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov edx, ecx
	shr edx, 11                     ; bits 32+ of the address: always 0 here
	mov [boot_pd + ecx * 8], eax
	mov [boot_pd + ecx * 8 + 4], edx
	inc ecx
	cmp ecx, 2048
	jb .pd

	xor ecx, ecx                    ; first 2 MiB in 4 KiB pages
.pt:
	mov eax, ecx
	shl eax, 12
	or eax, PTE_P | PTE_W
	mov [boot_pt0 + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jb .pt
	mov eax, boot_pt0
	or eax, PTE_P | PTE_W
	mov [boot_pd], eax
	mov dword [boot_pd + 4], 0

	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, EFER_MSR
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	lgdt [gdt64_ptr]
	jmp SEL_CODE64:long_entry
%endif

%ifdef ARCH_i386
protected_entry:
	LOAD_DATA_SEGMENTS
	mov esp, boot_stack + BOOT_STACK_SIZE
	xor ebp, ebp
	push 0                          ; kmain(magic, (uint64_t)info)
	push esi
	push edi
	call kmain
.halt:
	cli
	hlt
	jmp .halt
%else
bits 64
long_entry:
	LOAD_DATA_SEGMENTS
	mov rsp, boot_stack + BOOT_STACK_SIZE
	mov edi, edi                    ; upper halves are undefined after the
	mov esi, esi                    ; switch: zero-extend magic and info
	xor ebp, ebp
	call kmain
.halt:
	cli
	hlt
	jmp .halt
%endif

section .bss
align 4096
%ifdef ARCH_i386
boot_pd:   resb 4096                    ; 1024 x 4 bytes
boot_pt0:  resb 4096
%else
boot_pml4: resb 4096
boot_pdpt: resb 4096
boot_pd:   resb 4 * 4096
boot_pt0:  resb 4096
%endif
align 16
boot_stack: resb BOOT_STACK_SIZE
