/* SPDX-License-Identifier: MIT */
/* aplog: read apstart serial logs (@boot/@sample/@summary/@end records
 * mixed with other console text) and report, compare and check per-CPU AP
 * online/offline timings. Host program; usage in tools/aplog/README.md.
 *
 * Here: the table of the commands (commands[], the one place that
 * dispatches), options.c (every option once, and the help) and util.c.
 * Below, one folder per purpose; each uses util.h and options.h from
 * here and only the folders listed before it:
 *   read/   the logs and files read into the model (read/records.h)
 *   stats/  statistics and the sets of runs a verdict judges
 *   out/    text, tables and gnuplot
 *   cmd/    one file per command (cmd/commands.h)
 *
 * Exit status: 0 ok, 1 bad input or failed check, 2 usage error. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/read/session_dir.h"

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

/* The commands, in the order aplog --help lists them. */
static const struct command commands[] = {
	{ "stats", cmd_stats, O_TRUNC | O_NMI, false, false,
	  "stats [--allow-truncated] [--with-nmi] [--with-smi] LOG...",
	  "Per-CPU statistics of one set of runs (n, mean, median, min, max, p95),\n"
	  "the phases, each run's totals and their mean." },
	{ "compare", cmd_compare, O_TRUNC | O_LABELS | O_MINRUNS | O_FORCE | O_NMI, true, true,
	  "compare [--label-a X] [--label-b Y] [--min-runs N] [--force]\n"
	  "        [--allow-truncated] [--with-nmi] [--with-smi] A.log... -- B.log...\n"
	  "compare SESSION-FOLDER   (apstart.efi's session-NNNN: its A and B runs)",
	  "Two sets of runs: Offline, Online and Total per run, Welch's 95% interval\n"
	  "of the change in their mean and a verdict (docs/verdicts.md), then each\n"
	  "run's median sample, the per-CPU medians and the phases." },
	{ "check", cmd_check, O_TRUNC | O_LABELS | O_MINRUNS | O_FORCE | O_PAIRED | O_BASELINE |
	  O_TOL | O_SLOWER | O_MAXRATIO | O_OP | O_FASTER | O_IDENT | O_NMI, true, true,
	  "check --baseline FILE [--tolerance PCT] [--allow-faster] LOG...\n"
	  "check --slower-than A.log... -- B.log... [--max-ratio R] [--op online|offline]\n"
	  "      [--min-runs N] [--paired] [--force] [--label-a X] [--label-b Y]\n"
	  "check --identical A.log -- B.log\n"
	  "      (each: [--allow-truncated] [--with-nmi] [--with-smi])",
	  "A regression check: the per-APIC medians against a baseline, B's runs\n"
	  "slower than A's, or two runs identical record for record. Exit 1 on a\n"
	  "failed check." },
	{ "verify", cmd_verify, O_TRUNC | O_VERIFY, false, false,
	  "verify [--status pass|fail] [--cpus N] [--cycles C] [--wbinvd 0|1]\n"
	  "       [--online N] [--failed N] [--warnings N] [--boot KEY=VALUE]...\n"
	  "       [--allow-truncated] LOG",
	  "One run that ended as expected: its @end, counts and figures (the tests'\n"
	  "check of a boot)." },
	{ "medians", cmd_medians, O_TRUNC | O_OP | O_NMI, false, false,
	  "medians [--op online|offline] [--allow-truncated] [--with-nmi] [--with-smi] LOG...",
	  "Each run's median sample of the op, then the lowest of them." },
	{ "baseline", cmd_baseline, O_TRUNC | O_TOL | O_MODE | O_CONFIG | O_NMI, false, false,
	  "baseline [--tolerance PCT] [--mode M] [--config TEXT] [--allow-truncated]\n"
	  "         [--with-nmi] [--with-smi] LOG... > FILE",
	  "A baseline file: the median per APIC ID and op over the logs." },
	{ "diff-baseline", cmd_diff_baseline, 0, false, false,
	  "diff-baseline OLD NEW",
	  "What changed between two baseline files." },
	{ "exact-baseline", cmd_exact_baseline, O_CONFIG, false, false,
	  "exact-baseline [--config TEXT] LOG > FILE   (instruction counting)",
	  "Every figure of one run, per AP, op, phase and cycle (QEMU -icount)." },
	{ "exact", cmd_exact, 0, true, false,
	  "exact A -- B          (each a log or an exact-baseline FILE)",
	  "Two runs under instruction counting, phase by phase: exit 1 on any\n"
	  "difference, each named." },
	{ "exact-diff", cmd_exact_diff, 0, true, false,
	  "exact-diff OLD -- NEW",
	  "The whole per-phase table of two exact-baseline files, old -> new." },
	{ "csv", cmd_csv, O_TRUNC | O_PHASES, false, false,
	  "csv [--phases] [--allow-truncated] LOG... > out.csv",
	  "One row per sample (or per @phase record)." },
	{ "plot", cmd_plot, O_TRUNC | O_LABELS | O_OUT | O_NMI, true, true,
	  "plot --out FILE.png [--label-a X] [--label-b Y] [--allow-truncated]\n"
	  "     [--with-nmi] [--with-smi] A.log... [-- B.log...]",
	  "Per CPU, the spread of its samples, both sets on one scale (gnuplot)." },
	{ "fleet", cmd_fleet, O_TRUNC | O_MINRUNS | O_NMI | O_CSV, false, false,
	  "fleet [--csv] [--min-runs N] [--allow-truncated] [--with-nmi] [--with-smi]\n"
	  "      LOG...|DIR...",
	  "One row per machine (@env), WBINVD=1 against WBINVD=0, runs as\n"
	  "observations (docs/lab.md)." },
	{ "cpuhp", cmd_cpuhp, O_TRUNC | O_LABELS, true, false,
	  "cpuhp [--label-a X] [--label-b Y] [--allow-truncated] A.log... [-- B.log...]",
	  "Linux's time per cpuhp state (linux-hotplug --trace), and the split of a\n"
	  "difference (docs/linux-trace.md)." },
	{ "trace", cmd_trace, O_TRUNC | O_OUT, false, false,
	  "trace [--out FILE.json] [--allow-truncated] LOG...",
	  "One timeline as Chrome trace-event JSON (Perfetto, chrome://tracing)." },
	{ "flush", cmd_flush, O_CSV | O_PLOT | O_OPS | O_SMICOUNTED | O_AGAINST | O_TOL, false, false,
	  "flush [--csv] [--plot FILE.png] [--ops LIST] [--smi-counted]\n"
	  "      [--against SPEC|log:FILE [--tolerance PCT]] LOG...",
	  "The flush probe's curve (probe=flush), against a flush model or another\n"
	  "run (docs/flush-probe.md); exit 1 when a point is outside the tolerance." },
	{ "fit", cmd_fit, O_OUT | O_SMICOUNTED, false, false,
	  "fit [--out PRESET] [--smi-counted] LOG...",
	  "The flush model fitted to a probe run, written as a preset for\n"
	  "FLUSH=file:PRESET." },
	{ "victims", cmd_victims, O_CSV | O_PLOT | O_AGAINST, false, false,
	  "victims [--csv] [--plot FILE.png] [--against SPEC] LOG...",
	  "The victims' stalls per window (victims=K)." },
	{ "schema", cmd_schema, O_BY | O_UNITS | O_CHECK, false, false,
	  "schema [--by kernel|linux-hotplug|host|lava] [RECORD...]\n"
	  "schema --units\n"
	  "schema --check LOG...",
	  "The record schema (lib/records.def): each record and its keys, one line\n"
	  "per variant (--units: the placeholders); --check: every record of the\n"
	  "logs against it, key by key and value by value (exit 1 on a problem)." },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("no command given");
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout, commands, NCOMMANDS);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	const struct command *c = NULL;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			c = &commands[i];
	if (!c)
		usage_error("unknown command '%s'", argv[1]);
	cli.cmd = c->name;
	parse_cli(argc, argv, c);
	if (c->session && !(cli.given & (O_BASELINE | O_IDENT)))
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
