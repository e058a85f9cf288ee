# SPDX-License-Identifier: MIT
# The uefi wing's assembly: the call into the firmware (x86_64 only: the
# i386 kernel does not call 64-bit firmware). Included from the top-level
# Makefile (a wing's wing.mk adds to WING_OBJS.NAME).
WING_OBJS.uefi := $(if $(filter x86_64,$(ARCH)),$(OUT)/wings/uefi/efi_call.o)
