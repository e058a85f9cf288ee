/* SPDX-License-Identifier: MIT */
/* The commands; each reads its arguments from cli (options.h) and returns
 * the exit status. */
#ifndef APLOG_COMMANDS_H
#define APLOG_COMMANDS_H

int cmd_stats(void);            /* cmd_stats.c */
int cmd_medians(void);
int cmd_compare(void);          /* cmd_compare.c */
int cmd_check_slower(void);
int cmd_check_identical(void);
int cmd_baseline(void);         /* cmd_baseline.c */
int cmd_check_baseline(void);
int cmd_diff_baseline(void);
int cmd_exact_baseline(void);  /* cmd_exact.c */
int cmd_exact(void);
int cmd_exact_diff(void);
int cmd_csv(void);              /* cmd_csv.c */
int cmd_verify(void);           /* cmd_verify.c */
int cmd_plot(void);             /* plot.c */
int cmd_fleet(void);            /* cmd_fleet.c */
int cmd_cpuhp(void);            /* cmd_cpuhp.c */
int cmd_trace(void);            /* cmd_trace.c */
int cmd_flush(void);            /* cmd_flush.c */
int cmd_fit(void);
int cmd_victims(void);          /* cmd_victims.c */

#endif
