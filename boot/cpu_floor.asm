; SPDX-License-Identifier: MIT
; The CPU floor, checked before the kernel runs an instruction the floor
; lacks. This file is assembled for the 80386 ("cpu 386": NASM refuses
; anything newer); CPUID alone is newer, and runs only once EFLAGS.ID has
; shown that it exists (SDM Vol. 2A, CPUID: "the ability of software to
; set and clear the ID flag (bit 21) in EFLAGS indicates support").
;
; What each build needs, CPUID leaf 1 EDX (SDM Vol. 2A, Table 3-11) and
; leaf 0x80000001 EDX bit 29 (long mode); tests/floor/check.sh compares
; every instruction of the compiled C with these lists:
;   both     TSC   RDTSC, every timing
;            MSR   RDMSR/WRMSR: IA32_APIC_BASE, EFER
;            APIC  the local APIC: every IPI (and IA32_APIC_BASE exists)
;            CMOV  gcc emits CMOVcc (i386: -march=i686; x86_64: baseline)
;   i386     PSE   4 MiB pages in boot/start.asm's and the APs' identity map
;            CX8   CMPXCHG8B: the 64-bit atomics of kernel/libgcc32.c
;   x86_64   SSE2  LFENCE before RDTSC, MFENCE (kernel/x86.h)
;            long mode
; Anything else (SSE2's LFENCE on i386, CLFLUSH, MONITOR/MWAIT, WBNOINVD,
; x2APIC...) is used only after its own CPUID check.
;
; Below the floor: one line naming what is missing and what the build
; needs, on COM1 and on VGA text where the loader left it (screen_find),
; then on COM1 the record "@end status=fail" that other clean stops
; print; under QEMU (below) leave through isa-debug-exit with the failure
; status, else halt. The UART is set up as kernel/serial.c sets it, from
; the same constants (kernel/serial.h, through kernel/asm_defs.inc).

%include "kernel/asm_defs.inc"

%define EFLAGS_ID   (1 << 21)
%define MB1_MAGIC   0x2BADB002          ; Multiboot 0.6.96 §3.2
%define MB2_MAGIC   0x36D76289          ; Multiboot2 §3.3
%define MB2_TAG_FB  8                   ; framebuffer info (§3.6.12)
%define MB2_TAG_EFI32 11                ; EFI system table tags (§3.6.13/14)
%define MB2_TAG_EFI64 12
%define FB_TYPE_TEXT 2                  ; EGA text (§3.6.12)
%define VGA_TEXT    0xB8000
%define SCREEN_ATTR 0x4F                ; white on red

; CPUID leaf 1 EDX bits, leaf 0x80000001 EDX bit 29.
%define F_PSE  (1 << 3)
%define F_TSC  (1 << 4)
%define F_MSR  (1 << 5)
%define F_CX8  (1 << 8)
%define F_APIC (1 << 9)
%define F_CMOV (1 << 15)
%define F_SSE2 (1 << 26)
%define F_LM   (1 << 29)
%define F_HYPERVISOR (1 << 31)          ; leaf 1 ECX

global cpu_floor_check

cpu 386
bits 32
section .text

; In: EDI = the boot loader's magic, ESI = its information block. Returns
; with every register kept on a CPU at or above the floor; else never.
cpu_floor_check:
	pushad
	pushfd
	pop eax
	mov ecx, eax
	xor eax, EFLAGS_ID
	push eax
	popfd
	pushfd
	pop eax
	push ecx
	popfd
	xor eax, ecx
	test eax, EFLAGS_ID
	jz .checked                     ; no CPUID: every word stays 0
	mov byte [has_cpuid], 1
cpu 586
	xor eax, eax
	cpuid
	mov ebp, eax                    ; highest basic leaf
	mov eax, 0x80000000             ; extended leaves: EAX 0x8000xxxx
	cpuid
	mov ecx, eax
	and ecx, 0xFFFF0000
	cmp ecx, 0x80000000
	jne .basic
	cmp eax, 0x80000001
	jb .basic
	mov eax, 0x80000001
	cpuid
	mov [ext1_edx], edx
.basic:
	cmp ebp, 1
	jb .checked
	mov eax, 1
	cpuid
	mov [leaf1_edx], edx
	mov [leaf1_ecx], ecx
cpu 386
.checked:
	call walk_needs
	test ecx, ecx
	jnz below_floor
	popad
	ret

; Print what is missing, then stop. EDI/ESI still hold magic and info.
below_floor:
	call serial_init
	call screen_find
	mov eax, msg_lacks
	call put_both
	mov byte [naming], 1
	call walk_needs
	mov eax, msg_needs
	call put_both
	mov eax, msg_end_record         ; serial only: screens are for people
	call put_serial

	; Under QEMU? CPUID's hypervisor bit (QEMU sets it for every model but
	; "base"), or QEMU's own Multiboot1 loader, which names itself "qemu";
	; then fw_cfg must answer with its signature. Real machines are never
	; probed: port 0x510 may be a chipset's there.
	test dword [leaf1_ecx], F_HYPERVISOR
	jnz .probe
	cmp edi, MB1_MAGIC
	jne .halt
	test dword [esi], 1 << 9        ; boot_loader_name valid
	jz .halt
	mov esi, [esi + 64]
	mov edi, loader_qemu
	mov ecx, 5                      ; "qemu" and its NUL
	repe cmpsb
	jne .halt
.probe:
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
	mov dx, 0xF4                    ; isa-debug-exit: QEMU status (1 << 1) | 1
	mov eax, 1
	out dx, eax
.halt:
	cli
	hlt
	jmp .halt

; ECX = how many of the needs this CPU lacks (no CPUID: that one only);
; with [naming] set, their names are printed too, ", " between them.
walk_needs:
	push eax
	push ebx
	push edx
	mov ebx, needs
	xor ecx, ecx
.need:
	mov edx, [ebx]                  ; the CPUID word it lives in
	test edx, edx
	jz .done
	mov eax, [edx]
	and eax, [ebx + 4]
	cmp eax, [ebx + 4]
	je .next
	cmp byte [naming], 0
	je .counted
	mov eax, msg_comma
	test ecx, ecx
	jz .first
	call put_both
.first:
	mov eax, [ebx + 8]
	call put_both
.counted:
	inc ecx
	cmp edx, has_cpuid              ; no CPUID: nothing else is known
	je .done
.next:
	add ebx, 12
	jmp .need
.done:
	pop edx
	pop ebx
	pop eax
	ret

; COM1 at 115200 8N1 as kernel/serial.c sets it, if the scratch register
; shows a UART.
serial_init:
	pushad
	mov dx, SERIAL_COM1 + UART_SCR
	mov al, 0x5A
	out dx, al
	in al, dx
	cmp al, 0x5A
	jne .absent
	mov byte [serial_ok], 1
	mov esi, uart_setup
.reg:
	lodsw                           ; AL = register offset, AH = value
	cmp al, 0xFF
	je .absent
	mov dx, SERIAL_COM1
	add dl, al
	mov al, ah
	out dx, al
	jmp .reg
.absent:
	popad
	ret

; VGA text, if the loader left it: a Multiboot framebuffer of type EGA
; text, or on a BIOS boot (no framebuffer, no EFI tags) the 80x25 text at
; 0xB8000; a pixel framebuffer (UEFI) gets nothing, serial has it all.
; Sets vga (0: none), vga_cells; blanks three lines.
screen_find:
	pushad
	cmp edi, MB1_MAGIC
	jne .mb2
	test dword [esi], 1 << 12       ; framebuffer fields valid
	jz .bios
	lea eax, [esi + 88]
	call use_text
	jmp .blank
.mb2:
	cmp edi, MB2_MAGIC
	jne .done
	mov ecx, [esi]                  ; total size
	cmp ecx, 0x100000               ; a bound for a corrupt block
	ja .done
	add ecx, esi
	lea edx, [esi + 8]
.tag:
	lea eax, [edx + 8]
	cmp eax, ecx
	ja .bios
	mov eax, [edx]
	test eax, eax                   ; end tag: no framebuffer, BIOS
	jz .bios
	cmp eax, MB2_TAG_EFI32          ; UEFI without a framebuffer: none
	je .done
	cmp eax, MB2_TAG_EFI64
	je .done
	cmp eax, MB2_TAG_FB
	jne .next_tag
	cmp dword [edx + 4], 30         ; up to the type byte
	jb .done
	lea eax, [edx + 8]
	call use_text
	jmp .blank
.next_tag:
	mov eax, [edx + 4]
	cmp eax, 8
	jb .done
	add eax, 7
	and eax, ~7
	add edx, eax
	jmp .tag
.bios:
	mov dword [vga], VGA_TEXT
	mov dword [vga_cols], 80
	mov dword [vga_cells], 80 * 25
.blank:
	mov ecx, [vga_cols]
	imul ecx, ecx, 3
	jecxz .done
	mov al, ' '
.space:
	call screen_putc
	loop .space
	mov dword [cursor], 0
.done:
	popad
	ret

; EAX = the framebuffer fields, laid out alike in the Multiboot1 info
; (from offset 88) and the Multiboot2 tag (from 8): addr u64, pitch,
; width, height (u32), bpp, type (u8). Takes EGA text below 4 GiB.
use_text:
	cmp byte [eax + 21], FB_TYPE_TEXT
	jne .done
	cmp dword [eax + 4], 0
	jne .done
	mov edx, [eax]
	mov [vga], edx
	mov edx, [eax + 12]
	mov [vga_cols], edx
	imul edx, [eax + 16]
	mov [vga_cells], edx
.done:
	ret

; AL = a printable character, at the next cell, white on red (keeps
; registers).
screen_putc:
	pushad
	mov ecx, [cursor]
	cmp ecx, [vga_cells]
	jae .done                       ; no screen, or it is full
	inc dword [cursor]
	mov edi, [vga]
	mov ah, SCREEN_ATTR
	mov [edi + ecx * 2], ax
.done:
	popad
	ret

; put_both / put_serial: the NUL-terminated text at EAX on COM1 and
; (put_both) the screen, which shows printable characters only: one line
; (keeps registers).
put_both:
	mov byte [to_screen], 1
	call put_serial
	mov byte [to_screen], 0
	ret

put_serial:
	pushad
	mov esi, eax
.char:
	lodsb
	test al, al
	jz .done
	call serial_putc
	cmp byte [to_screen], 0
	je .char
	cmp al, ' '
	jb .char
	cmp al, '~'
	ja .char
	call screen_putc
	jmp .char
.done:
	popad
	ret

; AL to COM1, if there is one (keeps registers).
serial_putc:
	pushad
	cmp byte [serial_ok], 0
	je .done
	mov ah, al
	mov dx, SERIAL_COM1 + UART_LSR
	mov ecx, 1000000                ; bounded, as kernel/serial.c
.wait:
	in al, dx
	test al, LSR_THRE
	jnz .ready
	loop .wait
.ready:
	mov al, ah
	mov dx, SERIAL_COM1 + UART_THR
	out dx, al
.done:
	popad
	ret

section .rodata
; What this build needs: { the CPUID word, its bits, the name }, in the
; order they are named; CPUID itself first.
align 4
needs:
	dd has_cpuid, 1, name_cpuid
%ifdef ARCH_i386
	dd leaf1_edx, F_PSE, name_pse
%endif
	dd leaf1_edx, F_TSC, name_tsc
	dd leaf1_edx, F_MSR, name_msr
%ifdef ARCH_i386
	dd leaf1_edx, F_CX8, name_cx8
%endif
	dd leaf1_edx, F_APIC, name_apic
	dd leaf1_edx, F_CMOV, name_cmov
%ifndef ARCH_i386
	dd leaf1_edx, F_SSE2, name_sse2
	dd ext1_edx, F_LM, name_lm
%endif
	dd 0

name_cpuid: db "CPUID", 0
name_pse:   db "PSE", 0
name_tsc:   db "TSC", 0
name_msr:   db "MSR", 0
name_cx8:   db "CX8", 0
name_apic:  db "APIC", 0
name_cmov:  db "CMOV", 0
name_sse2:  db "SSE2", 0
name_lm:    db "long mode", 0
msg_comma:  db ", ", 0
msg_lacks:  db "apstart: stopping: this CPU lacks ", 0
%ifdef ARCH_i386
msg_needs:  db ". The i386 kernel needs CPUID with PSE, TSC, MSR, CX8, APIC and CMOV: "
	    db "a P6-class CPU (Pentium Pro, Pentium II, Athlon or later).", 13, 10, 0
%else
msg_needs:  db ". The x86_64 kernel needs CPUID with TSC, MSR, APIC, CMOV, SSE2 and long mode: "
	    db "an x86-64 CPU (make ARCH=i386 builds one for 32-bit CPUs).", 13, 10, 0
%endif
msg_end_record: db "@end status=fail online=0 failed=0 warnings=0", 13, 10, 0
fw_cfg_signature: db "QEMU"
loader_qemu: db "qemu", 0
; 16550 set-up as kernel/serial.c's serial_init_port(): { register,
; value }, 0xFF ends.
uart_setup:
	db UART_IER, 0                  ; no interrupts
	db UART_LCR, LCR_DLAB
	db UART_DLL, 1, UART_DLM, 0     ; divisor 1: 115200 baud
	db UART_LCR, LCR_8N1
	db UART_FCR, FCR_ON
	db UART_MCR, MCR_ON
	db 0xFF, 0

section .bss
; Zeroed by boot/start.asm before the check.
align 4
has_cpuid: resd 1
leaf1_edx: resd 1
leaf1_ecx: resd 1
ext1_edx:  resd 1
vga:       resd 1                       ; the text's address, 0: none
vga_cols:  resd 1                       ; cells per line
vga_cells: resd 1                       ; cells on the screen
cursor:    resd 1                       ; the next cell
serial_ok: resb 1
naming:    resb 1                       ; walk_needs prints the names
to_screen: resb 1                       ; put_serial writes the screen too
