# SPDX-License-Identifier: MIT
# The host's C, said once: every host program and host test (aplog, the
# flush model, linux-hotplug, the font and MADT tools, the unit, fbcon,
# QR and fuzz lanes, the varstore reader) builds with these. Warnings are
# errors; a lane that tests under AddressSanitizer/UBSan adds HOST_SAN.
HOST_CC ?= gcc
HOST_CFLAGS := -std=c11 -Wall -Wextra -Werror -I.
HOST_OPT := -O2
HOST_DEBUG := -O1 -g
# A sanitizer build whose plain twin is built at $(HOST_OPT) from the same
# files (aplog): the twin gives the warnings only optimisation finds, and
# ASan/UBSan catch the same at -O0, which compiles in half the CPU.
HOST_TWIN_DEBUG := -O0 -g
HOST_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
