; SPDX-License-Identifier: MIT
; Multiboot headers: Multiboot2 for GRUB2 (BIOS and UEFI), Multiboot1 with
; the address fields for QEMU's -kernel loader, which loads only Multiboot1
; and refuses ELF64 images unless flags bit 16 supplies the load addresses
; (Multiboot 0.6.96 §3.1.3). Both enter _start32 in 32-bit protected mode.

extern _start32
extern __load_start, __load_end, __bss_end

section .multiboot
align 8
mb2_header:
	dd 0xE85250D6                   ; Multiboot2 magic (Multiboot2 §3.1.1)
	dd 0                            ; architecture: i386 protected mode
	dd mb2_header_end - mb2_header
	dd -(0xE85250D6 + 0 + (mb2_header_end - mb2_header))

	align 8
	; Console flags tag (type 4): EGA text supported (flags bit 1).
	dw 4, 0
	dd 12
	dd 1 << 1

	align 8
	; Framebuffer tag (type 5), optional (flags bit 0): no preferred
	; geometry. Needed for GRUB to hand over a UEFI GOP framebuffer.
	dw 5, 1
	dd 20
	dd 0, 0, 0

	align 8
	dw 0, 0                         ; end tag
	dd 8
mb2_header_end:

align 4
mb1_header:
	MB1_FLAGS equ (1 << 1) | (1 << 16)  ; memory info, address fields valid
	dd 0x1BADB002                   ; Multiboot1 magic
	dd MB1_FLAGS
	dd -(0x1BADB002 + MB1_FLAGS)
	dd mb1_header                   ; header_addr
	dd __load_start                 ; load_addr
	dd __load_end                   ; load_end_addr
	dd __bss_end                    ; bss_end_addr
	dd _start32                     ; entry_addr
