/* SPDX-License-Identifier: MIT */
/* gnuplot for the commands that draw (gnuplot.c: the one file that runs
 * it). */
#ifndef APLOG_GNUPLOT_H
#define APLOG_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* Feed the script to gnuplot's stdin; its exit status, 127 when gnuplot
 * is not on PATH, -1 on other errors. */
int gnuplot_run(const char *script, size_t len);

/* FILE.png -> FILE.EXT (else EXT appended; free it), ext ".dat" or ".gp". */
char *gnuplot_file_name(const char *png, const char *ext);
/* FILE.png -> FILE.dat. */
char *gnuplot_data_name(const char *png);
/* The data file dat opened for writing; NULL after a message. */
FILE *gnuplot_data_open(const char *dat);
/* Closes it and says where the data is; 1 after a message. */
int gnuplot_data_close(FILE *f, const char *dat);
/* The script as gnuplot gets it, into gp beside the data (to redraw or
 * restyle), and says so; 1 after a message. */
int gnuplot_script_save(const char *gp, const char *script, size_t len);
/* "MODELLED: flush_model=M" as the plot's title where model names one. */
void gnuplot_title_modelled(FILE *s, const char *model);
/* A gnuplot single-quoted string: only the quote is special (doubled). */
void gnuplot_quote(FILE *f, const char *s);
/* A script in memory that draws a 1000x600 PNG to png, grid and key set;
 * finish it with gnuplot_script_run(), which runs it and says what came
 * out (no gnuplot: the data only, status 0). */
FILE *gnuplot_script_open(char **buf, size_t *len, const char *png);
int gnuplot_script_run(FILE *s, char **buf, size_t *len, const char *png);

#endif
