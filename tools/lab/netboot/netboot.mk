# SPDX-License-Identifier: MIT
# Network boot: the directory a lab serves over TFTP/HTTP (BIOS PXE, UEFI
# PXE, UEFI HTTP boot), with the image's kernels and menu and a menu per
# machine (tools/lab/netboot/mknetboot.sh; docs/lab.md). Included from the
# top-level Makefile after tools/image/iso.mk (it uses ISO_KERNELS).
#
#   make netboot [NETBOOT_DIR=build/netboot] [NETBOOT_TIMEOUT=5]
#                [NETBOOT_MACHINES=FILE]       (tools/lab/netboot/machines.example)
#   make netboot-tests   PXE boots under QEMU, BIOS and UEFI, both variants,
#                        and UEFI HTTP boot where the host allows it
#                        (tests/netboot/run.sh)
ifndef NETBOOT_MK_INCLUDED
NETBOOT_MK_INCLUDED := 1
NETBOOT_SAVED_GOAL := $(.DEFAULT_GOAL)

NETBOOT_DIR ?= build/netboot
NETBOOT_TIMEOUT ?= $(ISO_TIMEOUT)
NETBOOT_MACHINES ?=
NETBOOT_TEST_DIR := build/netboot-test
NETBOOT_TESTS_TIMEOUT ?= 600

.PHONY: netboot netboot-tests
# Always rebuilt whole: it is a copy of files made elsewhere (~0.3 s).
netboot: $(ISO_KERNELS)
	@tools/lab/netboot/mknetboot.sh --out $(NETBOOT_DIR) --kernels $(ISO_KDIR) \
		--timeout '$(NETBOOT_TIMEOUT)' --machines '$(NETBOOT_MACHINES)'
	@sed -n '2,$$p' $(NETBOOT_DIR)/README.txt | sed 's/^/  /'

.DEFAULT_GOAL := $(NETBOOT_SAVED_GOAL)
endif
