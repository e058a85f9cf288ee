/* SPDX-License-Identifier: MIT */
/* aplog's command line (options.h). */
#define _GNU_SOURCE /* getopt_long */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/verdict.h"
#include "records.h"
#include "util.h"

struct cli cli;

void usage(FILE *f)
{
	fputs(
"usage: aplog COMMAND [options] LOG...   (LOG '-' reads standard input)\n"
"  stats [--allow-truncated] LOG...\n"
"  compare [--label-a X] [--label-b Y] [--min-runs N] [--force]\n"
"          A.log... -- B.log...   (each log: one run or more; a run is one\n"
"          observation: docs/verdicts.md)\n"
"          or SESSION-FOLDER   (apstart.efi's session-NNNN: its A and B runs)\n"
"  check --baseline FILE [--tolerance PCT] [--allow-faster] LOG...\n"
"  check --slower-than A.log... -- B.log... [--max-ratio R]\n"
"        [--op online|offline] [--min-runs N] [--paired] [--force]\n"
"  check --identical A.log -- B.log\n"
"  verify [--status pass|fail] [--cpus N] [--cycles C] [--wbinvd 0|1]\n"
"         [--online N] [--failed N] [--warnings N] [--boot KEY=VALUE]... LOG\n"
"  medians [--op online|offline] LOG...\n"
"  baseline [--tolerance PCT] [--mode M] [--config TEXT] LOG... > FILE\n"
"  diff-baseline OLD NEW\n"
"  exact-baseline [--config TEXT] LOG > FILE   (instruction counting)\n"
"  exact A -- B          (each a log or an exact-baseline FILE)\n"
"  exact-diff OLD -- NEW\n"
"  csv [--phases] LOG... > out.csv\n"
"  plot --out FILE.png [--label-a X] [--label-b Y] A.log... [-- B.log...]\n"
"  fleet [--csv] [--min-runs N] LOG...|DIR...   one row per machine (@env),\n"
"        WBINVD=1 against WBINVD=0, runs as observations\n"
"  cpuhp [--label-a X] [--label-b Y] A.log... [-- B.log...]  (linux-hotplug --trace)\n"
"  trace [--out FILE.json] LOG...   (Chrome trace-event JSON: Perfetto, chrome://tracing)\n"
"  flush [--csv] [--plot FILE.png] [--against SPEC|log:FILE [--tolerance PCT]]\n"
"        LOG...            (probe=flush: the curve; SPEC: flushmodel arguments)\n"
"  fit [--out PRESET] LOG...   (the flush model fitted to a probe run)\n"
"  victims [--csv] [--plot FILE.png] LOG...   (victims=K: stalls per window)\n"
"Every command that reads logs but the exact ones takes --allow-truncated.\n"
"Samples marked nmi=1 (an NMI hit the BSP or the AP inside their window)\n"
"are left out of stats, compare, check, medians, baseline and plot, and\n"
"so are their starts' @phase records (also nmi=1);\n"
"--with-nmi keeps them. Samples whose window an SMI hit (smi= above 0,\n"
"MSR_SMI_COUNT moved) are left out the same way; --with-smi keeps them.\n"
"Exit status: 0 ok, 1 bad input or failed check, 2 usage error or (check\n"
"--slower-than) too few runs for a verdict.\n", f);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("aplog: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	usage(stderr);
	exit(2);
}

static double opt_double(const char *name, const char *v, double min,
			 double max)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(d) || d < min || d > max)
		usage_error("--%s %s: expected a number in %g..%g", name, v, min,
			    max);
	return d;
}

static uint64_t opt_u64(const char *name, const char *v, uint64_t min,
			uint64_t max)
{
	uint64_t x;
	if (parse_dec(v, strlen(v), max, &x) != NUM_OK || x < min)
		usage_error("--%s %s: expected an integer in %" PRIu64 "..%" PRIu64,
			    name, v, min, max);
	return x;
}

static const char *opt_text(const char *name, const char *v)
{
	if (has_newline(v))
		usage_error("--%s: no newlines please", name);
	return v;
}

enum opt_id {
	OPT_TRUNC = 256, OPT_LABEL_A, OPT_LABEL_B, OPT_MIN_RUNS, OPT_FORCE, OPT_PAIRED,
	OPT_BASELINE, OPT_TOLERANCE, OPT_SLOWER, OPT_MAX_RATIO, OPT_OP,
	OPT_FASTER, OPT_MODE, OPT_CONFIG, OPT_OUT, OPT_IDENTICAL, OPT_STATUS,
	OPT_CPUS, OPT_CYCLES, OPT_WBINVD, OPT_ONLINE, OPT_FAILED, OPT_WARNINGS, OPT_BOOT,
	OPT_WITH_NMI, OPT_WITH_SMI,
	OPT_PHASES, OPT_CSV,
};

static const struct option longopts[] = {
	{ "allow-truncated", no_argument, NULL, OPT_TRUNC },
	{ "label-a", required_argument, NULL, OPT_LABEL_A },
	{ "label-b", required_argument, NULL, OPT_LABEL_B },
	{ "min-runs", required_argument, NULL, OPT_MIN_RUNS },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "paired", no_argument, NULL, OPT_PAIRED },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
	{ "slower-than", no_argument, NULL, OPT_SLOWER },
	{ "max-ratio", required_argument, NULL, OPT_MAX_RATIO },
	{ "op", required_argument, NULL, OPT_OP },
	{ "allow-faster", no_argument, NULL, OPT_FASTER },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "identical", no_argument, NULL, OPT_IDENTICAL },
	{ "status", required_argument, NULL, OPT_STATUS },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "cycles", required_argument, NULL, OPT_CYCLES },
	{ "wbinvd", required_argument, NULL, OPT_WBINVD },
	{ "online", required_argument, NULL, OPT_ONLINE },
	{ "failed", required_argument, NULL, OPT_FAILED },
	{ "warnings", required_argument, NULL, OPT_WARNINGS },
	{ "boot", required_argument, NULL, OPT_BOOT },
	{ "with-nmi", no_argument, NULL, OPT_WITH_NMI },
	{ "with-smi", no_argument, NULL, OPT_WITH_SMI },
	{ "phases", no_argument, NULL, OPT_PHASES },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ NULL, 0, NULL, 0 },
};

/* The option group each option belongs to. */
static unsigned group_of(int id)
{
	switch (id) {
	case OPT_TRUNC: return O_TRUNC;
	case OPT_LABEL_A: case OPT_LABEL_B: return O_LABELS;
	case OPT_MIN_RUNS: return O_MINRUNS;
	case OPT_FORCE: return O_FORCE;
	case OPT_PAIRED: return O_PAIRED;
	case OPT_BASELINE: return O_BASELINE;
	case OPT_TOLERANCE: return O_TOL;
	case OPT_SLOWER: return O_SLOWER;
	case OPT_MAX_RATIO: return O_MAXRATIO;
	case OPT_OP: return O_OP;
	case OPT_FASTER: return O_FASTER;
	case OPT_MODE: return O_MODE;
	case OPT_CONFIG: return O_CONFIG;
	case OPT_OUT: return O_OUT;
	case OPT_IDENTICAL: return O_IDENT;
	case OPT_WITH_NMI: return O_NMI;
	case OPT_WITH_SMI: return O_SMI;
	case OPT_PHASES: return O_PHASES;
	case OPT_CSV: return O_CSV;
	default: return O_VERIFY;
	}
}

static const char *name_of(int id)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == id)
			return o->name;
	return "?";
}

static void take(int id, const char *val)
{
	const char *name = name_of(id);
	switch (id) {
	case OPT_LABEL_A: cli.label[0] = opt_text(name, val); break;
	case OPT_LABEL_B: cli.label[1] = opt_text(name, val); break;
	case OPT_MIN_RUNS:
		cli.min_runs = (size_t)opt_u64(name, val, VERDICT_MIN_RUNS,
					       VERDICT_MAX_RUNS);
		break;
	case OPT_BASELINE: cli.baseline = val; break;
	case OPT_TOLERANCE: cli.tolerance = opt_double(name, val, 0, 1000); break;
	case OPT_MAX_RATIO: cli.max_ratio = opt_double(name, val, 1e-6, 1e6); break;
	case OPT_OP:
		if (!strcmp(val, "online"))
			cli.op = OP_ONLINE;
		else if (!strcmp(val, "offline"))
			cli.op = OP_OFFLINE;
		else
			usage_error("--op %s: expected online or offline", val);
		break;
	case OPT_MODE: cli.mode = opt_text(name, val); break;
	case OPT_CONFIG: cli.config = opt_text(name, val); break;
	case OPT_OUT: cli.out = val; break;
	case OPT_STATUS:
		if (!strcmp(val, "pass"))
			cli.status = 0;
		else if (!strcmp(val, "fail"))
			cli.status = 1;
		else
			usage_error("--status %s: expected pass or fail", val);
		break;
	case OPT_CPUS: cli.cpus = (long)opt_u64(name, val, 1, CPUS_MAX); break;
	case OPT_CYCLES: cli.cycles = (long)opt_u64(name, val, 0, CYCLES_MAX); break;
	case OPT_WBINVD: cli.wbinvd = (long)opt_u64(name, val, 0, 1); break;
	case OPT_ONLINE: cli.online = (long)opt_u64(name, val, 0, CPUS_MAX); break;
	case OPT_FAILED: cli.failed = (long)opt_u64(name, val, 0, CPUS_MAX); break;
	case OPT_WARNINGS: cli.warnings = (long)opt_u64(name, val, 0, UINT32_MAX); break;
	case OPT_BOOT: {
		size_t kl = key_len(val, strlen(val));
		if (!kl || !val[kl + 1] || strpbrk(val, " \t\r\n"))
			usage_error("--boot %s: expected KEY=VALUE", val);
		if (cli.nboot_expect == MAX_BOOT_EXPECT)
			usage_error("more than %d --boot options", MAX_BOOT_EXPECT);
		cli.boot_expect[cli.nboot_expect++] = val;
		break;
	}
	default: break; /* flags: the group bit says it all */
	}
}

/* Index in args[0..n) of the first '--', skipping option values
 * ("--label-a --" is a label), or n. */
static int find_separator(char **args, int n)
{
	for (int i = 0; i < n; i++) {
		const char *a = args[i];
		if (!strcmp(a, "--"))
			return i;
		if (strncmp(a, "--", 2) || strchr(a, '='))
			continue;
		for (const struct option *o = longopts; o->name; o++)
			if (!strcmp(a + 2, o->name) && o->has_arg == required_argument)
				i++;
	}
	return n;
}

/* getopt_long over one set's arguments; its files go to set s. */
static void parse_part(char **args, int n, unsigned allowed, int s)
{
	/* "-": files come back in order as option 1, so options may follow
	 * the files (even with POSIXLY_CORRECT set). */
	/* static: still reachable (no leak report) when usage_error() exits */
	static char **v;
	v = xcalloc((size_t)n + 2, sizeof(char *));
	v[0] = "aplog";
	memcpy(v + 1, args, (size_t)n * sizeof(char *));
	optind = 0; /* 0: glibc starts afresh on a new argv */
	opterr = 0;
	for (;;) {
		int c = getopt_long(n + 1, v, "-:", longopts, NULL);
		if (c == -1)
			break;
		if (c == 1) {
			cli.files[s][cli.nfiles[s]++] = optarg;
			continue;
		}
		const char *tok = v[optind - 1];
		if (c == ':')
			usage_error("option --%s needs a value", name_of(optopt));
		if (c == '?') {
			if (optopt >= OPT_TRUNC)
				usage_error("option --%s takes no value",
					    name_of(optopt));
			usage_error("unknown option %s", tok);
		}
		unsigned g = group_of(c);
		if (!(allowed & g))
			usage_error("option --%s does not apply to '%s'", name_of(c),
				    cli.cmd);
		cli.given |= g;
		take(c, optarg);
	}
	free(v);
	v = NULL;
}

void parse_cli(int argc, char **argv, unsigned allowed, bool two_sets)
{
	for (int s = 0; s < 2; s++)
		cli.files[s] = xcalloc((size_t)argc, sizeof(char *));
	cli.min_runs = VERDICT_MIN_RUNS;
	cli.op = OP_ONLINE;
	cli.max_ratio = 1.0;
	cli.cpus = cli.cycles = cli.wbinvd = cli.online = cli.failed = -1;
	cli.warnings = -1;

	char **args = argv + 2;
	int n = argc - 2;
	int sep = find_separator(args, n);
	if (sep < n) {
		if (!two_sets)
			usage_error("'%s' takes no '--' (one set of logs)", cli.cmd);
		if (find_separator(args + sep + 1, n - sep - 1) < n - sep - 1)
			usage_error("more than one '--'");
		cli.sep = true;
	}
	parse_part(args, sep, allowed, 0);
	if (cli.sep)
		parse_part(args + sep + 1, n - sep - 1, allowed, 1);
	/* "-" is standard input: it can be read once. */
	int dashes = 0;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < cli.nfiles[s]; i++)
			dashes += !strcmp(cli.files[s][i], "-");
	if (dashes > 1)
		usage_error("'-' (standard input) can be given once");
}

void cli_free(void)
{
	free(cli.files[0]);
	free(cli.files[1]);
}
