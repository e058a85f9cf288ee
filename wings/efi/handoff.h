/* SPDX-License-Identifier: MIT */
/* From the chosen kernel to running it: load, ExitBootServices, jump. */
#ifndef APSTART_EFI_HANDOFF_H
#define APSTART_EFI_HANDOFF_H

#include <efi.h>

#include "wings/efi/test_hooks.h"

#include "wings/efi/kernel.h"

/* Does not return once boot services are exited. Returns an error (and
 * prints why) only while they are still there: the menu can go on. */
EFI_STATUS handoff_boot(EFI_HANDLE image, const struct kernel_image *k,
			const CHAR8 *cmdline);

/* Test only (loader.cfg test_stale_map_key=1): change the memory map
 * between the first GetMemoryMap and ExitBootServices, so that the first
 * try fails and the retry is exercised. */
#if APSTART_EFI_TEST_HOOKS
extern BOOLEAN handoff_test_stale_key;
#endif

#endif
