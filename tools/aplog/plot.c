/* SPDX-License-Identifier: MIT */
/* plot: median per APIC ID, one panel per op, one line per set; and where
 * the logs have @phase records, one panel per set of stacked bars, a bar
 * per CPU made of its median per phase (sets side by side: serial vs
 * parallel rounds, WBINVD=1 vs 0). The data file is always written, the
 * PNG when gnuplot can be started. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "gnuplot.h"
#include "options.h"
#include "phases.h"
#include "sets.h"
#include "util.h"

extern char **environ;

/* A growing string, for the gnuplot script. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* gnuplot single-quoted string: nothing is special inside except the
 * quote itself, written twice. Callers reject newlines beforehand. */
static void sb_gpquote(struct sbuf *b, const char *s)
{
	sb_printf(b, "'");
	for (; *s; s++)
		sb_printf(b, *s == '\'' ? "''" : "%c", *s);
	sb_printf(b, "'");
}

/* Feed the script to gnuplot's stdin; no shell is involved, so file names
 * reach gnuplot only inside its own quoted strings. Returns gnuplot's exit
 * status, 127 when none runs from PATH, -1 on other errors. */
static int run_gnuplot(const struct sbuf *script)
{
	int fd[2];
	if (pipe(fd) != 0) {
		perror("aplog: pipe");
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[0], STDIN_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	char *argv[] = { "gnuplot", NULL };
	pid_t pid;
	fflush(stdout);
	fflush(stderr);
	int err = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[0]);
	if (err) {
		close(fd[1]);
		if (err == ENOENT || err == EACCES)
			return 127;
		fprintf(stderr, "aplog: cannot start gnuplot: %s\n", strerror(err));
		return -1;
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	size_t off = 0;
	while (off < script->len) {
		ssize_t w = write(fd[1], script->s + off, script->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd[1]);
	signal(SIGPIPE, old);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int gnuplot_run(const char *s, size_t len)
{
	struct sbuf b = { (char *)(uintptr_t)s, len, len };
	return run_gnuplot(&b);
}

/* FILE.png -> FILE.dat (anything else: FILE.dat appended). */
static char *data_name(const char *out)
{
	size_t ol = strlen(out);
	char *dat = xcalloc(ol + 5, 1);
	memcpy(dat, out, ol);
	if (ol > 4 && !strcmp(out + ol - 4, ".png"))
		dat[ol - 4] = '\0';
	strcat(dat, ".dat");
	return dat;
}

static int write_data(const char *dat, const struct side *s, int nsides)
{
	FILE *f = fopen(dat, "w");
	if (!f) {
		fprintf(stderr, "aplog: %s: %s\n", dat, strerror(errno));
		return 1;
	}
	fprintf(f, "# aplog plot data: median time per APIC ID in microseconds\n"
		   "# one block per set, '?' = no samples\n");
	for (int i = 0; i < nsides; i++) {
		char b[128];
		fprintf(f, "%s# set %c: %s\n# apic online_us offline_us\n",
			i ? "\n\n" : "", 'A' + i,
			show(b, sizeof(b), s[i].label, strlen(s[i].label)));
		for (size_t k = 0; k < s[i].t.nrows; k++) {
			const struct cpu_row *r = &s[i].t.rows[k];
			fprintf(f, "%" PRIu32, r->apic);
			for (int op = 0; op < OP_COUNT; op++) {
				if (r->n[op])
					fprintf(f, " %.3f",
						(double)median_of(r->v[op], r->n[op]) / 1000);
				else
					fprintf(f, " ?");
			}
			fputc('\n', f);
		}
		if (!s[i].t.nrows) /* keep the block: gnuplot needs a point */
			fprintf(f, "? ? ?\n");
	}
	/* Blocks nsides.. : per set with phases, median per phase per CPU. */
	for (int i = 0; i < nsides; i++) {
		if (!side_has_phases(&s[i]))
			continue;
		fprintf(f, "\n\n# set %c phases: apic", 'A' + i);
		for (int k = 0; k < PHASE_CHAIN; k++)
			fprintf(f, " %s_us", phase_names[k]);
		fputc('\n', f);
		for (size_t k = 0; k < s[i].t.nrows; k++) {
			struct phase_pool p;
			phase_pool_build(&s[i], (long)s[i].t.rows[k].apic, &p);
			fprintf(f, "%" PRIu32, s[i].t.rows[k].apic);
			for (int ph = 0; ph < PHASE_CHAIN; ph++)
				if (p.n[ph])
					fprintf(f, " %.3f", (double)median_of(p.v[ph], p.n[ph]) / 1000);
				else
					fprintf(f, " 0");
			fputc('\n', f);
			phase_pool_free(&p);
		}
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "aplog: %s: write error\n", dat);
		return 1;
	}
	printf("data: %s\n", dat);
	for (int i = 0; i < nsides; i++) {
		print_flush_note(&s[i], i ? "B: " : "A: ");
		print_nmi_note(&s[i], i ? "B: " : "A: ");
	}
	return 0;
}

/* gnuplot rejects a plot without points: draw only what has data. */
static void script(struct sbuf *sc, const char *dat, const struct side *s,
		   int nsides, bool has[2][OP_COUNT], int panels)
{
	int height = 400 * (panels > 2 ? panels : 2);
	sb_printf(sc, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
		      "{ set terminal pngcairo size 1200,%d } "
		      "else { set terminal png size 1200,%d }\n", height, height);
	sb_printf(sc, ""
		      "set termoption noenhanced\nset output ");
	sb_gpquote(sc, cli.out);
	sb_printf(sc, "\nset datafile missing '?'\nset grid\nset key top left\n"
		      "set xlabel 'APIC ID'\nset ylabel 'median time (us)'\n"
		      "set yrange [0:*]\nset format x '%%.0f'\n"
		      "set multiplot layout %d,1\n", panels);
	for (int op = 0; op < OP_COUNT; op++) {
		if (!has[0][op] && !has[1][op])
			continue;
		sb_printf(sc, "set title 'AP %s, median per CPU%s'\nplot ",
			  op_name[op], s[0].modelled || (nsides > 1 && s[1].modelled) ?
			  " (MODELLED flush cost, QEMU plugin: not hardware)" : "");
		for (int i = 0, first = 1; i < nsides; i++) {
			if (!has[i][op])
				continue;
			sb_printf(sc, "%s", first ? "" : ", ");
			first = 0;
			sb_gpquote(sc, dat);
			sb_printf(sc, " index %d using 1:%d with linespoints title ",
				  i, 2 + op);
			sb_gpquote(sc, s[i].label);
		}
		sb_printf(sc, "\n");
	}
	/* Stacked bars, one panel per set with phases (data blocks after
	 * the sets' own, in set order). */
	/* One colour per phase (gnuplot's default cycle has 8). */
	static const char *const colour[PHASE_CHAIN] = { "#9400d3", "#009e73",
		"#56b4e9", "#e69f00", "#f0e442", "#0072b2", "#e51e10", "#404040",
		"#c080ff", "#00c000", "#a0d8ff" };
	int block = nsides;
	for (int i = 0; i < nsides; i++) {
		if (!side_has_phases(&s[i]))
			continue;
		sb_printf(sc, "set style data histograms\nset style histogram rowstacked\n"
			      "set style fill solid 0.8 border -1\nset boxwidth 0.8\n"
			      "set key outside right top\nset format x '%%g'\n"
			      "set xtics rotate by -90 font ',8'\n"
			      "set ylabel 'median per phase (us)'\nset title ");
		char title[160];
		snprintf(title, sizeof(title), "%s: where an online goes, per CPU "
			 "(median per phase, stacked)", s[i].label);
		sb_gpquote(sc, title);
		sb_printf(sc, "\nplot ");
		for (int ph = 0; ph < PHASE_CHAIN; ph++) {
			sb_printf(sc, "%s", ph ? ", " : "");
			sb_gpquote(sc, dat);
			/* Beyond 32 CPUs a label on every 10th bar only. */
			const char *xtic = ph ? "" : s[i].t.nrows > 32
				? ":xtic(int($0) % 10 == 0 ? stringcolumn(1) : '')" : ":xtic(1)";
			sb_printf(sc, " index %d using %d%s lc rgb '%s' title ", block,
				  2 + ph, xtic, colour[ph]);
			sb_gpquote(sc, phase_names[ph]);
		}
		sb_printf(sc, "\n");
		block++;
	}
	sb_printf(sc, "unset multiplot\nset output\n");
}

int cmd_plot(void)
{
	if (!cli.out)
		usage_error("plot needs --out FILE.png");
	if (!cli.nfiles[0] || (cli.sep && !cli.nfiles[1]))
		usage_error("plot needs A.log... [-- B.log...]");
	if (has_newline(cli.out))
		usage_error("--out: no newlines please");

	int nsides = cli.sep ? 2 : 1, rc = 0;
	struct side s[2];
	memset(s, 0, sizeof(s));
	for (int i = 0; i < nsides; i++)
		if (side_load(&s[i], cli.files[i], cli.nfiles[i],
			      i ? "set B" : "set A", "the plot"))
			rc = 1;
	char *dat = NULL;
	struct sbuf sc = { 0 };
	if (rc)
		goto out;
	if (nsides == 2)
		side_labels(s);
	else
		side_label_one(&s[0]);

	dat = data_name(cli.out);
	for (int i = 0; i < nsides; i++)
		for (size_t k = 0; k < cli.nfiles[i]; k++)
			if (!strcmp(cli.files[i][k], dat) ||
			    !strcmp(cli.files[i][k], cli.out)) {
				fprintf(stderr, "aplog: %s is an input log; pick another "
					"--out\n", cli.files[i][k]);
				rc = 1;
				goto out;
			}
	rc = write_data(dat, s, nsides);
	if (rc)
		goto out;

	bool has[2][OP_COUNT] = { { false } };
	int panels = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		for (int i = 0; i < nsides; i++)
			for (size_t k = 0; k < s[i].t.nrows; k++)
				has[i][op] |= s[i].t.rows[k].n[op] > 0;
		panels += has[0][op] || has[1][op];
	}
	for (int i = 0; i < nsides; i++)
		panels += side_has_phases(&s[i]);
	if (!panels) {
		printf("no AP samples: nothing to plot\n");
		goto out;
	}
	script(&sc, dat, s, nsides, has, panels);
	int st = run_gnuplot(&sc);
	struct stat pst;
	if (st == 127) {
		printf("gnuplot is not on PATH: no plot written (the data file is "
		       "above)\n");
	} else if (st != 0 || stat(cli.out, &pst) != 0 || pst.st_size == 0) {
		fprintf(stderr, "aplog: gnuplot failed (status %d); no plot in %s\n",
			st, cli.out);
		rc = 1;
	} else {
		printf("plot: %s\n", cli.out);
	}
out:
	free(sc.s);
	free(dat);
	for (int i = 0; i < 2; i++)
		side_free(&s[i]);
	return rc;
}
