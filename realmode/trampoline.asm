; SPDX-License-Identifier: MIT
; AP start-up trampoline: 16-bit real mode -> 32-bit protected mode ->
; 64-bit long mode -> the kernel's C entry.
;
; The BSP copies this blob to a free page P below 1 MiB and starts an AP
; with STARTUP IPI vector P >> 12: the AP begins here in real mode with
; CS = P >> 4, IP = 0 (SDM Vol. 3A §9.4.4.1, §11.6.1: "start-up IPI").
;
; Position independent: it addresses itself through CS in real mode and
; through a base register afterwards. Every absolute address is patched by
; the BSP into the header before the first SIPI; the AP itself writes only
; its own slot (struct tramp_cpu: stage and timestamps) and one counter,
; so a second SIPI (or a second INIT-SIPI-SIPI) entering it again finds
; the same bytes. Any number of APs may run it at once: each one finds
; its slot by its own APIC ID, read from the APIC in protected mode.
;
; Build knobs (nasm -D): WBINVD=0|1, SLOW_SPIN=0|1 (a test-only delay
; spinning header.slow_ticks TSC ticks where WBINVD sits), PAD_REAL,
; PAD_PROT, PAD_LONG=K (test-only: K NOPs at that PAD_POINT, pad.inc).

%ifndef WBINVD
%define WBINVD 0
%endif
%ifndef SLOW_SPIN
%define SLOW_SPIN 0
%endif

%include "realmode/asm_defs.inc"      ; layout: realmode/trampoline_abi.h
%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*
%include "realmode/pad.inc"             ; PAD_POINT
%include "realmode/header_fields.inc"   ; FIELD, EXPECT_EQUAL

; CR0 is written whole: PE | MP | ET | NE, CD and NW clear (caches on).
; INIT leaves CD and NW as they were and keeps the caches (SDM Vol. 3A
; §10.1, Table 10-1 note 2; Table 9-1 before the 2024 editions), so after
; the INIT of a running system they are already clear; only an AP still in
; its power-up state (CR0 = 60000010H) has them set, and this clears them.
%define CR0_REAL_TO_PROT 0x00000033
%define CR0_LONG         0x80010033     ; + WP | PG
%define CR4_PAE          (1 << 5)       ; SDM Vol. 3A §2.5, control registers
%define EFER_MSR         0xC0000080     ; IA32_EFER, SDM Vol. 4 (MSR list)
%define EFER_LME         (1 << 8)       ; long mode enable, SDM Vol. 3A §2.2.1

	org 0

[bits 16]
trampoline_start:
	; Linux's trampoline_start begins the same way: cli, then (before
	; commit "x86/realmode: remove WBINVD") a wbinvd for NUMA-Q.
	cli
%if WBINVD
	wbinvd
%endif
%if SLOW_SPIN
	; Regression-test delay: spin header.slow_ticks TSC ticks.
	rdtsc
	mov ebx, eax
.slow:
	pause
	rdtsc
	sub eax, ebx
	cmp eax, [cs:TRAMP_HDR + HDR_SLOW_TICKS]
	jb .slow
%endif
	jmp real_mode_entry

	times TRAMP_HDR - ($ - $$) db 0xCC      ; error here = prologue too long

; ---------------------------------------------------------------------------
; Header, patched by the BSP: struct tramp_header (realmode/trampoline_abi.h),
; written with FIELD (realmode/header_fields.inc), which checks each offset.

header:
	FIELD MAGIC,          TRAMP_MAGIC
	FIELD VERSION,        TRAMP_VERSION
	FIELD SIZE,           header_end - header
	FIELD CR3,            0                 ; kernel PML4, below 4 GiB
	FIELD SLOW_TICKS,     0
	FIELD GDT_LIMIT,      gdt_end - gdt - 1
	FIELD GDT_BASE,       gdt               ; relative: the BSP adds P
	FIELD PAD0,           0
	FIELD FAR32_OFFSET,   protected_mode_entry      ; BSP adds P
	FIELD FAR32_SELECTOR, SEL_CODE32
	FIELD PAD1,           0
	FIELD FAR64_OFFSET,   long_mode_entry   ; BSP adds P
	FIELD FAR64_SELECTOR, SEL_CODE64
	FIELD PAD2,           0
	FIELD ENTRY64,        0                 ; void ap_entry(apic_id, index)
	FIELD CPU_TABLE,      0                 ; struct tramp_cpu[]
	FIELD CPU_COUNT,      0
	FIELD REAL_ENTRIES,   0                 ; APs that entered real mode
	FIELD NO_SLOT_APIC,   APIC_ID_NONE      ; an APIC ID not in the table
	FIELD FLAGS,          (WBINVD * TRAMP_FLAG_WBINVD) | (SLOW_SPIN * TRAMP_FLAG_SLOW)
	FIELD OFF_CODE32,     code32_start      ; for the content test
	FIELD OFF_CODE64,     code64_start
	FIELD OFF_CODE_END,   code_end
	FIELD RESERVED,       0
header_end:
	EXPECT_EQUAL header_end - header, TRAMP_HDR_SIZE

; ---------------------------------------------------------------------------
real_mode_entry:
	PAD_POINT REAL                  ; before the first timestamp: to_real
	; The first phase's timestamp, kept in edi:ebp until protected mode,
	; where the APIC ID (an MMIO read above 1 MiB in xAPIC mode) tells
	; which slot is ours. Until then the AP is only counted.
	rdtsc
	mov ebp, eax
	mov edi, edx
	mov ax, cs
	mov ds, ax
	lock inc dword [TRAMP_HDR + HDR_REAL_ENTRIES]

	; Until the kernel's IDT is loaded any interrupt or exception must
	; not vector through the real-mode IVT: a zero-limit IDT turns it into
	; a shutdown the BSP sees as a timeout, not into random code.
	lidt [zero_idt]
	o32 lgdt [TRAMP_HDR + HDR_GDT_LIMIT]

	movzx esi, ax                   ; esi = physical base of this page
	shl esi, 4

	mov eax, CR0_REAL_TO_PROT
	mov cr0, eax
	jmp dword far [TRAMP_HDR + HDR_FAR32_OFFSET]

[bits 32]
code32_start:
protected_mode_entry:
	PAD_POINT PROT                  ; before this phase's timestamp: to_long
	; Registers from here to the stack: esi page base, edi:ebp TSC of
	; the real-mode phase, ebx:esp TSC of this one (no stack yet).
	rdtsc
	mov ebx, eax
	mov esp, edx
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax

	; Our APIC ID as the local APIC has it (what the MADT and the BSP's
	; ICR use; firmware may have changed it, so not CPUID's initial ID):
	; x2APIC mode: MSR 0x802, all 32 bits; xAPIC: the ID register at
	; MMIO base + 0x20, bits 31:24 (SDM Vol. 3A §11.4.6, §11.12.5.1),
	; read through the flat data segment, paging off. Linux's parallel
	; bring-up reads it the same way (head_64.S, STARTUP_READ_APICID).
	; An xAPIC page above 4 GiB, or a globally disabled APIC, falls back
	; to CPUID (the ID after reset), as cpu_apic_id() in kernel/cpu.c does.
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
	test edx, edx                   ; base above 4 GiB: out of reach
	jnz .initial_id
	and eax, APIC_BASE_ADDR_LOW
	mov eax, [eax + XAPIC_ID_REG]
	shr eax, XAPIC_ID_SHIFT
	jmp .have_id
.initial_id:
	; CPUID leaf 0xB EDX when the leaf exists (SDM Vol. 2A, CPUID,
	; "x2APIC ID"), else leaf 1 EBX[31:24]. CPUID clobbers ebx, which
	; held this phase's TSC: on this rare path it is read again after.
	xor eax, eax
	cpuid
	cmp eax, 0x0B
	jb .leaf1
	mov eax, 0x0B
	xor ecx, ecx
	cpuid
	test ebx, ebx                   ; EBX[15:0] = 0: leaf not implemented
	jz .leaf1
	mov ecx, edx
	jmp .retime
.leaf1:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov ecx, ebx
.retime:
	rdtsc
	mov ebx, eax
	mov esp, edx
	mov eax, ecx
.have_id:
	; Find our slot in the table of struct tramp_cpu (below 4 GiB: the
	; BSP checks) and write the two timestamps taken so far.
	mov edx, [esi + TRAMP_HDR + HDR_CPU_TABLE]
	mov ecx, [esi + TRAMP_HDR + HDR_CPU_COUNT]
.search:
	test ecx, ecx
	jz .no_slot
	cmp [edx + TRAMP_CPU_APIC_ID], eax
	je .found
	add edx, TRAMP_CPU_SIZE
	dec ecx
	jmp .search
.no_slot:
	mov [esi + TRAMP_HDR + HDR_NO_SLOT_APIC], eax
.halt32:
	cli
	hlt
	jmp .halt32
.found:
	mov [edx + TRAMP_CPU_TSC_REAL], ebp
	mov [edx + TRAMP_CPU_TSC_REAL + 4], edi
	mov [edx + TRAMP_CPU_TSC_PROTECTED], ebx
	mov [edx + TRAMP_CPU_TSC_PROTECTED + 4], esp
	mov dword [edx + TRAMP_CPU_STAGE], TRAMP_STAGE_PROTECTED
	mov edi, eax                    ; edi = APIC ID, ebx = our slot
	mov ebx, edx

	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [esi + TRAMP_HDR + HDR_CR3]
	mov cr3, eax
	mov ecx, EFER_MSR
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, CR0_LONG
	mov cr0, eax                    ; paging on: now in compatibility mode
	jmp far [esi + TRAMP_HDR + HDR_FAR64_OFFSET]

[bits 64]
code64_start:
long_mode_entry:
	rdtsc
	; The upper halves of the registers are undefined after the switch
	; from 32-bit code (SDM Vol. 1 §3.4.1.1): zero-extend what we keep.
	mov ebx, ebx
	mov edi, edi
	mov [rbx + TRAMP_CPU_TSC_LONG], eax
	mov [rbx + TRAMP_CPU_TSC_LONG + 4], edx
	mov dword [rbx + TRAMP_CPU_STAGE], TRAMP_STAGE_LONG
	PAD_POINT LONG                  ; after tsc_long: to_online

	mov rsp, [rbx + TRAMP_CPU_STACK_TOP]
	mov dword [rbx + TRAMP_CPU_STAGE], TRAMP_STAGE_STACK
	mov esi, [rbx + TRAMP_CPU_INDEX] ; ap_entry(apic_id, index)
	xor ebp, ebp
	mov rax, [rel trampoline_start + TRAMP_HDR + HDR_ENTRY64]
	call rax                        ; does not return
.halt:
	cli
	hlt
	jmp .halt
code_end:

; ---------------------------------------------------------------------------
align 8
gdt:                                    ; the kernel's layout (kernel/gdt.h)
	GDT_TABLE
gdt_end:
zero_idt:
	dw 0
	dd 0
trampoline_end:
; The Makefile rejects a blob larger than one page.
