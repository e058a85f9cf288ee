/* SPDX-License-Identifier: MIT */
/* flushmodel: a QEMU TCG plugin that charges every WBINVD, WBNOINVD and
 * INVD the guest executes the time a modelled machine would spend on it,
 * by holding the executing vCPU that long (model.h has the cost model,
 * plugin-api.h the QEMU interface). Under QEMU these instructions cost
 * nothing; with the plugin, a kernel's own clock sees the modelled cost.
 *
 * A hold sleeps for most of the time and spins the last spin_us, so a
 * 100 ms flush does not burn a host core but still ends on time. With
 * serialize=on, flushes by vCPUs of one socket take that socket's lock
 * for their whole hold: a second flush waits for the first.
 *
 * At exit it reports, per vCPU that flushed: how many of each kind, the
 * time charged by the model, the time the vCPU was actually held, and the
 * part of that spent waiting for the socket's lock; and per address a
 * flush executed at (a "site"), how often and whether it was charged
 * (free=/only=, where.h, leave some addresses uncharged). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dirty_track.h"
#include "disturb.h"
#include "model.h"
#include "where.h"
#include "plugin-api.h"
#include "preset_file.h"

PLUGIN_EXPORT int qemu_plugin_version = FLUSHMODEL_PLUGIN_API_VERSION;
PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const qemu_info_t *info, int argc,
				      char **argv);

/* Written only by its own vCPU's thread; read at exit. One cache line
 * each so vCPU threads do not share lines. */
struct vcpu_stat {
	uint64_t n[FLUSH_KINDS];
	uint64_t free_n;        /* flushes at a free address: counted, not held */
	uint64_t charged_ns, held_ns, waited_ns;
	uint64_t dirty_bytes;  /* dirty=track: written back by its flushes */
	uint64_t stalled_ns, stalls; /* disturb=on: held for others' flushes */
	uint64_t rng;
} __attribute__((aligned(64)));

static struct flush_model model;
static unsigned nvcpus, per_domain, ndomains;
static struct vcpu_stat *stats; /* nvcpus + 1: the last for any stray index */
static pthread_mutex_t *domain_lock;
static FILE *report;
static struct flush_where where;

/* One flush instruction's address, as translated; its count is bumped by
 * every vCPU that executes it. */
struct site {
	uint64_t vaddr;
	enum flush_kind kind;
	bool charged;
	uint64_t count;
};
#define MAX_SITES 256
static struct site sites[MAX_SITES + FLUSH_KINDS]; /* the last: "other" per kind */
static unsigned nsites;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;

/* The site of a flush at vaddr (translation time: blocks are translated
 * again, so look it up first). Past MAX_SITES, one site per kind stands
 * for the rest, charged or not as where says for the first of them. */
static struct site *site_get(uint64_t vaddr, enum flush_kind k)
{
	pthread_mutex_lock(&sites_lock);
	struct site *s = NULL;
	for (unsigned i = 0; i < nsites && !s; i++)
		if (sites[i].vaddr == vaddr && sites[i].kind == k)
			s = &sites[i];
	if (!s && nsites < MAX_SITES) {
		s = &sites[nsites++];
		*s = (struct site){ vaddr, k, where_charged(&where, vaddr), 0 };
	}
	if (!s) {
		s = &sites[MAX_SITES + k];
		if (!s->count && !s->vaddr)
			*s = (struct site){ UINT64_MAX, k, where_charged(&where, vaddr), 0 };
	}
	pthread_mutex_unlock(&sites_lock);
	return s;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause");
#endif
}

/* Sleep until spin_ns before the deadline, then spin to it: the sleep's
 * wake-up lateness (timer slack, a busy host) falls in the spun part. */
static void hold_until(uint64_t deadline, uint64_t spin_ns)
{
	if (deadline > spin_ns && now_ns() < deadline - spin_ns) {
		uint64_t wake = deadline - spin_ns;
		struct timespec ts = { (time_t)(wake / 1000000000u),
				       (long)(wake % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (now_ns() < deadline)
		cpu_relax();
}

/* The socket's lock: spun for up to spin_ns, as the end of a hold is,
 * then slept on. A waiter that slept is woken late on a busy host (ms at
 * load ~4 on 2 cores), which a modelled machine's flush would not be. */
static void lock_domain(pthread_mutex_t *lock, uint64_t spin_ns)
{
	uint64_t until = now_ns() + spin_ns;
	while (pthread_mutex_trylock(lock)) {
		if (now_ns() >= until) {
			pthread_mutex_lock(lock);
			return;
		}
		cpu_relax();
	}
}

/* splitmix64: a per-vCPU stream, so jitter does not depend on how the
 * vCPU threads interleave. */
static double next_uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
}

static void add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* dirty=track: every store of the guest marks its line dirty in its
 * vCPU's socket (dirty_track.h); a flush takes the socket's dirty bytes. */
static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		     void *udata)
{
	(void)udata;
	struct qemu_plugin_hwaddr *h = qemu_plugin_get_hwaddr(info, vaddr);
	if (!h || qemu_plugin_hwaddr_is_io(h))
		return;
	unsigned slot = vcpu < nvcpus ? vcpu : 0;
	dirty_track_store(slot / per_domain, qemu_plugin_hwaddr_phys_addr(h));
}

static uint64_t flush_cost(enum flush_kind k, unsigned slot, struct vcpu_stat *st)
{
	double u = next_uniform(&st->rng);
	if (!model.dirty_track)
		return model_cost_ns(&model, k, u);
	uint64_t dirty = dirty_track_take(slot < nvcpus ? slot / per_domain : 0);
	add(&st->dirty_bytes, dirty);
	return model_cost_dirty_ns(&model, k, (double)dirty, u);
}

static void on_flush(unsigned int vcpu, void *udata)
{
	struct site *site = udata;
	enum flush_kind k = site->kind;
	unsigned slot = vcpu < nvcpus ? vcpu : nvcpus;
	struct vcpu_stat *st = &stats[slot];
	__atomic_add_fetch(&site->count, 1, __ATOMIC_RELAXED);
	if (!site->charged) {
		add(&st->free_n, 1);
		return;
	}
	pthread_mutex_t *lock = NULL;

	uint64_t t0 = now_ns(), start = t0;
	if (model.serialize) {
		lock = &domain_lock[slot < nvcpus ? slot / per_domain : 0];
		lock_domain(lock, (uint64_t)(model.spin_us * 1e3));
		start = now_ns();
	}
	/* After the lock: a tracked flush finds what the one before it in
	 * its socket left dirty. */
	uint64_t cost = flush_cost(k, slot, st);
	unsigned domain = slot < nvcpus ? slot / per_domain : 0;
	if (model.disturb)
		disturb_begin(domain);
	hold_until(start + cost, (uint64_t)(model.spin_us * 1e3));
	if (model.disturb)
		disturb_end(domain);
	uint64_t t1 = now_ns();
	if (lock)
		pthread_mutex_unlock(lock);

	add(&st->n[k], 1);
	add(&st->charged_ns, cost);
	add(&st->held_ns, t1 - t0);
	add(&st->waited_ns, start - t0);
}

/* WBINVD is 0f 09, INVD 0f 08; F3 0f 09 is WBNOINVD. Legacy prefixes and
 * a REX byte may come first (the bytes are one instruction, so a 40-4f
 * here is a REX prefix, never a 32-bit inc/dec). */
static int classify(const uint8_t *b, size_t n)
{
	size_t i = 0;
	bool f3 = false;
	for (; i < n; i++) {
		uint8_t c = b[i];
		if (c == 0xf3)
			f3 = true;
		if (c == 0xf3 || c == 0xf2 || c == 0xf0 || c == 0x66 || c == 0x67 ||
		    c == 0x26 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x64 ||
		    c == 0x65 || (c >= 0x40 && c <= 0x4f))
			continue;
		break;
	}
	if (n - i != 2 || b[i] != 0x0f)
		return -1;
	if (b[i + 1] == 0x09)
		return f3 ? FLUSH_WBNOINVD : FLUSH_WBINVD;
	if (b[i + 1] == 0x08)
		return FLUSH_INVD;
	return -1;
}

/* disturb=on: at every block, wait out a flush held in this vCPU's
 * socket (by another vCPU: the flushing one is inside on_flush). */
static void on_block(unsigned int vcpu, void *udata)
{
	(void)udata;
	unsigned slot = vcpu < nvcpus ? vcpu : nvcpus;
	uint64_t ns = disturb_gate(slot < nvcpus ? slot / per_domain : 0);
	if (ns) {
		add(&stats[slot].stalled_ns, ns);
		add(&stats[slot].stalls, 1);
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	if (model.disturb)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, NULL);
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int k = classify(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));
		if (k >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_flush, QEMU_PLUGIN_CB_NO_REGS,
				site_get(qemu_plugin_insn_vaddr(insn), (enum flush_kind)k));
		if (model.dirty_track)
			qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_W, NULL);
	}
}

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void print_counts(const uint64_t *n)
{
	for (int k = 0; k < FLUSH_KINDS; k++)
		fprintf(report, " %s=%" PRIu64, flush_kind_name[k], get(&n[k]));
}

static void on_exit_report(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	char what[512], wh[256];
	model_describe(&model, nvcpus, what, sizeof(what));
	where_describe(&where, wh, sizeof(wh));
	fprintf(report, "flushmodel: charged %s%s\n", what, wh);

	uint64_t tn[FLUSH_KINDS] = { 0 }, charged = 0, held = 0, waited = 0, tfree = 0;
	unsigned flushed = 0;
	for (unsigned v = 0; v <= nvcpus; v++) {
		const struct vcpu_stat *st = &stats[v];
		uint64_t c = get(&st->free_n);
		for (int k = 0; k < FLUSH_KINDS; k++) {
			c += get(&st->n[k]);
			tn[k] += get(&st->n[k]);
		}
		tfree += get(&st->free_n);
		if (!c && !get(&st->stalls))
			continue;
		flushed += c != 0;
		if (v < nvcpus)
			fprintf(report, "flushmodel: vcpu=%u socket=%u", v, v / per_domain);
		else
			fprintf(report, "flushmodel: vcpu=other socket=0");
		print_counts(st->n);
		fprintf(report, " charged_ns=%" PRIu64 " held_ns=%" PRIu64
			" waited_ns=%" PRIu64, get(&st->charged_ns),
			get(&st->held_ns), get(&st->waited_ns));
		if (model.dirty_track)
			fprintf(report, " dirty_bytes=%" PRIu64, get(&st->dirty_bytes));
		if (model.disturb)
			fprintf(report, " stalls=%" PRIu64 " stalled_ns=%" PRIu64, get(&st->stalls),
				get(&st->stalled_ns));
		if (where.set)
			fprintf(report, " free=%" PRIu64, get(&st->free_n));
		fprintf(report, "\n");
		charged += get(&st->charged_ns);
		held += get(&st->held_ns);
		waited += get(&st->waited_ns);
	}
	fprintf(report, "flushmodel: total");
	print_counts(tn);
	fprintf(report, " vcpus=%u charged_ns=%" PRIu64 " held_ns=%" PRIu64
		" waited_ns=%" PRIu64 " (%.3f s charged, %.3f s held)\n", flushed,
		charged, held, waited, (double)charged / 1e9, (double)held / 1e9);
	if (where.set)
		fprintf(report, "flushmodel: free %" PRIu64 " flush(es) at free addresses "
			"(counted, not held)\n", tfree);
	/* Per address: which flushes the guest ran where, charged or not. */
	for (unsigned i = 0; i < MAX_SITES + FLUSH_KINDS; i++) {
		const struct site *st = &sites[i];
		uint64_t n = __atomic_load_n(&st->count, __ATOMIC_RELAXED);
		if (i >= nsites && i < MAX_SITES)
			continue;
		if (!n)
			continue;
		if (st->vaddr == UINT64_MAX)
			fprintf(report, "flushmodel: site vaddr=other kind=%s count=%" PRIu64
				" charged=%s\n", flush_kind_name[st->kind], n,
				st->charged ? "yes" : "no");
		else
			fprintf(report, "flushmodel: site vaddr=0x%" PRIx64 " kind=%s count=%" PRIu64
				" charged=%s\n", st->vaddr, flush_kind_name[st->kind], n,
				st->charged ? "yes" : "no");
	}
	fflush(report);
}

static int refuse(const char *fmt, const char *arg)
{
	fprintf(stderr, "flushmodel: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return -1;
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const qemu_info_t *info, int argc,
				      char **argv)
{
	char err[256];
	/* free=/only= are where.c's, preset_file= preset_file.c's; the rest
	 * is the cost model's. */
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return refuse("%s", "out of memory");
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	int nargs = argc, nmerged = 0;
	char **merged = NULL;
	if (where_take(&where, &nargs, args, err, sizeof(err)) ||
	    preset_args_merge(nargs, args, &nmerged, &merged, err, sizeof(err)) ||
	    model_parse(&model, nmerged, merged, err, sizeof(err))) {
		fprintf(stderr, "flushmodel: %s\n%s%s", err, model_usage, where_usage);
		preset_args_free(nmerged, merged);
		free(args);
		return -1;
	}
	preset_args_free(nmerged, merged);
	free(args);
	if (!info->system_emulation)
		return refuse("%s", "needs system emulation (qemu-system-*), not user mode");
	if (strcmp(info->target_name, "x86_64") && strcmp(info->target_name, "i386"))
		return refuse("target %s: WBINVD/INVD are x86 instructions", info->target_name);
	int max = info->system.max_vcpus > info->system.smp_vcpus ?
		  info->system.max_vcpus : info->system.smp_vcpus;
	if (max < 1)
		return refuse("%s", "QEMU reported no vCPUs");
	nvcpus = (unsigned)max;
	per_domain = model_per_domain(&model, nvcpus);
	ndomains = model_domains(&model, nvcpus);

	stats = aligned_alloc(64, sizeof(*stats) * (nvcpus + 1));
	domain_lock = calloc(ndomains, sizeof(*domain_lock));
	if (!stats || !domain_lock)
		return refuse("%s", "out of memory");
	memset(stats, 0, sizeof(*stats) * (nvcpus + 1));
	for (unsigned v = 0; v <= nvcpus; v++)
		stats[v].rng = model.seed ^ ((uint64_t)v * 0xd1b54a32d192ed03u);
	for (unsigned d = 0; d < ndomains; d++)
		pthread_mutex_init(&domain_lock[d], NULL);

	if (model.disturb && !disturb_init(ndomains))
		return refuse("%s", "out of memory for disturb=on");
	if (model.dirty_track &&
	    !dirty_track_init(ndomains, (uint64_t)(model.llc_mb * 1048576.0) / DIRTY_LINE_BYTES))
		return refuse("%s", "out of memory for dirty=track");

	report = stderr;
	if (model.out[0] && !(report = fopen(model.out, "w")))
		return refuse("out=%s: cannot write it", model.out);

	char what[512], wh[256];
	model_describe(&model, nvcpus, what, sizeof(what));
	where_describe(&where, wh, sizeof(wh));
	fprintf(stderr, "flushmodel: charging %s%s\n", what, wh);

	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_report, NULL);
	return 0;
}
