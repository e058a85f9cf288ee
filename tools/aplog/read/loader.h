/* SPDX-License-Identifier: MIT */
/* Inside the log parser (records.h): the state of one file being read,
 * shared by load.c (lines), handlers.c (records) and runcheck.c (runs). */
#ifndef APLOG_LOADER_H
#define APLOG_LOADER_H

#include "tools/aplog/read/records.h"

struct loader {
	struct msgs m;
	struct set *set;
	bool allow_trunc;
	long cur;           /* index of the open run, -1 if none */
	size_t last_end;    /* line of the last @end, 0 if none */
	bool headless;      /* records came before the first @boot (said once) */
	unsigned runs_in_file;
	char host_flush[HOST_STR_MAX]; /* @host flush_model= for the next run */
};

/* fields.c: key as 1..STR_MAX-1 printable characters into dst. */
bool get_str(struct msgs *m, size_t line, const struct record *r, int k, char *dst);

/* runcheck.c: close the open run (truncated when it has no @end; why says
 * where it stopped) and check it as a whole. */
void close_run(struct loader *ld, size_t at_line, const char *why);

/* handlers.c: one per record word. */
struct run *begin_boot(struct loader *ld, size_t line, const char *p,
		       size_t n);
void on_boot(struct loader *ld, size_t line, const struct record *rec,
	     struct run *r);
void on_sample(struct loader *ld, size_t line, const struct record *rec,
	       uint64_t text_hash);
void on_phase(struct loader *ld, size_t line, const struct record *rec);
void on_round(struct loader *ld, size_t line, const struct record *rec);
void on_bringup(struct loader *ld, size_t line, const struct record *rec);
void on_cpu(struct loader *ld, size_t line, const struct record *rec);
void on_summary(struct loader *ld, size_t line, const struct record *rec);
void on_cpusum(struct loader *ld, size_t line, const struct record *rec);
void on_fail(struct loader *ld, size_t line, const char *p, size_t n);
void on_warn(struct loader *ld, const char *p, size_t n);
void on_env(struct loader *ld, const char *p, size_t n);
void on_trampoline(struct loader *ld, const char *p, size_t n);
void on_end(struct loader *ld, size_t line, const struct record *rec);
void on_host(struct loader *ld, size_t line, const struct record *rec);

#endif
