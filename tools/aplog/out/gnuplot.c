/* SPDX-License-Identifier: MIT */
/* gnuplot, for every command that draws (gnuplot.h): running it, where
 * its data and script go, its quoting, and the script run with the
 * messages. The one file that starts gnuplot. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/aplog/out/gnuplot.h"
#include "tools/aplog/util.h"

extern char **environ;

/* No shell is involved: file names reach gnuplot only inside its own
 * quoted strings. */
int gnuplot_run(const char *script, size_t len)
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
	while (off < len) {
		ssize_t w = write(fd[1], script + off, len - off);
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


char *gnuplot_file_name(const char *png, const char *ext)
{
	size_t pl = strlen(png);
	char *name = xcalloc(pl + strlen(ext) + 1, 1);
	memcpy(name, png, pl);
	if (pl > 4 && !strcmp(png + pl - 4, ".png"))
		name[pl - 4] = '\0';
	strcat(name, ext);
	return name;
}

char *gnuplot_data_name(const char *png)
{
	return gnuplot_file_name(png, ".dat");
}

FILE *gnuplot_data_open(const char *dat)
{
	FILE *f = fopen(dat, "w");
	if (!f)
		fprintf(stderr, "aplog: %s: %s\n", dat, strerror(errno));
	return f;
}

int gnuplot_data_close(FILE *f, const char *dat)
{
	if (fclose(f) != 0) {
		fprintf(stderr, "aplog: %s: write error\n", dat);
		return 1;
	}
	printf("data: %s\n", dat);
	return 0;
}

int gnuplot_script_save(const char *gp, const char *script, size_t len)
{
	FILE *f = fopen(gp, "w");
	if (!f || fwrite(script, 1, len, f) != len) {
		fprintf(stderr, "aplog: %s: %s\n", gp, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "aplog: %s: write error\n", gp);
		return 1;
	}
	printf("script: %s (gnuplot %s redraws it)\n", gp, gp);
	return 0;
}


void gnuplot_title_modelled(FILE *s, const char *model)
{
	if (!model[0])
		return;
	char t[200];
	snprintf(t, sizeof t, "MODELLED: flush_model=%s", model);
	fprintf(s, "set title ");
	gnuplot_quote(s, t);
	fprintf(s, "\n");
}

void gnuplot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

FILE *gnuplot_script_open(char **buf, size_t *len, const char *png)
{
	FILE *s = open_memstream(buf, len);
	if (!s)
		oom();
	fprintf(s, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1000,600 } "
		   "else { set terminal png size 1000,600 }\nset termoption noenhanced\nset output ");
	gnuplot_quote(s, png);
	fprintf(s, "\nset grid\nset key top left\n");
	return s;
}

int gnuplot_script_run(FILE *s, char **buf, size_t *len, const char *png)
{
	fclose(s); /* sets *buf and *len */
	int rc = gnuplot_run(*buf, *len);
	free(*buf);
	*buf = NULL;
	if (rc == 127) {
		printf("plot: gnuplot not found (package gnuplot-nox): data only\n");
		return 0;
	}
	if (rc) {
		fprintf(stderr, "aplog: gnuplot failed (status %d)\n", rc);
		return 1;
	}
	printf("plot: %s\n", png);
	return 0;
}
