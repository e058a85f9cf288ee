/* SPDX-License-Identifier: MIT */
/* The log model of records.h: names, and what a run's records mean for
 * the statistics. The parser is in fields.c (key=value records),
 * handlers.c (one per record word), runcheck.c (a run as a whole) and
 * load.c (lines of a file). */
#define _POSIX_C_SOURCE 200809L
#include "tools/aplog/read/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const op_name[OP_COUNT] = { "online", "offline" };
const char *const op_choices[] = { "online", "offline", NULL };

void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->runs[i].s);
		free(s->runs[i].boot_fields);
		free(s->runs[i].env_fields);
		free(s->runs[i].tramp_fields);
		free(s->runs[i].sync);
		free(s->runs[i].ph);
		free(s->runs[i].rounds);
		free(s->runs[i].cs);
	}
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

enum use run_use(const struct run *r)
{
	if (!r->ended)
		return USE_SAMPLES;
	return r->passed ? USE_FULL : USE_NONE;
}

bool nmi_samples_counted, smi_samples_counted;

bool sample_counted(const struct sample *s)
{
	return (!s->nmi || nmi_samples_counted) && (!s->smi || smi_samples_counted);
}

uint64_t sample_figure(const struct run *r, const struct sample *s)
{
	return s->op == OP_OFFLINE && r->settled ? s->xns : s->ns;
}

const char *run_offline_figure(const struct run *r)
{
	return r->settled ? "settled_ns" : "ns";
}

int run_tsc_sync(const struct run *r, uint32_t apic)
{
	for (size_t i = 0; i < r->nsync; i++)
		if (r->sync[i].apic == apic)
			return r->sync[i].sync;
	return -1;
}

/* The value of key in a record's "k=v k=v" text, or NULL. */
static const char *field_in(const char *p, const char *key, size_t *len)
{
	size_t kl = strlen(key);

	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t tl = strcspn(p, " \t");
		if (tl > kl && p[kl] == '=' && memcmp(p, key, kl) == 0) {
			*len = tl - kl - 1;
			return p + kl + 1;
		}
		p += tl;
	}
	return NULL;
}

/* The name of schema key k of record rec (aplog stops on a reader's
 * mistake: another record's key). */
static const char *key_name(int k, int rec)
{
	if (k < 0 || k >= RK_COUNT || record_keys[k].record != rec) {
		fprintf(stderr, "aplog: internal error: key %d is no %s key\n", k,
			record_kinds[rec].word);
		abort();
	}
	return record_keys[k].name;
}

const char *run_boot_field(const struct run *r, int k, size_t *len)
{
	return field_in(r->boot_fields, key_name(k, RW_boot), len);
}

const char *run_env_field(const struct run *r, int k, size_t *len)
{
	return field_in(r->env_fields, key_name(k, RW_env), len);
}

const char *run_tramp_field(const struct run *r, int k, size_t *len)
{
	return field_in(r->tramp_fields, key_name(k, RW_trampoline), len);
}
