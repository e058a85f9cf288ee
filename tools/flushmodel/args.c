/* SPDX-License-Identifier: MIT */
/* flushmodel-args: check flushmodel plugin arguments with the plugin's own
 * parser, before QEMU starts, and say what they charge. QEMU exits with
 * status 1 when a plugin refuses its arguments, which is also the status
 * of a kernel that reported pass through isa-debug-exit; the runners call
 * this first so a bad FLUSH= never looks like a run.
 *
 *   flushmodel-args [--vcpus N] KEY=VALUE...
 * Exit 0 and one line of description, or 2 and the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "preset_file.h"
#include "where.h"

int main(int argc, char **argv)
{
	unsigned vcpus = 1;
	int first = 1;
	if (argc > 2 && !strcmp(argv[1], "--vcpus")) {
		char *end;
		unsigned long v = strtoul(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end || v < 1 || v > 4096) {
			fprintf(stderr, "flushmodel-args: --vcpus must be 1..4096\n");
			return 2;
		}
		vcpus = (unsigned)v;
		first = 3;
	}
	struct flush_model m;
	struct flush_where w;
	char err[256], what[512], wh[256];
	int n = argc - first, nm = 0;
	char **merged = NULL;
	if (where_take(&w, &n, argv + first, err, sizeof(err)) ||
	    preset_args_merge(n, argv + first, &nm, &merged, err, sizeof(err)) ||
	    model_parse(&m, nm, merged, err, sizeof(err))) {
		preset_args_free(nm, merged);
		fprintf(stderr, "flushmodel: %s\n%s%s", err, model_usage, where_usage);
		return 2;
	}
	preset_args_free(nm, merged);
	model_describe(&m, vcpus, what, sizeof(what));
	where_describe(&w, wh, sizeof(wh));
	printf("%s%s\n", what, wh);
	return 0;
}
