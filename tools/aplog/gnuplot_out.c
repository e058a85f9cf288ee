/* SPDX-License-Identifier: MIT */
/* The pieces every drawing command shares (gnuplot.h): where its data
 * goes, gnuplot's quoting, and running the script with the messages. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "util.h"

char *gnuplot_data_name(const char *png)
{
	size_t pl = strlen(png);
	char *dat = xcalloc(pl + 5, 1);
	memcpy(dat, png, pl);
	if (pl > 4 && !strcmp(png + pl - 4, ".png"))
		dat[pl - 4] = '\0';
	strcat(dat, ".dat");
	return dat;
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
