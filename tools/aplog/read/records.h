/* SPDX-License-Identifier: MIT */
/* The log model (runs of @boot/@cpu/@sample/@cpusum/@summary/@fail/@end
 * records, and the @host record before a run) and
 * its parser. Other console text is ignored; every malformed record is an
 * error of the form FILE:LINE: message. */
#ifndef APLOG_RECORDS_H
#define APLOG_RECORDS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/phase_names.h"
#include "tools/records/schema.h"

enum op { OP_ONLINE, OP_OFFLINE, OP_COUNT };
extern const char *const op_name[OP_COUNT];
extern const char *const op_choices[]; /* op_name, NULL-terminated */

/* Plausibility limits: a value beyond them is corrupt data, and keeping ns
 * well below 2^53 keeps sums exact in a double. */
#define NS_MAX 1000000000000000ULL /* 1e6 s */
#define CPUS_MAX (1u << 20)
#define CYCLES_MAX 10000000u
#define MAX_FIELDS 128
#define MAX_ERRORS_PER_FILE 20
#define STR_MAX 64
#define HOST_STR_MAX 128 /* @host flush_model= value */
#define FAIL_TEXT_MAX 160 /* the first @fail record, as shown */

/* A sample's cross-CPU figure: ap_ns (online: first INIT -> the AP's own
 * online mark) or settled_ns (offline: request -> the AP flushed and is
 * about to halt). Absent in logs of older kernels; na where the AP's TSC
 * is not synchronised with the BSP's. */
enum xfig { X_ABSENT, X_NA, X_NUM };

struct sample {
	uint32_t cpu, apic, cycle;
	uint8_t op;
	uint64_t ns, ticks;
	uint64_t text_hash; /* of the whole record: other fields count too */
	size_t line;
	uint8_t x;          /* enum xfig */
	uint64_t xns;       /* when x == X_NUM */
	uint8_t x_real;     /* online: to_real_ns, the other cross-CPU phase
			       (enum xfig; only verify looks at it) */
	bool nmi;           /* nmi=1: an NMI hit the BSP or the AP inside the
			       window (absent in older logs: 0) */
	bool smi;           /* smi=N > 0: MSR_SMI_COUNT moved around the window
			       (absent in older logs: 0) */
};

/* The phases of one AP start (the kernel's smp/phases.h, in its order):
 * the first PHASE_CHAIN add up to the start's total, sipi2 overlaps them. */
enum { PHASE_COUNT = PHASE_NAMES_COUNT, PHASE_CHAIN = PHASE_NAMES_CHAIN };
/* phase_names[]: lib/phase_names.h, the kernel's own list. */

/* @phase cpu= apic= cycle= phase= ns=N|na [nmi=1] (cycle 0: the first bring-up). */
struct phase_rec {
	uint32_t cpu, apic, cycle;
	uint8_t phase;
	bool na;
	bool nmi;       /* nmi=1: its start's window held an NMI, as its sample's */
	uint64_t ns;
};

/* @round cycle= op= aps= ns= (cycles_mode=parallel: one round's wall time). */
struct round_rec {
	uint32_t cycle, aps;
	uint8_t op;
	uint64_t ns;
};

/* An @cpu record's TSC warp test result: 1 synchronised, 0 not. */
struct cpu_sync {
	uint32_t apic;
	bool sync;
	size_t line;
};

/* An AP's @cpusum: its row of the kernel's table in numbers. */
struct cpusum {
	uint32_t cpu, apic, cycles;
	uint64_t median[OP_COUNT], max[OP_COUNT];
	size_t line;
};

struct run {
	const char *file;     /* as given on the command line */
	unsigned index;       /* 1-based within its file */
	size_t boot_line, end_line;
	bool bad_boot;        /* @boot was malformed: skip range checks */
	char *boot_fields;    /* the @boot line after the word, for lookups */
	char *env_fields;     /* the same of @env, NULL if the run has none */
	char *tramp_fields;   /* the same of @trampoline, NULL if none (a kernel
				 before it: the core's trampoline) */
	char kernel[STR_MAX], version[STR_MAX], tsc_source[STR_MAX];
	int firmware;         /* index into firmware_names */
	unsigned wbinvd, x2apic;
	uint32_t cpus, cycles;
	uint64_t tsc_khz, tramp;
	/* @host flush_model=SPEC before this run's @boot (or inside it): the
	 * QEMU flushmodel plugin charged each WBINVD/INVD a modelled cost.
	 * "" = not modelled. */
	char flush_model[HOST_STR_MAX];
	bool ended, passed;
	uint32_t end_online, end_failed;
	int64_t end_warnings; /* @end warnings=N; -1 when absent (older logs) */
	size_t nfail, fail_line; /* @fail records, and the first one's line */
	char fail_text[FAIL_TEXT_MAX]; /* the first @fail, made printable */
	size_t nmi_marked;    /* samples with nmi=1 */
	size_t smi_marked;    /* samples with smi= above 0 */
	size_t warn_events;   /* @warn what=nmi|stray_irq|sipi_retry records */
	bool settled;         /* every offline sample has a settled_ns number */
	struct cpu_sync *sync; /* @cpu records with tsc_sync= */
	size_t nsync, sync_cap;
	struct sample *s;
	size_t ns, cap;
	struct phase_rec *ph;   /* @phase records */
	size_t nph, ph_cap;
	struct round_rec *rounds; /* @round records */
	size_t nrounds, rounds_cap;
	char bringup[STR_MAX];  /* @bringup mode=, "" if none */
	uint64_t bringup_ns;    /* @bringup total_ns= */
	struct {
		bool present;
		uint64_t total_ns;
		bool settled;            /* offline: settled_total_ns is a number */
		uint64_t settled_total_ns;
		uint32_t cpus, cycles;
		size_t line;
	} sum[OP_COUNT];
	struct cpusum *cs;    /* @cpusum records */
	size_t ncs, cs_cap;
	/* Records only, no @sample at all, but both @summary: a log scanned
	 * from the QR code or kept as the saved summary. Totals come from
	 * @summary, per-AP figures from @cpusum. */
	bool summary_only;
};

struct set {
	struct run *runs;
	size_t n, cap;
};

void set_free(struct set *s);

/* Samples of a run that passed feed everything; a truncated run (accepted
 * with --allow-truncated) gives per-CPU samples but no totals; a failed run
 * is left out of all statistics. */
enum use { USE_FULL, USE_SAMPLES, USE_NONE };
enum use run_use(const struct run *r);

/* Appends the runs of one log to set; returns the number of errors (each
 * already reported). */
int load_file(struct set *set, const char *path, bool allow_trunc);
/* The same from an open stream (name: the file's, in messages); the
 * stream stays open. Whatever the bytes (a serial capture, a pstore
 * zone, NVRAM's parts, a QR code's text from a crashed machine), it
 * reads within its bounds or reports an error: fuzzed (tests/fuzz). */
int load_stream(struct set *set, FILE *f, const char *name, bool allow_trunc);

/* Samples marked nmi=1 feed no statistic, total, comparison or baseline
 * unless this is set (--with-nmi); verify and csv see every sample. */
extern bool nmi_samples_counted;
/* The same for samples an SMI hit (smi= above 0; --with-smi). */
extern bool smi_samples_counted;
/* Whether statistics use sample s (nmi_samples_counted). */
bool sample_counted(const struct sample *s);

/* The figure every statistic, total, comparison and baseline uses:
 * online, ns (first INIT -> the BSP sees the AP online); offline,
 * settled_ns in runs that have it for every offline sample (Linux's park
 * path flushes after the AP reports dead, and only settled_ns holds that
 * flush; it is what the kernel's own Offline total sums), else ns. */
uint64_t sample_figure(const struct run *r, const struct sample *s);
/* "settled_ns" or "ns": which offline figure a run's statistics use. */
const char *run_offline_figure(const struct run *r);
/* The @cpu tsc_sync= of an AP: 1, 0, or -1 when the log has none. */
int run_tsc_sync(const struct run *r, uint32_t apic);

/* Value of schema key k (RK_boot_...) in the run's @boot record, or NULL
 * (*len set). */
const char *run_boot_field(const struct run *r, int k, size_t *len);
/* The same in its @env record (RK_env_...). */
const char *run_env_field(const struct run *r, int k, size_t *len);
/* The same in its @trampoline record (RK_trampoline_...). */
const char *run_tramp_field(const struct run *r, int k, size_t *len);

/* ---- key=value records, shared with the baseline file parser --------- */

/* Keys a file's records have that the schema lacks: each said once. */
#define UNKNOWN_KEYS_SAID 8

/* Where messages go: FILE:LINE: ..., counting errors. */
struct msgs {
	const char *file;
	int errors;
	bool quiet;        /* count errors, print none (lenient readers) */
	bool schema_warn;  /* warn about record keys the schema lacks */
	unsigned unknown_keys;
	char unknown_said[UNKNOWN_KEYS_SAID][48];
};

void lerr(struct msgs *m, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void lwarn(struct msgs *m, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct field {
	const char *k, *v;
	size_t kl, vl;
	int key;  /* a record's: its schema key (RK_...), -1 if it has none */
};

/* One record ("@sample k=v ...", id an enum record_id of
 * lib/records_schema.h) or one key=value line of another file (a
 * baseline's, id -1). */
struct record {
	int id;
	const char *word;  /* "@sample", "baseline entry": for messages */
	struct field f[MAX_FIELDS];
	size_t n;
};

/* Length of the well-formed key ([A-Za-z0-9_]+) before the '=' of a
 * key=value token, or 0. */
size_t key_len(const char *p, size_t n);
/* Split "k=v k=v ..." (blanks between); every token a key=value pair with
 * a well-formed key, no key twice. For a line that is no record (r->id
 * -1); its keys are looked up by name (rec_named). */
bool split_fields(struct msgs *m, size_t line, const char *word,
		  const char *p, size_t n, struct record *r);
/* A record line "@word k=v ..." (n bytes): its record in the schema, or
 * -1 for a word the schema lacks (other tools' lines: nothing said).
 * Its fields are split as split_fields() does and each named by its
 * schema key; with m->schema_warn, a key the schema lacks is said once
 * per file (an older or newer writer's: the record is read without it).
 * false: not a record the schema knows, or malformed (said). */
bool record_parse(struct msgs *m, size_t line, const char *p, size_t n,
		  struct record *r);
/* The field of schema key k (RK_...) in record r, or NULL; k must be a key
 * of r's record (a reader's mistake otherwise: aplog stops). */
const struct field *rec_get(const struct record *r, int k);
/* The field named name in a line that is no record, or NULL. */
const struct field *rec_named(const struct record *r, const char *name);
/* Every key the schema says a record of r's kind needs (REQ) there?
 * Names every missing one. */
bool need_required(struct msgs *m, size_t line, const struct record *r);
/* The same for the named keys of a line that is no record. */
bool need_keys(struct msgs *m, size_t line, const struct record *r,
	       const char *const *keys);
/* A field's value (f present) checked: a decimal number in min..max, one
 * of choices (NULL-terminated), 1..cap-1 printable characters (no blanks)
 * into dst. Each says what is wrong, naming r's word and the key. */
bool field_num(struct msgs *m, size_t line, const struct record *r,
	       const struct field *f, uint64_t min, uint64_t max, uint64_t *out);
bool field_choice(struct msgs *m, size_t line, const struct record *r,
		  const struct field *f, const char *const *choices, int *out);
bool field_text(struct msgs *m, size_t line, const struct record *r,
		const struct field *f, char *dst, size_t cap);
/* The same for schema key k of record r (present: need_required() or
 * rec_get() said so). */
bool get_num(struct msgs *m, size_t line, const struct record *r, int k,
	     uint64_t min, uint64_t max, uint64_t *out);
bool get_choice(struct msgs *m, size_t line, const struct record *r, int k,
		const char *const *choices, int *out);
bool get_text(struct msgs *m, size_t line, const struct record *r, int k,
	      char *dst, size_t cap);

/* Lenient readers of records (the timeline, the probe's): schema key k of
 * record r as a decimal number of at most max (false: absent or not one),
 * as exactly the word val, or copied printable (others as '?', cut to
 * size - 1; "" when absent). */
bool rec_num(const struct record *r, int k, uint64_t max, uint64_t *out);
bool rec_is(const struct record *r, int k, const char *val);
void rec_copy(const struct record *r, int k, char *dst, size_t size);

/* Next line of buf from *pos: its start and length (without CR or LF). */
const char *next_line(const char *buf, size_t len, size_t *pos, size_t *n);

#endif
