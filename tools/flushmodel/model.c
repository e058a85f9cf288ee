/* SPDX-License-Identifier: MIT */
/* Arguments and cost model of the flushmodel plugin (see model.h). */
#include "model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const flush_kind_name[FLUSH_KINDS] = { "wbinvd", "wbnoinvd", "invd" };

/* The presets share one pair of rates, calibrated (not measured) so that
 * the reference machine's 504 MiB L3, half dirty, costs what one flush
 * cost there: (65.83 s - 11.14 s) / 479 CPUs = 114 ms per CPU online (the
 * trampoline's flush), 40.40 s / 479 = 84 ms per CPU offline (the park
 * path's flush), i.e. ~85-115 ms per flush:
 *   528482304 B / 8 GB/s (walk) + 264241152 B / 8 GB/s (write-back)
 *   = 66.06 ms + 33.03 ms = 99.09 ms, jitter +-15% -> 84.2 .. 114.0 ms.
 * The dirty fraction 0.5 is a guess; nobody measured it. */
#define CAL_WALK_GBS 8.0
#define CAL_WB_GBS 8.0
#define CAL_DIRTY 0.5

static const struct preset {
	const char *name, *what;
	double llc_mb, jitter_pct;
	unsigned sockets;
} presets[] = {
	{ "xeon6985p", "2-socket Xeon 6985P-C, 504 MB L3 per socket (the reference machine)",
	  504.0, 15.0, 2 },
	{ "desktop", "1-socket desktop, 32 MB L3", 32.0, 0.0, 1 },
};
#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

/* A hold longer than this per flush is a mistake in the arguments. */
#define COST_MAX_NS 10000000000.0 /* 10 s */

const char model_usage[] =
	"flushmodel arguments (-plugin flushmodel.so,KEY=VALUE,...):\n"
	"  us=N                fixed cost of every flush, microseconds (0..1e7)\n"
	"  preset=NAME         xeon6985p (2 sockets x 504 MB L3, ~99 ms +-15%) or\n"
	"                      desktop (1 socket, 32 MB L3, ~6.3 ms)\n"
	"  llc_mb=N            cache model: LLC per socket, MiB (default rates below)\n"
	"  walk_gbs=N          rate a flush walks the LLC, GB/s (default 8)\n"
	"  wb_gbs=N            write-back bandwidth for dirty lines, GB/s (default 8)\n"
	"  dirty=F|track       dirty fraction of the LLC, 0..1 (default 0.5), or track:\n"
	"                      the lines the guest stored to since its socket's last flush\n"
	"  jitter=P            scale each cost by 1 +- up to P percent (0..99)\n"
	"  seed=N              jitter seed (default 1)\n"
	"  serialize=on|off    flushes in one socket wait for each other (default on)\n"
	"  sockets=N | per_socket=N   split the vCPUs into sockets (default 1 socket)\n"
	"  spin_us=N           spin (not sleep) the last N us of each hold (default 200)\n"
	"  disturb=on|off      a flush also stalls the socket's other vCPUs (default off)\n"
	"  preset_file=PATH    the model's keys from a file (aplog fit writes one)\n"
	"  out=FILE            write the exit report there instead of stderr\n"
	"Give us=, or preset= and/or llc_mb= (model keys override the preset).\n";

static const char *const keys[] = { "us", "preset", "llc_mb", "walk_gbs",
	"wb_gbs", "dirty", "jitter", "seed", "serialize", "sockets",
	"per_socket", "spin_us", "out", "disturb", NULL };

int model_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Plain decimal (digits, one optional point, optional exponent), finite,
 * in [min, max]. No hex, no inf/nan, no blanks. */
static int parse_real(const char *key, const char *v, double min, double max,
		      double *out, char *err, size_t len)
{
	size_t n = strlen(v);
	bool ok = n > 0 && n < 64;
	for (size_t i = 0; ok && i < n; i++)
		ok = strchr("0123456789.eE+-", v[i]) != NULL;
	char *end = NULL;
	errno = 0;
	double d = ok ? strtod(v, &end) : 0;
	if (!ok || errno || end != v + n || !isfinite(d))
		return model_fail(err, len, "%s=%s: not a decimal number", key, v);
	if (d < min || d > max)
		return model_fail(err, len, "%s=%s: out of range (%g..%g)", key, v, min, max);
	*out = d;
	return 0;
}

static int parse_uint(const char *key, const char *v, uint64_t min,
		      uint64_t max, uint64_t *out, char *err, size_t len)
{
	size_t n = strlen(v);
	bool ok = n > 0 && n <= 20;
	for (size_t i = 0; ok && i < n; i++)
		ok = v[i] >= '0' && v[i] <= '9';
	char *end = NULL;
	errno = 0;
	unsigned long long u = ok ? strtoull(v, &end, 10) : 0;
	if (!ok || errno || end != v + n)
		return model_fail(err, len, "%s=%s: not a whole number", key, v);
	if (u < min || u > max)
		return model_fail(err, len, "%s=%s: out of range (%" PRIu64 "..%" PRIu64 ")",
			    key, v, min, max);
	*out = u;
	return 0;
}

static int parse_bool(const char *key, const char *v, bool *out, char *err,
		      size_t len)
{
	static const char *const yes[] = { "on", "yes", "true", NULL };
	static const char *const no[] = { "off", "no", "false", NULL };
	for (int i = 0; yes[i]; i++)
		if (!strcmp(v, yes[i]))
			return *out = true, 0;
	for (int i = 0; no[i]; i++)
		if (!strcmp(v, no[i]))
			return *out = false, 0;
	return model_fail(err, len, "%s=%s: must be on or off", key, v);
}

static const struct preset *find_preset(const char *name)
{
	for (size_t i = 0; i < N_PRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

int model_parse(struct flush_model *m, int argc, char **argv, char *err,
		size_t errlen)
{
	const char *val[sizeof(keys) / sizeof(keys[0])] = { 0 };
	enum { K_US, K_PRESET, K_LLC, K_WALK, K_WB, K_DIRTY, K_JITTER, K_SEED,
	       K_SERIALIZE, K_SOCKETS, K_PER_SOCKET, K_SPIN, K_OUT, K_DISTURB };

	memset(m, 0, sizeof(*m));
	err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		if (!eq || eq == a)
			return model_fail(err, errlen, "'%s': expected KEY=VALUE", a);
		size_t kl = (size_t)(eq - a);
		int k = -1;
		for (int j = 0; keys[j]; j++)
			if (strlen(keys[j]) == kl && !memcmp(keys[j], a, kl))
				k = j;
		if (k < 0)
			return model_fail(err, errlen, "unknown argument '%.*s'", (int)kl, a);
		if (val[k])
			return model_fail(err, errlen, "%s= given twice", keys[k]);
		val[k] = eq + 1;
	}

	/* Defaults: the calibrated rates, one socket, serialising. */
	m->walk_gbs = CAL_WALK_GBS;
	m->wb_gbs = CAL_WB_GBS;
	m->dirty = CAL_DIRTY;
	m->seed = 1;
	m->serialize = true;
	m->spin_us = 200;

	bool model_keys = val[K_PRESET] || val[K_LLC] || val[K_WALK] ||
			  val[K_WB] || val[K_DIRTY] || val[K_JITTER];
	if (val[K_US] && model_keys)
		return model_fail(err, errlen, "us= is a fixed cost: it cannot be combined "
			    "with preset=, llc_mb=, walk_gbs=, wb_gbs=, dirty= or jitter=");
	if (!val[K_US] && !val[K_PRESET] && !val[K_LLC])
		return model_fail(err, errlen, "no cost given: use us=N, preset=NAME "
			    "(xeon6985p, desktop) or llc_mb=N");
	if (val[K_SOCKETS] && val[K_PER_SOCKET])
		return model_fail(err, errlen, "give sockets= or per_socket=, not both");

	if (val[K_PRESET]) {
		const struct preset *p = find_preset(val[K_PRESET]);
		if (!p)
			return model_fail(err, errlen, "preset=%s: unknown (xeon6985p, desktop)",
				    val[K_PRESET]);
		snprintf(m->preset, sizeof(m->preset), "%s", p->name);
		m->llc_mb = p->llc_mb;
		m->jitter_pct = p->jitter_pct;
		m->sockets = p->sockets;
	}
	m->fixed = val[K_US] != NULL;

	double d;
	uint64_t u;
#define REAL(K, MIN, MAX, DST)                                                 \
	if (val[K]) {                                                          \
		if (parse_real(keys[K], val[K], MIN, MAX, &d, err, errlen))    \
			return -1;                                             \
		DST = d;                                                       \
	}
#define UINT(K, MIN, MAX, DST)                                                 \
	if (val[K]) {                                                          \
		if (parse_uint(keys[K], val[K], MIN, MAX, &u, err, errlen))    \
			return -1;                                             \
		DST = u;                                                       \
	}
	REAL(K_US, 0, 1e7, m->fixed_us)
	REAL(K_LLC, 0.001, 1048576, m->llc_mb)
	REAL(K_WALK, 0.001, 1e5, m->walk_gbs)
	REAL(K_WB, 0.001, 1e5, m->wb_gbs)
	if (val[K_DIRTY] && !strcmp(val[K_DIRTY], "track")) {
		m->dirty_track = true;
		m->dirty = 1; /* the worst case, for the check below */
	} else {
		REAL(K_DIRTY, 0, 1, m->dirty)
	}
	REAL(K_JITTER, 0, 99, m->jitter_pct)
	REAL(K_SPIN, 0, 1e6, m->spin_us)
	UINT(K_SEED, 0, UINT64_MAX, m->seed)
	UINT(K_SOCKETS, 1, 4096, m->sockets)
	UINT(K_PER_SOCKET, 1, 4096, m->per_socket)
#undef REAL
#undef UINT
	if (val[K_SERIALIZE] &&
	    parse_bool(keys[K_SERIALIZE], val[K_SERIALIZE], &m->serialize, err, errlen))
		return -1;
	if (val[K_DISTURB] &&
	    parse_bool(keys[K_DISTURB], val[K_DISTURB], &m->disturb, err, errlen))
		return -1;
	if (val[K_OUT]) {
		size_t n = strlen(val[K_OUT]);
		if (n == 0 || n >= sizeof(m->out))
			return model_fail(err, errlen, "out=: a file name of 1..%zu characters",
				    sizeof(m->out) - 1);
		memcpy(m->out, val[K_OUT], n + 1);
	}

	double worst = (double)model_cost_ns(m, FLUSH_WBINVD, 1.0);
	if (worst > COST_MAX_NS)
		return model_fail(err, errlen, "the model gives %.1f s per flush: more than "
			    "%.0f s (check llc_mb=, walk_gbs=, wb_gbs=)", worst / 1e9,
			    COST_MAX_NS / 1e9);
	return 0;
}

uint64_t model_cost_ns(const struct flush_model *m, enum flush_kind k, double u)
{
	return model_cost_dirty_ns(m, k, m->llc_mb * 1048576.0 * m->dirty, u);
}

uint64_t model_cost_dirty_ns(const struct flush_model *m, enum flush_kind k,
			     double dirty_bytes, double u)
{
	double ns;
	if (m->fixed) {
		ns = m->fixed_us * 1e3;
	} else {
		double bytes = m->llc_mb * 1048576.0;
		if (dirty_bytes > bytes)
			dirty_bytes = bytes;
		if (dirty_bytes < 0)
			dirty_bytes = 0;
		ns = bytes / m->walk_gbs; /* 1 GB/s moves 1 byte per ns */
		if (k != FLUSH_INVD)
			ns += dirty_bytes / m->wb_gbs;
		if (u < -1)
			u = -1;
		if (u > 1)
			u = 1;
		ns *= 1.0 + u * m->jitter_pct / 100.0;
	}
	if (ns > 2 * COST_MAX_NS) /* only reachable through model_parse's check */
		ns = 2 * COST_MAX_NS;
	return (uint64_t)llround(ns);
}

unsigned model_per_domain(const struct flush_model *m, unsigned nvcpus)
{
	if (m->per_socket)
		return m->per_socket;
	unsigned s = m->sockets ? m->sockets : 1;
	unsigned per = (nvcpus + s - 1) / s;
	return per ? per : 1;
}

unsigned model_domains(const struct flush_model *m, unsigned nvcpus)
{
	unsigned per = model_per_domain(m, nvcpus);
	unsigned n = (nvcpus + per - 1) / per;
	return n ? n : 1;
}

void model_describe(const struct flush_model *m, unsigned nvcpus, char *buf,
		    size_t len)
{
	size_t o = 0;
#define ADD(...)                                                              \
	do {                                                                  \
		if (o < len)                                                  \
			o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__); \
	} while (0)
	if (m->fixed) {
		ADD("fixed %g us per flush (WBINVD, WBNOINVD, INVD)", m->fixed_us);
	} else {
		if (m->preset[0])
			ADD("preset %s (%s): ", m->preset, find_preset(m->preset)->what);
		if (m->dirty_track)
			ADD("LLC %g MiB per socket, walk %g GB/s, write-back %g GB/s, "
			    "dirty lines tracked: WBINVD %.2f ms clean .. %.2f ms with the LLC "
			    "dirty, INVD %.2f ms", m->llc_mb, m->walk_gbs, m->wb_gbs,
			    (double)model_cost_dirty_ns(m, FLUSH_WBINVD, 0, 0) / 1e6,
			    (double)model_cost_ns(m, FLUSH_WBINVD, 0) / 1e6,
			    (double)model_cost_ns(m, FLUSH_INVD, 0) / 1e6);
		else
			ADD("LLC %g MiB per socket, walk %g GB/s, write-back %g GB/s, "
			    "%g%% dirty: WBINVD %.2f ms, INVD %.2f ms", m->llc_mb,
			    m->walk_gbs, m->wb_gbs, m->dirty * 100,
			    (double)model_cost_ns(m, FLUSH_WBINVD, 0) / 1e6,
			    (double)model_cost_ns(m, FLUSH_INVD, 0) / 1e6);
		if (m->jitter_pct > 0)
			ADD(", jitter +-%g%% (seed %" PRIu64 ")", m->jitter_pct, m->seed);
	}
	unsigned nd = model_domains(m, nvcpus);
	if (m->disturb)
		ADD("; disturb=on: a flush stalls its socket's other vCPUs");
	ADD("; serialize=%s, %u socket%s of %u vCPU%s", m->serialize ? "on" : "off",
	    nd, nd == 1 ? "" : "s", model_per_domain(m, nvcpus),
	    model_per_domain(m, nvcpus) == 1 ? "" : "s");
#undef ADD
}
