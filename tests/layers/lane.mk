# SPDX-License-Identifier: MIT
# make layers-tests: the kernel's layers point down only (tests/layers/check.sh),
# by the includes in the sources and the symbols of the objects linked into
# the default kernel and into aplog (tools/aplog/aplog.mk); and comments cite the
# specifications in the form CONTRIBUTING.md sets (tests/layers/citations.sh).
# Included from the top-level Makefile.

.PHONY: layers-tests
layers-tests: $(APLOG_OBJS)
	@$(call BUILD_VARIANT,WBINVD=0)
	@tests/layers/check.sh build/wbinvd0 $(patsubst $(OUT)/%,build/wbinvd0/%,$(KERNEL_OBJS)) \
		-- $(APLOG_OBJ_DIR) $(APLOG_OBJS)
	@tests/layers/citations.sh

# make lines: each part's size (docs/layout.md's "Sizes" block).
.PHONY: lines
lines:
	@tests/layers/lines.sh
