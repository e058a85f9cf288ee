/* SPDX-License-Identifier: MIT */
/* gnuplot for the commands that draw (plot.c runs it). */
#ifndef APLOG_GNUPLOT_H
#define APLOG_GNUPLOT_H

#include <stddef.h>

/* Feed the script to gnuplot's stdin; its exit status, 127 when gnuplot
 * is not on PATH, -1 on other errors. */
int gnuplot_run(const char *script, size_t len);

#endif
