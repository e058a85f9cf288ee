// SPDX-License-Identifier: MIT
/* --trace: the tracefs instance, reading trace_pipe, and the @cpuhp
 * records (trace.h). */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Record-safe: what aplog's key=value parser takes as one value. */
static void record_safe(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		char ch = src[i];
		bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9') || strchr("_.:/+-", ch);
		dst[o++] = keep ? ch : '_';
	}
	if (!o && len > 1)
		dst[o++] = '?';
	dst[o] = '\0';
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes value to an existing file; returns 0 or errno. */
static int put(const char *dir, const char *file, const char *value)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	size_t n = strlen(value);
	ssize_t w;
	do
		w = write(fd, value, n);
	while (w < 0 && errno == EINTR);
	int err = w == (ssize_t)n ? 0 : w < 0 ? errno : EIO;
	close(fd);
	return err;
}

/* hotplug/states: "  91: cpu:bringup" per line. */
static void read_state_names(struct lh_trace *t, const char *sysfs_root)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/hotplug/states", sysfs_root);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		char *end;
		long n = strtol(line, &end, 10);
		if (end == line || *end != ':' || n < 0 || n >= LH_MAX_STATES)
			continue;
		const char *name = end + 1;
		while (*name == ' ' || *name == '\t')
			name++;
		size_t len = strcspn(name, "\r\n");
		char safe[96];
		record_safe(safe, sizeof(safe), name, len);
		free(t->names[n]);
		t->names[n] = strdup(safe);
		t->nnames++;
	}
	fclose(f);
}

static bool has_cpuhp_events(const char *root)
{
	static const char *const ev[] = { "cpuhp_enter", "cpuhp_multi_enter", "cpuhp_exit" };
	for (size_t i = 0; i < 3; i++) {
		char path[4300];
		snprintf(path, sizeof(path), "%s/events/cpuhp/%s", root, ev[i]);
		if (!is_dir(path))
			return false;
	}
	return true;
}

int lh_trace_probe(struct lh_trace *t, const char *tracefs_root,
		   const char *sysfs_root, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->pipe_fd = -1;
	char cand[2][4096];
	size_t ncand = 0;
	if (tracefs_root) {
		snprintf(cand[ncand++], sizeof(cand[0]), "%s", tracefs_root);
	} else {
		snprintf(cand[ncand++], sizeof(cand[0]), "%s/kernel/tracing", sysfs_root);
		snprintf(cand[ncand++], sizeof(cand[0]), "%s/kernel/debug/tracing", sysfs_root);
	}
	for (size_t i = 0; i < ncand && !t->root[0]; i++) {
		char inst[4200];
		snprintf(inst, sizeof(inst), "%.4000s/instances", cand[i]);
		if (is_dir(inst))
			snprintf(t->root, sizeof(t->root), "%.4000s", cand[i]);
	}
	if (!t->root[0]) {
		snprintf(err, errlen, "--trace: no tracefs at %s%s%s (no instances/ there): "
			 "mount it (mount -t tracefs nodev %s) or give --tracefs DIR",
			 cand[0], ncand > 1 ? " or " : "", ncand > 1 ? cand[1] : "", cand[0]);
		return -1;
	}
	if (!has_cpuhp_events(t->root)) {
		snprintf(err, errlen, "--trace: %s/events/cpuhp has no cpuhp_enter, "
			 "cpuhp_multi_enter and cpuhp_exit: this kernel cannot trace CPU "
			 "hotplug (CONFIG_TRACING off?)", t->root);
		return -1;
	}
	read_state_names(t, sysfs_root);
	return 0;
}

int lh_trace_start(struct lh_trace *t, char *err, size_t errlen)
{
	snprintf(t->dir, sizeof(t->dir), "%s/instances/linux-hotplug.%ld", t->root,
		 (long)getpid());
	if (mkdir(t->dir, 0700) != 0) {
		int e = errno;
		snprintf(err, errlen, "--trace: cannot make the tracing instance %s: %s%s",
			 t->dir, strerror(e), e == EEXIST ?
			 " (left by a run that was killed? rmdir it)" : "");
		return -1;
	}
	t->created = true;
	int e;
	const char *what = "tracing_on";
	if ((e = put(t->dir, "tracing_on", "0")) == 0) {
		what = "trace_clock (mono)";
		if ((e = put(t->dir, "trace_clock", "mono")) == 0) {
			what = "events/cpuhp/enable";
			e = put(t->dir, "events/cpuhp/enable", "1");
		}
	}
	if (!e) {
		char path[4300];
		what = "trace_pipe";
		snprintf(path, sizeof(path), "%s/trace_pipe", t->dir);
		t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (t->pipe_fd < 0)
			e = errno;
	}
	if (e) {
		snprintf(err, errlen, "--trace: %s/%s: %s", t->dir, what, strerror(e));
		lh_trace_stop(t);
		return -1;
	}
	return 0;
}

static bool push(struct lh_trace *t, const struct lh_ev *e)
{
	if (t->nev == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct lh_ev *n = realloc(t->ev, cap * sizeof(*n));
		if (!n)
			return false;
		t->ev = n;
		t->cap = cap;
	}
	t->ev[t->nev++] = *e;
	return true;
}

/* "S.FFFFFF" (6 or 9 digits of fraction) -> ns. */
static bool parse_stamp(const char *p, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, fd = 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		sec = sec * 10 + (uint64_t)(p[i++] - '0');
	if (i == 0 || i == n || p[i] != '.' || i > 12)
		return false;
	for (i++; i < n; i++, fd++) {
		if (p[i] < '0' || p[i] > '9' || fd >= 9)
			return false;
		frac = frac * 10 + (uint64_t)(p[i] - '0');
	}
	if (!fd)
		return false;
	for (; fd < 9; fd++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return true;
}

bool lh_trace_parse_line(const char *line, struct lh_ev *e)
{
	static const struct { const char *mark; enum lh_ev_kind kind; } marks[] = {
		{ ": cpuhp_enter: ", LH_EV_ENTER },
		{ ": cpuhp_multi_enter: ", LH_EV_MULTI },
		{ ": cpuhp_exit: ", LH_EV_EXIT },
	};
	const char *m = NULL, *body = NULL;
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < 3 && !m; i++)
		if ((m = strstr(line, marks[i].mark)) != NULL) {
			e->kind = marks[i].kind;
			body = m + strlen(marks[i].mark);
		}
	if (!m)
		return false;
	/* "TASK-PID  [CPU] FLAGS  S.US" before the mark; TASK may hold
	 * blanks and dashes, so go from the right. */
	const char *ts_end = m, *ts = m;
	while (ts > line && ((ts[-1] >= '0' && ts[-1] <= '9') || ts[-1] == '.'))
		ts--;
	if (!parse_stamp(ts, (size_t)(ts_end - ts), &e->t_ns))
		return false;
	const char *rb = ts;
	while (rb > line && rb[-1] != ']')
		rb--;
	if (rb == line)
		return false;
	const char *lb = rb - 1;
	while (lb > line && lb[-1] != '[')
		lb--;
	if (lb == line || lb >= rb - 1)
		return false;
	char *end;
	unsigned long on = strtoul(lb, &end, 10);
	if (end != rb - 1 || on >= LH_MAX_CPUS)
		return false;
	e->on = (unsigned)on;
	const char *p = lb - 1; /* the '[' */
	while (p > line && p[-1] == ' ')
		p--;
	const char *digits = p;
	while (digits > line && digits[-1] >= '0' && digits[-1] <= '9')
		digits--;
	if (digits == p || digits == line || digits[-1] != '-')
		return false;
	e->pid = strtol(digits, NULL, 10);

	unsigned cpu;
	int a, step, ret, used = 0;
	if (e->kind == LH_EV_EXIT) {
		if (sscanf(body, " cpu: %u state: %d step: %d ret: %d", &cpu, &a, &step, &ret) != 4)
			return false;
		e->ret = ret;
	} else {
		if (sscanf(body, " cpu: %u target: %d step: %d (%n", &cpu, &a, &step, &used) != 3 ||
		    !used)
			return false;
		const char *fn = body + used, *close = strrchr(fn, ')');
		if (!close)
			return false;
		record_safe(e->fn, sizeof(e->fn), fn, (size_t)(close - fn));
	}
	if (cpu >= LH_MAX_CPUS || step < 0 || step >= LH_MAX_STATES)
		return false;
	e->cpu = cpu;
	e->step = step;
	return true;
}

/* "CPU:3 [LOST 12 EVENTS]": the ring buffer overflowed. */
static size_t lost_line(const char *line)
{
	const char *p = strstr(line, "[LOST ");
	if (!p)
		return 0;
	unsigned long n = strtoul(p + 6, NULL, 10);
	return n ? (size_t)n : 1;
}

static void feed_line(struct lh_trace *t, const char *line)
{
	struct lh_ev e;
	if (lh_trace_parse_line(line, &e)) {
		if (!push(t, &e))
			t->lost++;
		return;
	}
	size_t lost = lost_line(line);
	if (lost)
		t->lost += lost;
	else if (line[strspn(line, " \t")])
		t->malformed++;
}

/* Reads what the pipe holds now; keep: store the events. */
static int drain(struct lh_trace *t, bool keep)
{
	char buf[16384];
	for (;;) {
		ssize_t n = read(t->pipe_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			return errno;
		if (n == 0)
			break; /* a plain file (fake tree): at its end */
		if (!keep)
			continue;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (t->linelen + 1 < sizeof(t->line))
					t->line[t->linelen++] = buf[i];
				continue;
			}
			t->line[t->linelen] = '\0';
			feed_line(t, t->line);
			t->linelen = 0;
		}
	}
	if (!keep)
		t->linelen = 0;
	return 0;
}

int lh_trace_begin(struct lh_trace *t)
{
	t->nev = 0;
	t->malformed = 0;
	t->lost = 0;
	int e = drain(t, false);
	return e ? e : put(t->dir, "tracing_on", "1");
}

int lh_trace_end(struct lh_trace *t)
{
	int e = put(t->dir, "tracing_on", "0");
	int d = drain(t, true);
	if (t->linelen) { /* a last line without its newline */
		t->line[t->linelen] = '\0';
		feed_line(t, t->line);
		t->linelen = 0;
	}
	return e ? e : d;
}

struct pair {
	size_t enter, exit;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return (x->enter > y->enter) - (x->enter < y->enter);
}

void lh_trace_report(struct lh_trace *t, const struct lh_cpu *c,
		     uint32_t cycle, const char *op, uint64_t start_ns,
		     uint64_t ns)
{
	size_t *open = malloc((t->nev ? t->nev : 1) * sizeof(*open));
	struct pair *pairs = malloc((t->nev ? t->nev : 1) * sizeof(*pairs));
	size_t nopen = 0, npairs = 0, unmatched = 0, foreign = 0;
	if (!open || !pairs) {
		free(open);
		free(pairs);
		fprintf(stderr, "linux-hotplug: out of memory pairing trace events\n");
		return;
	}
	for (size_t i = 0; i < t->nev; i++) {
		const struct lh_ev *e = &t->ev[i];
		if (e->kind != LH_EV_EXIT) {
			open[nopen++] = i;
			continue;
		}
		/* The innermost open callback of the same task, CPU and step;
		 * anything opened above it lost its exit. */
		size_t k = nopen;
		while (k > 0) {
			const struct lh_ev *o = &t->ev[open[k - 1]];
			if (o->pid == e->pid && o->cpu == e->cpu && o->step == e->step)
				break;
			k--;
		}
		if (!k) {
			unmatched++;
			continue;
		}
		size_t j = k - 1;
		for (size_t m = j + 1; m < nopen; m++)
			if (t->ev[open[m]].pid == e->pid)
				unmatched++;
		pairs[npairs++] = (struct pair){ open[j], i };
		/* Drop j and this task's entries above it; keep other tasks'. */
		size_t w = j;
		for (size_t m = j + 1; m < nopen; m++)
			if (t->ev[open[m]].pid != e->pid)
				open[w++] = open[m];
		nopen = w;
	}
	unmatched += nopen;
	qsort(pairs, npairs, sizeof(*pairs), cmp_pair);
	size_t printed = 0;
	for (size_t i = 0; i < npairs; i++) {
		const struct lh_ev *a = &t->ev[pairs[i].enter], *b = &t->ev[pairs[i].exit];
		if (a->cpu != c->id) {
			foreign++;
			continue;
		}
		const char *name = t->names[a->step] ? t->names[a->step] : "unknown";
		uint64_t at = a->t_ns > start_ns ? a->t_ns - start_ns : 0;
		uint64_t dur = b->t_ns > a->t_ns ? b->t_ns - a->t_ns : 0;
		printf("@cpuhp cpu=%u apic=%ld cycle=%" PRIu32 " op=%s state=%d name=%s fn=%s "
		       "multi=%d on=%u start_ns=%" PRIu64 " ns=%" PRIu64 " ret=%d\n",
		       c->id, c->apic, cycle, op, a->step, name, a->fn,
		       a->kind == LH_EV_MULTI, a->on, at, dur, b->ret);
		printed++;
	}
	size_t lost = unmatched + t->lost;
	/* at_ns: the write's start since the first traced write's, so that a
	 * timeline (aplog trace) keeps the real gaps between writes. */
	if (!t->have_base) {
		t->base_ns = start_ns;
		t->have_base = true;
	}
	printf("@cpuhp_write cpu=%u apic=%ld cycle=%" PRIu32 " op=%s at_ns=%" PRIu64 " ns=%" PRIu64
	       " callbacks=%zu lost=%zu foreign=%zu malformed=%zu\n", c->id, c->apic,
	       cycle, op, start_ns - t->base_ns, ns, printed, lost, foreign, t->malformed);
	if (lost || t->malformed)
		fprintf(stderr, "linux-hotplug: cpu%u %s (cycle %" PRIu32 "): %zu trace event(s) "
			"lost or unpaired, %zu unreadable line(s): its @cpuhp records are "
			"incomplete\n", c->id, op, cycle, lost, t->malformed);
	free(open);
	free(pairs);
}

bool lh_trace_stop(struct lh_trace *t)
{
	if (t->pipe_fd >= 0) {
		close(t->pipe_fd);
		t->pipe_fd = -1;
	}
	if (!t->created)
		return true;
	/* Off first, so that a failed rmdir still leaves nothing tracing. */
	int e1 = put(t->dir, "events/cpuhp/enable", "0");
	int e2 = put(t->dir, "tracing_on", "0");
	if (rmdir(t->dir) == 0) {
		t->created = false;
		return true;
	}
	int e = errno;
	fprintf(stderr, "linux-hotplug: ERROR: the tracing instance %s was not removed: %s%s; "
		"remove it by hand: rmdir %s\n", t->dir, strerror(e),
		e1 || e2 ? " (and switching its events off failed too)" : " (its events are off)",
		t->dir);
	t->created = false;
	return false;
}

void lh_trace_free(struct lh_trace *t)
{
	for (size_t i = 0; i < LH_MAX_STATES; i++)
		free(t->names[i]);
	free(t->ev);
	memset(t, 0, sizeof(*t));
	t->pipe_fd = -1;
}
