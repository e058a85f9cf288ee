/* SPDX-License-Identifier: MIT */
/* gnuplot for the commands that draw (plot.c runs it). */
#ifndef APLOG_GNUPLOT_H
#define APLOG_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* Feed the script to gnuplot's stdin; its exit status, 127 when gnuplot
 * is not on PATH, -1 on other errors. */
int gnuplot_run(const char *script, size_t len);

/* gnuplot_out.c: FILE.png -> FILE.dat (else ".dat" appended; free it). */
char *gnuplot_data_name(const char *png);
/* A gnuplot single-quoted string: only the quote is special (doubled). */
void gnuplot_quote(FILE *f, const char *s);
/* A script in memory that draws a 1000x600 PNG to png, grid and key set;
 * finish it with gnuplot_script_run(), which runs it and says what came
 * out (no gnuplot: the data only, status 0). */
FILE *gnuplot_script_open(char **buf, size_t *len, const char *png);
int gnuplot_script_run(FILE *s, char **buf, size_t *len, const char *png);

#endif
