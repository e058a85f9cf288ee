; SPDX-License-Identifier: MIT
; Embeds the assembled trampoline (a flat 16/32/64-bit binary) in the kernel.
; TRAMPOLINE_BIN is passed by the Makefile (one per WBINVD variant).
section .rodata
global trampoline_blob, trampoline_blob_end
align 16
trampoline_blob:
	incbin TRAMPOLINE_BIN
trampoline_blob_end:
