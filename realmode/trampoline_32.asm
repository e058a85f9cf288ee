; SPDX-License-Identifier: MIT
; AP start-up trampoline for ARCH=i386: 16-bit real mode -> 32-bit
; protected mode -> 32-bit paging -> the kernel's C entry. No long mode.
;
; The first instructions follow Linux's arch/x86/realmode/rm/trampoline_32.S
; (v6.12) in its order: wbinvd (built with WBINVD=1: "Needed for NUMA-Q
; should be harmless for others"), the far jump that reloads CS, CS into
; DS, cli, lidt/lgdt, PE set with lmsw, the far jump into 32-bit code.
; Linux then enables paging in head_32.S; here that follows in the blob.
;
; Entered like realmode/trampoline.asm (the x86_64 one): the BSP copies
; the blob to a free page P below 1 MiB, a STARTUP IPI with vector P >> 12
; starts the AP at CS = P >> 4, IP = 0 (SDM Vol. 3A §9.4.4.1, §11.6.1).
; The header is struct tramp_header (realmode/trampoline_abi.h) with the
; same fields; on i386 the far64 pair is the real-mode jump (its offset
; as assembled, its segment P >> 4 set by smp/trampoline.c), and
; entry64/cpu_table/stack_top are 32-bit addresses held in 64-bit fields
; (the low half is read). As in the x86_64 blob, the AP writes only one
; counter in the header and, once it has read its APIC ID in protected
; mode, its own slot (struct tramp_cpu): stage and timestamps, the same
; phases at the same points; stage LONG and tsc[AP_PHASE_LONG] mark
; paging on. Any number of APs may run it at once.
;
; Build knobs (nasm -D): WBINVD=0|1, SLOW_SPIN=0|1 (a test-only delay
; spinning header.slow_ticks TSC ticks where WBINVD sits).

%ifndef WBINVD
%define WBINVD 0
%endif
%ifndef SLOW_SPIN
%define SLOW_SPIN 0
%endif

%include "realmode/asm_defs.inc"      ; layout: realmode/trampoline_abi.h
%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*
%include "realmode/header_fields.inc"   ; FIELD, EXPECT_EQUAL

; LMSW sets PE alone, as Linux's trampoline does; CR0 is written whole
; when paging goes on: PE | MP | ET | NE | WP | PG, CD and NW clear, as
; Linux's head_32.S CR0_STATE (less AM). INIT keeps CD and NW as they
; were (SDM Vol. 3A §10.1, Table 10-1 note 2): only an AP in its
; power-up state has them set, and this clears them.
%define MSW_PE     0x0001
%define CR0_PAGED  0x80010033
%define CR4_PSE    (1 << 4)             ; 4 MiB pages, SDM Vol. 3A §2.5

	org 0

[bits 16]
trampoline_start:
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
	; Linux's LJMPW_RM: CS = P >> 4 whatever CS:IP the AP came in with.
	jmp dword far [cs:TRAMP_HDR + HDR_FAR64_OFFSET]

	times TRAMP_HDR - ($ - $$) db 0xCC      ; error here = prologue too long

; ---------------------------------------------------------------------------
; Header, patched by the BSP: struct tramp_header (realmode/trampoline_abi.h),
; written with FIELD (realmode/header_fields.inc), which checks each offset.

header:
	FIELD MAGIC,          TRAMP_MAGIC
	FIELD VERSION,        TRAMP_VERSION
	FIELD SIZE,           header_end - header
	FIELD CR3,            0                 ; kernel page directory
	FIELD SLOW_TICKS,     0
	FIELD GDT_LIMIT,      gdt_end - gdt - 1
	FIELD GDT_BASE,       gdt               ; relative: the BSP adds P
	FIELD PAD0,           0
	FIELD FAR32_OFFSET,   protected_mode_entry      ; BSP adds P
	FIELD FAR32_SELECTOR, SEL_CODE32
	FIELD PAD1,           0
	FIELD FAR64_OFFSET,   cs_reloaded       ; real mode: IP as assembled
	FIELD FAR64_SELECTOR, 0                 ; BSP sets CS = P >> 4
	FIELD PAD2,           0
	FIELD ENTRY64,        0                 ; void ap_entry(apic_id, index)
	FIELD CPU_TABLE,      0                 ; struct tramp_cpu[]
	FIELD CPU_COUNT,      0
	FIELD REAL_ENTRIES,   0                 ; APs that entered real mode
	FIELD NO_SLOT_APIC,   APIC_ID_NONE      ; an APIC ID not in the table
	FIELD FLAGS,          (WBINVD * TRAMP_FLAG_WBINVD) | (SLOW_SPIN * TRAMP_FLAG_SLOW)
	FIELD OFF_CODE32,     code32_start      ; for the content test
	FIELD OFF_CODE64,     code_paged_start  ; i386: the paged 32-bit code
	FIELD OFF_CODE_END,   code_end
	FIELD RESERVED,       0
header_end:
	EXPECT_EQUAL header_end - header, TRAMP_HDR_SIZE

; ---------------------------------------------------------------------------
cs_reloaded:
	mov ax, cs                      ; code and data in the same place
	mov ds, ax
	cli
	; The first phase's timestamp (after the CS reload and cli), kept in
	; edi:ebp until protected mode, where the APIC ID (an MMIO read above
	; 1 MiB in xAPIC mode) tells which slot is ours. Until then the AP
	; is only counted.
	rdtsc
	mov ebp, eax
	mov edi, edx
	lock inc dword [TRAMP_HDR + HDR_REAL_ENTRIES]

	; A zero-limit IDT until the kernel's is loaded: an interrupt or
	; exception becomes a shutdown the BSP sees as a timeout, not a jump
	; through the real-mode IVT.
	o32 lidt [zero_idt]
	o32 lgdt [TRAMP_HDR + HDR_GDT_LIMIT]

	mov ax, cs
	movzx esi, ax                   ; esi = physical base of this page
	shl esi, 4

	mov dx, MSW_PE
	lmsw dx
	jmp dword far [TRAMP_HDR + HDR_FAR32_OFFSET]

[bits 32]
code32_start:
protected_mode_entry:
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
	; ICR use): x2APIC mode: MSR 0x802; xAPIC: the ID register at MMIO
	; base + 0x20, bits 31:24 (SDM Vol. 3A §11.4.6, §11.12.5.1), read
	; through the flat data segment, paging off. An xAPIC page above
	; 4 GiB, or a globally disabled APIC, falls back to CPUID, as
	; cpu_apic_id() does.
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
	; Find our slot in the table of struct tramp_cpu (32-bit addresses
	; in the low halves of the 64-bit fields) and write the two
	; timestamps taken so far.
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
.halt:
	cli
	hlt
	jmp .halt
.found:
	mov [edx + TRAMP_CPU_TSC_REAL], ebp
	mov [edx + TRAMP_CPU_TSC_REAL + 4], edi
	mov [edx + TRAMP_CPU_TSC_PROTECTED], ebx
	mov [edx + TRAMP_CPU_TSC_PROTECTED + 4], esp
	mov dword [edx + TRAMP_CPU_STAGE], TRAMP_STAGE_PROTECTED
	mov edi, eax                    ; edi = APIC ID, ebx = our slot
	mov ebx, edx

	; The kernel's identity map: 32-bit paging, 4 MiB pages (boot/start.asm).
	mov eax, cr4
	or eax, CR4_PSE
	mov cr4, eax
	mov eax, [esi + TRAMP_HDR + HDR_CR3]
	mov cr3, eax
	mov eax, CR0_PAGED
	mov cr0, eax
	; A jump right after paging goes on (SDM Vol. 3A §9.9.1); identity
	; mapped, so the next address is the same.
	jmp code_paged_start            ; relative: position independent

code_paged_start:
	rdtsc
	mov [ebx + TRAMP_CPU_TSC_LONG], eax
	mov [ebx + TRAMP_CPU_TSC_LONG + 4], edx
	mov dword [ebx + TRAMP_CPU_STAGE], TRAMP_STAGE_LONG

	mov esp, [ebx + TRAMP_CPU_STACK_TOP]
	mov dword [ebx + TRAMP_CPU_STAGE], TRAMP_STAGE_STACK
	push dword [ebx + TRAMP_CPU_INDEX]      ; ap_entry(apic_id, index), cdecl
	push edi
	mov eax, [esi + TRAMP_HDR + HDR_ENTRY64]
	xor ebp, ebp
	call eax                        ; does not return
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
