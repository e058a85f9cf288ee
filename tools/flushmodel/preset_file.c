/* SPDX-License-Identifier: MIT */
#include "preset_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define LINE_MAX_LEN 512
#define ITEMS_MAX 64


static bool key_is(const char *item, const char *key, size_t kl)
{
	return !strncmp(item, key, kl) && item[kl] == '=';
}

static bool given(int argc, char **argv, const char *key, size_t kl)
{
	for (int i = 0; i < argc; i++)
		if (key_is(argv[i], key, kl))
			return true;
	return false;
}

static char *dup_str(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Appends the file's items to out (n so far, ITEMS_MAX at most). */
static int read_file(const char *path, int argc, char **argv, char **out, int *n, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return model_fail(err, errlen, "preset_file=%s: %s", path, strerror(errno));
	char line[LINE_MAX_LEN + 2];
	unsigned no = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		no++;
		size_t len = strlen(line);
		if (len > LINE_MAX_LEN) {
			rc = model_fail(err, errlen, "preset_file=%s:%u: line too long", path, no);
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = line, *e;
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
			e--;
		if (e == s)
			continue;
		char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq || eq == s || eq + 1 == e || memchr(s, ' ', (size_t)(e - s)) ||
		    memchr(s, '\t', (size_t)(e - s))) {
			rc = model_fail(err, errlen, "preset_file=%s:%u: expected KEY=VALUE", path, no);
			break;
		}
		size_t kl = (size_t)(eq - s);
		if ((kl == 3 && !strncmp(s, "out", 3)) ||
		    (kl == strlen(PRESET_FILE_KEY) && !strncmp(s, PRESET_FILE_KEY, kl))) {
			rc = model_fail(err, errlen, "preset_file=%s:%u: %.*s= cannot be in a preset file",
				  path, no, (int)kl, s);
			break;
		}
		if (given(argc, argv, s, kl))
			continue; /* the command line's value wins */
		bool twice = false;
		for (int i = 0; i < *n; i++)
			twice |= key_is(out[i], s, kl);
		if (twice) {
			rc = model_fail(err, errlen, "preset_file=%s:%u: %.*s= given twice", path, no,
				  (int)kl, s);
			break;
		}
		if (*n == ITEMS_MAX) {
			rc = model_fail(err, errlen, "preset_file=%s: more than %d items", path, ITEMS_MAX);
			break;
		}
		if (!(out[(*n)++] = dup_str(s, (size_t)(e - s))))
			rc = model_fail(err, errlen, "out of memory");
	}
	if (!rc && ferror(f))
		rc = model_fail(err, errlen, "preset_file=%s: read error", path);
	fclose(f);
	return rc;
}

int preset_args_merge(int argc, char **argv, int *out_argc, char ***out_argv, char *err,
		      size_t errlen)
{
	char **out = calloc((size_t)argc + ITEMS_MAX + 1, sizeof *out);
	int n = 0, files = 0;
	size_t pl = strlen(PRESET_FILE_KEY);
	if (!out)
		return model_fail(err, errlen, "out of memory");
	for (int i = 0; i < argc; i++) {
		if (key_is(argv[i], PRESET_FILE_KEY, pl)) {
			if (files++) {
				preset_args_free(n, out);
				return model_fail(err, errlen, "preset_file= given twice");
			}
			continue;
		}
		if (!(out[n++] = dup_str(argv[i], strlen(argv[i])))) {
			preset_args_free(n, out);
			return model_fail(err, errlen, "out of memory");
		}
	}
	for (int i = 0; i < argc; i++)
		if (key_is(argv[i], PRESET_FILE_KEY, pl) &&
		    read_file(argv[i] + pl + 1, argc, argv, out, &n, err, errlen)) {
			preset_args_free(n, out);
			return -1;
		}
	*out_argc = n;
	*out_argv = out;
	return 0;
}

void preset_args_free(int argc, char **argv)
{
	if (!argv)
		return;
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}
