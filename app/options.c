/* SPDX-License-Identifier: MIT */
/* Kernel command line parser. Every option is one row of opt_table; the
 * parser itself knows nothing about individual options. */
#include "app/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/serial.h"
#include "lib/keyword.h"

/* Bound for the copy of a token quoted in a message; longer tokens are
 * shown cut short with "...". Parsing itself never copies a token. */
#define TOKEN_SHOW_MAX 48

/* Checks and stores a value the table cannot describe; returns NULL, or
 * why the value is invalid. */
typedef const char *(*opt_parse_fn)(struct options *o, const char *val,
				    size_t len);
/* Shows the current value of such an option in a message. */
typedef void (*opt_show_fn)(const struct options *o, char *buf, size_t size);

struct opt_desc {
	const char *name;
	const char *linux_name; /* Linux's name for the same setting */
	opt_parse_fn parse;     /* custom value syntax (console=, pstore=) */
	opt_show_fn show;       /* and how its value is shown */
	bool wide;              /* its fields are not 32-bit: no offset, the
				 * defaults are set by options_set_defaults() */
	size_t offset;         /* of a 32-bit field in struct options */
	uint32_t def;
	uint32_t min, max;     /* numeric range (unused with keywords) */
	bool max_is_cpus;      /* max comes from the max_cpus argument */
	const char *def_name;  /* how def is shown if it is out of range */
	const struct keyword *keywords; /* NULL: numeric option */
	bool hidden;           /* not an option of its own here: set through
				* another option's parse, or absent from
				* this build */
};

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

static const struct keyword probe_words[] = {
	{ "none", PROBE_NONE }, { "flush", PROBE_FLUSH }, { NULL, 0 },
};

static const struct keyword at_once_words[] = {
	{ "none", AT_ONCE_NONE }, { "socket", AT_ONCE_SOCKET }, { "all", AT_ONCE_ALL },
	{ NULL, 0 },
};

const struct keyword trampoline_words[] = {
	{ "apstart", TRAMPOLINE_APSTART }, { "linux", TRAMPOLINE_LINUX }, { NULL, 0 },
};

static const struct keyword save_words[] = {
	{ "on", SAVE_ON }, { "off", SAVE_OFF }, { NULL, 0 },
};

/* Offset of a field that must be 32 bits wide (uint32_t or an enum, which
 * gcc makes unsigned int; C11 6.5p7 allows access through uint32_t). The
 * array size goes negative, a compile error, for any other width. */
#define FIELD32(f)                                              \
	(offsetof(struct options, f) +                          \
	 0 * sizeof(char[sizeof(((struct options *)0)->f) == 4 ? 1 : -1]))

#define OPT(f, d, ...) { .name = #f, .offset = FIELD32(f), .def = (d), __VA_ARGS__ }
/* An option of the wake configuration (smp/wake.h), field f of o->wake. */
#define OPT_WAKE(opt, f, d, ...) \
	{ .name = #opt, .offset = FIELD32(wake.f), .def = (d), __VA_ARGS__ }

enum num_result { NUM_OK, NUM_BAD, NUM_TOO_BIG };
static enum num_result parse_u32(const char *s, size_t n, uint32_t *out);

/* console=ttyS<n>[,<baud>[n8]], Linux's syntax (Documentation/admin-guide/
 * serial-console.rst): COM1-COM4, 8N1 only, a baud a 16550 can make. */
static const char *parse_console(struct options *o, const char *v, size_t n)
{
	uint32_t port, baud = SERIAL_MAX_BAUD;
	size_t i = 0;

	if (n == 4 && v[0] == 't' && v[1] == 't' && v[2] == 'y' &&
	    (v[3] == '0' || v[3] == '1'))
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

static void show_console(const struct options *o, char *buf, size_t size)
{
	fmt_snprintf(buf, size, "ttyS%u", o->console_port);
}

static int hex_digit(char c);

/* acpi_rsdp=ADDR, Linux's meaning: kstrtoul(arg, 16), so hexadecimal
 * with or without 0x (drivers/acpi/osl.c, setup_acpi_rsdp()). */
static const char *parse_acpi_rsdp(struct options *o, const char *v, size_t n)
{
	uint64_t a = 0;

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		v += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return "a physical address in hex (Linux's ACPI20= in /sys/firmware/efi/systab)";
	for (size_t i = 0; i < n; i++) {
		int d = hex_digit(v[i]);
		if (d < 0)
			return "a physical address in hex (Linux's ACPI20= in /sys/firmware/efi/systab)";
		a = a << 4 | (uint64_t)d;
	}
	if (a == 0)
		return "0 is no address";
	o->acpi_rsdp = a;
	return NULL;
}

static void show_acpi_rsdp(const struct options *o, char *buf, size_t size)
{
	if (o->acpi_rsdp)
		fmt_snprintf(buf, size, "0x%llx", (unsigned long long)o->acpi_rsdp);
	else
		fmt_snprintf(buf, size, "none");
}

/* A size or address of pstore=: decimal or 0x hex, then K, M or G (KiB,
 * MiB, GiB). Linux's memparse() would read a leading 0 as octal: refused
 * rather than read another way. */
static const char *parse_quantity(const char *v, size_t n, uint64_t *out)
{
	unsigned base = 10, shift = 0;
	uint64_t x = 0;

	if (n && (v[n - 1] == 'K' || v[n - 1] == 'k'))
		shift = 10;
	else if (n && (v[n - 1] == 'M' || v[n - 1] == 'm'))
		shift = 20;
	else if (n && (v[n - 1] == 'G' || v[n - 1] == 'g'))
		shift = 30;
	if (shift)
		n--;
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		v += 2;
		n -= 2;
	} else if (n > 1 && v[0] == '0') {
		return "a leading 0 (octal to Linux's memparse): write 0x...";
	}
	if (n == 0)
		return "ADDR,SIZE: numbers, decimal or 0x hex, K/M/G allowed";
	for (size_t i = 0; i < n; i++) {
		int d = hex_digit(v[i]);
		if (d < 0 || (unsigned)d >= base)
			return "ADDR,SIZE: numbers, decimal or 0x hex, K/M/G allowed";
		if (x > (UINT64_MAX - (unsigned)d) / base)
			return "a number beyond 64 bits";
		x = x * base + (unsigned)d;
	}
	if (shift && x > UINT64_MAX >> shift)
		return "a number beyond 64 bits";
	*out = x << shift;
	return NULL;
}

/* pstore=ADDR,SIZE: the ramoops console zone (app/options.h bounds). */
static const char *parse_pstore(struct options *o, const char *v, size_t n)
{
	size_t comma = 0;
	uint64_t addr, size;
	const char *why;

	while (comma < n && v[comma] != ',')
		comma++;
	if (comma == n)
		return "ADDR,SIZE wanted (e.g. 0x30000000,512K)";
	if ((why = parse_quantity(v, comma, &addr)) ||
	    (why = parse_quantity(v + comma + 1, n - comma - 1, &size)))
		return why;
	if (size < PSTORE_SIZE_MIN || size > PSTORE_SIZE_MAX || (size & (size - 1)))
		return "SIZE must be a power of two from 4K to 1G (ramoops' console_size)";
	if (addr % 4)
		return "ADDR must be a multiple of 4";
	if (addr > UINT64_MAX - size)
		return "ADDR+SIZE beyond 64 bits";
	o->pstore_addr = addr;
	o->pstore_size = size;
	return NULL;
}

static void show_pstore(const struct options *o, char *buf, size_t size)
{
	if (o->pstore_size)
		fmt_snprintf(buf, size, "0x%llx,%lluK", (unsigned long long)o->pstore_addr,
			     (unsigned long long)(o->pstore_size >> 10));
	else
		fmt_snprintf(buf, size, "none");
}

/* run_id=ID: whoever asked for the run names it (apstart run on Linux),
 * and @boot and @end carry it back; a bad one is refused whole, never cut
 * or mended into another run's name. */
static const char *parse_run_id(struct options *o, const char *v, size_t n)
{
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

static void show_run_id(const struct options *o, char *buf, size_t size)
{
	fmt_snprintf(buf, size, "%s", o->run_id[0] ? o->run_id : "none");
}

/* One row per option: name (= field), default, then range or keywords. */
static const struct opt_desc opt_table[] = {
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
	OPT(icount, ICOUNT_OFF, .keywords = icount_words),
	OPT(selftest, SELFTEST_NONE, .keywords = selftest_words),
	OPT(save, SAVE_ON, .keywords = save_words),
	OPT_WAKE(bringup, bringup, BRINGUP_SERIAL, .keywords = bringup_words),
	OPT_WAKE(cycles_mode, cycles_mode, CYCLES_SERIAL, .keywords = cycles_mode_words),
	/* console= sets both fields; the second row only gives the default. */
	{ .name = "console", .offset = FIELD32(console_port), .def = 0,
	  .parse = parse_console, .show = show_console },
	{ .name = "console_baud", .offset = FIELD32(console_baud),
	  .def = SERIAL_MAX_BAUD, .hidden = true },
	OPT(progress_ms, 250, .min = 0, .max = 60000),
	OPT(probe, PROBE_NONE, .keywords = probe_words),
	OPT(flush_reps, 3, .min = 1, .max = 50),
	OPT(flush_max_kib, 0, .min = 64, .max = 16777216, .def_name = "auto"),
	OPT(flush_cpus, 0, .min = 1, .max_is_cpus = true, .def_name = "all"),
	OPT(flush_at_once, AT_ONCE_SOCKET, .keywords = at_once_words),
	OPT(victims, 0, .min = 0, .max_is_cpus = true),
	OPT(firmware, FIRMWARE_UNKNOWN, .keywords = firmware_words),
	OPT(trampoline, TRAMPOLINE_APSTART, .keywords = trampoline_words),
	{ .name = "acpi_rsdp", .wide = true, .parse = parse_acpi_rsdp, .show = show_acpi_rsdp },
	{ .name = "pstore", .wide = true, .parse = parse_pstore, .show = show_pstore },
	{ .name = "run_id", .wide = true, .parse = parse_run_id, .show = show_run_id },
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

#define OPT_COUNT (sizeof(opt_table) / sizeof(opt_table[0]))

static uint32_t *field(struct options *o, const struct opt_desc *d)
{
	return (uint32_t *)(void *)((char *)o + d->offset);
}

void options_set_defaults(struct options *o)
{
	for (size_t i = 0; i < OPT_COUNT; i++)
		if (!opt_table[i].wide)
			*field(o, &opt_table[i]) = opt_table[i].def;
	o->acpi_rsdp = 0;
	o->pstore_addr = o->pstore_size = 0;
	o->run_id[0] = '\0';
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

static int hex_digit(char c)
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
		int d = hex_digit(s[i]);
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

static void show_value(char *buf, size_t size, const struct opt_desc *d,
		       uint32_t v)
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
	struct options *o;
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
		   const struct opt_desc *d, const char *value, const char *range,
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

static void apply(struct parser *p, const struct opt_desc *d, const char *tok,
		  size_t tok_len, const char *val, size_t val_len)
{
	uint32_t *f = d->wide ? NULL : field(p->o, d);
	char shown[TOKEN_SHOW_MAX], value[TOKEN_SHOW_MAX];
	char cur[40];
	char msg[256];
	uint32_t v;

	show_token(shown, sizeof(shown), tok, tok_len);
	show_token(value, sizeof(value), val, val_len);
	if (d->show)
		d->show(p->o, cur, sizeof cur);
	else
		show_value(cur, sizeof(cur), d, *f);

	if (val_len == 0) {
		fmt_snprintf(msg, sizeof(msg),
			     "cmdline: %s has no value, keeping %s", shown, cur);
		report(p, msg, "no_value", d, value, "", cur);
		return;
	}
	if (d->parse) {
		const char *why = d->parse(p->o, val, val_len);
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
		fmt_snprintf(msg, sizeof(msg),
			     "cmdline: %s invalid, expected %s, keeping %s",
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
		fmt_snprintf(msg, sizeof(msg),
			     "cmdline: %s is not a number (%u..%u), keeping %s",
			     shown, d->min, max, cur);
		report(p, msg, "not_a_number", d, value, "", cur);
	} else if (negative || r == NUM_TOO_BIG || v < d->min || v > max) {
		fmt_snprintf(msg, sizeof(msg),
			     "cmdline: %s is out of range %u..%u, keeping %s",
			     shown, d->min, max, cur);
		report(p, msg, "out_of_range", d, value, range, cur);
	} else {
		*f = v;
	}
}

int options_parse(struct options *o, const char *cmdline, uint32_t max_cpus,
		  diag_fn diag, diag_fn warn, void *ctx)
{
	struct parser p = { o, max_cpus, diag, warn, ctx, 0 };
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

		const struct opt_desc *d = NULL;
		if (eq)
			for (size_t i = 0; i < OPT_COUNT && !d; i++) {
				const struct opt_desc *c = &opt_table[i];
				size_t n = (size_t)(eq - tok);
				if (!c->hidden && (span_eq(tok, n, c->name) ||
						   (c->linux_name &&
						    span_eq(tok, n, c->linux_name))))
					d = c;
			}
		if (!d) {
			char shown[TOKEN_SHOW_MAX];
			char msg[96];
			show_token(shown, sizeof(shown), tok, tok_len);
			fmt_snprintf(msg, sizeof(msg),
				     "cmdline: unknown option '%s' ignored",
				     shown);
			report(&p, msg, "unknown", NULL, shown, "", "");
			continue;
		}
		apply(&p, d, tok, tok_len, eq + 1, tok_len - (size_t)(eq - tok) - 1);
	}
	return p.problems;
}
