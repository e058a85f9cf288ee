/* SPDX-License-Identifier: MIT */
/* Formatting shared by the commands. */
#ifndef APLOG_OUTPUT_H
#define APLOG_OUTPUT_H

/* ns as microseconds with 3, 2 or 1 decimals as the value grows. */
void put_us(double ns, int width);
/* One CSV field, quoted when it needs to be. */
void csv_field(const char *s);

#endif
