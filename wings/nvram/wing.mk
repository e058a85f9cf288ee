# SPDX-License-Identifier: MIT
# The nvram wing keeps the kept wing's records through the uefi wing's
# runtime services (a kernel with nvram has both). Included from the
# top-level Makefile (a wing's wing.mk may name WING_NEEDS.NAME).
WING_NEEDS.nvram := kept uefi
