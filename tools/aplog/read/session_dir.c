/* SPDX-License-Identifier: MIT */
#include "tools/aplog/read/session_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/aplog/options.h"
#include "tools/aplog/util.h"

static char **paths;
static size_t npaths;

/* run-NNN-X-wbinvdW.EXT: X ('A' or 'B'), or 0 if name is not a run file
 * with that extension. */
static char run_side(const char *name, const char *ext)
{
	size_t n = strlen(name), el = strlen(ext);
	if (n != 17 + el || strncmp(name, "run-", 4) || name[7] != '-' ||
	    strncmp(name + 9, "-wbinvd", 7) || strcmp(name + 17, ext))
		return 0;
	for (int i = 4; i < 7; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	if ((name[8] != 'A' && name[8] != 'B') || (name[16] != '0' && name[16] != '1'))
		return 0;
	return name[8];
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void session_dir_expand(void)
{
	struct stat sb;
	if (cli.sep || cli.nfiles[0] != 1 || cli.nfiles[1] != 0 ||
	    stat(cli.files[0][0], &sb) != 0 || !S_ISDIR(sb.st_mode))
		return;
	const char *dir = cli.files[0][0];
	DIR *d = opendir(dir);
	if (!d)
		usage_error("cannot read the session folder %s", dir);
	size_t interrupted = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (run_side(e->d_name, ".interrupted")) {
			interrupted++;
			continue;
		}
		if (!run_side(e->d_name, ".log"))
			continue;
		if (npaths == cap) {
			cap = cap ? 2 * cap : 32;
			paths = xrealloc_array(paths, cap, sizeof(*paths));
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		paths[npaths] = xcalloc(len, 1);
		snprintf(paths[npaths++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (!npaths)
		usage_error("%s: no run-NNN-A-wbinvdW.log files (not a session folder)", dir);
	qsort(paths, npaths, sizeof(*paths), by_name);
	for (int s = 0; s < 2; s++) {
		cli.files[s] = xrealloc_array(cli.files[s], npaths, sizeof(char *));
		cli.nfiles[s] = 0;
	}
	for (size_t i = 0; i < npaths; i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		int s = run_side(base, ".log") == 'A' ? 0 : 1;
		cli.files[s][cli.nfiles[s]++] = paths[i];
	}
	cli.sep = true;
	fprintf(stderr, "aplog: session folder %s: %zu run file(s) of A, %zu of B", dir,
		cli.nfiles[0], cli.nfiles[1]);
	if (interrupted)
		fprintf(stderr, "; %zu interrupted run(s) without results", interrupted);
	fputc('\n', stderr);
	if (!cli.nfiles[0] || !cli.nfiles[1])
		usage_error("%s: a comparison needs runs of both variants", dir);
}

void session_dir_free(void)
{
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	paths = NULL;
	npaths = 0;
}
