/* SPDX-License-Identifier: MIT */
/* The pieces every drawing command shares (gnuplot.h): where its data
 * goes, gnuplot's quoting, and running the script with the messages. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "util.h"

char *gnuplot_file_name(const char *png, const char *ext)
{
	size_t pl = strlen(png);
	char *name = xcalloc(pl + strlen(ext) + 1, 1);
	memcpy(name, png, pl);
	if (pl > 4 && !strcmp(png + pl - 4, ".png"))
		name[pl - 4] = '\0';
	strcat(name, ext);
	return name;
}

char *gnuplot_data_name(const char *png)
{
	return gnuplot_file_name(png, ".dat");
}

FILE *gnuplot_data_open(const char *dat)
{
	FILE *f = fopen(dat, "w");
	if (!f)
		fprintf(stderr, "aplog: %s: %s\n", dat, strerror(errno));
	return f;
}

int gnuplot_data_close(FILE *f, const char *dat)
{
	if (fclose(f) != 0) {
		fprintf(stderr, "aplog: %s: write error\n", dat);
		return 1;
	}
	printf("data: %s\n", dat);
	return 0;
}

void gnuplot_title_modelled(FILE *s, const char *model)
{
	if (!model[0])
		return;
	char t[200];
	snprintf(t, sizeof t, "MODELLED: flush_model=%s", model);
	fprintf(s, "set title ");
	gnuplot_quote(s, t);
	fprintf(s, "\n");
}

void gnuplot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

FILE *gnuplot_script_open(char **buf, size_t *len, const char *png)
{
	FILE *s = open_memstream(buf, len);
	if (!s)
		oom();
	fprintf(s, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1000,600 } "
		   "else { set terminal png size 1000,600 }\nset termoption noenhanced\nset output ");
	gnuplot_quote(s, png);
	fprintf(s, "\nset grid\nset key top left\n");
	return s;
}

int gnuplot_script_run(FILE *s, char **buf, size_t *len, const char *png)
{
	fclose(s); /* sets *buf and *len */
	int rc = gnuplot_run(*buf, *len);
	free(*buf);
	*buf = NULL;
	if (rc == 127) {
		printf("plot: gnuplot not found (package gnuplot-nox): data only\n");
		return 0;
	}
	if (rc) {
		fprintf(stderr, "aplog: gnuplot failed (status %d)\n", rc);
		return 1;
	}
	printf("plot: %s\n", png);
	return 0;
}
