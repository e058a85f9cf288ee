/* SPDX-License-Identifier: MIT */
/* Runs the decompressor: the payload from an unlinked temporary file on
 * its stdin (no pipe to fill both ways), its stdout read with a cap and a
 * deadline, its stderr kept for the one line a refusal quotes. */
#define _POSIX_C_SOURCE 200809L
#include "tools/linux/realmode/decompress.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/bytes.h"

static const uint8_t m_gzip[] = { 0x1f, 0x8b };
static const uint8_t m_xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const uint8_t m_zstd[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const uint8_t m_lz4[] = { 0x02, 0x21, 0x4c, 0x18 }; /* lz4 -l: the legacy frame */
static const uint8_t m_bzip2[] = { 'B', 'Z', 'h' };
static const uint8_t m_lzma[] = { 0x5d, 0x00, 0x00 };
static const uint8_t m_lzo[] = { 0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a };

static const char *const a_gzip[] = { "gzip", "-dc", NULL };
static const char *const a_xz[] = { "xz", "-dc", NULL };
static const char *const a_zstd[] = { "zstd", "-dcq", NULL };
static const char *const a_lz4[] = { "lz4", "-dcq", NULL };
static const char *const a_bzip2[] = { "bzip2", "-dc", NULL };
static const char *const a_lzma[] = { "lzma", "-dc", NULL };
static const char *const a_lzo[] = { "lzop", "-dc", NULL };

#define FORMAT(n, pkg, appended) { #n, m_##n, sizeof m_##n, a_##n, pkg, appended }
static const struct payload_format formats[] = {
	FORMAT(gzip, "gzip", 0), /* gzip's own trailer has the size and CRC */
	FORMAT(xz, "xz-utils", 1),
	FORMAT(zstd, "zstd", 1),
	FORMAT(lz4, "lz4", 1),
	FORMAT(bzip2, "bzip2", 1),
	FORMAT(lzma, "xz-utils", 1),
	FORMAT(lzo, "lzop", 1),
};

const struct payload_format *payload_format_of(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (len >= formats[i].magic_len && !memcmp(p, formats[i].magic, formats[i].magic_len))
			return &formats[i];
	return NULL;
}

/* An unlinked temporary file holding n bytes, at its start; -1 on error. */
static int temp_with(const uint8_t *data, size_t n)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/aprealmode-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, data + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The first line of the command's stderr (fd at its end), for a message. */
static void first_line(int fd, char *out, size_t size)
{
	out[0] = 0;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return;
	ssize_t n = read(fd, out, size - 1);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
}

int decompress(const struct payload_format *fmt, const uint8_t *payload, size_t len,
	       uint8_t **out, size_t *out_len, char why[LRM_WHY_SIZE])
{
	uint32_t want = 0;
	*out = NULL;
	*out_len = 0;
	if (fmt->size_appended) {
		if (len < 8)
			return lrm_why(why, "the %s payload is %zu bytes: too short", fmt->name, len);
		want = rd32(payload + len - 4);
		len -= 4; /* zstd refuses the appended size as a frame it cannot read */
	}
	int in = temp_with(payload, len), err = temp_with(NULL, 0);
	int pipefd[2] = { -1, -1 };
	if (in < 0 || err < 0 || pipe(pipefd) != 0) {
		lrm_why(why, "cannot make a temporary file or pipe: %s", strerror(errno));
		goto fail_fds;
	}
	pid_t pid = fork();
	if (pid < 0) {
		lrm_why(why, "cannot fork: %s", strerror(errno));
		goto fail_fds;
	}
	if (pid == 0) {
		dup2(in, 0);
		dup2(pipefd[1], 1);
		dup2(err, 2);
		close(pipefd[0]);
		execvp(fmt->argv[0], (char *const *)fmt->argv);
		_exit(127);
	}
	close(pipefd[1]);
	pipefd[1] = -1;

	size_t cap = 1 << 24, n = 0;
	uint8_t *buf = malloc(cap);
	const char *stopped = NULL;
	double deadline = now() + DECOMPRESS_SECONDS;
	while (buf && !stopped) {
		struct pollfd pfd = { pipefd[0], POLLIN, 0 };
		double left = deadline - now();
		if (left <= 0) {
			stopped = "did not finish in time";
			break;
		}
		int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue; /* the deadline is checked above */
		if (n == cap) {
			if (cap >= DECOMPRESS_MAX) {
				stopped = "gave more than the most a kernel decompresses to";
				break;
			}
			uint8_t *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				stopped = "gave more than this machine's memory holds";
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t r = read(pipefd[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (stopped || !buf)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char msg[160];
	first_line(err, msg, sizeof msg);
	close(pipefd[0]);
	close(in);
	close(err);
	if (!buf) {
		lrm_why(why, "out of memory reading %s's output", fmt->argv[0]);
		return 0;
	}
	if (stopped) {
		lrm_why(why, "%s %s (%d s, %zu bytes)", fmt->argv[0], stopped, DECOMPRESS_SECONDS, n);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		lrm_why(why, "the %s payload needs the %s command (apt-get install %s)",
			fmt->name, fmt->argv[0], fmt->package);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		lrm_why(why, "%s could not decompress the %s payload (exit %d): %s", fmt->argv[0],
			fmt->name, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			msg[0] ? msg : "no message");
	} else if (fmt->size_appended && n != want) {
		lrm_why(why, "the %s payload decompressed to %zu bytes, the image says %u",
			fmt->name, n, (unsigned)want);
	} else {
		*out = buf;
		*out_len = n;
		return 1;
	}
	free(buf);
	return 0;

fail_fds:
	for (int fd_i = 0; fd_i < 4; fd_i++) {
		int fd = (int[]){ in, err, pipefd[0], pipefd[1] }[fd_i];
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
