# SPDX-License-Identifier: MIT
# apstart.efi, the UEFI loader in wings/efi/, built with Debian's gnu-efi
# (package gnu-efi: headers in /usr/include/efi, crt0 and linker script in
# /usr/lib). It links freestanding files of the kernel's: lib/format.c
# and kernel/serial.c (its one message after ExitBootServices), and for an
# A/B session's table aplog's verdict (tools/aplog/stats/verdict.c: the
# rows, as aplog prints them), the screen wing's QR encoder and font (the
# page with its QR code). Its hand-over code takes the GDT layout from
# kernel/gdt.inc. It carries the SHA-256 of the two kernels it loads, as
# they go onto the stick (build/efi/kernels/: debug sections stripped), in
# a table generated when it is built (wings/efi/mkhashes.sh; checked with
# wings/efi/sha256.c by wings/efi/kernel_hash.c): building it builds those
# kernels.
# Included from the top-level Makefile.
#
# Two builds, the same sources: build/efi/apstart.efi (EFI_TEST_HOOKS=0)
# goes on the image (make iso, make usb) and is what make sign signs: it
# has no test switch (wings/efi/test_hooks.h), since a signed loader
# that honours one from the stick's unsigned loader.cfg hands it to
# anyone with the stick. build/efi-test/apstart.efi (EFI_TEST_HOOKS=1)
# goes on the tests' images (build/iso-test/: tools/image/iso.mk).
#
#   make efi        build/efi/apstart.efi (and build/efi/kernels/*.elf)
#   make efi-test   build/efi-test/apstart.efi

EFI_OUT := build/efi
APSTART_EFI := $(EFI_OUT)/apstart.efi
EFI_TEST_OUT := build/efi-test
APSTART_EFI_TEST := $(EFI_TEST_OUT)/apstart.efi
GNUEFI_INC ?= /usr/include/efi
GNUEFI_LIB ?= /usr/lib

EFI_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	-fno-strict-aliasing -fpic -fshort-wchar -mno-red-zone -maccumulate-outgoing-args \
	-DGNU_EFI_USE_MS_ABI -I$(GNUEFI_INC) -I$(GNUEFI_INC)/x86_64 -I. -MMD -MP \
	-DAPSTART_VERSION='"$(VERSION)"'
EFI_LDFLAGS := -nostdlib -znocombreloc -z noexecstack -z defs -shared -Bsymbolic \
	-T $(GNUEFI_LIB)/elf_x86_64_efi.lds -L$(GNUEFI_LIB)
# The kernels as apstart.efi loads them from \apstart\ on the stick.
EFI_KERNELS := $(EFI_OUT)/kernels/apstart-wbinvd0.elf $(EFI_OUT)/kernels/apstart-wbinvd1.elf
EFI_HASHES := $(EFI_OUT)/gen/kernel_hashes.c
# Its SBAT metadata (shim's SBAT.md): a .sbat section of CSV lines, the
# format's own line, then apstart's: component, generation, vendor,
# package, version, URL. shim checks the generation against the SbatLevel
# variable before it lets apstart.efi run, so a signed build with a hole
# can be revoked without revoking the key: raise EFI_SBAT_GENERATION in
# the build that fixes it, and an SbatLevel entry apstart,N refuses every
# build below N. SBAT_URL: where to report (no comma, quote or blank).
EFI_SBAT := $(EFI_OUT)/gen/sbat.c
EFI_SBAT_GENERATION := 1
SBAT_URL ?= mail:maintainers@users.noreply.a-seed-2d1466fb.example
EFI_SBAT_FORMAT := sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md
EFI_SBAT_APSTART = apstart,$(EFI_SBAT_GENERATION),apstart,apstart,$(VERSION),$(SBAT_URL)
EFI_C := $(wildcard wings/efi/*.c) lib/format.c kernel/serial.c wings/screen/qr.c \
	tools/aplog/stats/verdict.c $(FONT_GEN) $(EFI_HASHES) $(EFI_SBAT)
# What it is built with (tools/build/build-vars.mk): a changed compiler, flag or
# gnu-efi rebuilds it.
include tools/build/build-vars.mk
.PHONY: efi efi-test efi-kernels
efi: $(APSTART_EFI)
efi-test: $(APSTART_EFI_TEST)

# Each variant by its own make (it decides what is stale), once a make
# (x86_64-kernels, Makefile, which make iso shares); the stripped copy
# changes, and so rebuilds the table, only when the kernel did (written
# under this make's own name first: two lanes' make run may strip at once).
efi-kernels: x86_64-kernels
$(EFI_OUT)/kernels/apstart-wbinvd%.elf: efi-kernels
	@mkdir -p $(@D)
	$(Q)objcopy --strip-debug build/wbinvd$*/apstart.elf $@.new-$(BUILD_VARS_PID)
	@if cmp -s $@.new-$(BUILD_VARS_PID) $@; then rm -f $@.new-$(BUILD_VARS_PID); else \
		echo "  STRIP   $@"; mv -f $@.new-$(BUILD_VARS_PID) $@; fi

# LINUX_IMAGE= (make iso, make usb, make efi): that kernel's realmode blob
# and its patched twin go onto the stick as \apstart\linux\shipped.lrm and
# twin.lrm (tools/image/esp.mk), their SHA-256 into the table beside the
# kernels': under Secure Boot apstart.efi hands over only those
# (docs/linux-trampoline.md). The stamp holds LINUX_IMAGE: a change (or
# none) makes the table again.
EFI_LRM_DIR := $(EFI_OUT)/linux
EFI_LRMS := $(if $(strip $(LINUX_IMAGE)),$(EFI_LRM_DIR)/shipped.lrm $(EFI_LRM_DIR)/twin.lrm)
$(EFI_LRM_DIR)/image: FORCE $(if $(strip $(LINUX_IMAGE)),$(APREALMODE))
	@mkdir -p $(EFI_LRM_DIR)
	$(Q)if [ -z '$(strip $(LINUX_IMAGE))' ]; then rm -f $(EFI_LRM_DIR)/*.lrm; else \
		for k in shipped twin; do \
			f=$$(tools/run/linux-lrm.sh $$([ $$k = twin ] && echo --twin) '$(strip $(LINUX_IMAGE))') || exit 1; \
			cmp -s "$$f" $(EFI_LRM_DIR)/$$k.lrm || { echo "  LRM     $(EFI_LRM_DIR)/$$k.lrm"; cp "$$f" $(EFI_LRM_DIR)/$$k.lrm; }; \
		done; fi
	@t=$(EFI_LRM_DIR)/image.new-$(BUILD_VARS_PID); echo '$(strip $(LINUX_IMAGE))' >$$t; \
		cmp -s $$t $(EFI_LRM_DIR)/image || mv -f $$t $(EFI_LRM_DIR)/image; rm -f $$t
$(EFI_LRMS): $(EFI_LRM_DIR)/image
	@:

$(EFI_HASHES): $(EFI_KERNELS) $(EFI_LRM_DIR)/image $(EFI_LRMS) wings/efi/mkhashes.sh
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)wings/efi/mkhashes.sh APSTART_KERNEL0=$(EFI_OUT)/kernels/apstart-wbinvd0.elf \
		APSTART_KERNEL1=$(EFI_OUT)/kernels/apstart-wbinvd1.elf \
		$(if $(EFI_LRMS),APSTART_LRM_SHIPPED=$(EFI_LRM_DIR)/shipped.lrm \
		APSTART_LRM_TWIN=$(EFI_LRM_DIR)/twin.lrm) >$@.new
	@mv -f $@.new $@

# The section's C: one array, 4 KiB-aligned, so that gnu-efi's linker
# script places it as a section of its own after the others, page-aligned
# as a PE section must be (objdump -h build/efi/apstart.efi shows it).
VARS.$(EFI_OUT)/sbat = $(EFI_SBAT_FORMAT) | $(EFI_SBAT_APSTART)
$(EFI_SBAT): wings/efi/efi.mk $(EFI_OUT)/sbat.vars
	@mkdir -p $(@D)
	@case '$(VERSION)$(SBAT_URL)' in *[,\"\\\ ]*|'') \
		echo "efi: VERSION and SBAT_URL must be set, without comma, quote, backslash or blank" >&2; exit 2;; esac
	@echo "  GEN     $@"
	$(Q)printf '%s\n' '/* Generated by wings/efi/efi.mk: the .sbat section. */' \
		'const char apstart_sbat[] __attribute__((section(".sbat"), used, aligned(4096))) =' \
		'	"$(EFI_SBAT_FORMAT)\n"' '	"$(EFI_SBAT_APSTART)\n";' >$@.new
	@mv -f $@.new $@

# $(call EFI_BUILD,OUT,HOOKS): the rules of OUT/apstart.efi, built with
# APSTART_EFI_TEST_HOOKS=HOOKS; its objects in OUT (EFI_OBJS.OUT).
define EFI_BUILD
EFI_OBJS.$(1) := $$(patsubst %.c,$(1)/%.o,$$(EFI_C)) $(1)/wings/efi/handoff_stub.o
VARS.$(1)/efi = $$(CC) $$(EFI_CFLAGS) -DAPSTART_EFI_TEST_HOOKS=$(2) | $$(NASM) | $$(LD) $$(EFI_LDFLAGS) $$(GNUEFI_LIB)

$(1)/%.o: %.c wings/efi/efi.mk $(1)/efi.vars
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$@"
	$$(Q)$$(CC) $$(EFI_CFLAGS) -DAPSTART_EFI_TEST_HOOKS=$(2) -c -o $$@ $$<

$(1)/wings/efi/handoff_stub.o: wings/efi/handoff_stub.asm wings/efi/efi.mk $$(OUT)/gen/kernel/asm_defs.inc \
		$(1)/efi.vars
	@mkdir -p $$(dir $$@)
	@echo "  NASM    $$@"
	$$(Q)$$(NASM) -f elf64 -I./ -I$$(OUT)/gen/ -o $$@ $$<

$(1)/apstart.so: $$(EFI_OBJS.$(1)) $(1)/efi.vars
	@echo "  LD      $$@"
	$$(Q)$$(LD) $$(EFI_LDFLAGS) -o $$@ $$(GNUEFI_LIB)/crt0-efi-x86_64.o $$(EFI_OBJS.$(1)) -lefi -lgnuefi

# The PE/COFF image the firmware loads (EFI application, subsystem 10),
# without a COFF symbol table (apstart.so keeps the symbols): nothing
# after the last section, which sbsign would warn about and leave out of
# the signed digest.
$(1)/apstart.efi: $(1)/apstart.so
	@echo "  EFI     $$@"
	$$(Q)objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
		-j '.rel.*' -j '.rela.*' -j .reloc -j .sbat --strip-all --target efi-app-x86_64 --subsystem=10 $$< $$@

-include $$(EFI_OBJS.$(1):.o=.d)
endef
$(eval $(call EFI_BUILD,$(EFI_OUT),0))
$(eval $(call EFI_BUILD,$(EFI_TEST_OUT),1))
