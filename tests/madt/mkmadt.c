/* SPDX-License-Identifier: MIT */
/* mkmadt: write a crafted ACPI MADT ("APIC", ACPI 6.5 §5.2.12) to a file,
 * for booting the kernel on tables firmware might hand over (GRUB's
 * `acpi --exclude=APIC FILE` installs it in place of the real one).
 *
 *   mkmadt [--bad-checksum] [--length N] OUT ENTRY...
 *
 * ENTRY: lapic:ID[:FLAGS]   Processor Local APIC (type 0, 8 bytes)
 *        x2apic:ID[:FLAGS]  Processor Local x2APIC (type 9, 16 bytes)
 *        raw:HEX            any bytes, e.g. raw:0000 (a zero-length entry)
 * IDs and FLAGS in C syntax (0x100); FLAGS default 1 (Enabled). ACPI
 * processor UIDs are the entry's position.
 * --length N   header length N, and only the first N bytes are written
 *              (a table cut short); the checksum covers those N bytes.
 * --bad-checksum  the checksum byte is off by one. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN 65536
#define HDR_LEN 44 /* SDT header (36) + LAPIC address + flags */

static uint8_t t[MAX_LEN];
static size_t len = HDR_LEN;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "mkmadt: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t number(const char *s, const char *entry)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || (*end && *end != ':') || v > UINT32_MAX)
		die("bad number in '%s'", entry);
	return (uint32_t)v;
}

static uint8_t *room(size_t n, const char *entry)
{
	if (len + n > MAX_LEN)
		die("table too long at '%s'", entry);
	uint8_t *p = t + len;
	len += n;
	return p;
}

static void add(const char *e, uint32_t uid)
{
	const char *arg = strchr(e, ':');
	if (!arg)
		die("entry '%s' has no ':'", e);
	arg++;
	const char *second = strchr(arg, ':');
	uint32_t id = 0, flags = 1;
	if (strncmp(e, "raw:", 4) != 0) {
		id = number(arg, e);
		if (second)
			flags = number(second + 1, e);
	}
	if (strncmp(e, "lapic:", 6) == 0) {
		if (id > 0xFF || uid > 0xFF)
			die("lapic entry '%s': ID and UID are 8 bits", e);
		uint8_t *p = room(8, e);
		p[0] = 0, p[1] = 8, p[2] = (uint8_t)uid, p[3] = (uint8_t)id;
		put32(p + 4, flags);
	} else if (strncmp(e, "x2apic:", 7) == 0) {
		uint8_t *p = room(16, e);
		memset(p, 0, 16);
		p[0] = 9, p[1] = 16;
		put32(p + 4, id);
		put32(p + 8, flags);
		put32(p + 12, uid);
	} else if (strncmp(e, "raw:", 4) == 0) {
		size_t n = strlen(arg);
		if (n == 0 || n % 2)
			die("raw entry '%s' needs pairs of hex digits", e);
		uint8_t *p = room(n / 2, e);
		for (size_t i = 0; i < n / 2; i++) {
			char two[3] = { arg[2 * i], arg[2 * i + 1], 0 };
			char *end;
			p[i] = (uint8_t)strtoul(two, &end, 16);
			if (*end)
				die("raw entry '%s' is not hex", e);
		}
	} else {
		die("unknown entry '%s' (lapic:, x2apic:, raw:)", e);
	}
}

int main(int argc, char **argv)
{
	int bad_sum = 0, i = 1;
	long cut = -1;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--bad-checksum") == 0) {
			bad_sum = 1;
		} else if (strcmp(argv[i], "--length") == 0 && i + 1 < argc) {
			cut = strtol(argv[++i], NULL, 0);
			if (cut < 36 || cut > MAX_LEN)
				die("--length %s out of range 36..65536", argv[i]);
		} else {
			die("unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc)
		die("%s", "usage: mkmadt [--bad-checksum] [--length N] OUT ENTRY...");
	const char *out = argv[i++];

	memcpy(t, "APIC", 4);
	t[8] = 5;                        /* revision (ACPI 6.5) */
	memcpy(t + 10, "APTEST", 6);     /* OEMID */
	memcpy(t + 16, "CRAFTED ", 8);   /* OEM table ID */
	put32(t + 24, 1);
	memcpy(t + 28, "MKMD", 4);
	put32(t + 32, 1);
	put32(t + 36, 0xFEE00000u);      /* local APIC address */
	put32(t + 40, 1);                /* PCAT_COMPAT */
	for (uint32_t uid = 0; i < argc; i++, uid++)
		add(argv[i], uid);

	size_t n = cut >= 0 ? (size_t)cut : len;
	if (n > len)
		memset(t + len, 0, n - len);
	put32(t + 4, (uint32_t)n);
	uint8_t sum = 0;
	for (size_t k = 0; k < n; k++)
		sum = (uint8_t)(sum + (k == 9 ? 0 : t[k]));
	t[9] = (uint8_t)(-sum + (bad_sum ? 1 : 0));

	FILE *f = fopen(out, "wb");
	if (!f || fwrite(t, 1, n, f) != n || fclose(f) != 0)
		die("cannot write '%s'", out);
	return 0;
}
