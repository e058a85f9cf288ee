/* SPDX-License-Identifier: MIT */
/* aplog's command line: COMMAND [options] LOG... [-- LOG...], options
 * anywhere (getopt_long), each command taking only its own. */
#ifndef APLOG_OPTIONS_H
#define APLOG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Option groups; a command names the groups it takes. */
enum {
	O_TRUNC = 1u << 0, O_LABELS = 1u << 1, O_BOOT = 1u << 2,
	O_BASELINE = 1u << 3, O_TOL = 1u << 4, O_SLOWER = 1u << 5,
	O_MAXRATIO = 1u << 6, O_OP = 1u << 7, O_FASTER = 1u << 8,
	O_MODE = 1u << 9, O_CONFIG = 1u << 10, O_OUT = 1u << 11,
	O_IDENT = 1u << 12, O_VERIFY = 1u << 13, O_NMI = 1u << 14,
	O_PHASES = 1u << 15, O_FORCE = 1u << 16, O_MINRUNS = 1u << 17,
	O_PAIRED = 1u << 18,
	O_CSV = 1u << 19,
	O_SMI = 1u << 20, /* --with-smi: wherever --with-nmi goes */
	O_PLOT = 1u << 21, O_AGAINST = 1u << 22, O_OPS = 1u << 23,
	O_SMICOUNTED = 1u << 24,
	O_HELP = 1u << 25, /* --help: every command */
	O_BY = 1u << 26, O_UNITS = 1u << 27, O_CHECK = 1u << 28, /* schema */
};

/* One command: the table of contents is main.c's commands[]. */
struct command {
	const char *name;
	int (*run)(void);
	unsigned opts;           /* the O_* groups it takes */
	bool two_sets;           /* A.log... -- B.log... */
	bool session;            /* or a session folder (read/session_dir.h) */
	/* After "aplog ": the operands and every option it takes (the aplog
	 * lane checks that); continuation lines start with blanks. */
	const char *synopsis;
	const char *about;       /* what it does, a line or two */
};

#define MAX_BOOT_EXPECT 16

struct cli {
	const char *cmd;
	const char **files[2];   /* set A, and set B after '--' */
	size_t nfiles[2];
	bool sep;                /* '--' given */
	unsigned given;          /* O_* groups used */
	const char *label[2], *baseline, *out, *mode, *config;
	const char *plot, *against, *ops; /* flush, fit, victims */
	const char *by;          /* schema --by */
	double tolerance, max_ratio;
	size_t min_runs;         /* per side for a verdict (tools/aplog/stats/verdict.h) */
	int op;
	/* verify */
	int status;              /* 0 pass, 1 fail */
	long cpus, cycles, wbinvd, online, failed; /* -1: not checked */
	long warnings; /* -1: 0 for a passing run whose @end has the key */
	const char *boot_expect[MAX_BOOT_EXPECT]; /* KEY=VALUE */
	size_t nboot_expect;
};

extern struct cli cli;

/* aplog --help: every command's synopsis. */
void usage(FILE *f, const struct command *cmds, size_t n);
/* aplog COMMAND --help: its synopsis, what it does, each option. */
void command_help(FILE *f, const struct command *c);
/* A usage error: "aplog: WHY" and "see aplog COMMAND --help", exit 2. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Fills cli from argv[2..] for command c (its O_* groups, its sets);
 * --help prints command_help() and exits 0. Exits 2 on bad usage. */
void parse_cli(int argc, char **argv, const struct command *c);
void cli_free(void);

#endif
