/* SPDX-License-Identifier: MIT */
/* The flush cost model of the flushmodel QEMU plugin: its arguments, the
 * cost of one cache flush, and which coherence domain (socket) a vCPU is
 * in. Pure code, no QEMU: unit-tested on the host (test_model.c). */
#ifndef FLUSHMODEL_MODEL_H
#define FLUSHMODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The instructions charged: WBINVD (0f 09), its F3-prefixed form WBNOINVD
 * (writes back, keeps the lines; on CPUs without it, plain WBINVD), and
 * INVD (0f 08, invalidates without writing back). */
enum flush_kind { FLUSH_WBINVD, FLUSH_WBNOINVD, FLUSH_INVD, FLUSH_KINDS };
extern const char *const flush_kind_name[FLUSH_KINDS];

#define MODEL_NAME_MAX 32
#define MODEL_PATH_MAX 512

struct flush_model {
	bool fixed;            /* us= given: one cost for every flush */
	double fixed_us;
	char preset[MODEL_NAME_MAX]; /* "" when none was named */
	/* Cache model (fixed == false): a flush walks the whole LLC at
	 * walk_gbs and writes the dirty part back at wb_gbs; INVD walks only. */
	double llc_mb;         /* per coherence domain, MiB */
	double walk_gbs, wb_gbs; /* GB/s (1e9 bytes per second) */
	double dirty;          /* fraction of the LLC dirty at a flush, 0..1 */
	bool dirty_track;      /* dirty=track: the guest's own stores since the
				* socket's last flush (dirty_track.h), not a
				* fixed fraction */
	double jitter_pct;     /* each cost scaled by 1 + U(-j, +j) percent */
	uint64_t seed;
	bool serialize;        /* flushes in one domain wait for each other */
	unsigned sockets;      /* domains the vCPUs are split into (0: unset) */
	unsigned per_socket;   /* vCPUs per domain (0: from sockets) */
	double spin_us;        /* the last part of each hold is spun, not slept */
	bool disturb;          /* disturb=on: a hold stalls the socket's other
				* vCPUs too (disturb.h) */
	char out[MODEL_PATH_MAX]; /* report file; "" = stderr */
};

/* Parse the plugin's arguments ("key=value" each, as QEMU 7.2 passes
 * them). Returns 0, or -1 with a one-line reason in err. */
int model_parse(struct flush_model *m, int argc, char **argv, char *err,
		size_t errlen);

/* Cost in ns of one flush of this kind; u in [-1, 1] draws the jitter. */
uint64_t model_cost_ns(const struct flush_model *m, enum flush_kind k, double u);

/* The same for a flush that finds dirty_bytes dirty (dirty=track; capped
 * at the LLC). */
uint64_t model_cost_dirty_ns(const struct flush_model *m, enum flush_kind k,
			     double dirty_bytes, double u);

/* vCPUs per domain for nvcpus vCPUs, and the number of domains. */
unsigned model_per_domain(const struct flush_model *m, unsigned nvcpus);
unsigned model_domains(const struct flush_model *m, unsigned nvcpus);

/* One line saying what is charged, e.g. for the report's first line. */
void model_describe(const struct flush_model *m, unsigned nvcpus, char *buf,
		    size_t len);

/* The error of a parser: fmt into err (len bytes); returns -1. */
int model_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The usage text (argument list), for error messages. */
extern const char model_usage[];

#endif
