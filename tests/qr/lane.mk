# Host tests for wings/screen/qr.c (QR encoder and renderers): make qr-tests.
# Included from the top-level Makefile; paths are relative to the repo root.
#
#   build/host/test_qr[_asan]   unit tests of the internals (plain, ASan+UBSan)
#   build/host/qrtool[_asan]    driver for tests/qr/check.py (python3-qrcode
#                               and zbarimg comparisons)
ifndef QRT_MK_INCLUDED
QRT_MK_INCLUDED := 1

QRT_CC ?= gcc
QRT_DIR := build/host
QRT_CFLAGS := $(HOST_CFLAGS) $(HOST_OPT) -g
QRT_SANFLAGS := -O1 $(HOST_SAN)
QRT_BINS := $(addprefix $(QRT_DIR)/,test_qr test_qr_asan qrtool qrtool_asan)
# ... and the compiler and flags they are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
VARS.$(QRT_DIR)/qr = $(QRT_CC) $(QRT_CFLAGS) | $(QRT_SANFLAGS)
QRT_DEPS := wings/screen/qr.c wings/screen/qr.h tests/qr/lane.mk tests/iso/vgafont.c tests/iso/vgafont.h $(QRT_DIR)/qr.vars

$(QRT_DIR)/test_qr: tests/qr/test_qr.c $(QRT_DEPS)
	@mkdir -p $(@D)
	$(QRT_CC) $(QRT_CFLAGS) -o $@ $<

$(QRT_DIR)/test_qr_asan: tests/qr/test_qr.c $(QRT_DEPS)
	@mkdir -p $(@D)
	$(QRT_CC) $(QRT_CFLAGS) $(QRT_SANFLAGS) -o $@ $<

$(QRT_DIR)/qrtool: tests/qr/qrtool.c $(QRT_DEPS)
	@mkdir -p $(@D)
	$(QRT_CC) $(QRT_CFLAGS) -o $@ $< wings/screen/qr.c tests/iso/vgafont.c

$(QRT_DIR)/qrtool_asan: tests/qr/qrtool.c $(QRT_DEPS)
	@mkdir -p $(@D)
	$(QRT_CC) $(QRT_CFLAGS) $(QRT_SANFLAGS) -o $@ $< wings/screen/qr.c tests/iso/vgafont.c

.PHONY: qr-tests
qr-tests: $(QRT_BINS)
	@QRT_DIR=$(QRT_DIR) bash tests/qr/run.sh

endif
