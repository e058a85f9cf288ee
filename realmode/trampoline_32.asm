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
; c_entry/cpu_table/stack_top are 32-bit addresses held in 64-bit fields
; (the low half is read). As in the x86_64 blob, the AP writes only one
; counter in the header and, once it has read its APIC ID in protected
; mode, its own slot (struct tramp_cpu): stage and timestamps, the same
; phases at the same points; stage LONG and tsc[AP_MARK_LONG] mark
; paging on. Any number of APs may run it at once.
;
; Build knobs (nasm -D): WBINVD=0|1, SLOW_SPIN=0|1 (a test-only delay
; spinning header.slow_ticks TSC ticks where WBINVD sits), PAD_REAL,
; PAD_PROT, PAD_LONG=K (test-only: K NOPs at that PAD_POINT, pad.inc; at
; the same points of the AP path as in the x86_64 blob, LONG after the
; paging-on timestamp).

%include "realmode/asm_defs.inc"      ; layout: realmode/trampoline_abi.h
%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*
%include "realmode/pad.inc"             ; PAD_POINT, SLOW_SPIN_POINT
%include "realmode/trampoline.inc"      ; TRAMP_HEADER, STAMP_LONG, TRAMP_END

; LMSW sets PE alone, as Linux's trampoline does; CR0 is written whole
; when paging goes on (PAGED_C_ENTRY_32, realmode/trampoline.inc).
%define MSW_PE     0x0001

	org 0

[bits 16]
trampoline_start:
%if WBINVD
	wbinvd
%endif
	SLOW_SPIN_POINT
	; Linux's LJMPW_RM: CS = P >> 4 whatever CS:IP the AP came in with.
	jmp dword far [cs:TRAMP_HDR + HDR_FAR64_OFFSET]

	times TRAMP_HDR - ($ - $$) db 0xCC      ; error here = prologue too long

; ---------------------------------------------------------------------------
; Header, patched by the BSP: struct tramp_header (realmode/trampoline_abi.h),
; one list for both blobs (realmode/trampoline.inc), each offset checked.

	TRAMP_HEADER cs_reloaded, 0, code_paged_start

; ---------------------------------------------------------------------------
cs_reloaded:
	mov ax, cs                      ; code and data in the same place
	mov ds, ax
	cli
	; The first phase's timestamp (after the CS reload and cli), kept in
	; edi:ebp until protected mode, where the APIC ID (an MMIO read above
	; 1 MiB in xAPIC mode) tells which slot is ours. Until then the AP
	; is only counted.
	PAD_POINT REAL                  ; before the first timestamp: to_real
%if MARKS
	rdtsc
	mov ebp, eax
	mov edi, edx
%endif
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
	%include "realmode/protected_entry.inc" ; ebx = our slot, edi = APIC ID

	PAGED_C_ENTRY_32 code_paged_start      ; paging on, the mark, ap_entry()
	TRAMP_END
; The Makefile rejects a blob larger than one page.
