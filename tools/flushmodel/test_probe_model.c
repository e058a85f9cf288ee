/* SPDX-License-Identifier: MIT */
/* Host unit test of what the flush probe's model adds to flushmodel:
 * dirty=track's line sets (dirty_track.c), the cost of a tracked flush,
 * disturb=, and preset files (preset_file.c). Last line: "N passed, M
 * failed". Built plain and with ASan/UBSan. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirty_track.h"
#include "model.h"
#include "preset_file.h"
#include "test_check.h"

static int parse(struct flush_model *m, int argc, char **argv, char *err, size_t len)
{
	int n;
	char **args;
	if (preset_args_merge(argc, argv, &n, &args, err, len))
		return -1;
	int rc = model_parse(m, n, args, err, len);
	preset_args_free(n, args);
	return rc;
}

static void tracking(void)
{
	check(dirty_track_init(2, 100), "init 2 domains of 100 lines");
	dirty_track_store(0, 0x1000);
	dirty_track_store(0, 0x1008); /* same line */
	dirty_track_store(0, 0x1040);
	dirty_track_store(1, 0x1000); /* the other socket's own set */
	check(dirty_track_peek(0) == 128, "two lines dirty in domain 0");
	check(dirty_track_peek(1) == 64, "one line dirty in domain 1");
	check(dirty_track_take(0) == 128, "a flush takes both");
	check(dirty_track_peek(0) == 0, "and leaves the set empty");
	dirty_track_store(0, 0x1000);
	check(dirty_track_peek(0) == 64, "a line cleaned by a flush can be dirtied again");
	for (uint64_t a = 0; a < 1000 * 64; a += 64)
		dirty_track_store(0, 0x100000 + a);
	check(dirty_track_take(0) == 100 * 64, "more lines than the LLC: capped at it");
	dirty_track_store(0, 0x100000);
	check(dirty_track_take(0) == 64, "after the cap, the set still works");
	dirty_track_store(0, DIRTY_SPAN_BYTES); /* above 4 GiB: not tracked */
	dirty_track_store(5, 0x1000);            /* no such domain */
	check(dirty_track_peek(0) == 0, "untracked addresses and domains are ignored");
	dirty_track_free();
}

static void costs(void)
{
	struct flush_model m;
	char err[256];
	char *a[] = { "llc_mb=4", "walk_gbs=2", "wb_gbs=1", "dirty=track" };
	check(parse(&m, 4, a, err, sizeof err) == 0 && m.dirty_track, "dirty=track accepted");
	/* 4 MiB / 2 GB/s = 2097152 ns; + dirty / 1 GB/s */
	check(model_cost_dirty_ns(&m, FLUSH_WBINVD, 0, 0) == 2097152, "clean: the walk only");
	check(model_cost_dirty_ns(&m, FLUSH_WBINVD, 1048576, 0) == 2097152 + 1048576,
	      "1 MiB dirty: + its write-back");
	check(model_cost_dirty_ns(&m, FLUSH_WBINVD, 64 << 20, 0) == 2097152 + 4194304,
	      "more dirty than the LLC: capped at the LLC");
	check(model_cost_dirty_ns(&m, FLUSH_INVD, 1048576, 0) == 2097152, "INVD writes nothing back");
	check(model_cost_ns(&m, FLUSH_WBINVD, 0) == 2097152 + 4194304,
	      "the untracked cost of a tracked model is its worst case");
	char *b[] = { "llc_mb=4", "dirty=tracked" };
	check(parse(&m, 2, b, err, sizeof err) != 0 && strstr(err, "dirty=tracked"),
	      "dirty=tracked refused");
	char *c[] = { "us=10", "disturb=on" };
	check(parse(&m, 2, c, err, sizeof err) == 0 && m.disturb, "disturb=on accepted");
	char *d[] = { "us=10", "disturb=maybe" };
	check(parse(&m, 2, d, err, sizeof err) != 0, "disturb=maybe refused");
}

static void preset_files(void)
{
	char path[] = "/tmp/flushmodel-preset-XXXXXX";
	int fd = mkstemp(path);
	check(fd >= 0, "temporary preset file");
	if (fd < 0)
		return;
	const char *text = "# fitted\nllc_mb=4\n  walk_gbs=2   # trailing comment\n\nwb_gbs=1\n"
			   "dirty=track\nserialize=off\n";
	check(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write it");
	close(fd);
	char item[128];
	snprintf(item, sizeof item, "preset_file=%s", path);
	struct flush_model m;
	char err[256];
	char *a[] = { item };
	check(parse(&m, 1, a, err, sizeof err) == 0 && m.llc_mb == 4 && m.walk_gbs == 2 &&
	      m.wb_gbs == 1 && m.dirty_track && !m.serialize, "a preset file gives every key");
	char *b[] = { item, "walk_gbs=4" };
	check(parse(&m, 2, b, err, sizeof err) == 0 && m.walk_gbs == 4,
	      "a key on the command line wins over the file's");
	char *c[] = { item, item };
	check(parse(&m, 2, c, err, sizeof err) != 0 && strstr(err, "twice"),
	      "preset_file= twice refused");
	char *d[] = { "preset_file=/nonexistent/preset" };
	check(parse(&m, 1, d, err, sizeof err) != 0 && strstr(err, "nonexistent"),
	      "a missing file refused, named");
	FILE *f = fopen(path, "w");
	fputs("llc_mb=4\nout=/tmp/x\n", f);
	fclose(f);
	check(parse(&m, 1, a, err, sizeof err) != 0 && strstr(err, ":2: out="),
	      "out= in a preset file refused, with its line");
	f = fopen(path, "w");
	fputs("llc_mb 4\n", f);
	fclose(f);
	check(parse(&m, 1, a, err, sizeof err) != 0 && strstr(err, "KEY=VALUE"),
	      "a line that is not KEY=VALUE refused");
	f = fopen(path, "w");
	fputs("llc_mb=4\nllc_mb=5\n", f);
	fclose(f);
	check(parse(&m, 1, a, err, sizeof err) != 0 && strstr(err, "twice"),
	      "a key twice in the file refused");
	f = fopen(path, "w");
	fputs("bogus=1\n", f);
	fclose(f);
	check(parse(&m, 1, a, err, sizeof err) != 0 && strstr(err, "bogus"),
	      "an unknown key in the file refused by the model's parser");
	unlink(path);
}

int main(void)
{
	tracking();
	costs();
	preset_files();
	return check_summary();
}
