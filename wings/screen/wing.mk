# SPDX-License-Identifier: MIT
# The screen wing's generated object: the 8x16 font (tools/build/font.mk
# makes build/gen/font8x16.c from GRUB's Unifont), compiled for the
# kernel as one of the wing's objects. Included from the top-level
# Makefile (a wing's wing.mk adds to WING_OBJS.NAME).
WING_OBJS.screen := $(OUT)/wings/screen/font8x16.o

$(OUT)/wings/screen/font8x16.o: $(FONT_GEN) $(KBUILD_VARS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<
