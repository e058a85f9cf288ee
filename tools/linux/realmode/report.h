/* SPDX-License-Identifier: MIT */
/* The lines aprealmode prints about a blob ("name: value", one a line). */
#ifndef APREALMODE_REPORT_H
#define APREALMODE_REPORT_H

#include <stdio.h>

#include "wings/linux_trampoline/lrm_file.h"

/* The kernel, layout, blob and relocs (sizes, SHA-256), trampoline_start
 * (its offset, whether it begins with WBINVD), trampoline_header, and the
 * state (where from; as shipped or patched; a twin's shipped SHA-256). */
void report_blob(FILE *out, const struct lrm_header *h, const struct lrm_blob_info *in);

/* n bytes as lower-case hex. */
void report_hex(FILE *out, const uint8_t *d, size_t n);

#endif
