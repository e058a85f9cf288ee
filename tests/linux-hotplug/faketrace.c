// SPDX-License-Identifier: MIT
/* LD_PRELOAD shim for the linux-hotplug --trace tests: a fake tracefs in a
 * fake sysfs tree that behaves as Linux's does for what the tool uses.
 *   - mkdir of DIR/instances/NAME populates the instance as the kernel
 *     would (tracing_on, trace_clock, events/cpuhp/enable, trace_pipe);
 *     rmdir of it removes those again;
 *   - a write to a cpuN/online file, while the instance's tracing_on
 *     holds 1, appends to its trace_pipe the cpuhp events Linux 6.1
 *     writes (the format of kernel/trace output, as seen in the VM), with
 *     CLOCK_MONOTONIC times inside the write: a control CPU (cpu 0) and
 *     the AP's hotplug thread, a multi-instance state, nesting.
 * Only the dynamic (ASan) build can be tested this way.
 *   FAKETRACE_LOG=FILE      append "mkdir NAME", "rmdir NAME" and
 *                           "FILE VALUE" for every tracefs write
 *   FAKETRACE_MODE=lose     drop one exit per write (an unpaired enter)
 *                 =lostline also print "CPU:0 [LOST 3 EVENTS]"
 *                 =foreign  add a callback of another CPU
 *                 =noclock  the instance has no trace_clock file
 *   FAKETRACE_RMDIR=fail    rmdir of the instance fails with EBUSY
 *   FAKETRACE_STEP_US=U     time between events (default 1000) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*mkdir_fn)(const char *, mode_t);
typedef int (*rmdir_fn)(const char *);

static char instance[4096]; /* the instance made, "" none */

static ssize_t real_write(int fd, const void *b, size_t n)
{
	return ((write_fn)dlsym(RTLD_NEXT, "write"))(fd, b, n);
}

static void logf_(const char *fmt, ...)
{
	const char *log = getenv("FAKETRACE_LOG");
	if (!log)
		return;
	char line[4400];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		real_write(fd, line, (size_t)n);
		close(fd);
	}
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		real_write(fd, text, strlen(text));
		close(fd);
	}
}

static bool in_instances(const char *path)
{
	const char *p = strstr(path, "/instances/");
	return p && !strchr(p + 11, '/');
}

int mkdir(const char *path, mode_t mode)
{
	int r = ((mkdir_fn)dlsym(RTLD_NEXT, "mkdir"))(path, mode);
	if (r != 0 || !in_instances(path))
		return r;
	char sub[4400];
	snprintf(sub, sizeof(sub), "%s/events", path);
	((mkdir_fn)dlsym(RTLD_NEXT, "mkdir"))(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/events/cpuhp", path);
	((mkdir_fn)dlsym(RTLD_NEXT, "mkdir"))(sub, 0755);
	put_file(path, "tracing_on", "1\n"); /* as Linux: a new instance traces */
	const char *m = getenv("FAKETRACE_MODE");
	if (!m || strcmp(m, "noclock")) /* noclock: a kernel whose instance has none */
		put_file(path, "trace_clock", "[local] global counter uptime perf mono mono_raw boot\n");
	put_file(path, "events/cpuhp/enable", "0\n");
	put_file(path, "trace_pipe", "");
	snprintf(instance, sizeof(instance), "%s", path);
	logf_("mkdir %s\n", strrchr(path, '/') + 1);
	return 0;
}

int rmdir(const char *path)
{
	if (!in_instances(path))
		return ((rmdir_fn)dlsym(RTLD_NEXT, "rmdir"))(path);
	logf_("rmdir %s\n", strrchr(path, '/') + 1);
	const char *m = getenv("FAKETRACE_RMDIR");
	if (m && !strcmp(m, "fail")) {
		errno = EBUSY;
		return -1;
	}
	static const char *const files[] = { "tracing_on", "trace_clock",
		"events/cpuhp/enable", "trace_pipe", NULL };
	char sub[4400];
	for (int i = 0; files[i]; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, files[i]);
		unlink(sub);
	}
	snprintf(sub, sizeof(sub), "%s/events/cpuhp", path);
	((rmdir_fn)dlsym(RTLD_NEXT, "rmdir"))(sub);
	snprintf(sub, sizeof(sub), "%s/events", path);
	((rmdir_fn)dlsym(RTLD_NEXT, "rmdir"))(sub);
	int r = ((rmdir_fn)dlsym(RTLD_NEXT, "rmdir"))(path);
	if (r == 0)
		instance[0] = '\0';
	return r;
}

static void fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static bool ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);
	return a >= b && !strcmp(s + a - b, t);
}

/* N of ".../cpuN/online", or -1. */
static int online_cpu(const char *path)
{
	if (!ends_with(path, "/online"))
		return -1;
	const char *p = strstr(path, "/cpu");
	const char *last = NULL;
	while (p) {
		last = p;
		p = strstr(p + 1, "/cpu");
	}
	if (!last || last[4] < '0' || last[4] > '9')
		return -1;
	return atoi(last + 4);
}

static bool tracing(void)
{
	if (!instance[0])
		return false;
	char path[4400], b[4] = "";
	snprintf(path, sizeof(path), "%s/tracing_on", instance);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, b, 1);
	close(fd);
	return n == 1 && b[0] == '1';
}

struct emit {
	int fd;
	long step_us;
};

static void pause_step(const struct emit *em)
{
	struct timespec ts = { em->step_us / 1000000, (em->step_us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* One line in Linux's trace_pipe format at the current time. */
static void ev(const struct emit *em, const char *task, int pid, int on,
	       const char *fmt, ...)
{
	pause_step(em);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char body[256], line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	int n = snprintf(line, sizeof(line), "%16s-%-7d [%03d] ..... %5lld.%06ld: %s\n",
			 task, pid, on, (long long)ts.tv_sec, ts.tv_nsec / 1000, body);
	real_write(em->fd, line, (size_t)n);
}

#define ENTER(task, pid, on, cpu, target, step, fn)                            \
	ev(&em, task, pid, on, "cpuhp_enter: cpu: %04d target: %3d step: %3d (%s)", \
	   cpu, target, step, fn)
#define MULTI(task, pid, on, cpu, target, step, fn)                            \
	ev(&em, task, pid, on, "cpuhp_multi_enter: cpu: %04d target: %3d step: %3d (%s)", \
	   cpu, target, step, fn)
#define EXIT(task, pid, on, cpu, state, step)                                  \
	ev(&em, task, pid, on, "cpuhp_exit:  cpu: %04d  state: %3d step: %3d ret: 0", \
	   cpu, state, step)

static void emit_events(int cpu, bool online)
{
	char path[4400], ap[32];
	snprintf(path, sizeof(path), "%s/trace_pipe", instance);
	struct emit em = { open(path, O_WRONLY | O_APPEND | O_CLOEXEC), 1000 };
	if (em.fd < 0)
		return;
	const char *su = getenv("FAKETRACE_STEP_US");
	if (su)
		em.step_us = atol(su);
	const char *mode = getenv("FAKETRACE_MODE");
	mode = mode ? mode : "";
	snprintf(ap, sizeof(ap), "cpuhp/%d", cpu);
	int appid = 100 + cpu;
	if (online) {
		/* Control CPU: a prepare state, a multi-instance one, then
		 * cpu:bringup, inside which the AP runs its online states. */
		ENTER("linux-hotplug", 4242, 0, cpu, 236, 1, "smpboot_create_threads");
		EXIT("linux-hotplug", 4242, 0, cpu, 1, 1);
		MULTI("linux-hotplug", 4242, 0, cpu, 236, 62, "trace_rb_cpu_prepare");
		EXIT("linux-hotplug", 4242, 0, cpu, 62, 62);
		ENTER("linux-hotplug", 4242, 0, cpu, 236, 91, "bringup_cpu");
		ENTER(ap, appid, cpu, cpu, 236, 235, "sched_cpu_activate");
		if (strcmp(mode, "lose"))
			EXIT(ap, appid, cpu, cpu, 235, 235);
		EXIT("linux-hotplug", 4242, 0, cpu, 236, 91);
	} else {
		ENTER("kworker/0:1", 17, 0, cpu, 153, 236, "cpuhp_kick_ap_work");
		ENTER(ap, appid, cpu, cpu, 153, 235, "sched_cpu_deactivate");
		if (strcmp(mode, "lose"))
			EXIT(ap, appid, cpu, cpu, 234, 235);
		EXIT("kworker/0:1", 17, 0, cpu, 153, 236);
		ENTER("kworker/0:1", 17, 0, cpu, 0, 153, "takedown_cpu");
		EXIT("kworker/0:1", 17, 0, cpu, 92, 153);
		ENTER("kworker/0:1", 17, 0, cpu, 0, 2, "perf_event_exit_cpu");
		EXIT("kworker/0:1", 17, 0, cpu, 1, 2);
	}
	if (!strcmp(mode, "foreign")) {
		ENTER("kworker/0:1", 17, 0, cpu + 1, 236, 200, "cacheinfo_cpu_online");
		EXIT("kworker/0:1", 17, 0, cpu + 1, 200, 200);
	}
	if (!strcmp(mode, "lostline")) {
		const char *l = "CPU:0 [LOST 3 EVENTS]\n";
		real_write(em.fd, l, strlen(l));
	}
	close(em.fd);
}

/* Before the real write: log tracefs writes. After: events for a write
 * to an online file while tracing. */
static ssize_t around(int fd, const void *buf, size_t len, ssize_t (*doit)(void))
{
	char path[4096];
	fd_path(fd, path, sizeof(path));
	if (instance[0] && !strncmp(path, instance, strlen(instance))) {
		size_t n = 0;
		while (n < len && ((const char *)buf)[n] != '\n')
			n++;
		logf_("%s %.*s\n", path + strlen(instance) + 1, (int)n, (const char *)buf);
	}
	int cpu = online_cpu(path);
	bool trace = cpu >= 0 && tracing();
	ssize_t r = doit();
	if (trace && r > 0)
		emit_events(cpu, len && ((const char *)buf)[0] == '1');
	return r;
}

static int c_fd;
static const void *c_buf;
static size_t c_len;
static off_t c_off;

static ssize_t do_write(void)
{
	return real_write(c_fd, c_buf, c_len);
}

static ssize_t do_pwrite(void)
{
	return ((pwrite_fn)dlsym(RTLD_NEXT, "pwrite"))(c_fd, c_buf, c_len, c_off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	c_fd = fd, c_buf = buf, c_len = len;
	return around(fd, buf, len, do_write);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	c_fd = fd, c_buf = buf, c_len = len, c_off = off;
	return around(fd, buf, len, do_pwrite);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off);
}
