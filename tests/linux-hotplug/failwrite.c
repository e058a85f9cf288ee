// SPDX-License-Identifier: MIT
/* LD_PRELOAD shim for the linux-hotplug tests: makes write()/pwrite() to
 * chosen files behave as a CPU that refuses a state change does under
 * Linux (the write returns -1 with EBUSY, or another errno), or slows
 * every write down so that a signal can land in the middle of a run.
 *   FAILWRITE_MATCH=/cpu3/online  files whose path contains this
 *   FAILWRITE_VALUE=0             only writes whose data starts with this
 *   FAILWRITE_ERRNO=16            the errno (EBUSY); "ignore": report
 *                                 success without writing anything
 *   FAILWRITE_AFTER=N             let the first N matching writes through
 *   FAILWRITE_COUNT=M             then fail only M of them (default: all)
 *   FAILWRITE_DELAY_US=U          sleep U us in every write to an "online"
 *                                 file (FAILWRITE_DELAY_VALUE: only those
 *                                 whose data starts with this)
 *   FAILWRITE_LOG=FILE            append "path value" for every such write */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

static long matched;

static void fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* 0: let it through; 1: pretend success; -1: fail with errno set. */
static int decide(int fd, const void *data, size_t len)
{
	char path[4096];
	fd_path(fd, path, sizeof(path));
	size_t pl = strlen(path);
	if (pl < 7 || strcmp(path + pl - 7, "/online") != 0)
		return 0;

	const char *log = getenv("FAILWRITE_LOG");
	if (log) {
		write_fn real = (write_fn)dlsym(RTLD_NEXT, "write");
		int lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (lfd >= 0) {
			char line[4200];
			int n = snprintf(line, sizeof(line), "%s %c\n", path,
					 len ? ((const char *)data)[0] : '?');
			real(lfd, line, (size_t)n);
			close(lfd);
		}
	}
	const char *delay = getenv("FAILWRITE_DELAY_US");
	const char *dval = getenv("FAILWRITE_DELAY_VALUE");
	if (delay && (!dval || !*dval || (len && ((const char *)data)[0] == dval[0]))) {
		long us = atol(delay);
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}

	const char *match = getenv("FAILWRITE_MATCH");
	if (!match || !strstr(path, match))
		return 0;
	const char *value = getenv("FAILWRITE_VALUE");
	if (value && *value && (len == 0 || ((const char *)data)[0] != value[0]))
		return 0;
	const char *after = getenv("FAILWRITE_AFTER");
	const char *count = getenv("FAILWRITE_COUNT");
	long seen = matched++;
	if (after && seen < atol(after))
		return 0;
	if (count && seen >= (after ? atol(after) : 0) + atol(count))
		return 0;
	const char *e = getenv("FAILWRITE_ERRNO");
	if (e && strcmp(e, "ignore") == 0)
		return 1;
	errno = e ? atoi(e) : EBUSY;
	return -1;
}

/* The result of an intercepted write, or -2: pass it on. */
static ssize_t intercept(int fd, const void *buf, size_t len)
{
	int d = decide(fd, buf, len);
	return d == 0 ? -2 : d > 0 ? (ssize_t)len : -1;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t r = intercept(fd, buf, len);
	return r != -2 ? r : ((write_fn)dlsym(RTLD_NEXT, "write"))(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t r = intercept(fd, buf, len);
	return r != -2 ? r : ((pwrite_fn)dlsym(RTLD_NEXT, "pwrite"))(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t r = intercept(fd, buf, len);
	return r != -2 ? r : ((pwrite_fn)dlsym(RTLD_NEXT, "pwrite64"))(fd, buf, len, off);
}
