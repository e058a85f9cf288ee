; SPDX-License-Identifier: MIT
; 32-bit entry from Multiboot1/2 -> identity-mapped long mode -> kmain().
; In:  EAX = boot loader magic, EBX = physical address of the info block,
;      protected mode, paging off, interrupts off (Multiboot2 §3.3).

%define CR0_PE   (1 << 0)
%define CR0_WP   (1 << 16)
%define CR0_PG   (1 << 31)
%define CR4_PAE  (1 << 5)
%define EFER_MSR 0xC0000080
%define EFER_LME (1 << 8)
%define PTE_P    (1 << 0)
%define PTE_W    (1 << 1)
%define PTE_PS   (1 << 7)           ; 2 MiB page in a page directory entry

%define BOOT_STACK_SIZE 16384
%define COM1 0x3F8

%include "kernel/gdt.inc"               ; SEL_*, LOAD_DATA_SEGMENTS

extern kmain
extern gdt64_ptr                        ; kernel/gdt.asm
extern __bss_start, __bss_end

global _start32

section .text
bits 32
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

	; Long mode present? CPUID 0x80000001 EDX bit 29 (SDM Vol. 2A, CPUID).
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz no_long_mode

	; Identity map 0-4 GiB: PML4[0] -> PDPT, PDPT[0..3] -> four page
	; directories of 2 MiB pages, except the first 2 MiB, mapped with 4 KiB
	; pages so that one large page never spans the fixed-MTRR ranges of the
	; first megabyte (SDM Vol. 3A §12.11.9, large pages and MTRRs).
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

no_long_mode:
	mov esi, msg_no_long_mode
.next:
	lodsb
	test al, al
	jz .printed
	mov ah, al
	mov dx, COM1 + 5                ; line status: wait for THR empty
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov al, ah
	mov dx, COM1
	out dx, al
	jmp .next
	; Under QEMU (fw_cfg signature "QEMU" at selector 0, QEMU docs
	; specs/fw_cfg) leave through isa-debug-exit with the failure status
	; instead of hanging; on anything else, halt.
.printed:
	mov dx, 0x510                   ; fw_cfg selector: FW_CFG_SIGNATURE
	xor ax, ax
	out dx, ax
	mov dx, 0x511                   ; fw_cfg data, one byte per read
	mov esi, fw_cfg_signature
	mov ecx, 4
.sig:
	in al, dx
	cmp al, [esi]
	jne .halt
	inc esi
	loop .sig
	mov dx, 0xF4                    ; isa-debug-exit: status (1 << 1) | 1
	mov eax, 1
	out dx, eax
.halt:
	hlt
	jmp .halt

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

section .rodata
fw_cfg_signature: db "QEMU"
msg_no_long_mode: db "apstart: this CPU has no long mode (x86_64); stopping", 13, 10, 0

section .bss
align 4096
boot_pml4: resb 4096
boot_pdpt: resb 4096
boot_pd:   resb 4 * 4096
boot_pt0:  resb 4096
align 16
boot_stack: resb BOOT_STACK_SIZE
