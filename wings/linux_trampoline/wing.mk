# SPDX-License-Identifier: MIT
# The linux_trampoline wing's objects not made from its C files: apstart's
# entry at Linux's tr_start (entry.asm, both architectures), and one from
# another wing's folder: the LRM check (lrm_file.c) verifies the blob's
# SHA-256 with wings/efi/sha256.c, the one SHA-256 apstart.efi checks its
# kernels with (docs/layout.md's table names wings/efi on this wing's line). Included from the top-level
# Makefile (a wing's wing.mk adds to WING_OBJS.NAME and WING_NEEDS.NAME).
WING_OBJS.linux_trampoline := $(OUT)/wings/linux_trampoline/entry.o $(OUT)/wings/efi/sha256.o
