/* SPDX-License-Identifier: MIT */
/* A log file line by line: each record to its handler (handlers.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/loader.h"
#include "tools/aplog/util.h"

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

/* @fail, @warn and @env are kept as text: their keys are only looked up
 * in the schema (a key it lacks said once; a malformed one is no error,
 * as before). */
static void keys_known(struct loader *ld, const char *p, size_t n, size_t line)
{
	static struct record rec;
	int errors = ld->m.errors;
	ld->m.quiet = true;
	record_parse(&ld->m, line, p, n, &rec);
	ld->m.quiet = false;
	ld->m.errors = errors;
}

static void on_line(struct loader *ld, const char *p, size_t n, size_t line)
{
	size_t w = 1;
	while (w < n && p[w] != ' ' && p[w] != '\t')
		w++;
	int id = record_find(p, w);
	switch (id) {
	case RW_fail:
		keys_known(ld, p, n, line);
		on_fail(ld, line, p, n);
		return;
	case RW_warn:
		keys_known(ld, p, n, line);
		on_warn(ld, p, n);
		return;
	case RW_env:
		keys_known(ld, p, n, line);
		on_env(ld, p + w, n - w);
		return;
	case RW_trampoline:
		keys_known(ld, p, n, line);
		on_trampoline(ld, p + w, n - w);
		return;
	case RW_cpu:
		/* @cpu matters only with a warp test result; other @cpu lines
		 * (older kernels, linux-hotplug) stay as unread as before. */
		if (!has_text(p, n, " tsc_sync=")) {
			keys_known(ld, p, n, line);
			return;
		}
		break;
	case RW_boot: case RW_sample: case RW_summary: case RW_end: case RW_host:
	case RW_cpusum: case RW_phase: case RW_round: case RW_bringup:
		break;
	default:
		return; /* the other records are other commands' (cpuhp, flush...) */
	}

	static struct record rec; /* 4 KiB: keep it off the stack */
	bool fields_ok = record_parse(&ld->m, line, p, n, &rec);
	if (id == RW_boot) {
		struct run *r = begin_boot(ld, line, p + w, n - w);
		if (fields_ok)
			on_boot(ld, line, &rec, r);
		else
			r->bad_boot = true;
		return;
	}
	if (!fields_ok)
		return;
	switch (id) {
	case RW_sample: on_sample(ld, line, &rec, fnv1a(p + w, n - w)); break;
	case RW_summary: on_summary(ld, line, &rec); break;
	case RW_end: on_end(ld, line, &rec); break;
	case RW_cpu: on_cpu(ld, line, &rec); break;
	case RW_cpusum: on_cpusum(ld, line, &rec); break;
	case RW_phase: on_phase(ld, line, &rec); break;
	case RW_round: on_round(ld, line, &rec); break;
	case RW_bringup: on_bringup(ld, line, &rec); break;
	default: on_host(ld, line, &rec); break;
	}
}

/* One input is read as a stream, so memory stays bounded on endless input:
 * a line longer than LINE_MAX_BYTES is no record (the kernel's are shorter
 * than 1 KiB: a longer one is an error) and is not kept, and reading stops with an error after
 * INPUT_MAX_BYTES, far more than any capture of runs holds (/dev/zero, a
 * capture left running). Memory: one line, plus the records read. */
#define LINE_MAX_BYTES (64u * 1024)
#define INPUT_MAX_BYTES (1ull << 30)
#define CHUNK_BYTES (64u * 1024)

/* A complete line (its newline seen), without the newline. */
static void on_complete_line(struct loader *ld, char *p, size_t n, bool overlong,
			     size_t line)
{
	if (overlong) {
		if (n && p[0] == '@')
			lerr(&ld->m, line, "a record longer than %u bytes "
			     "(corrupt?): not read", LINE_MAX_BYTES);
		return;
	}
	while (n && p[n - 1] == '\r')
		n--;
	if (n && p[0] == '@')
		on_line(ld, p, n, line);
}

int load_file(struct set *set, const char *path, bool allow_trunc)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = open_input(path);
	if (!f)
		return 1;
	int errors = load_stream(set, f, is_stdin ? "<stdin>" : path, allow_trunc);
	if (!is_stdin)
		fclose(f);
	return errors;
}

int load_stream(struct set *set, FILE *f, const char *name, bool allow_trunc)
{
	struct loader ld = { .m = { .file = name, .schema_warn = true },
			     .set = set, .allow_trunc = allow_trunc, .cur = -1 };
	char *chunk = xcalloc(CHUNK_BYTES, 1), *lb = xcalloc(LINE_MAX_BYTES, 1);
	size_t first = set->n, line = 0, ln = 0;
	unsigned long long total = 0;
	bool overlong = false, stop = false;

	while (!stop) {
		size_t got = fread(chunk, 1, CHUNK_BYTES, f);
		if (got == 0)
			break;
		total += got;
		for (size_t i = 0; i < got && !stop;) {
			char *nl = memchr(chunk + i, '\n', got - i);
			size_t take = nl ? (size_t)(nl - (chunk + i)) : got - i;
			/* Keep the start of an overlong line: its first byte
			 * says whether it was meant as a record. */
			size_t keep = take < LINE_MAX_BYTES - ln ? take
								 : LINE_MAX_BYTES - ln;
			memcpy(lb + ln, chunk + i, keep);
			ln += keep;
			overlong |= keep < take;
			i += take;
			if (!nl)
				break;
			i++;
			on_complete_line(&ld, lb, ln, overlong, ++line);
			ln = 0;
			overlong = false;
			if (ld.m.errors >= MAX_ERRORS_PER_FILE) {
				fprintf(stderr, "aplog: %s:%zu: too many errors, giving up on "
					"this file\n", ld.m.file, line);
				stop = true;
			}
		}
		if (!stop && total > INPUT_MAX_BYTES) {
			lerr(&ld.m, line + 1, "more than %llu MiB of input: stopped "
			     "reading (endless input? an apstart capture is far "
			     "smaller)", INPUT_MAX_BYTES >> 20);
			stop = true;
		}
	}
	if (!stop && ferror(f)) {
		lerr(&ld.m, line + 1, "read error: %s", strerror(errno ? errno : EIO));
		stop = true;
	}
	/* A capture cut at any byte ends in a line without its newline: it is
	 * dropped, never read as a record (a number cut short is a wrong one). */
	if (!stop && ln && lb[0] == '@')
		lwarn(&ld.m, line + 1, "the last line has no newline (a cut "
		      "capture): dropped, not read");
	if (ld.cur >= 0 && !stop)
		close_run(&ld, line, "before the end of the file");
	if (set->n == first && !ld.m.errors) {
		fprintf(stderr, "aplog: %s: no apstart run in this file (no @boot record)\n",
			ld.m.file);
		ld.m.errors++;
	}
	free(chunk);
	free(lb);
	return ld.m.errors;
}
