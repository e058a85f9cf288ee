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
; Build knobs (nasm -D): WBINVD=0|1, MARKS=0|1; the test-only ones,
; SLOW_SPIN=0|1 (a spin where WBINVD sits) and PAD_REAL, PAD_PROT,
; PAD_LONG=K (K NOPs at that point), are realmode/instrument.inc's.

%include "realmode/asm_defs.inc"      ; layout: realmode/trampoline_abi.h
%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*
%include "realmode/instrument.inc"      ; INSTRUMENT_SLOW_SPIN, INSTRUMENT_PAD
%include "realmode/trampoline.inc"      ; TRAMP_HEADER, STAMP_LONG, TRAMP_END

; CR0 is written whole: PE | MP | ET | NE, CD and NW clear (caches on).
; INIT leaves CD and NW as they were and keeps the caches (SDM Vol. 3A
; §10.1, Table 10-1 note 2), so after the INIT of a running system they
; are already clear; only an AP still in its power-up state
; (CR0 = 60000010H) has them set, and this clears them.
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
	INSTRUMENT_SLOW_SPIN
	jmp real_mode_entry

	times TRAMP_HDR - ($ - $$) db 0xCC      ; error here = prologue too long

; ---------------------------------------------------------------------------
; Header, patched by the BSP: struct tramp_header (realmode/trampoline_abi.h),
; one list for both blobs (realmode/trampoline.inc), each offset checked.

	TRAMP_HEADER long_mode_entry, SEL_CODE64, code64_start

; ---------------------------------------------------------------------------
real_mode_entry:
	INSTRUMENT_PAD REAL             ; before the first timestamp: to_real
	; The first phase's timestamp, kept in edi:ebp until protected mode,
	; where the APIC ID (an MMIO read above 1 MiB in xAPIC mode) tells
	; which slot is ours. Until then the AP is only counted.
%if MARKS
	rdtsc
	mov ebp, eax
	mov edi, edx
%endif
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
	%include "realmode/protected_entry.inc" ; ebx = our slot, edi = APIC ID

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
%if MARKS
	rdtsc
%endif
	; The upper halves of the registers are undefined after the switch
	; from 32-bit code (SDM Vol. 1 §3.4.1.1): zero-extend what we keep.
	mov ebx, ebx
	mov edi, edi
	STAMP_LONG rbx, rsp
	mov esi, [rbx + TRAMP_CPU_INDEX] ; ap_entry(apic_id, index)
	xor ebp, ebp
	mov rax, [rel trampoline_start + TRAMP_HDR + HDR_C_ENTRY]
	call rax                        ; does not return
	TRAMP_END
; The Makefile rejects a blob larger than one page.
