/* SPDX-License-Identifier: MIT */
/* aplog's small utilities: memory that never returns NULL, numbers parsed
 * without overflow, untrusted bytes made printable, whole files read. */
#ifndef APLOG_UTIL_H
#define APLOG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Out of memory: message and exit 1. */
void oom(void) __attribute__((noreturn));
void *xrealloc_array(void *p, size_t n, size_t size);
void *xcalloc(size_t n, size_t size);
/* Grow *p (of *cap elements of size bytes) to hold at least need. */
void grow(void **p, size_t *cap, size_t need, size_t size);

/* Untrusted bytes for a diagnostic: printable ASCII as is, anything else
 * as \xHH, long values cut. Returns buf. */
const char *show(char *buf, size_t bufsz, const char *s, size_t n);
bool has_newline(const char *s);

enum numres { NUM_OK, NUM_BAD, NUM_RANGE };
/* Unsigned decimal, digits only, at most max. */
enum numres parse_dec(const char *s, size_t n, uint64_t max, uint64_t *out);
/* 0x-prefixed hexadecimal, 64 bits. */
enum numres parse_hex(const char *s, size_t n, uint64_t *out);

/* qsort() comparison of two uint64_t, ascending. */
int cmp_u64(const void *a, const void *b);

/* A log opened for reading ("-": standard input); NULL after a message,
 * a directory among them. */
FILE *open_input(const char *path);
/* Whole file ("-": standard input) into *out; 0, or -1 after a message. */
int read_all(const char *path, char **out, size_t *outlen);

#endif
