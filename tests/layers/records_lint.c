/* SPDX-License-Identifier: MIT */
/* The record schema against the sources that write records: every string
 * constant of a C or assembly file (adjacent literals joined, a macro
 * between them such as PRIu64 standing for a conversion) that begins
 * with a record's word ("@sample cpu=%u ..."), or with "what=" (the body
 * of a @warn record: warn_record(), the option parser's), is read as the
 * record it prints: its word must be in lib/records.def, and each key
 * written out in it, and each value written out (op=offline, what=panic,
 * status=fail), must be one the schema has for that record and variant.
 * Keys made at run time ("%s_total_ns=", a "%s" of fields) are left to
 * the run-time check (aplog schema --check over the QEMU matrix's logs).
 *
 *   records_lint FILE...   one line per problem (FILE:LINE: ...), then a
 *                          summary; exit 1 on a problem, 2 on bad usage */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/records/schema.h"

static int problems, formats;

/* One string constant: its text (escapes undone) and where it starts. */
struct literal {
	char text[4096];
	size_t len;
	int line;
};

static void put(struct literal *l, char c)
{
	if (l->len + 1 < sizeof l->text)
		l->text[l->len++] = c;
	l->text[l->len] = '\0';
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Reads the quoted text at *p (at the '"') into l; *p after the quote. */
static void read_quoted(const char **p, int *line, struct literal *l)
{
	const char *s = *p + 1;
	for (; *s && *s != '"'; s++) {
		if (*s == '\n')
			(*line)++;
		if (*s != '\\') {
			put(l, *s);
			continue;
		}
		s++;
		switch (*s) {
		case 'n': put(l, '\n'); break;
		case 't': put(l, '\t'); break;
		case '\0': s--; break;
		default: put(l, *s); break;
		}
	}
	*p = *s ? s + 1 : s;
}

/* Skips blanks and comments; false at the end. */
static bool skip_space(const char **p, int *line, bool c_comments)
{
	for (;;) {
		const char *s = *p;
		if (*s == '\n')
			(*line)++;
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\\') {
			*p = s + 1;
		} else if (c_comments && s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			for (const char *q = s; q < (e ? e : s + strlen(s)); q++)
				*line += *q == '\n';
			*p = e ? e + 2 : s + strlen(s);
		} else if (c_comments && s[0] == '/' && s[1] == '/') {
			*p = strchr(s, '\n') ? strchr(s, '\n') : s + strlen(s);
		} else {
			return *s != '\0';
		}
	}
}

/* ---- a record's text -------------------------------------------------- */

static void problem(const char *file, int line, const char *fmt, const char *a,
		    const char *b, const char *c)
{
	printf("%s:%d: ", file, line);
	printf(fmt, a, b, c);
	putchar('\n');
	problems++;
}

/* A word of a record's text, up to a blank or the end. */
static size_t token(const char *s)
{
	size_t n = 0;
	while (s[n] && s[n] != ' ' && s[n] != '\n' && s[n] != '\t')
		n++;
	return n;
}

/* text: "@word k=v ..." (or a %s prefix before it). */
static void check_record(const char *file, int line, const char *text)
{
	char word[64], key[64], val[256], variant[64] = "";
	size_t w = token(text);
	if (w >= sizeof word)
		return;
	memcpy(word, text, w);
	word[w] = '\0';
	int rec = record_find(word, w);
	formats++;
	if (rec < 0) {
		problem(file, line, "record %s is not in the schema (lib/records.def)%s%s", word,
			"", "");
		return;
	}
	/* The variant, where the text spells it out. */
	const char *vname = record_kinds[rec].variant;
	for (const char *p = text + w; vname && *p;) {
		while (*p == ' ' || *p == '\n')
			p++;
		size_t n = token(p);
		size_t vl = strlen(vname);
		if (n > vl + 1 && !strncmp(p, vname, vl) && p[vl] == '=' && !memchr(p, '%', n) &&
		    n - vl - 1 < sizeof variant) {
			memcpy(variant, p + vl + 1, n - vl - 1);
			variant[n - vl - 1] = '\0';
		}
		p += n;
	}
	for (const char *p = text + w; *p;) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		size_t n = token(p);
		if (!n)
			break;
		const char *eq = memchr(p, '=', n);
		size_t kl = eq ? (size_t)(eq - p) : n;
		bool made = memchr(p, '%', kl) != NULL; /* "%s", "%s_total_ns=" */
		if (!eq || made || kl >= sizeof key || n - kl - 1 >= sizeof val) {
			if (!made) {
				char tok[64];
				snprintf(tok, sizeof tok, "%.*s", (int)n, p);
				problem(file, line, "%s: '%s' is no key=value%s", word, tok, "");
			}
			p += n;
			continue;
		}
		memcpy(key, p, kl);
		key[kl] = '\0';
		memcpy(val, eq + 1, n - kl - 1);
		val[n - kl - 1] = '\0';
		p += n;
		if (record_key_find(rec, key, kl) < 0) {
			problem(file, line, "%s: key '%s' is not in the schema (lib/records.def)%s",
				word, key, "");
			continue;
		}
		bool made_value = strchr(val, '%') != NULL || !val[0];
		enum record_value res = record_field_check(rec, key, kl, variant[0] ? variant : NULL,
							   strlen(variant), made_value ? "na" : val,
							   made_value ? 2 : strlen(val));
		if (res == RV_VARIANT) {
			char v[160];
			snprintf(v, sizeof v, "%s=%s", vname, variant);
			problem(file, line, "%s: key '%s' is not a key of %s records", word, key, v);
		}
		else if (!made_value && res != RV_OK)
			problem(file, line, "%s: %s=%s is not a value the schema takes", word, key,
				val);
	}
}

/* The text a literal prints, if it is a record's. */
static void check_literal(const char *file, const struct literal *l)
{
	const char *t = l->text;
	if (!strncmp(t, "%s@", 3)) /* linux-hotplug: a prefix, then the record */
		t += 2;
	if (t[0] == '@' && ((t[1] >= 'a' && t[1] <= 'z') || t[1] == '_')) {
		check_record(file, l->line, t);
	} else if (!strncmp(t, "what=", 5)) {
		char rec[sizeof l->text + 8];
		snprintf(rec, sizeof rec, "@warn %s", t);
		check_record(file, l->line, rec);
	}
}

/* C: literals, adjacent ones joined (a macro name between two of them,
 * PRIu64 or VERSION, stands for a conversion: "%"). */
static void scan_c(const char *file, const char *src)
{
	int line = 1;
	const char *p = src;
	while (skip_space(&p, &line, true)) {
		if (*p == '\'') { /* a character constant: '"' is no string */
			p++;
			if (*p == '\\')
				p++;
			if (*p)
				p++;
			while (*p && *p != '\'')
				p++;
			if (*p)
				p++;
			continue;
		}
		if (*p != '"') {
			if (*p == '#' && !strncmp(p, "#include", 8)) { /* "file.h" is no text */
				p = strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p);
				continue;
			}
			p++;
			continue;
		}
		static struct literal l;
		l.len = 0;
		l.text[0] = '\0';
		l.line = line;
		for (;;) {
			read_quoted(&p, &line, &l);
			const char *q = p;
			int ql = line;
			if (!skip_space(&q, &ql, true))
				break;
			if (*q == '"') {
				p = q;
				line = ql;
				continue;
			}
			/* MACRO "...": a conversion between two literals */
			const char *r = q;
			while (ident_char(*r))
				r++;
			const char *s = r;
			int sl = ql;
			if (r > q && (*q == 'P' || (*q >= 'A' && *q <= 'Z')) &&
			    skip_space(&s, &sl, true) && *s == '"') {
				put(&l, '%');
				put(&l, 's');
				p = s;
				line = sl;
				continue;
			}
			break;
		}
		check_literal(file, &l);
	}
}

/* NASM: one db "..." string at a time. */
static void scan_asm(const char *file, const char *src)
{
	int line = 1;
	for (const char *p = src; *p; p++) {
		if (*p == '\n') {
			line++;
		} else if (*p == ';') {
			while (p[1] && p[1] != '\n')
				p++;
		} else if (*p == '"') {
			static struct literal l;
			l.len = 0;
			l.text[0] = '\0';
			l.line = line;
			const char *e = strchr(p + 1, '"');
			size_t n = e ? (size_t)(e - p - 1) : 0;
			for (size_t i = 0; i < n; i++)
				put(&l, p[1 + i]);
			check_literal(file, &l);
			if (e)
				p = e;
		}
	}
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "records_lint: %s: cannot open\n", path);
		exit(2);
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
		len += got;
		if (len + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "records_lint: out of memory\n");
		exit(2);
	}
	buf[len] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: records_lint FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char *src = read_file(argv[i]);
		size_t n = strlen(argv[i]);
		if (n > 4 && !strcmp(argv[i] + n - 4, ".asm"))
			scan_asm(argv[i], src);
		else
			scan_c(argv[i], src);
		free(src);
	}
	printf("records_lint: %d record formats in %d files, %d problem%s\n", formats, argc - 1,
	       problems, problems == 1 ? "" : "s");
	return problems ? 1 : 0;
}
