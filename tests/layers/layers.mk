# SPDX-License-Identifier: MIT
# make layers-check: the kernel's layers point down only (tests/layers/check.sh),
# by the includes in the sources and the symbols of the objects linked into
# the default kernel. Included from the top-level Makefile.

.PHONY: layers-check
layers-check:
	@$(MAKE) --no-print-directory WBINVD=0 SLOW_TRAMP_NS=0 MAX_CPUS=512 build/wbinvd0/apstart.elf
	@tests/layers/check.sh build/wbinvd0 $(patsubst $(OUT)/%,build/wbinvd0/%,$(KERNEL_OBJS))
