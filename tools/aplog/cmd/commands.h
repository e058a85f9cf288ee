/* SPDX-License-Identifier: MIT */
/* The commands, one file each in cmd/; each reads its arguments from cli
 * (tools/aplog/options.h) and returns the exit status. */
#ifndef APLOG_COMMANDS_H
#define APLOG_COMMANDS_H

int cmd_stats(void);            /* stats.c */
int cmd_medians(void);
int cmd_compare(void);          /* compare.c */
int cmd_check_slower(void);
int cmd_check_identical(void);
int cmd_baseline(void);         /* baseline.c */
int cmd_check_baseline(void);
int cmd_diff_baseline(void);
int cmd_exact_baseline(void);  /* exact.c */
int cmd_exact(void);
int cmd_exact_diff(void);
int cmd_csv(void);              /* csv.c */
int cmd_verify(void);           /* verify.c */
int cmd_plot(void);             /* plot.c */
int cmd_fleet(void);            /* fleet.c */
int cmd_cpuhp(void);            /* cpuhp.c */
int cmd_trace(void);            /* trace.c */
int cmd_flush(void);            /* flush.c */
int cmd_fit(void);
int cmd_victims(void);          /* victims.c */
int cmd_schema(void);           /* schema.c */

#endif
