# SPDX-License-Identifier: MIT
# apstart installed beside a distribution's kernel, the way memtest86+'s
# Debian package is (docs/from-linux.md). Included from the top-level
# Makefile after tools/aplog/aplog.mk ($(APLOG)).
#
#   make install [DESTDIR=...] [PREFIX=/usr/local]
#                          the kernels in /boot, the GRUB script in
#                          /etc/grub.d, apstart (sbin), aplog and
#                          aprealmode (bin),
#                          their manuals, the systemd units
#   make deb               build/deb/apstart_<version>_amd64.deb (dpkg-deb;
#                          tools/linux/deb/mkdeb.sh)
#   make linux-tool-tests  apstart on fake machines (tests/linux-tool/run.sh)
#   make deb-tests         make install and the .deb: files, lintian, install,
#                          remove and purge with dpkg --root (tests/linux-tool/deb.sh)
#   make linux-vm-tests    apstart run --via kexec and collect, installed in
#                          Debian's kernel's VM, SeaBIOS and OVMF: the records
#                          filed = the serial bytes (tests/linux-tool/vm.sh)
#   make linux-session-long
#                          long: a debootstrapped Debian 12 disk image with
#                          GRUB (EFI) and the .deb (installed, removed and
#                          purged in its chroot first) under OVMF: run --via
#                          grub, --via kexec, ab 2 through a killed QEMU
#                          (tests/linux-session/run.sh)
ifndef LINUX_MK_INCLUDED
LINUX_MK_INCLUDED := 1
LINUX_SAVED_GOAL := $(.DEFAULT_GOAL)

PREFIX ?= /usr/local
DESTDIR ?=
LINUX_DIR := tools/linux
# systemd reads units from /usr/lib/systemd/system (a package's; /lib is
# /usr/lib on a merged-/usr system, which Debian 12 is) and
# /usr/local/lib/systemd/system (an administrator's installs).
UNITDIR ?= $(PREFIX)/lib/systemd/system
DEB_VERSION ?= $(VERSION)
DEB_CERT ?=
DEB_FILE := build/deb/apstart_$(DEB_VERSION)_amd64.deb

.PHONY: install linux-kernels deb

# The two kernels an install carries: x86_64, WBINVD=0 and 1 (plain
# builds, whatever this make was called with; Makefile's x86_64-kernels).
linux-kernels: x86_64-kernels

install: linux-kernels $(APLOG) $(APREALMODE)
	@PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' UNITDIR='$(UNITDIR)' VERSION='$(VERSION)' \
		APLOG='$(APLOG)' APREALMODE='$(APREALMODE)' $(LINUX_DIR)/install.sh

deb: linux-kernels $(APLOG) $(APREALMODE)
	@DEB_VERSION='$(DEB_VERSION)' DEB_CERT='$(DEB_CERT)' APLOG='$(APLOG)' APREALMODE='$(APREALMODE)' \
		$(LINUX_DIR)/deb/mkdeb.sh build/deb

.DEFAULT_GOAL := $(LINUX_SAVED_GOAL)
endif
