# SPDX-License-Identifier: MIT
# The files of the image's EFI system partition, gathered in build/esp/ as
# they go onto it (tools/image/esp-populate.sh copies the tree as it is). The
# stick boots the way distributions do (docs/hardware.md, Secure Boot):
#   \EFI\BOOT\BOOTX64.EFI    shim, signed by Microsoft (package shim-signed)
#   \EFI\BOOT\mmx64.efi      MokManager, shim's key enrolment (shim-signed)
#   \EFI\BOOT\grubx64.efi    Debian's signed GRUB (grub-efi-amd64-signed),
#                            the second stage shim starts and verifies
#   \EFI\BOOT\grub.cfg, \EFI\debian\grub.cfg   that GRUB's configuration
#                            (tools/image/gate.cfg; on a CD it reads
#                            /boot/grub/x86_64-efi/grub.cfg of the ISO)
#   \EFI\apstart\apstart.efi, \apstart\apstart-wbinvd{0,1}.elf
#                            apstart.efi and the kernels whose SHA-256 it
#                            carries (wings/efi/efi.mk)
# grub-mkrescue's own GRUB becomes \EFI\apstart\grub.efi: the menu when
# Secure Boot is off. Two trees: build/esp/ for the image (make iso, make
# usb, what make sign signs: build/efi/apstart.efi) and build/esp-test/
# for the tests' images (build/efi-test/apstart.efi, with its test
# switches: wings/efi/efi.mk). Included from the top-level Makefile.
#
# The signed programs are the packages' (Debian's file names first, then
# Ubuntu's); SHIM_EFI=, MOKMANAGER_EFI=, SIGNED_GRUB_EFI= name others.

ESP_TREE := build/esp
# The partition's size in MiB (tools/image/mkimage.sh; grub-mkrescue's 2.88 MB
# cannot hold the chain).
ESP_MB ?= 16
# First existing file of a list, else a name whose rule says what to install.
ESP_PICK = $(or $(firstword $(wildcard $(1))),build/missing-package/$(2))
SHIM_EFI ?= $(call ESP_PICK,/usr/lib/shim/shimx64.efi.signed /usr/lib/shim/shimx64.efi.signed.latest,shim-signed)
MOKMANAGER_EFI ?= $(call ESP_PICK,/usr/lib/shim/mmx64.efi.signed /usr/lib/shim/mmx64.efi,shim-signed)
SIGNED_GRUB_EFI ?= $(call ESP_PICK,/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed,grub-efi-amd64-signed)
ESP_GATE := tools/image/gate.cfg

ESP_TEST_TREE := build/esp-test
# $(call ESP_FILES_IN,TREE): what an ESP tree holds.
ESP_FILES_IN = $(addprefix $(1)/,EFI/BOOT/BOOTX64.EFI EFI/BOOT/mmx64.efi EFI/BOOT/grubx64.efi \
	EFI/BOOT/grub.cfg EFI/debian/grub.cfg EFI/apstart/apstart.efi \
	apstart/apstart-wbinvd0.elf apstart/apstart-wbinvd1.elf)
ESP_FILES := $(call ESP_FILES_IN,$(ESP_TREE))
ESP_TEST_FILES := $(call ESP_FILES_IN,$(ESP_TEST_TREE))

build/missing-package/%:
	@echo "no $* files here: install the package $* (as root: make deps; or sudo apt-get install $*)" >&2
	@exit 1

# $(call ESP_TREE_RULES,TREE,APSTART_EFI): the rules of one tree.
define ESP_TREE_RULES
$(1)/EFI/BOOT/BOOTX64.EFI: $$(SHIM_EFI)
	@install -D -m 644 $$< $$@
$(1)/EFI/BOOT/mmx64.efi: $$(MOKMANAGER_EFI)
	@install -D -m 644 $$< $$@
$(1)/EFI/BOOT/grubx64.efi: $$(SIGNED_GRUB_EFI)
	@install -D -m 644 $$< $$@
$(1)/EFI/BOOT/grub.cfg: $$(ESP_GATE)
	@install -D -m 644 $$< $$@
$(1)/EFI/debian/grub.cfg: $$(ESP_GATE)
	@install -D -m 644 $$< $$@
$(1)/EFI/apstart/apstart.efi: $(2)
	@install -D -m 644 $$< $$@
$(1)/apstart/apstart-wbinvd%.elf: $$(EFI_OUT)/kernels/apstart-wbinvd%.elf
	@install -D -m 644 $$< $$@
endef
$(eval $(call ESP_TREE_RULES,$(ESP_TREE),$(APSTART_EFI)))
$(eval $(call ESP_TREE_RULES,$(ESP_TEST_TREE),$(APSTART_EFI_TEST)))
