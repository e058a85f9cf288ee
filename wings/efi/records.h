/* SPDX-License-Identifier: MIT */
/* Reading key=value fields out of a kept summary's records (@boot, @end,
 * @summary ...), as the loader needs them: the last line that starts with
 * a prefix wins, fields are matched whole (total_ns= is not
 * settled_total_ns=). Pure C (the host's tests and fuzzers build it): the
 * bytes come from the stick and are bounded by size alone. */
#ifndef APSTART_EFI_RECORDS_H
#define APSTART_EFI_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of key ("status=") in the last line of d that starts with
 * prefix ("@end "), cut at a blank and at out_len - 1 bytes. */
bool rec_text(const uint8_t *d, size_t size, const char *prefix, const char *key, char *out,
	      size_t out_len);
/* The same as a decimal number; false if missing, not a number or more
 * than 64 bits hold. */
bool rec_u64(const uint8_t *d, size_t size, const char *prefix, const char *key, uint64_t *out);

#endif
