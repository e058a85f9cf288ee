# SPDX-License-Identifier: MIT
# The nvram wing keeps the summary through the uefi wing's runtime
# services (a kernel with nvram has uefi too). Included from the
# top-level Makefile (a wing's wing.mk may name WING_NEEDS.NAME).
WING_NEEDS.nvram := uefi
