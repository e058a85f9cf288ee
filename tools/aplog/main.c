/* SPDX-License-Identifier: MIT */
/* aplog: read apstart serial logs (@boot/@sample/@summary/@end records
 * mixed with other console text) and report, compare and check per-CPU AP
 * online/offline timings. Host program; usage in tools/README-aplog.md.
 *
 * One file per concern: records.h (the log model; its parser is fields.c,
 * handlers.c, runcheck.c, load.c), statistics.c (with
 * the kernel's stats.c), sets.c (logs as the commands see them),
 * options.c, and one cmd_*.c (or plot.c) per command.
 *
 * Exit status: 0 ok, 1 bad input or failed check, 2 usage error. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "records.h"
#include "session_dir.h"

static int cmd_check(void)
{
	bool bl = cli.given & O_BASELINE, sl = cli.given & O_SLOWER,
	     id = cli.given & O_IDENT;
	if (bl + sl + id != 1)
		usage_error("check needs exactly one of --baseline FILE, "
			    "--slower-than and --identical");
	if (bl && (cli.sep || (cli.given & (O_MAXRATIO | O_OP | O_MINRUNS |
					     O_FORCE | O_PAIRED | O_LABELS))))
		usage_error("check --baseline takes LOG... and --tolerance, "
			    "--allow-faster, --allow-truncated");
	if (!bl && (cli.given & (O_TOL | O_FASTER)))
		usage_error("--tolerance/--allow-faster go with --baseline");
	if (id && (cli.given & (O_MAXRATIO | O_OP | O_MINRUNS | O_PAIRED)))
		usage_error("check --identical takes A.log -- B.log only");
	if (bl)
		return cmd_check_baseline();
	return sl ? cmd_check_slower() : cmd_check_identical();
}

static const struct command {
	const char *name;
	int (*run)(void);
	unsigned opts;
	bool two_sets;
} commands[] = {
	{ "stats", cmd_stats, O_TRUNC | O_NMI, false },
	{ "compare", cmd_compare, O_TRUNC | O_LABELS | O_MINRUNS | O_FORCE | O_NMI,
		true },
	{ "check", cmd_check, O_TRUNC | O_LABELS | O_MINRUNS | O_FORCE | O_PAIRED | O_BASELINE | O_TOL |
		O_SLOWER | O_MAXRATIO | O_OP | O_FASTER | O_IDENT | O_NMI, true },
	{ "verify", cmd_verify, O_TRUNC | O_VERIFY, false },
	{ "medians", cmd_medians, O_TRUNC | O_OP | O_NMI, false },
	{ "baseline", cmd_baseline, O_TRUNC | O_TOL | O_MODE | O_CONFIG | O_NMI, false },
	{ "diff-baseline", cmd_diff_baseline, 0, false },
	{ "exact-baseline", cmd_exact_baseline, O_CONFIG, false },
	{ "exact", cmd_exact, 0, true },
	{ "exact-diff", cmd_exact_diff, 0, true },
	{ "csv", cmd_csv, O_TRUNC | O_PHASES, false },
	{ "plot", cmd_plot, O_TRUNC | O_LABELS | O_OUT | O_NMI, true },
	{ "fleet", cmd_fleet, O_TRUNC | O_MINRUNS | O_NMI | O_CSV, false },
	{ "cpuhp", cmd_cpuhp, O_TRUNC | O_LABELS, true },
	{ "trace", cmd_trace, O_TRUNC | O_OUT, false },
};

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("no command given");
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "flush") || !strcmp(argv[1], "fit") || !strcmp(argv[1], "victims")) {
		int rc = argv[1][0] == 'v'   ? cmd_victims(argc - 2, argv + 2)
			 : argv[1][1] == 'l' ? cmd_flush(argc - 2, argv + 2)
					     : cmd_fit(argc - 2, argv + 2);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = 1;
		return rc;
	}
	const struct command *c = NULL;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			c = &commands[i];
	if (!c)
		usage_error("unknown command '%s'", argv[1]);
	cli.cmd = c->name;
	parse_cli(argc, argv, c->opts | (c->opts & O_NMI ? O_SMI : 0), c->two_sets);
	if (c->two_sets)
		session_dir_expand();
	nmi_samples_counted = cli.given & O_NMI;
	smi_samples_counted = cli.given & O_SMI;

	int rc = c->run();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "aplog: error writing standard output\n");
		rc = 1;
	}
	cli_free();
	session_dir_free();
	return rc;
}
