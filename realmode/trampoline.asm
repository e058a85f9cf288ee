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
; the stage fields, so a second SIPI (or a second INIT-SIPI-SIPI) entering
; it again finds the same bytes. Several APs may run it at once: each one
; picks its stack by its own APIC ID.
;
; Build knobs (nasm -D): WBINVD=0|1, SLOW_SPIN=0|1 (a test-only delay
; spinning header.slow_ticks TSC ticks where WBINVD sits).

%ifndef WBINVD
%define WBINVD 0
%endif
%ifndef SLOW_SPIN
%define SLOW_SPIN 0
%endif

%include "realmode/trampoline.inc"
%include "kernel/gdt.inc"               ; GDT_TABLE, SEL_*

%define CR0_REAL_TO_PROT 0x00000033     ; PE | MP | ET | NE: also clears the
					; CD/NW bits INIT leaves set (SDM Vol. 3A
					; §10.1.1 Table 10-1, CR0 after INIT)
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
; Header, patched by the BSP (smp/trampoline.c mirrors this layout).
header:
	dd TRAMP_MAGIC                  ; HDR_MAGIC
	dw TRAMP_VERSION                ; HDR_VERSION
	dw header_end - header          ; HDR_SIZE
	dd 0                            ; HDR_CR3: kernel PML4, below 4 GiB
	dd 0                            ; HDR_SLOW_TICKS
	dw gdt_end - gdt - 1            ; HDR_GDT_DESC: limit
	dd gdt                          ;   base (relative; BSP adds P)
	dw 0
	dd protected_mode_entry         ; HDR_FAR32: offset (BSP adds P)
	dw SEL_CODE32
	dw 0
	dd long_mode_entry              ; HDR_FAR64: offset (BSP adds P)
	dw SEL_CODE64
	dw 0
	dq 0                            ; HDR_ENTRY64: void ap_entry(apic_id, index)
	dq 0                            ; HDR_CPU_TABLE: struct tramp_cpu[]
	dd 0                            ; HDR_CPU_COUNT
	dd 0                            ; HDR_STAGE: last stage reached
	dd 0xFFFFFFFF                   ; HDR_STAGE_APIC: who wrote it (from 64-bit)
	dd (WBINVD << 0) | (SLOW_SPIN << 1)      ; HDR_FLAGS
	dd code32_start                 ; HDR_OFF_CODE32 (for the content test)
	dd code64_start                 ; HDR_OFF_CODE64
	dd code_end                     ; HDR_OFF_CODE_END
	dd 0
	dq 0                            ; HDR_TSC_REAL: TSC on entering real_mode_entry
	dq 0                            ; HDR_TSC_LONG: TSC on reaching long mode
header_end:

; ---------------------------------------------------------------------------
real_mode_entry:
	mov ax, cs
	mov ds, ax
	; Per-phase timestamps for the BSP (bring-up is one AP at a time).
	rdtsc
	mov [TRAMP_HDR + HDR_TSC_REAL], eax
	mov [TRAMP_HDR + HDR_TSC_REAL + 4], edx
	mov ax, cs
	mov dword [TRAMP_HDR + HDR_STAGE], TRAMP_STAGE_REAL

	; Until the kernel's IDT is loaded any interrupt or exception must
	; not vector through the real-mode IVT: a zero-limit IDT turns it into
	; a shutdown the BSP sees as a timeout, not into random code.
	lidt [zero_idt]
	o32 lgdt [TRAMP_HDR + HDR_GDT_DESC]

	movzx esi, ax                   ; esi = physical base of this page
	shl esi, 4

	mov eax, CR0_REAL_TO_PROT
	mov cr0, eax
	jmp dword far [TRAMP_HDR + HDR_FAR32]

[bits 32]
code32_start:
protected_mode_entry:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov dword [esi + TRAMP_HDR + HDR_STAGE], TRAMP_STAGE_PROTECTED

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
	jmp far [esi + TRAMP_HDR + HDR_FAR64]

[bits 64]
code64_start:
long_mode_entry:
	lea rbp, [rel trampoline_start] ; rip-relative: no patching needed
	rdtsc
	mov [rbp + TRAMP_HDR + HDR_TSC_LONG], eax
	mov [rbp + TRAMP_HDR + HDR_TSC_LONG + 4], edx
	mov dword [rbp + TRAMP_HDR + HDR_STAGE], TRAMP_STAGE_LONG

	; Our APIC ID, all 32 bits: CPUID leaf 0xB EDX when the leaf exists
	; (SDM Vol. 2A, CPUID, "x2APIC ID"), else leaf 1 EBX[31:24].
	xor eax, eax
	cpuid
	cmp eax, 0x0B
	jb .leaf1
	mov eax, 0x0B
	xor ecx, ecx
	cpuid
	test ebx, ebx                   ; EBX[15:0] = 0: leaf not implemented
	jz .leaf1
	mov r8d, edx
	jmp .have_id
.leaf1:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov r8d, ebx
.have_id:
	mov [rbp + TRAMP_HDR + HDR_STAGE_APIC], r8d

	; Find our slot: struct tramp_cpu { u32 apic_id; u32 index; u64 stack_top; }
	mov rsi, [rbp + TRAMP_HDR + HDR_CPU_TABLE]
	mov ecx, [rbp + TRAMP_HDR + HDR_CPU_COUNT]
.search:
	test ecx, ecx
	jz .no_slot
	cmp [rsi], r8d
	je .found
	add rsi, 16
	dec ecx
	jmp .search
.found:
	mov rsp, [rsi + 8]
	mov dword [rbp + TRAMP_HDR + HDR_STAGE], TRAMP_STAGE_STACK
	mov edi, r8d                    ; ap_entry(apic_id, index)
	mov esi, [rsi + 4]
	xor ebp, ebp
	mov rax, [rel trampoline_start + TRAMP_HDR + HDR_ENTRY64]
	call rax                        ; does not return
.no_slot:
	mov dword [rbp + TRAMP_HDR + HDR_STAGE], TRAMP_STAGE_NO_SLOT
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
