# SPDX-License-Identifier: MIT
# make layers-tests: the house's rule (docs/layout.md's table of parts,
# tests/layers/check.sh): by the includes of every folder with C or
# assembly, the symbols of the kernel's and aplog's objects
# (tools/aplog/aplog.mk), no circle among modules, and the core alone
# (make WINGS=) from its link map: core objects only, each of them used;
# the check shown
# failing on planted faults (tests/layers/planted.sh); and comments cite
# the specifications in the form CONTRIBUTING.md sets
# (tests/layers/citations.sh); and every record the sources print is in
# the record schema, lib/records.def (tests/layers/records.sh).

RECORDS_LINT := build/host/records_lint

.PHONY: layers-tests
layers-tests: $(APLOG_OBJS) $(RECORDS_LINT)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=0 WINGS=)
	@LD_FLAGS='$(KLDFLAGS)' tests/layers/check.sh --core-map build/wbinvd0-core/apstart.elf.map \
		build/wbinvd0 $(patsubst $(OUT)/%,build/wbinvd0/%,$(KERNEL_OBJS)) \
		-- $(APLOG_OBJ_DIR) $(APLOG_OBJS)
	@tests/layers/citations.sh
	@PLANT_CC='$(CC) $(KCFLAGS)' LD_FLAGS='$(KLDFLAGS)' tests/layers/planted.sh
	@tests/layers/records.sh $(RECORDS_LINT)

# The format-string lint of the record schema (ASan/UBSan: it parses C).
$(RECORDS_LINT): tests/layers/records_lint.c tools/records/schema.c lib/records_schema.h tools/records/schema.h \
		lib/records.def tests/layers/lane.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN) -o $@ tests/layers/records_lint.c \
		tools/records/schema.c

# make lines: each part's size (docs/layout.md's "Sizes" block).
.PHONY: lines
lines:
	@tests/layers/lines.sh
