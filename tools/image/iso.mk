# SPDX-License-Identifier: MIT
# Bootable image: both kernel variants (x86_64 and i386) behind a GRUB menu, for BIOS and UEFI,
# as a CD or a USB stick (grub-mkrescue: El Torito BIOS + UEFI, MBR + GPT),
# and on its EFI system partition (tools/image/esp.mk, tools/image/mkimage.sh) the
# Secure Boot chain (shim, Debian's signed GRUB) and apstart.efi
# (wings/efi/) with the kernels, where it also keeps results.
# Include from the top-level Makefile (paths relative to the repo root).
#
#   make iso                    build/apstart.iso (menu: tools/image/grub.cfg.in)
#   make usb DEV=/dev/sdX       write it to a USB disk (tools/image/usb-write.sh;
#                               FORCE=1, YES=1 as there)
#   make iso-test-images        build/iso-test/*.iso: same menu plus a default
#                               entry with test arguments, no menu delay
#   make iso-tests              tests/iso/run.sh (contents, checker, 9 QEMU boots;
#                               make iso-long: all 13)
#   make run FIRMWARE=bios|uefi [MEDIA=cdrom|usb] ...   tools/run/iso-run.sh
#
# Variables: ISO_TIMEOUT (menu seconds, default 5), ISO_TEST_ARGS,
# ISO_TEST_SCREEN_ARGS (the -halt image's run: long enough to catch the
# status line mid-run).
ifndef ISO_MK_INCLUDED
ISO_MK_INCLUDED := 1

# Rules here never change the includer's default goal.
ISO_SAVED_GOAL := $(.DEFAULT_GOAL)

ISO := build/apstart.iso
ISO_TIMEOUT ?= 5
ISO_TEST_ARGS ?= cycles=2
# 3 APs x 40 cycles x 20 ms INIT delay: ~2.5 s of cycles on any host.
ISO_TEST_SCREEN_ARGS ?= cycles=40 init_delay_us=20000
ISO_TEST_DIR := build/iso-test
# The kernels as they go into every image (copied only when changed).
ISO_KDIR := build/iso/kernels
ISO_KERNELS := $(ISO_KDIR)/boot/apstart-wbinvd0.elf $(ISO_KDIR)/boot/apstart-wbinvd1.elf \
	$(ISO_KDIR)/boot/apstart-i386-wbinvd0.elf $(ISO_KDIR)/boot/apstart-i386-wbinvd1.elf \
	$(ISO_KDIR)/boot/apstart.efi $(ISO_KDIR)/boot/grub/x86_64-efi/grub.cfg
# The tests' images: the same kernels, and the apstart.efi with its test
# switches (wings/efi/efi.mk).
ISO_TEST_KDIR := build/iso-test/kernels
ISO_TEST_KERNELS := $(patsubst $(ISO_KDIR)/%,$(ISO_TEST_KDIR)/%,$(ISO_KERNELS))
ISO_TEMPLATE := tools/image/grub.cfg.in
ISO_MKCFG := tools/image/mkgrubcfg.sh
GRUB_MKRESCUE ?= grub-mkrescue
ISO_HOSTCC ?= gcc
ISO_HOSTCFLAGS := $(HOST_CFLAGS) $(HOST_OPT)
PPMCHECK := build/host/ppmcheck
SCREENTEXT := build/host/screentext
# The compiler and flags both are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
VARS.build/host/iso-tools = $(ISO_HOSTCC) $(ISO_HOSTCFLAGS)
ISO_TESTS_TIMEOUT ?= 600
ISO_Q := $(if $(filter 1,$(V)),,@)

.PHONY: iso iso-deps iso-kernels iso-force iso-test-images iso-tests usb ppmcheck screenshots
iso-force:

# The image needs the build tools, GRUB for BIOS and UEFI, xorriso, mtools
# and gnu-efi (tools/build/packages.list: build, iso); checked first.
iso-deps:
	@tools/build/deps.sh build iso

iso: iso-deps $(ISO)

# Each variant is built by its own make: WBINVD selects the build
# directory and flags. Always runs; the sub-makes decide what is stale.
# The x86_64 pair through x86_64-kernels (Makefile), which make efi shares.
iso-kernels: x86_64-kernels
	$(ISO_Q)$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	$(ISO_Q)$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)

# Copy-if-changed: the recipe always runs, the file (and so its mtime)
# changes only with the kernel, and make then rebuilds only stale images.
$(ISO_KDIR)/boot/apstart-wbinvd%.elf: iso-kernels
	@mkdir -p $(@D)
	@if ! cmp -s build/wbinvd$*/apstart.elf $@; then \
		echo "  KERNEL  $@"; cp build/wbinvd$*/apstart.elf $@.new && mv -f $@.new $@; fi
$(ISO_KDIR)/boot/apstart-i386-wbinvd%.elf: iso-kernels
	@mkdir -p $(@D)
	@if ! cmp -s build/i386-wbinvd$*/apstart.elf $@; then \
		echo "  KERNEL  $@"; cp build/i386-wbinvd$*/apstart.elf $@.new && mv -f $@.new $@; fi

# apstart.efi goes into /boot too: GRUB on a CD can only chainload it from
# there (it cannot see the El Torito FAT image).
$(ISO_KDIR)/boot/apstart.efi: $(APSTART_EFI)
	@mkdir -p $(@D)
	@if ! cmp -s $< $@; then echo "  EFI     $@"; cp $< $@.new && mv -f $@.new $@; fi

$(ISO_TEST_KDIR)/boot/apstart.efi: $(APSTART_EFI_TEST)
	@mkdir -p $(@D)
	@if ! cmp -s $< $@; then echo "  EFI     $@"; cp $< $@.new && mv -f $@.new $@; fi
$(ISO_TEST_KDIR)/boot/%.elf: $(ISO_KDIR)/boot/%.elf
	@mkdir -p $(@D)
	@if ! cmp -s $< $@; then cp $< $@.new && mv -f $@.new $@; fi

# Debian's signed GRUB on a CD reads its configuration from the ISO 9660
# tree (tools/image/esp.mk): grub-mkrescue adds its modules beside it.
$(ISO_KDIR)/boot/grub/x86_64-efi/grub.cfg: $(ESP_GATE)
	@install -D -m 644 $< $@
$(ISO_TEST_KDIR)/boot/grub/x86_64-efi/grub.cfg: $(ESP_GATE)
	@install -D -m 644 $< $@

# LINUX_IMAGE=FILE|TREE|running (make iso, make usb): that Linux kernel's
# realmode blob and its patched twin on the image (/boot/linux/), each with
# a menu entry that runs it (trampoline=linux, GRUB's module2;
# tools/image/linux-entries.sh, docs/linux-trampoline.md). Without it the
# folder goes. The files' SHA-256s end the grub.cfg: a new blob, a new image.
LINUX_IMAGE ?=
ISO_LINUX = entries=$$$$(tools/image/linux-entries.sh $(1) '$(subst ','\'',$(strip $(LINUX_IMAGE)))') || exit 1; \
	export LINUX_ENTRIES="$$$$entries";

# $(call ISO_IMAGE,image,menu dir,timeout[,default wbinvd,default args[,linux]])
# Rules for one image: its grub.cfg (regenerated every time, replaced only
# when the text differs, so changed parameters also rebuild the image;
# written first under this make's own name, as two lanes' make run may
# regenerate it at once: a shared grub.cfg.new was once removed under the
# other make's mv) and
# the ISO made from the shared kernel tree plus that menu; linux: with
# LINUX_IMAGE's entries. An image under $(ISO_TEST_DIR) is made from the
# tests' trees.
ISO_IS_TEST = $(filter $(ISO_TEST_DIR)/%,$(1))
ISO_KDIR_OF = $(if $(ISO_IS_TEST),$(ISO_TEST_KDIR),$(ISO_KDIR))
ISO_KERNELS_OF = $(if $(ISO_IS_TEST),$(ISO_TEST_KERNELS),$(ISO_KERNELS))
ISO_ESP_OF = $(if $(ISO_IS_TEST),$(ESP_TEST_TREE),$(ESP_TREE))
ISO_ESP_FILES_OF = $(if $(ISO_IS_TEST),$(ESP_TEST_FILES),$(ESP_FILES))
define ISO_IMAGE
$(2)/boot/grub/grub.cfg: iso-force $(if $(6),$(if $(strip $(LINUX_IMAGE)),$(APREALMODE)))
	@mkdir -p $$(@D)
	$(ISO_Q)$(if $(6),$(call ISO_LINUX,$(2))) $(ISO_MKCFG) $(ISO_TEMPLATE) $(3) $(4) $(5) >$$@.new-$(BUILD_VARS_PID)
	$(if $(6),@[ ! -d $(2)/boot/linux ] || (cd $(2)/boot/linux && sha256sum *.lrm 2>/dev/null) | sed 's/^/# linux blob: /' \
		>>$$@.new-$(BUILD_VARS_PID))
	@if cmp -s $$@.new-$(BUILD_VARS_PID) $$@; then rm -f $$@.new-$(BUILD_VARS_PID); else \
		echo "  GRUBCFG $$@"; mv -f $$@.new-$(BUILD_VARS_PID) $$@; fi

$(1): $(call ISO_KERNELS_OF,$(1)) $(call ISO_ESP_FILES_OF,$(1)) $(2)/boot/grub/grub.cfg tools/image/iso.mk tools/image/esp.mk tools/image/mkimage.sh \
		tools/image/esp-populate.sh tools/image/esp-offset.sh
	@mkdir -p $$(@D)
	@echo "  ISO     $$@"
	$(ISO_Q)GRUB_MKRESCUE=$(GRUB_MKRESCUE) ESP_MB=$(ESP_MB) tools/image/mkimage.sh $$@.new $(call ISO_ESP_OF,$(1)) $(call ISO_KDIR_OF,$(1)) $(2)
	@mv -f $$@.new $$@
endef

$(eval $(call ISO_IMAGE,$(ISO),build/iso/menu,$(ISO_TIMEOUT),,,linux))
# Test images: default entry WBINVD=0 with ISO_TEST_ARGS; the -halt one
# runs ISO_TEST_SCREEN_ARGS and keeps the machine up after @end for the
# screen's pages.
ISO_TEST_IMAGES := $(ISO_TEST_DIR)/apstart-test.iso $(ISO_TEST_DIR)/apstart-test-halt.iso \
	$(ISO_TEST_DIR)/apstart-test-i386.iso
$(eval $(call ISO_IMAGE,$(ISO_TEST_DIR)/apstart-test.iso,$(ISO_TEST_DIR)/menu,0,0,$(ISO_TEST_ARGS)))
$(eval $(call ISO_IMAGE,$(ISO_TEST_DIR)/apstart-test-i386.iso,$(ISO_TEST_DIR)/menu-i386,0,i386-0,$(ISO_TEST_ARGS)))
$(eval $(call ISO_IMAGE,$(ISO_TEST_DIR)/apstart-test-halt.iso,$(ISO_TEST_DIR)/menu-halt,0,0,$(ISO_TEST_SCREEN_ARGS) exit=halt))

# apstart.efi's tests (tests/efi/): on UEFI, GRUB chainloads apstart.efi
# at once; on BIOS the plain menu with no delay.
ISO_TEST_EFI := $(ISO_TEST_DIR)/apstart-test-efi.iso
$(eval $(call ISO_IMAGE,$(ISO_TEST_EFI),$(ISO_TEST_DIR)/menu-efi,0,efi))

iso-test-images: $(ISO_TEST_IMAGES)

ppmcheck: $(PPMCHECK)
$(PPMCHECK): tests/iso/ppmcheck.c tests/iso/ppm.c tests/iso/ppm.h tools/image/iso.mk build/host/iso-tools.vars
	@mkdir -p $(@D)
	$(ISO_HOSTCC) $(ISO_HOSTCFLAGS) -I. -o $@ tests/iso/ppmcheck.c tests/iso/ppm.c

# Reads the text off screenshots: the kernel's font for framebuffer ones.
$(SCREENTEXT): tests/iso/screentext.c tests/iso/ppm.c tests/iso/ppm.h tests/iso/vgafont.c \
		tests/iso/vgafont.h $(FONT_GEN) tools/image/iso.mk build/host/iso-tools.vars
	@mkdir -p $(@D)
	$(ISO_HOSTCC) $(ISO_HOSTCFLAGS) -I. -o $@ tests/iso/screentext.c tests/iso/ppm.c \
		tests/iso/vgafont.c $(FONT_GEN)

# make usb: refuse before building anything when no device is named.
ifneq ($(filter usb,$(MAKECMDGOALS)),)
ifeq ($(strip $(DEV)),)
$(error make usb needs the whole USB disk: make usb DEV=/dev/sdX [FORCE=1] [YES=1] (everything on it is lost))
endif
endif
usb: iso-deps $(ISO)
	@if [ -z '$(strip $(DEV))' ]; then \
		echo "make usb: no device: make usb DEV=/dev/sdX [FORCE=1] [YES=1]" >&2; exit 2; fi
	@FORCE='$(FORCE)' YES='$(YES)' tools/image/usb-write.sh $(ISO) '$(DEV)'

.DEFAULT_GOAL := $(ISO_SAVED_GOAL)
# The README's screenshots from the last iso-tests run's screendumps
# (SeaBIOS and OVMF, from the CD; the -smp 16 boot's result page): small
# indexed PNGs.
SCREENSHOTS := $(foreach fw,bios uefi,$(foreach page,progress result qr,$(fw)-cdrom-shot/$(page):$(fw)-$(page))) \
	bios-cdrom-many/result:bios-result-many
screenshots:
	$(ISO_Q)for s in $(SCREENSHOTS); do \
		in=build/test-logs/iso-$${s%%:*}.ppm out=docs/screens/$${s#*:}.png; \
		[ -f $$in ] || { echo "no $$in: run make iso-tests first"; exit 1; }; \
		mkdir -p docs/screens; \
		python3 tools/dev/ppm2png.py $$in $$out || exit 1; \
		echo "  PNG     $$out"; done

endif
