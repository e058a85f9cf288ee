/* SPDX-License-Identifier: MIT */
/* A log file line by line: each record to its handler (handlers.c). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "util.h"

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}

static bool has_text(const char *p, size_t n, const char *t)
{
	size_t tl = strlen(t);
	for (size_t i = 0; i + tl <= n; i++)
		if (memcmp(p + i, t, tl) == 0)
			return true;
	return false;
}

enum word { W_BOOT, W_SAMPLE, W_SUMMARY, W_FAIL, W_END, W_HOST, W_CPU, W_WARN,
	     W_CPUSUM, W_PHASE, W_ROUND, W_BRINGUP, W_COUNT };

static void on_line(struct loader *ld, const char *p, size_t n, size_t line)
{
	static const char *const words[W_COUNT] = { "@boot", "@sample",
		"@summary", "@fail", "@end", "@host", "@cpu", "@warn", "@cpusum",
		"@phase", "@round", "@bringup" };
	size_t w = 1;
	while (w < n && p[w] != ' ' && p[w] != '\t')
		w++;
	int kind = -1;
	for (int i = 0; i < W_COUNT; i++)
		if (strlen(words[i]) == w && memcmp(p, words[i], w) == 0)
			kind = i;
	if (kind < 0)
		return; /* unknown @-words are for other tools */
	if (kind == W_FAIL) {
		on_fail(ld, line);
		return;
	}
	if (kind == W_WARN) {
		on_warn(ld, p, n);
		return;
	}
	/* @cpu matters only with a warp test result; other @cpu lines (older
	 * kernels, linux-hotplug) stay as unread as before. */
	if (kind == W_CPU && !has_text(p, n, " tsc_sync="))
		return;

	static struct record rec; /* 4 KiB: keep it off the stack */
	bool fields_ok = split_fields(&ld->m, line, words[kind], p + w, n - w,
				      &rec);
	if (kind == W_BOOT) {
		struct run *r = begin_boot(ld, line, p + w, n - w);
		if (fields_ok)
			on_boot(ld, line, &rec, r);
		else
			r->bad_boot = true;
		return;
	}
	if (!fields_ok)
		return;
	switch (kind) {
	case W_SAMPLE: on_sample(ld, line, &rec, fnv1a(p + w, n - w)); break;
	case W_SUMMARY: on_summary(ld, line, &rec); break;
	case W_END: on_end(ld, line, &rec); break;
	case W_CPU: on_cpu(ld, line, &rec); break;
	case W_CPUSUM: on_cpusum(ld, line, &rec); break;
	case W_PHASE: on_phase(ld, line, &rec); break;
	case W_ROUND: on_round(ld, line, &rec); break;
	case W_BRINGUP: on_bringup(ld, line, &rec); break;
	default: on_host(ld, line, &rec); break;
	}
}

int load_file(struct set *set, const char *path, bool allow_trunc)
{
	char *buf;
	size_t len;
	if (read_all(path, &buf, &len) != 0)
		return 1;

	struct loader ld = { .m = { .file = strcmp(path, "-") ? path : "<stdin>" },
			     .set = set, .allow_trunc = allow_trunc, .cur = -1 };
	size_t first = set->n, pos = 0, line = 0;
	while (pos < len) {
		if (ld.m.errors >= MAX_ERRORS_PER_FILE) {
			fprintf(stderr, "%s:%zu: too many errors, giving up on this "
				"file\n", ld.m.file, line);
			break;
		}
		line++;
		size_t n;
		const char *p = next_line(buf, len, &pos, &n);
		if (n && p[0] == '@')
			on_line(&ld, p, n, line);
	}
	if (ld.cur >= 0 && ld.m.errors < MAX_ERRORS_PER_FILE)
		close_run(&ld, line, "before the end of the file");
	if (set->n == first && !ld.m.errors) {
		fprintf(stderr, "%s: no apstart run in this file (no @boot record)\n",
			ld.m.file);
		ld.m.errors++;
	}
	free(buf);
	return ld.m.errors;
}
