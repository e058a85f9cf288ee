/* SPDX-License-Identifier: MIT */
/* Reading key=value fields out of a kept summary's records (@boot, @end,
 * @summary ...), as the loader needs them: the last line that starts with
 * a prefix wins, fields are matched whole (total_ns= is not
 * settled_total_ns=). */
#ifndef APSTART_EFI_RECORDS_H
#define APSTART_EFI_RECORDS_H

#include <efi.h>

/* The value of key ("status=") in the last line of d that starts with
 * prefix ("@end "), cut at a blank and at out_len - 1 bytes. */
BOOLEAN rec_text(const UINT8 *d, UINTN size, const char *prefix, const char *key, char *out,
		 UINTN out_len);
/* The same as a decimal number; FALSE if missing or not a number. */
BOOLEAN rec_u64(const UINT8 *d, UINTN size, const char *prefix, const char *key, UINT64 *out);

#endif
