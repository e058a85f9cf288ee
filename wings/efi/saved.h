/* SPDX-License-Identifier: MIT */
/* The summary the last run kept in NVRAM (wings/efi/efi_vendor.h). */
#ifndef APSTART_EFI_SAVED_H
#define APSTART_EFI_SAVED_H

#include <efi.h>

#include "wings/efi/volume.h"

/* If the variables exist: write the summary to \apstart\results\NNNN.log
 * (the next number), show it, delete the variables once the file reads
 * back identical, then leave it on the screen for up to wait_s seconds.
 * A read-only medium keeps the variables and says so. Never fatal. */
void saved_collect(struct volume *v, UINTN wait_s);

/* The kept summary, its parts concatenated, in a new pool buffer with a
 * NUL after it; parts: how many variables held it. EFI_NOT_FOUND when
 * there is none (orphan parts of a save cut short are deleted). */
EFI_STATUS saved_read(UINT8 **data, UINTN *size, UINTN *parts);
/* Deletes every part. */
void saved_delete(void);
/* On the console, each line behind "| ", between two rulers naming title. */
void saved_show(const UINT8 *data, UINTN size, const CHAR16 *title);

#endif
