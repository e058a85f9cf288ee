/* SPDX-License-Identifier: MIT */
/* Kernel command line parser. Every option is one row of a table: the
 * core's is opt_table below, each wing brings its own (app/wing.h); the
 * parser itself knows nothing about individual options. */
#include "app/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/serial.h"
#include "lib/keyword.h"
#include "lib/kstring.h"

/* Bound for the copy of a token quoted in a message; longer tokens are
 * shown cut short with "...". Parsing itself never copies a token. */
#define TOKEN_SHOW_MAX 48

/* The app's own modes; smp/'s are in smp/modes.c. */
const struct keyword icount_words[] = {
	{ "off", ICOUNT_OFF }, { "on", ICOUNT_ON }, { NULL, 0 },
};

static const struct keyword exit_words[] = {
	{ "auto", EXIT_AUTO }, { "qemu", EXIT_QEMU }, { "halt", EXIT_HALT },
	{ "reset", EXIT_RESET }, { "reboot", EXIT_REBOOT }, { NULL, 0 },
};

/* firmware=: auto is the default, what the boot shows (kernel/firmware.h). */
static const struct keyword firmware_words[] = {
	{ "auto", FIRMWARE_UNKNOWN }, { "uefi", FIRMWARE_UEFI }, { "bios", FIRMWARE_BIOS },
	{ NULL, 0 },
};

#define OPT(f, d, ...) OPTION_ROW(struct options, f, d, __VA_ARGS__)
/* An option of the wake configuration (smp/wake.h), field f of o->wake. */
#define OPT_WAKE(opt, f, d, ...) \
	{ .name = #opt, .offset = OPTION_FIELD32(struct options, wake.f), .def = (d), __VA_ARGS__ }

enum num_result { NUM_OK, NUM_BAD, NUM_TOO_BIG };
static enum num_result parse_u32(const char *s, size_t n, uint32_t *out);

/* console=ttyS<n>[,<baud>[n8]], Linux's syntax (Documentation/admin-guide/
 * serial-console.rst): COM1-COM4, 8N1 only, a baud a 16550 can make. */
static const char *parse_console(void *store, const char *v, size_t n)
{
	struct options *o = store;
	uint32_t port, baud = SERIAL_MAX_BAUD;
	size_t i = 0;

	if (n == 4 && v[0] == 't' && v[1] == 't' && v[2] == 'y' && (v[3] == '0' || v[3] == '1'))
		return NULL; /* tty0/tty1: the screen, which is always on */
	if (n < 5 || v[0] != 't' || v[1] != 't' || v[2] != 'y' || v[3] != 'S')
		return "only ttyS0..ttyS3 (and tty0)";
	for (i = 4; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		;
	if ((i < n && v[i] != ',') || parse_u32(v + 4, i - 4, &port) != NUM_OK ||
	    port >= SERIAL_PORTS)
		return "only ttyS0..ttyS3 (COM1-COM4)";
	if (i < n) {
		size_t b = ++i;
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
		/* Linux's optional parity/bits suffix: only n8 is 8N1. */
		bool suffix_ok = i == n || (n - i == 2 && v[i] == 'n' && v[i + 1] == '8');
		if (!suffix_ok || parse_u32(v + b, i - b, &baud) != NUM_OK ||
		    !serial_baud_valid(baud))
			return "baud must divide 115200 (e.g. 115200, 57600, 9600), 8N1";
	}
	o->console_port = port;
	o->console_baud = baud;
	return NULL;
}

static void show_console(const void *store, char *buf, size_t size)
{
	fmt_snprintf(buf, size, "ttyS%u", ((const struct options *)store)->console_port);
}

/* acpi_rsdp=ADDR, Linux's meaning: kstrtoul(arg, 16), so hexadecimal
 * with or without 0x (drivers/acpi/osl.c, setup_acpi_rsdp()). */
static const char *parse_acpi_rsdp(void *store, const char *v, size_t n)
{
	struct options *o = store;
	uint64_t a = 0;

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		v += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return "a physical address in hex (Linux's ACPI20= in /sys/firmware/efi/systab)";
	for (size_t i = 0; i < n; i++) {
		int d = option_hex_digit(v[i]);
		if (d < 0)
			return "a physical address in hex (Linux's ACPI20= in /sys/firmware/efi/systab)";
		a = a << 4 | (uint64_t)d;
	}
	if (a == 0)
		return "0 is no address";
	o->acpi_rsdp = a;
	return NULL;
}

static void show_acpi_rsdp(const void *store, char *buf, size_t size)
{
	const struct options *o = store;

	if (o->acpi_rsdp)
		fmt_snprintf(buf, size, "0x%llx", (unsigned long long)o->acpi_rsdp);
	else
		fmt_snprintf(buf, size, "none");
}

/* run_id=ID: whoever asked for the run names it (apstart run on Linux),
 * and @boot and @end carry it back; a bad one is refused whole, never cut
 * or mended into another run's name. */
static const char *parse_run_id(void *store, const char *v, size_t n)
{
	struct options *o = store;

	_Static_assert(RUN_ID_MAX == 32, "the message below says 32");
	if (n > RUN_ID_MAX)
		return "at most 32 characters";
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return "only letters, digits, - and _";
	}
	for (size_t i = 0; i < n; i++)
		o->run_id[i] = v[i];
	o->run_id[n] = '\0';
	return NULL;
}

static void show_run_id(const void *store, char *buf, size_t size)
{
	const struct options *o = store;

	fmt_snprintf(buf, size, "%s", o->run_id[0] ? o->run_id : "none");
}

/* One row per option: name (= field), default, then range or keywords. */
static const struct option_row opt_table[] = {
	OPT(cycles, 10, .min = 1, .max = 100000),
	OPT(maxcpus, 0, .min = 1, .max_is_cpus = true, .def_name = "all"),
	OPT(x2apic, X2APIC_AUTO, .keywords = x2apic_words),
	OPT_WAKE(init_delay_us, init_delay_us, INIT_DELAY_AUTO, .min = 0, .max = 10000000,
	    .def_name = "auto", .linux_name = "cpu_init_udelay"),
	OPT_WAKE(sipi_delay, sipi_delay, SIPI_DELAY_LINUX, .keywords = sipi_delay_words),
	OPT_WAKE(sipi_delay_us, sipi_delay_us, 10, .min = 0, .max = 10000000),
	OPT_WAKE(sipi_count, sipi_count, 2, .keywords = sipi_count_words),
	OPT_WAKE(ap_timeout_ms, ap_timeout_ms, 1000, .min = 1, .max = 600000),
	OPT_WAKE(sipi_retry, sipi_retry, 1, .min = 0, .max = 10),
	OPT(extnmi, EXTNMI_BSP, .keywords = extnmi_words, .linux_name = "apic_extnmi"),
	OPT_WAKE(park, park, PARK_LINUX, .keywords = park_words),
	OPT(exit, EXIT_AUTO, .keywords = exit_words),
	OPT_WAKE(bsp_wait, bsp_wait, BSP_WAIT_SPIN, .keywords = bsp_wait_words),
	/* Not in a release kernel, which has no icount fence (smp/instrument.h). */
	OPT(icount, ICOUNT_OFF, .keywords = icount_words, .hidden = APSTART_RELEASE),
	OPT_WAKE(bringup, bringup, BRINGUP_SERIAL, .keywords = bringup_words),
	OPT_WAKE(cycles_mode, cycles_mode, CYCLES_SERIAL, .keywords = cycles_mode_words),
	/* console= sets both fields; the second row only gives the default. */
	{ .name = "console", .offset = OPTION_FIELD32(struct options, console_port), .def = 0,
	  .parse = parse_console, .show = show_console },
	OPT(console_baud, SERIAL_MAX_BAUD, .hidden = true),
	OPT(firmware, FIRMWARE_UNKNOWN, .keywords = firmware_words),
	OPTION_WIDE(struct options, acpi_rsdp, parse_acpi_rsdp, show_acpi_rsdp),
	OPTION_WIDE(struct options, run_id, parse_run_id, show_run_id),
	/* The test-only spins' sizes: options only of the builds that have
	 * the spin (make SLOW_TRAMP_NS=N / SLOW_PARK_NS=N, N the default);
	 * elsewhere unknown, as the spin is not in the code. */
	OPT(slow_tramp_ns, APSTART_SLOW_TRAMP_NS, .min = 1, .max = SLOW_SPIN_MAX_NS,
	    .hidden = !APSTART_SLOW_TRAMP_NS),
	OPT(slow_park_ns, APSTART_SLOW_PARK_NS, .min = 1, .max = SLOW_SPIN_MAX_NS,
	    .hidden = !APSTART_SLOW_PARK_NS),
};

/* Linux's whole-word spellings, replaced by apstart's. maxcpus=0 means
 * "no APs" to Linux (as nosmp); apstart's maxcpus counts the BSP. */
static const struct { const char *linux_word, *apstart_word; } word_aliases[] = {
	{ "nosmp", "maxcpus=1" },
	{ "maxcpus=0", "maxcpus=1" },
	{ "nox2apic", "x2apic=off" },
};

static const struct option_table core_table = {
	.rows = opt_table, .count = sizeof opt_table / sizeof opt_table[0],
};

static uint32_t *field(void *store, const struct option_row *d)
{
	return (uint32_t *)(void *)((char *)store + d->offset);
}

static void table_defaults(const struct option_row *rows, uint32_t n, void *store)
{
	for (uint32_t i = 0; i < n; i++) {
		if (rows[i].wide)
			memset((char *)store + rows[i].offset, 0, rows[i].wide);
		else
			*field(store, &rows[i]) = rows[i].def;
	}
}

void options_set_defaults(const struct option_targets *t)
{
	table_defaults(core_table.rows, core_table.count, t->core);
	for (uint32_t i = 0; i < t->wing_count; i++)
		table_defaults(t->wings[i].rows, t->wings[i].count, t->wings[i].store);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool span_eq(const char *s, size_t n, const char *word)
{
	size_t i = 0;

	for (; i < n; i++)
		if (word[i] != s[i]) /* also stops at word's NUL */
			return false;
	return word[i] == '\0';
}

int option_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal, or hex with a 0x/0X prefix; the whole span must be digits. */
static enum num_result parse_u32(const char *s, size_t n, uint32_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	bool too_big = false;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (n == 0)
		return NUM_BAD;
	for (size_t i = 0; i < n; i++) {
		int d = option_hex_digit(s[i]);
		if (d < 0 || (unsigned)d >= base)
			return NUM_BAD;
		/* keep scanning after overflow so "99...9x" is still junk */
		if (!too_big) {
			v = v * base + (unsigned)d;
			if (v > UINT32_MAX)
				too_big = true;
		}
	}
	if (too_big)
		return NUM_TOO_BIG;
	*out = (uint32_t)v;
	return NUM_OK;
}

/* Printable copy of a token for messages, cut to fit buf. */
static void show_token(char *buf, size_t size, const char *s, size_t n)
{
	size_t i = 0;
	bool cut = n > size - 1;
	size_t keep = cut ? size - 4 : n;

	for (; i < keep; i++) {
		char c = s[i];
		buf[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	if (cut)
		for (int k = 0; k < 3; k++)
			buf[i++] = '.';
	buf[i] = '\0';
}

static void show_value(char *buf, size_t size, const struct option_row *d, uint32_t v)
{
	const char *word = d->keywords ? keyword_word(d->keywords, v) : "?";
	if (word[0] != '?') /* "?": not one of its words */
		fmt_snprintf(buf, size, "%s", word);
	else if (d->def_name && v == d->def)
		fmt_snprintf(buf, size, "%s", d->def_name);
	else
		fmt_snprintf(buf, size, "%u", v);
}

struct parser {
	const struct option_targets *t;
	uint32_t max_cpus;
	diag_fn diag, warn;
	void *ctx;
	int problems;
};

/* One problem: the human line to diag, and to warn the words of its
 * @warn record, what=option problem=P option=NAME [value=V] [range]
 * kept=K (an unknown option: its token). Tokens are shown printable
 * (show_token()), so a record stays one line of key=value words. */
static void report(struct parser *p, const char *msg, const char *problem,
		   const struct option_row *d, const char *value, const char *range,
		   const char *kept)
{
	char rec[200];

	p->problems++;
	if (p->diag)
		p->diag(p->ctx, msg);
	if (!p->warn)
		return;
	if (!d)
		fmt_snprintf(rec, sizeof rec, "what=option problem=%s token=%s", problem, value);
	else
		fmt_snprintf(rec, sizeof rec, "what=option problem=%s option=%s%s%s%s kept=%s",
			     problem, d->name, value[0] ? " value=" : "", value, range, kept);
	p->warn(p->ctx, rec);
}

static void apply(struct parser *p, const struct option_row *d, void *store,
		  const char *tok, size_t tok_len, const char *val, size_t val_len)
{
	uint32_t *f = d->wide ? NULL : field(store, d);
	char shown[TOKEN_SHOW_MAX], value[TOKEN_SHOW_MAX];
	char cur[40];
	char msg[256];
	uint32_t v;

	show_token(shown, sizeof(shown), tok, tok_len);
	show_token(value, sizeof(value), val, val_len);
	if (d->show)
		d->show(store, cur, sizeof cur);
	else
		show_value(cur, sizeof(cur), d, *f);

	if (val_len == 0) {
		fmt_snprintf(msg, sizeof(msg), "cmdline: %s has no value, keeping %s", shown, cur);
		report(p, msg, "no_value", d, value, "", cur);
		return;
	}
	if (d->parse) {
		const char *why = d->parse(store, val, val_len);
		if (why) {
			fmt_snprintf(msg, sizeof(msg),
				     "cmdline: %s invalid: %s; keeping %s", shown, why, cur);
			report(p, msg, "invalid", d, value, "", cur);
		}
		return;
	}
	if (d->keywords) {
		if (keyword_value(d->keywords, val, val_len, f))
			return;
		/* "auto|on|off", built from the table, cut to fit */
		char words[128];
		size_t w = 0;
		for (const struct keyword *k = d->keywords; k->word; k++) {
			if (k != d->keywords && w < sizeof(words) - 1)
				words[w++] = '|';
			for (const char *c = k->word;
			     *c && w < sizeof(words) - 1; c++)
				words[w++] = *c;
		}
		words[w] = '\0';
		fmt_snprintf(msg, sizeof(msg), "cmdline: %s invalid, expected %s, keeping %s",
			     shown, words, cur);
		report(p, msg, "invalid", d, value, "", cur);
		return;
	}

	uint32_t max = d->max_is_cpus ? p->max_cpus : d->max;
	enum num_result r = parse_u32(val, val_len, &v);
	/* A negative number is a number, below every range here: say so,
	 * not "not a number". */
	bool negative = r == NUM_BAD && val_len > 1 && val[0] == '-' &&
			parse_u32(val + 1, val_len - 1, &v) != NUM_BAD;
	char range[32];
	fmt_snprintf(range, sizeof(range), " min=%u max=%u", d->min, max);
	if (r == NUM_BAD && !negative) {
		fmt_snprintf(msg, sizeof(msg), "cmdline: %s is not a number (%u..%u), keeping %s",
			     shown, d->min, max, cur);
		report(p, msg, "not_a_number", d, value, "", cur);
	} else if (negative || r == NUM_TOO_BIG || v < d->min || v > max) {
		fmt_snprintf(msg, sizeof(msg), "cmdline: %s is out of range %u..%u, keeping %s",
			     shown, d->min, max, cur);
		report(p, msg, "out_of_range", d, value, range, cur);
	} else {
		*f = v;
	}
}

/* The row named tok[0..n) in table t (its name or Linux's), or NULL. */
static const struct option_row *find_row(const struct option_table *t, const char *tok, size_t n)
{
	for (uint32_t i = 0; i < t->count; i++) {
		const struct option_row *c = &t->rows[i];
		if (!c->hidden && (span_eq(tok, n, c->name) ||
				   (c->linux_name && span_eq(tok, n, c->linux_name))))
			return c;
	}
	return NULL;
}

/* An option of a wing this kernel was built without: "NAME:WING" in
 * absent names it; its wing's name into wing. */
static bool absent_wing(const char *absent, const char *tok, size_t n, char *wing, size_t size)
{
	for (const char *a = absent ? absent : ""; *a;) {
		const char *name = a, *colon = NULL;
		while (*a && *a != ' ') {
			if (*a == ':' && !colon)
				colon = a;
			a++;
		}
		if (colon && (size_t)(colon - name) == n && memcmp(name, tok, n) == 0) {
			show_token(wing, size, colon + 1, (size_t)(a - colon - 1));
			return true;
		}
		while (*a == ' ')
			a++;
	}
	return false;
}

static void report_absent(struct parser *p, const char *tok, size_t n, const char *wing)
{
	char name[TOKEN_SHOW_MAX], msg[160], rec[120];

	show_token(name, sizeof name, tok, n);
	p->problems++;
	fmt_snprintf(msg, sizeof msg, "cmdline: %s= belongs to the %s wing, not linked in "
		     "this kernel; ignored", name, wing);
	if (p->diag)
		p->diag(p->ctx, msg);
	fmt_snprintf(rec, sizeof rec, "what=option problem=no_wing option=%s wing=%s", name, wing);
	if (p->warn)
		p->warn(p->ctx, rec);
}

int options_parse(const struct option_targets *t, const char *cmdline, uint32_t max_cpus,
		  diag_fn diag, diag_fn warn, void *ctx)
{
	struct parser p = { t, max_cpus, diag, warn, ctx, 0 };
	bool leading = true; /* still before the first option */
	const char *s = cmdline ? cmdline : "";

	for (;;) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		const char *tok = s;
		const char *eq = NULL;
		bool slash = false;
		while (*s && !is_space(*s)) {
			if (*s == '=' && !eq)
				eq = s;
			if (*s == '/')
				slash = true;
			s++;
		}
		size_t tok_len = (size_t)(s - tok);

		if (!eq && slash && leading)
			continue; /* boot image path from the loader */
		leading = false;

		/* Linux's whole-word spellings: parse apstart's instead. */
		for (size_t i = 0; i < sizeof word_aliases / sizeof word_aliases[0]; i++) {
			if (!span_eq(tok, tok_len, word_aliases[i].linux_word))
				continue;
			tok = word_aliases[i].apstart_word;
			for (tok_len = 0; tok[tok_len]; tok_len++)
				;
			for (eq = tok; *eq != '='; eq++)
				;
			break;
		}

		/* The core's row, else a linked wing's. */
		size_t n = eq ? (size_t)(eq - tok) : 0;
		const struct option_row *d = eq ? find_row(&core_table, tok, n) : NULL;
		void *store = t->core;
		for (uint32_t i = 0; eq && !d && i < t->wing_count; i++)
			if ((d = find_row(&t->wings[i], tok, n)))
				store = t->wings[i].store;
		char wing[24];
		if (!d && eq && absent_wing(t->absent, tok, n, wing, sizeof wing)) {
			report_absent(&p, tok, n, wing);
			continue;
		}
		if (!d) {
			char shown[TOKEN_SHOW_MAX];
			char msg[96];
			show_token(shown, sizeof(shown), tok, tok_len);
			fmt_snprintf(msg, sizeof(msg), "cmdline: unknown option '%s' ignored",
				     shown);
			report(&p, msg, "unknown", NULL, shown, "", "");
			continue;
		}
		apply(&p, d, store, tok, tok_len, eq + 1, tok_len - n - 1);
	}
	return p.problems;
}
