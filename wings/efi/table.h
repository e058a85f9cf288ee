/* SPDX-License-Identifier: MIT */
/* The end of an A/B session: its table (the text: wings/efi/table_text.h)
 * written as table.txt beside the runs, printed on the console, drawn on
 * the screen with a QR code of it (wings/efi/page.h). */
#ifndef APSTART_EFI_TABLE_H
#define APSTART_EFI_TABLE_H

#include <efi.h>

#include "wings/efi/plan.h"
#include "wings/efi/volume.h"

/* Reads the session's run files and makes the table; on a screen, waits
 * for a key before it returns (the table is what the developer came back
 * for). */
void table_make(struct volume *v, const struct plan *p);

#endif
