/* SPDX-License-Identifier: MIT */
/* The summary the last run kept in NVRAM (kernel/efi_vendor.h). */
#ifndef APSTART_EFI_SAVED_H
#define APSTART_EFI_SAVED_H

#include <efi.h>

#include "boot/efi/volume.h"

/* If the variable exists: write it to \apstart\results\NNNN.log (the
 * next number), show it, delete the variable once the file reads back
 * identical, then leave it on the screen for up to wait_s seconds.
 * A read-only medium keeps the variable and says so. Never fatal. */
void saved_collect(struct volume *v, UINTN wait_s);

#endif
