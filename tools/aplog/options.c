/* SPDX-License-Identifier: MIT */
/* aplog's command line (options.h). */
#define _GNU_SOURCE /* getopt_long */
#include "tools/aplog/options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/stats/verdict.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

struct cli cli;

/* The notes that hold for every command (aplog --help). */
static const char notes[] =
"A LOG of '-' reads standard input (once). Options may come anywhere, long\n"
"options shortened while unambiguous; write a log named -x as ./-x.\n"
"Samples marked nmi=1 (an NMI hit the BSP or the AP inside their window)\n"
"and samples an SMI hit (smi= above 0) are left out of every statistic,\n"
"total, comparison and baseline, with a line saying how many;\n"
"--with-nmi and --with-smi keep them.\n"
"Exit status: 0 ok, 1 bad input or failed check, 2 usage error or (check\n"
"--slower-than) too few runs for a verdict.\n";

/* Prints SYN after PREFIX; a line of it that starts with a blank continues
 * the one before (indented by PREFIX's width more), any other is another
 * form of the command, after ALT. */
static void print_synopsis(FILE *f, const char *prefix, const char *alt,
			   const char *syn)
{
	int w = (int)strlen(prefix);
	fputs(prefix, f);
	for (const char *p = syn; *p; p++) {
		fputc(*p, f);
		if (*p != '\n' || !p[1])
			continue;
		if (p[1] == ' ')
			fprintf(f, "%*s", w, "");
		else
			fputs(alt, f);
	}
	fputc('\n', f);
}

void usage(FILE *f, const struct command *cmds, size_t n)
{
	fputs("usage: aplog COMMAND [options] LOG...   (aplog COMMAND --help: "
	      "its options)\n", f);
	for (size_t i = 0; i < n; i++)
		print_synopsis(f, "  ", "  ", cmds[i].synopsis);
	fputs(notes, f);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("aplog: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cli.cmd)
		fprintf(stderr, "\nsee aplog %s --help\n", cli.cmd);
	else
		fputs("\nsee aplog --help\n", stderr);
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

/* Every option, once: what getopt_long reads, the group a command must
 * take for it, and its line in aplog COMMAND --help. */
enum opt_id {
	OPT_TRUNC = 256, OPT_LABEL_A, OPT_LABEL_B, OPT_MIN_RUNS, OPT_FORCE, OPT_PAIRED,
	OPT_BASELINE, OPT_TOLERANCE, OPT_SLOWER, OPT_MAX_RATIO, OPT_OP,
	OPT_FASTER, OPT_MODE, OPT_CONFIG, OPT_OUT, OPT_IDENTICAL, OPT_STATUS,
	OPT_CPUS, OPT_CYCLES, OPT_WBINVD, OPT_ONLINE, OPT_FAILED, OPT_WARNINGS, OPT_BOOT,
	OPT_WITH_NMI, OPT_WITH_SMI,
	OPT_PHASES, OPT_CSV, OPT_PLOT, OPT_AGAINST, OPT_OPS, OPT_SMI_COUNTED,
	OPT_BY, OPT_UNITS, OPT_CHECK,
	OPT_HELP,
};

static const struct opt_def {
	const char *name;
	int id;
	unsigned group;
	const char *arg;  /* the value's name; NULL: a flag */
	const char *help;
} opts[] = {
	{ "label-a", OPT_LABEL_A, O_LABELS, "X", "set A's name (its KEY=VALUE words that name a @boot key are checked)" },
	{ "label-b", OPT_LABEL_B, O_LABELS, "Y", "set B's name, the same way" },
	{ "baseline", OPT_BASELINE, O_BASELINE, "FILE", "check the per-APIC medians against this baseline" },
	{ "slower-than", OPT_SLOWER, O_SLOWER, NULL, "fail when B's runs are slower than A's (per-run medians)" },
	{ "identical", OPT_IDENTICAL, O_IDENT, NULL, "A and B must hold the same samples, record for record" },
	{ "tolerance", OPT_TOLERANCE, O_TOL, "PCT", "the bound in percent (check: the file's; baseline: 5; flush: 10)" },
	{ "allow-faster", OPT_FASTER, O_FASTER, NULL, "check only the upper bound" },
	{ "max-ratio", OPT_MAX_RATIO, O_MAXRATIO, "R", "the ratio B/A the interval must lie above (default 1.0)" },
	{ "op", OPT_OP, O_OP, "online|offline", "the op judged (default online)" },
	{ "min-runs", OPT_MIN_RUNS, O_MINRUNS, "N", "runs a side needed for a verdict (default 3)" },
	{ "paired", OPT_PAIRED, O_PAIRED, NULL, "pair A's i-th run with B's i-th: the sign test's interval" },
	{ "force", OPT_FORCE, O_FORCE, NULL, "compare although labels or builds disagree with the runs" },
	{ "status", OPT_STATUS, O_VERIFY, "pass|fail", "the @end verdict expected (default pass)" },
	{ "cpus", OPT_CPUS, O_VERIFY, "N", "@boot cpus=N, and N CPUs online for a passing run" },
	{ "cycles", OPT_CYCLES, O_VERIFY, "C", "@boot cycles=C, and C samples per AP and op" },
	{ "wbinvd", OPT_WBINVD, O_VERIFY, "0|1", "@boot wbinvd=" },
	{ "online", OPT_ONLINE, O_VERIFY, "N", "@end online=N" },
	{ "failed", OPT_FAILED, O_VERIFY, "N", "@end failed=N" },
	{ "warnings", OPT_WARNINGS, O_VERIFY, "N", "@end warnings=N (default 0 for a passing run)" },
	{ "boot", OPT_BOOT, O_VERIFY, "KEY=VALUE", "any @boot field (repeatable)" },
	{ "mode", OPT_MODE, O_MODE, "M", "the baseline's mode= header (default unspecified)" },
	{ "config", OPT_CONFIG, O_CONFIG, "TEXT", "the baseline's config= header" },
	{ "phases", OPT_PHASES, O_PHASES, NULL, "one row per @phase record instead of per sample" },
	{ "csv", OPT_CSV, O_CSV, NULL, "CSV on standard output instead of the table" },
	{ "out", OPT_OUT, O_OUT, "FILE", "write the result to FILE" },
	{ "plot", OPT_PLOT, O_PLOT, "FILE.png", "also draw it with gnuplot (FILE.dat and FILE.gp beside it)" },
	{ "against", OPT_AGAINST, O_AGAINST, "SPEC", "a flush model's arguments (flush also log:FILE, another run)" },
	{ "ops", OPT_OPS, O_OPS, "LIST", "the flush ops shown: wbinvd,wbnoinvd,clflushopt,clwb (default all)" },
	{ "smi-counted", OPT_SMI_COUNTED, O_SMICOUNTED, NULL, "keep the windows an SMI hit" },
	{ "allow-truncated", OPT_TRUNC, O_TRUNC, NULL, "use the samples of runs without @end (a cut capture)" },
	{ "with-nmi", OPT_WITH_NMI, O_NMI, NULL, "keep samples marked nmi=1" },
	{ "with-smi", OPT_WITH_SMI, O_SMI, NULL, "keep samples an SMI hit (smi= above 0)" },
	{ "by", OPT_BY, O_BY, "WRITER", "only the records and keys WRITER prints" },
	{ "units", OPT_UNITS, O_UNITS, NULL, "what each placeholder of the listing stands for" },
	{ "check", OPT_CHECK, O_CHECK, NULL, "check the logs' records against the schema" },
	{ "help", OPT_HELP, O_HELP, NULL, "this help" },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const struct opt_def *opt_by_id(int id)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].id == id)
			return &opts[i];
	return NULL;
}

static const char *name_of(int id)
{
	const struct opt_def *o = opt_by_id(id);
	return o ? o->name : "?";
}

/* The groups a command takes: its own, --with-smi wherever --with-nmi
 * goes, and --help. */
static unsigned allowed(const struct command *c)
{
	return c->opts | (c->opts & O_NMI ? O_SMI : 0) | O_HELP;
}

void command_help(FILE *f, const struct command *c)
{
	print_synopsis(f, "usage: aplog ", "       aplog ", c->synopsis);
	fprintf(f, "%s\noptions:\n", c->about);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt_def *o = &opts[i];
		if (!(allowed(c) & o->group))
			continue;
		char head[64];
		snprintf(head, sizeof head, "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-24s %s\n", head, o->help);
	}
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
	case OPT_PLOT: cli.plot = val; break;
	case OPT_AGAINST: cli.against = val; break;
	case OPT_OPS: cli.ops = val; break;
	case OPT_BY: cli.by = val; break;
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
		if (record_key_find(RW_boot, val, kl) < 0)
			usage_error("--boot %s: @boot has no key '%.*s' in the record "
				    "schema (aplog schema boot)", val, (int)kl, val);
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
		for (size_t k = 0; k < NOPTS; k++)
			if (!strcmp(a + 2, opts[k].name) && opts[k].arg)
				i++;
	}
	return n;
}

/* getopt_long over one set's arguments; its files go to set s. */
static void parse_part(char **args, int n, const struct command *cmd, int s)
{
	static struct option longopts[NOPTS + 1];
	for (size_t i = 0; i < NOPTS; i++)
		longopts[i] = (struct option){ opts[i].name,
			opts[i].arg ? required_argument : no_argument, NULL, opts[i].id };
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
		int c = getopt_long(n + 1, v, "-:h", longopts, NULL);
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
		if (c == 'h')
			c = OPT_HELP;
		const struct opt_def *o = opt_by_id(c);
		if (!(allowed(cmd) & o->group))
			usage_error("option --%s does not apply to '%s'", o->name,
				    cli.cmd);
		if (c == OPT_HELP) {
			command_help(stdout, cmd);
			exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
		}
		cli.given |= o->group;
		take(c, optarg);
	}
	free(v);
	v = NULL;
}

void parse_cli(int argc, char **argv, const struct command *c)
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
		if (!c->two_sets)
			usage_error("'%s' takes no '--' (one set of logs)", cli.cmd);
		if (find_separator(args + sep + 1, n - sep - 1) < n - sep - 1)
			usage_error("more than one '--'");
		cli.sep = true;
	}
	parse_part(args, sep, c, 0);
	if (cli.sep)
		parse_part(args + sep + 1, n - sep - 1, c, 1);
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
