/* SPDX-License-Identifier: MIT */
/* Reading key=value fields out of a kept summary's records (@boot, @end,
 * @summary ...), as the loader needs them: the last record of the word
 * (with the field asked for) wins, fields are matched whole (total_ns is
 * not settled_total_ns). Records and keys are named by the record schema
 * (lib/records_schema.h): RECORD_WORD(end), RECORD_KEY(end, status),
 * RECORD_FIELD(summary, op, "offline"). Pure C (the host's tests and
 * fuzzers build it): the bytes come from the stick and are bounded by
 * size alone. */
#ifndef APSTART_EFI_RECORDS_H
#define APSTART_EFI_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/records_schema.h"

/* The value of key ("status") in the last record word ("@end") of d that
 * has the whole field where ("op=offline"; NULL: any), cut at a blank and
 * at out_len - 1 bytes. */
bool rec_text(const uint8_t *d, size_t size, const char *word, const char *where,
	      const char *key, char *out, size_t out_len);
/* The same as a decimal number; false if missing, not a number or more
 * than 64 bits hold. */
bool rec_u64(const uint8_t *d, size_t size, const char *word, const char *where,
	     const char *key, uint64_t *out);

#endif
