/* SPDX-License-Identifier: MIT */
/* kernel/acpi.c: synthetic RSDP/RSDT/XSDT/MADT/HPET/FADT in a fake
 * physical memory. Built with -DAPSTART_MAX_CPUS=8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/acpi.h"
#include "check.h"
#include "helpers.h"

#if APSTART_MAX_CPUS != 8
#error "test_acpi.c expects -DAPSTART_MAX_CPUS=8"
#endif

#define MEM_SIZE 0x200000u
#define RSDP_AT 0xF0000u
#define RSDT_AT 0x100000u
#define XSDT_AT 0x100800u
#define MADT_AT 0x101000u
#define HPET_AT 0x102000u
#define FADT_AT 0x103000u
#define SSDT_AT 0x104000u
#define MADT2_AT 0x105000u

static struct fake_mem mem;
static struct diag_log dlog;
static struct acpi_info ai;

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void fix_sum(uint8_t *p, size_t len, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < len; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

/* Recompute the checksum of the table at phys from its length field. */
static void sdt_fix(uint64_t phys)
{
	uint8_t *p = fake_at(&mem, phys);
	fix_sum(p, get32(p + 4), 9);
}

static uint8_t *sdt_header(uint64_t phys, const char *sig, uint32_t len)
{
	uint8_t *p = fake_at(&mem, phys);
	memset(p, 0, len);
	memcpy(p, sig, 4);
	put32(p + 4, len);
	p[8] = 1;
	memcpy(p + 10, "APTEST", 6);
	memcpy(p + 16, "APSTARTT", 8);
	put32(p + 24, 1);
	return p;
}

static void make_rsdp(uint64_t phys, uint8_t rev, uint32_t rsdt,
		      uint64_t xsdt)
{
	uint8_t *p = fake_at(&mem, phys);
	memset(p, 0, 36);
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, "BOCHS ", 6);
	p[15] = rev;
	put32(p + 16, rsdt);
	put32(p + 20, 36);
	put64(p + 24, xsdt);
	fix_sum(p, 20, 8);
	if (rev >= 2)
		fix_sum(p, 36, 32);
}

static void make_root(uint64_t phys, bool xsdt, const uint64_t *e, size_t n)
{
	size_t esize = xsdt ? 8 : 4;
	uint8_t *p = sdt_header(phys, xsdt ? "XSDT" : "RSDT",
				(uint32_t)(36 + n * esize));
	for (size_t i = 0; i < n; i++) {
		if (xsdt)
			put64(p + 36 + i * 8, e[i]);
		else
			put32(p + 36 + i * 4, (uint32_t)e[i]);
	}
	sdt_fix(phys);
}

/* MADT entry list under construction. */
struct madt {
	uint8_t e[4096];
	size_t len;
};

static void madt_raw(struct madt *m, const uint8_t *b, size_t n)
{
	memcpy(m->e + m->len, b, n);
	m->len += n;
}

static void madt_lapic(struct madt *m, uint8_t uid, uint8_t id, uint32_t fl)
{
	uint8_t b[8] = { 0, 8, uid, id };
	put32(b + 4, fl);
	madt_raw(m, b, 8);
}

static void madt_x2apic(struct madt *m, uint32_t id, uint32_t fl,
			uint32_t uid)
{
	uint8_t b[16] = { 9, 16 };
	put32(b + 4, id);
	put32(b + 8, fl);
	put32(b + 12, uid);
	madt_raw(m, b, 16);
}

static void madt_override(struct madt *m, uint64_t addr)
{
	uint8_t b[12] = { 5, 12 };
	put64(b + 4, addr);
	madt_raw(m, b, 12);
}

static void madt_ioapic(struct madt *m)
{
	/* Type 1 (I/O APIC), 12 bytes: walked over, not used. */
	uint8_t b[12] = { 1, 12, 0, 0 };
	put32(b + 4, 0xfec00000);
	madt_raw(m, b, 12);
}

static void madt_place(const struct madt *m, uint64_t phys)
{
	uint8_t *p = sdt_header(phys, "APIC", (uint32_t)(44 + m->len));
	p[8] = 5;
	put32(p + 36, 0xfee00000);
	put32(p + 40, 1); /* PCAT_COMPAT */
	memcpy(p + 44, m->e, m->len);
	sdt_fix(phys);
}

static void make_hpet(uint64_t phys, uint8_t space, uint64_t addr)
{
	uint8_t *p = sdt_header(phys, "HPET", 56);
	put32(p + 36, 0x8086a201);
	p[40] = space;
	p[41] = 64;
	put64(p + 44, addr);
	sdt_fix(phys);
}

/* FADT of the given length with PM_TMR_BLK, PM_TMR_LEN, Flags and (if the
 * length allows) X_PM_TMR_BLK. */
static void make_fadt(uint64_t phys, uint32_t len, uint32_t blk, uint8_t tlen,
		      uint32_t flags, uint8_t xspace, uint64_t xaddr)
{
	uint8_t *p = sdt_header(phys, "FACP", len);
	if (len >= 80)
		put32(p + 76, blk);
	if (len >= 92)
		p[91] = tlen;
	if (len >= 116)
		put32(p + 112, flags);
	if (len >= 220) {
		p[208] = xspace;
		p[209] = 32;
		put64(p + 212, xaddr);
	}
	sdt_fix(phys);
}

#define TMR_VAL_EXT (1u << 8)

/* A whole consistent system: MADT, HPET, FADT behind RSDT and XSDT. */
static void build(const struct madt *m, uint8_t rev)
{
	memset(mem.bytes, 0, mem.size);
	madt_place(m, MADT_AT);
	make_hpet(HPET_AT, 0, 0xfed00000);
	make_fadt(FADT_AT, 276, 0xb008, 4, TMR_VAL_EXT, 1, 0x608);
	const uint64_t tables[] = { FADT_AT, MADT_AT, HPET_AT };
	make_root(RSDT_AT, false, tables, 3);
	make_root(XSDT_AT, true, tables, 3);
	make_rsdp(RSDP_AT, rev, RSDT_AT, rev >= 2 ? XSDT_AT : 0);
}

static int run(void)
{
	const void *r = fake_map(&mem, RSDP_AT, 36);
	diag_reset(&dlog);
	return acpi_parse(r, 36, RSDP_AT, fake_map, &mem, &ai, diag_record,
			  &dlog);
}

static bool cpu_is(unsigned i, uint32_t id, uint32_t uid, uint32_t flags,
		   uint8_t type)
{
	return i < ai.cpu_count && ai.cpus[i].apic_id == id &&
	       ai.cpus[i].acpi_uid == uid && ai.cpus[i].flags == flags &&
	       ai.cpus[i].entry_type == type;
}

static void test_valid(void)
{
	struct madt m = { .len = 0 };

	madt_lapic(&m, 0, 0, MADT_CPU_ENABLED);
	madt_ioapic(&m);
	madt_lapic(&m, 1, 1, MADT_CPU_ENABLED);
	madt_x2apic(&m, 300, MADT_CPU_ENABLED, 2);
	madt_override(&m, 0xfee01000);
	build(&m, 2);

	CHECK_EQ(run(), 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(ai.problems, 0);
	CHECK_EQ(ai.rsdp_phys, RSDP_AT);
	CHECK_EQ(ai.revision, 2);
	CHECK_STREQ(ai.oem_id, "BOCHS ");
	CHECK(ai.used_xsdt);
	CHECK(ai.have_madt);
	CHECK_EQ(ai.lapic_phys, 0xfee01000); /* the type-5 override */
	CHECK_EQ(ai.madt_flags, 1);
	CHECK_EQ(ai.cpu_count, 3);
	CHECK_EQ(ai.enabled_count, 3);
	CHECK_EQ(ai.cpus_dropped, 0);
	CHECK(cpu_is(0, 0, 0, MADT_CPU_ENABLED, 0));
	CHECK(cpu_is(1, 1, 1, MADT_CPU_ENABLED, 0));
	CHECK(cpu_is(2, 300, 2, MADT_CPU_ENABLED, 9));
	CHECK_EQ(ai.cpus_unusable, 0);
	CHECK(ai.have_hpet);
	CHECK_EQ(ai.hpet_phys, 0xfed00000);
	CHECK(ai.have_pm_timer);
	CHECK_EQ(ai.pm_timer_port, 0x608); /* X_PM_TMR_BLK preferred */
	CHECK(ai.pm_timer_32bit);

	/* Same system through the RSDT (revision 0 RSDP). */
	build(&m, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.used_xsdt);
	CHECK_EQ(ai.revision, 0);
	CHECK_EQ(ai.cpu_count, 3);
	CHECK_EQ(ai.problems, 0);

	/* Revision 2 with XsdtAddress 0 uses the RSDT. */
	make_rsdp(RSDP_AT, 2, RSDT_AT, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.used_xsdt);
	CHECK_EQ(ai.problems, 0);

	/* No override: the MADT's own address. */
	m.len = 0;
	madt_lapic(&m, 0, 0, MADT_CPU_ENABLED);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.lapic_phys, 0xfee00000);
	CHECK_EQ(ai.cpu_count, 1);

	/* diag may be NULL; problems still counted. */
	make_hpet(HPET_AT, 1, 0);
	const void *r = fake_map(&mem, RSDP_AT, 36);
	CHECK_EQ(acpi_parse(r, 36, 0, fake_map, &mem, &ai, NULL, NULL), 0);
	CHECK_EQ(ai.problems, 1);
	CHECK_EQ(ai.rsdp_phys, 0);
}

static void test_flags_and_duplicates(void)
{
	struct madt m = { .len = 0 };
	const uint32_t E = MADT_CPU_ENABLED, O = MADT_CPU_ONLINE_CAPABLE;

	madt_lapic(&m, 0, 0, E);
	madt_lapic(&m, 1, 1, 0);        /* neither: silently unusable */
	madt_lapic(&m, 2, 2, O);
	madt_x2apic(&m, 0, E, 100);     /* same CPU as the first entry */
	madt_lapic(&m, 3, 3, E);
	madt_x2apic(&m, 2, O, 102);     /* same as entry 2 */
	madt_x2apic(&m, 4, E | O, 4);
	madt_lapic(&m, 7, 7, O);        /* listed online-capable ... */
	madt_x2apic(&m, 7, E, 107);     /* ... and enabled: enabled wins */
	madt_x2apic(&m, 1, 0, 1);       /* neither again */
	build(&m, 2);

	CHECK_EQ(run(), 0);
	/* Each second listing is an inconsistency, reported once. */
	CHECK_EQ(dlog.count, 4);
	CHECK_EQ(ai.problems, 4);
	CHECK_EQ(ai.warn[ACPI_WARN_MADT_DUPLICATE], 4);
	CHECK_EQ(diag_count_with(&dlog, "lists APIC ID 7 again"), 1);
	CHECK_EQ(ai.cpu_count, 5);
	CHECK_EQ(ai.enabled_count, 4);
	CHECK(cpu_is(0, 0, 0, E, 0));   /* first listing kept */
	CHECK(cpu_is(1, 3, 3, E, 0));
	CHECK(cpu_is(2, 4, 4, E | O, 9));
	CHECK(cpu_is(3, 7, 107, E, 9));
	CHECK(cpu_is(4, 2, 2, O, 0));   /* not-enabled ones last */
	CHECK_EQ(ai.cpus_unusable, 1);  /* the second listing is a duplicate */

	/* Only unusable entries: a MADT, but no CPU. */
	m.len = 0;
	madt_lapic(&m, 0, 0, 0);
	build(&m, 2);
	CHECK_EQ(run(), -1);
	CHECK(ai.have_madt);
	CHECK_EQ(ai.cpu_count, 0);
	CHECK_EQ(diag_count_with(&dlog, "no usable CPU"), 1);
}

static void test_bad_entries(void)
{
	struct madt m = { .len = 0 };
	const uint32_t E = MADT_CPU_ENABLED;

	madt_lapic(&m, 5, 0xFF, E);
	madt_x2apic(&m, 0xFFFFFFFFu, E, 6);
	madt_lapic(&m, 0, 0, E);
	/* Known types with wrong lengths: skipped, walk continues. */
	const uint8_t long_lapic[10] = { 0, 10, 9, 9, 1, 0, 0, 0, 0, 0 };
	madt_raw(&m, long_lapic, 10);
	const uint8_t short_x2[12] = { 9, 12, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0 };
	madt_raw(&m, short_x2, 12);
	const uint8_t short_ovr[8] = { 5, 8, 0, 0, 0, 0, 0xe0, 0xfe };
	madt_raw(&m, short_ovr, 8);
	/* Unknown type with an odd length is just walked over. */
	const uint8_t unknown[3] = { 0x7f, 3, 0 };
	madt_raw(&m, unknown, 3);
	madt_lapic(&m, 1, 1, E);
	build(&m, 2);

	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 2);
	CHECK(cpu_is(0, 0, 0, E, 0));
	CHECK(cpu_is(1, 1, 1, E, 0));
	CHECK_EQ(ai.lapic_phys, 0xfee00000);
	/* The two placeholders: one summary line, not problems. */
	CHECK_EQ(ai.problems, 3);
	CHECK_EQ(ai.warn[ACPI_WARN_MADT_ENTRY], 3);
	CHECK_EQ(ai.placeholders, 2);
	CHECK_EQ(dlog.count, 4);
	CHECK_EQ(diag_count_with(&dlog, "2 placeholder entries"), 1);
	CHECK_EQ(diag_count_with(&dlog, "length != 8"), 1);
	CHECK_EQ(diag_count_with(&dlog, "length != 16"), 1);
	CHECK_EQ(diag_count_with(&dlog, "override"), 1);
}

static void test_broken_walk(void)
{
	struct madt m;
	const uint32_t E = MADT_CPU_ENABLED;

	/* Entry lengths 0 and 1: stop, keep what came before. */
	for (uint8_t bad = 0; bad < 2; bad++) {
		m.len = 0;
		madt_lapic(&m, 0, 0, E);
		const uint8_t b[8] = { 0, bad, 0, 1, 1, 0, 0, 0 };
		madt_raw(&m, b, 8);
		madt_lapic(&m, 2, 2, E);
		build(&m, 2);
		CHECK_EQ(run(), 0);
		CHECK_EQ(ai.cpu_count, 1);
		CHECK_EQ(ai.problems, 1);
		CHECK_EQ(diag_count_with(&dlog, "stopping"), 1);
		CHECK_EQ(ai.warn[ACPI_WARN_MADT_TRUNCATED], 1);
		CHECK_EQ(ai.madt_stop_offset, 44 + 8);
	}

	/* Length 0 as the very first entry: no CPU. */
	m.len = 0;
	const uint8_t zero[2] = { 9, 0 };
	madt_raw(&m, zero, 2);
	build(&m, 2);
	CHECK_EQ(run(), -1);
	CHECK_EQ(ai.cpu_count, 0);

	/* Last entry claims more bytes than the table has. */
	m.len = 0;
	madt_lapic(&m, 0, 0, E);
	madt_lapic(&m, 1, 1, E);
	const uint8_t past[4] = { 0, 8, 2, 2 };
	madt_raw(&m, past, 4);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 2);
	CHECK_EQ(diag_count_with(&dlog, "runs past"), 1);
	CHECK_EQ(ai.warn[ACPI_WARN_MADT_TRUNCATED], 1);
	CHECK_EQ(ai.madt_stop_offset, 44 + 16);

	/* One stray byte at the end: a truncated entry header. */
	m.len = 0;
	madt_lapic(&m, 0, 0, E);
	const uint8_t stray[1] = { 0 };
	madt_raw(&m, stray, 1);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 1);
	CHECK_EQ(diag_count_with(&dlog, "truncated"), 1);

	/* A MADT shorter than its fixed 44-byte part. */
	m.len = 0;
	build(&m, 2);
	sdt_header(MADT_AT, "APIC", 40);
	sdt_fix(MADT_AT);
	CHECK_EQ(run(), -1);
	CHECK(!ai.have_madt);
	CHECK_EQ(diag_count_with(&dlog, "length 40 < 44"), 1);
	CHECK_EQ(diag_count_with(&dlog, "no valid MADT"), 1);
	CHECK(ai.have_hpet); /* the rest is still parsed */
	CHECK(ai.have_pm_timer);
}

static void test_bad_tables(void)
{
	struct madt m = { .len = 0 };
	madt_lapic(&m, 0, 0, MADT_CPU_ENABLED);

	/* MADT checksum, its entries sound: used, as Linux's ACPICA does,
	 * with one warning that names both checksums. The flags byte of the
	 * one LAPIC entry changes (0x01 -> 0x41): the checksum byte (@9)
	 * should be 0x40 lower. */
	build(&m, 2);
	uint8_t good_sum = fake_at(&mem, MADT_AT)[9];
	fake_at(&mem, MADT_AT)[44 + 4] ^= 0x40;
	CHECK_EQ(run(), 0);
	CHECK(ai.have_madt);
	CHECK_EQ(ai.cpu_count, 1);
	CHECK_EQ(ai.warn[ACPI_WARN_CHECKSUM], 1);
	CHECK_EQ(ai.warn[ACPI_WARN_TABLE], 0);
	CHECK_EQ(ai.problems, 1);
	char want[96];
	snprintf(want, sizeof want, "APIC at 0x101000 incorrect checksum 0x%02x, should be 0x%02x: used",
		 good_sum, (uint8_t)(good_sum - 0x40));
	CHECK_EQ(diag_count_with(&dlog, want), 1);
	CHECK(ai.have_hpet);

	/* MADT checksum and an entry whose length runs past the table: its
	 * structure does not hold, so it is skipped, and there is no MADT. */
	build(&m, 2);
	fake_at(&mem, MADT_AT)[44 + 1] = 40;
	CHECK_EQ(run(), -1);
	CHECK(!ai.have_madt);
	CHECK_EQ(diag_count_with(&dlog, "and its structure does not hold, skipped"), 1);
	CHECK_EQ(ai.warn[ACPI_WARN_TABLE], 1);
	CHECK_EQ(ai.warn[ACPI_WARN_CHECKSUM], 0);
	/* ... and one mis-sized LAPIC entry (7 bytes) that still fits. */
	struct madt m7 = { .len = 0 };
	madt_lapic(&m7, 0, 0, MADT_CPU_ENABLED);
	madt_lapic(&m7, 1, 1, MADT_CPU_ENABLED);
	build(&m7, 2);
	fake_at(&mem, MADT_AT)[44 + 1] = 7;
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "APIC at 0x101000 bad checksum"), 1);

	/* XSDT checksum (a header byte changed): its entries are whole, so
	 * it is used, with a warning. */
	build(&m, 2);
	fake_at(&mem, XSDT_AT)[20] ^= 1;
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 1);
	CHECK_EQ(ai.problems, 1);
	CHECK_EQ(diag_count_with(&dlog, "XSDT at 0x100800 incorrect checksum"), 1);

	/* RSDT checksum with no XSDT: used the same way. */
	build(&m, 0);
	fake_at(&mem, RSDT_AT)[20] ^= 1;
	CHECK_EQ(run(), 0);
	CHECK(ai.have_madt && ai.have_hpet && ai.have_pm_timer);
	CHECK_EQ(ai.problems, 1);
	CHECK_EQ(ai.warn[ACPI_WARN_CHECKSUM], 1);

	/* Both roots with a bad checksum: the XSDT is used. */
	build(&m, 2);
	fake_at(&mem, RSDT_AT)[20] ^= 1;
	fake_at(&mem, XSDT_AT)[20] ^= 1;
	CHECK_EQ(run(), 0);
	CHECK(ai.used_xsdt);
	CHECK_EQ(ai.problems, 1);

	/* A root whose length leaves half an entry and a bad checksum:
	 * skipped, the RSDT used. */
	build(&m, 2);
	{
		uint8_t *x = fake_at(&mem, XSDT_AT);
		uint32_t l = (uint32_t)x[4] | (uint32_t)x[5] << 8;
		l += 4;
		x[4] = (uint8_t)l;
		x[5] = (uint8_t)(l >> 8);
	}
	CHECK_EQ(run(), 0);
	CHECK(!ai.used_xsdt);
	CHECK_EQ(diag_count_with(&dlog, "XSDT at 0x100800 bad checksum"), 1);

	/* Wrong signature where the RSDT should be. */
	build(&m, 0);
	memcpy(fake_at(&mem, RSDT_AT), "RSDX", 4);
	sdt_fix(RSDT_AT);
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "expected RSDT"), 1);

	/* RSDP: checksum, extended checksum, signature, no RSDT address. */
	build(&m, 2);
	fake_at(&mem, RSDP_AT)[16] ^= 1;
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "RSDP invalid: bad checksum"), 1);
	CHECK(!ai.have_madt);
	build(&m, 2);
	fake_at(&mem, RSDP_AT)[33] = 0x55; /* reserved byte, only in ext sum */
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "extended checksum"), 1);
	build(&m, 2);
	fake_at(&mem, RSDP_AT)[0] = 'X';
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "bad signature"), 1);
	build(&m, 0);
	make_rsdp(RSDP_AT, 0, 0, 0);
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "no RSDT address"), 1);
	diag_reset(&dlog);
	CHECK_EQ(acpi_parse(NULL, 0, 0, fake_map, &mem, &ai, diag_record,
			    &dlog),
		 -1);
	CHECK_EQ(ai.problems, 1);

	/* Root entries: outside memory, null, unknown table with a bad
	 * checksum, a second MADT; the good ones are still used. */
	build(&m, 0);
	sdt_header(SSDT_AT, "SSDT", 64);
	sdt_fix(SSDT_AT);
	fake_at(&mem, SSDT_AT)[50] ^= 1;
	struct madt m2 = { .len = 0 };
	madt_lapic(&m2, 9, 9, MADT_CPU_ENABLED);
	madt_place(&m2, MADT2_AT);
	const uint64_t t1[] = { 0x50000000, 0, SSDT_AT, MADT_AT, MADT2_AT,
				HPET_AT, FADT_AT };
	make_root(RSDT_AT, false, t1, 7);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 1);
	CHECK(cpu_is(0, 0, 0, MADT_CPU_ENABLED, 0));
	CHECK(ai.have_hpet && ai.have_pm_timer);
	CHECK_EQ(ai.problems, 4);
	CHECK_EQ(diag_count_with(&dlog, "0x50000000 unreadable"), 1);
	CHECK_EQ(diag_count_with(&dlog, "entry 1 is null"), 1);
	CHECK_EQ(diag_count_with(&dlog, "SSDT at 0x104000 incorrect checksum"), 1);
	CHECK_EQ(diag_count_with(&dlog, "second MADT"), 1);

	/* XSDT entries above 4 GiB and not 8-byte aligned. */
	build(&m, 2);
	const uint64_t t2[] = { 0x100000000000ull, MADT_AT };
	make_root(XSDT_AT + 4, true, t2, 2);
	make_rsdp(RSDP_AT, 2, RSDT_AT, XSDT_AT + 4);
	CHECK_EQ(run(), 0);
	CHECK(ai.used_xsdt);
	CHECK_EQ(ai.cpu_count, 1);
	CHECK_EQ(diag_count_with(&dlog, "0x100000000000 unreadable"), 1);
	CHECK(!ai.have_hpet);

	/* RSDT with a length that is not a whole number of entries. */
	build(&m, 0);
	uint8_t *rsdt = fake_at(&mem, RSDT_AT);
	put32(rsdt + 4, 36 + 3 * 4 + 2);
	sdt_fix(RSDT_AT);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.problems, 1);
	CHECK_EQ(diag_count_with(&dlog, "2 trailing bytes"), 1);
}

static void test_table_lengths(void)
{
	struct madt m = { .len = 0 };
	madt_lapic(&m, 0, 0, MADT_CPU_ENABLED);

	/* Length below the header size. */
	build(&m, 2);
	put32(fake_at(&mem, HPET_AT) + 4, 20);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_hpet);
	CHECK_EQ(diag_count_with(&dlog, "HPET at 0x102000 has length 20"), 1);

	/* Absurd length: rejected before anything is mapped that large. */
	build(&m, 2);
	put32(fake_at(&mem, FADT_AT) + 4, 0x10000000);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_pm_timer);
	CHECK_EQ(diag_count_with(&dlog, "has length 268435456"), 1);
	put32(fake_at(&mem, FADT_AT) + 4, 0xFFFFFFFFu);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.problems, 1);

	/* Plausible length that runs out of memory. */
	build(&m, 2);
	uint64_t near_end = MEM_SIZE - 64;
	madt_place(&m, near_end);
	put32(fake_at(&mem, near_end) + 4, 0x1000);
	const uint64_t t[] = { near_end, HPET_AT };
	make_root(XSDT_AT, true, t, 2);
	CHECK_EQ(run(), -1);
	CHECK_EQ(diag_count_with(&dlog, "(4096 bytes) unreadable"), 1);
	CHECK(ai.have_hpet);

	/* A header that itself crosses the end of memory. */
	const uint64_t t3[] = { MEM_SIZE - 20, MADT_AT };
	make_root(XSDT_AT, true, t3, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.problems, 1);

	/* Short HPET and short FADT. */
	build(&m, 2);
	sdt_header(HPET_AT, "HPET", 50);
	sdt_fix(HPET_AT);
	make_fadt(FADT_AT, 100, 0xb008, 4, 0, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_hpet && !ai.have_pm_timer);
	CHECK_EQ(diag_count_with(&dlog, "HPET length 50"), 1);
	CHECK_EQ(diag_count_with(&dlog, "FADT length 100"), 1);
}

static void test_cpu_limit(void)
{
	struct madt m = { .len = 0 };
	const uint32_t E = MADT_CPU_ENABLED, O = MADT_CPU_ONLINE_CAPABLE;

	/* 12 enabled + 3 online-capable: 8 kept, 7 dropped, one report. */
	for (uint8_t i = 0; i < 12; i++)
		madt_lapic(&m, i, i, E);
	for (uint8_t i = 12; i < 15; i++)
		madt_lapic(&m, i, i, O);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 8);
	CHECK_EQ(ai.enabled_count, 8);
	CHECK_EQ(ai.cpus_dropped, 7);
	CHECK(cpu_is(7, 7, 7, E, 0));
	CHECK_EQ(dlog.count, 1);
	CHECK_EQ(ai.problems, 1);
	CHECK_EQ(diag_count_with(&dlog, "7 more usable CPUs"), 1);

	/* Online-capable first in the MADT: enabled ones still win. */
	m.len = 0;
	for (uint8_t i = 0; i < 6; i++)
		madt_lapic(&m, i, i, O);
	for (uint8_t i = 6; i < 16; i++)
		madt_lapic(&m, i, i, E);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 8);
	CHECK_EQ(ai.enabled_count, 8);
	CHECK_EQ(ai.cpus_dropped, 8);
	CHECK(cpu_is(0, 6, 6, E, 0));
	bool all_enabled = true;
	for (unsigned i = 0; i < ai.cpu_count; i++)
		all_enabled &= (ai.cpus[i].flags & E) != 0;
	CHECK(all_enabled);

	/* Every CPU listed twice (type 0 then type 9): 10 CPUs, 2 dropped,
	 * including an extra online-capable listing of a dropped one. */
	m.len = 0;
	for (uint8_t i = 0; i < 10; i++)
		madt_lapic(&m, i, i, E);
	for (uint8_t i = 0; i < 10; i++)
		madt_x2apic(&m, i, E, i);
	madt_x2apic(&m, 9, O, 9);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 8);
	CHECK_EQ(ai.cpus_dropped, 2);
	CHECK_EQ(diag_count_with(&dlog, "2 more usable CPUs"), 1);

	/* Exactly at the limit: nothing dropped, no report. */
	m.len = 0;
	for (uint8_t i = 0; i < 8; i++)
		madt_lapic(&m, i, (uint8_t)(2 * i), E);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 8);
	CHECK_EQ(ai.cpus_dropped, 0);
	CHECK_EQ(dlog.count, 0);
	CHECK(cpu_is(7, 14, 7, E, 0));
}

static void test_x2apic_ids(void)
{
	struct madt m = { .len = 0 };
	const uint32_t E = MADT_CPU_ENABLED;

	madt_x2apic(&m, 0x100, E, 1);
	madt_x2apic(&m, 0x12345678, E, 0xABCDEF01);
	madt_x2apic(&m, 0xFFFFFFFE, E, 3);
	madt_lapic(&m, 4, 0xFE, E);
	build(&m, 2);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.cpu_count, 4);
	CHECK(cpu_is(0, 0x100, 1, E, 9));
	CHECK(cpu_is(1, 0x12345678, 0xABCDEF01, E, 9));
	CHECK(cpu_is(2, 0xFFFFFFFE, 3, E, 9));
	CHECK(cpu_is(3, 0xFE, 4, E, 0));
	CHECK_EQ(ai.problems, 0);
}

static void test_hpet_fadt(void)
{
	struct madt m = { .len = 0 };
	madt_lapic(&m, 0, 0, MADT_CPU_ENABLED);

	/* HPET in I/O space or at address 0: not usable. */
	build(&m, 2);
	make_hpet(HPET_AT, 1, 0xfed00000);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_hpet);
	CHECK_EQ(diag_count_with(&dlog, "HPET base (space 1"), 1);
	make_hpet(HPET_AT, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_hpet);
	/* Two HPET tables: the first one counts. */
	make_hpet(HPET_AT, 0, 0xfed00000);
	make_hpet(SSDT_AT, 0, 0xfed80000);
	const uint64_t t[] = { MADT_AT, HPET_AT, SSDT_AT, FADT_AT };
	make_root(XSDT_AT, true, t, 4);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.hpet_phys, 0xfed00000);
	CHECK_EQ(ai.problems, 0);

	/* ACPI 1.0 FADT (116 bytes): legacy block, 24-bit timer. */
	build(&m, 2);
	make_fadt(FADT_AT, 116, 0x408, 4, 0, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(ai.have_pm_timer);
	CHECK_EQ(ai.pm_timer_port, 0x408);
	CHECK(!ai.pm_timer_32bit);

	/* X_PM_TMR_BLK not in I/O space, or zero: legacy block used. */
	make_fadt(FADT_AT, 276, 0xb008, 4, TMR_VAL_EXT, 0, 0xfe000000);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.pm_timer_port, 0xb008);
	CHECK(ai.pm_timer_32bit);
	make_fadt(FADT_AT, 276, 0xb008, 4, 0, 1, 0);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.pm_timer_port, 0xb008);
	/* FADT of 219 bytes: the X field is not there. */
	make_fadt(FADT_AT, 219, 0xb008, 4, 0, 0, 0);
	fake_at(&mem, FADT_AT)[208] = 1;
	put64(fake_at(&mem, FADT_AT) + 212, 0x608);
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK_EQ(ai.pm_timer_port, 0xb008);

	/* Only the X block. */
	make_fadt(FADT_AT, 276, 0, 4, 0, 1, 0x1808);
	CHECK_EQ(run(), 0);
	CHECK(ai.have_pm_timer);
	CHECK_EQ(ai.pm_timer_port, 0x1808);

	/* PM_TMR_LEN wrong; no timer at all; hardware-reduced; a port
	 * beyond 16 bits. */
	make_fadt(FADT_AT, 276, 0xb008, 0, 0, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_pm_timer);
	CHECK_EQ(diag_count_with(&dlog, "PM_TMR_LEN 0"), 1);
	make_fadt(FADT_AT, 276, 0, 0, 0, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_pm_timer);
	CHECK_EQ(ai.problems, 0);
	make_fadt(FADT_AT, 276, 0xb008, 4, 1u << 20, 0, 0);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_pm_timer);
	CHECK_EQ(ai.problems, 0);
	make_fadt(FADT_AT, 276, 0, 4, 0, 1, 0x10000);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_pm_timer);
	CHECK_EQ(diag_count_with(&dlog, "outside I/O space"), 1);

	/* The reset register (exit=reboot): only with RESET_REG_SUP, in
	 * memory or I/O space, and in a FADT long enough to hold it. */
	make_fadt(FADT_AT, 276, 0xb008, 4, 1u << 10, 0, 0);
	uint8_t *f = fake_at(&mem, FADT_AT);
	f[116] = 1, put64(f + 120, 0xcf9), f[128] = 0x06;
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK(ai.have_reset_reg);
	CHECK_EQ(ai.reset_space, 1);
	CHECK_EQ(ai.reset_addr, 0xcf9);
	CHECK_EQ(ai.reset_value, 0x06);
	put32(f + 112, 0); /* RESET_REG_SUP clear */
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_reset_reg);
	put32(f + 112, (1u << 10) | (1u << 20)); /* hardware-reduced: still read */
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK(ai.have_reset_reg);
	f[116] = 2; /* PCI configuration space: not used, said */
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_reset_reg);
	CHECK_EQ(diag_count_with(&dlog, "reset register (space 2"), 1);
	f[116] = 1, put64(f + 120, 0x10000); /* beyond I/O space */
	sdt_fix(FADT_AT);
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_reset_reg);
	make_fadt(FADT_AT, 128, 0xb008, 4, 1u << 10, 0, 0); /* too short for RESET_VALUE */
	CHECK_EQ(run(), 0);
	CHECK(!ai.have_reset_reg);
}

static void test_rsdp_valid_and_scan(void)
{
	memset(mem.bytes, 0, mem.size);
	make_rsdp(0x1000, 0, 0x2000, 0);
	const uint8_t *r0 = fake_at(&mem, 0x1000);
	CHECK(acpi_rsdp_valid(r0, 20));
	CHECK(!acpi_rsdp_valid(r0, 19));
	CHECK(!acpi_rsdp_valid(NULL, 36));

	make_rsdp(0x1100, 2, 0x2000, 0x3000);
	const uint8_t *r2 = fake_at(&mem, 0x1100);
	CHECK(acpi_rsdp_valid(r2, 36));
	CHECK(!acpi_rsdp_valid(r2, 35)); /* revision 2 needs its 36 bytes */
	CHECK(!acpi_rsdp_valid(r2, 20));
	/* Length field beyond what is readable, or below 36. */
	uint8_t *w = fake_at(&mem, 0x1100);
	put32(w + 20, 40);
	fix_sum(w, 20, 8);
	fix_sum(w, 40, 32);
	CHECK(acpi_rsdp_valid(r2, 40));
	CHECK(!acpi_rsdp_valid(r2, 39));
	put32(w + 20, 20);
	fix_sum(w, 20, 8);
	CHECK(!acpi_rsdp_valid(r2, 36));

	/* Scan: misaligned and broken candidates skipped, EBDA first. */
	memset(mem.bytes, 0, mem.size);
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0), 0);
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0x9fc00), 0);
	make_rsdp(0xE0008, 0, 0x100000, 0);     /* not on a 16-byte step */
	make_rsdp(0xE0100, 0, 0x100000, 0);
	fake_at(&mem, 0xE0100)[16] ^= 1;       /* bad checksum */
	make_rsdp(0xE0200, 2, 0x100000, 0x200000);
	fake_at(&mem, 0xE0200)[33] = 1;        /* bad extended checksum */
	make_rsdp(0xF0010, 2, 0x100000, 0x200000);
	make_rsdp(0xF0040, 0, 0x100000, 0);     /* valid, but later */
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0), 0xF0010);
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0x9fc00), 0xF0010);
	make_rsdp(0x9fc00 + 0x3f0, 0, 0x100000, 0); /* last EBDA slot */
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0x9fc00), 0x9fc00 + 0x3f0);
	make_rsdp(0x9fc00 + 0x400, 0, 0x100000, 0); /* past the first KiB */
	fake_at(&mem, 0x9fc00 + 0x3f0)[0] = 0;
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0x9fc00), 0xF0010);

	/* EBDA at the very end of memory: only its KiB can be mapped. */
	memset(mem.bytes, 0, mem.size);
	make_rsdp(MEM_SIZE - 1024 + 0x100, 0, 0x100000, 0);
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, MEM_SIZE - 1024),
		 MEM_SIZE - 1024 + 0x100);

	/* An RSDP in the last slots below 1 MiB. */
	memset(mem.bytes, 0, mem.size);
	make_rsdp(0xFFFE0, 0, 0x100000, 0);
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0), 0xFFFE0);
	/* EBDA pointer outside memory: BIOS area still scanned. */
	CHECK_EQ(acpi_scan_rsdp(fake_map, &mem, 0x80000000), 0xFFFE0);
}

void test_acpi(void)
{
	fake_mem_init(&mem, 0, MEM_SIZE);
	RUN_CASE(test_valid);
	RUN_CASE(test_flags_and_duplicates);
	RUN_CASE(test_bad_entries);
	RUN_CASE(test_broken_walk);
	RUN_CASE(test_bad_tables);
	RUN_CASE(test_table_lengths);
	RUN_CASE(test_cpu_limit);
	RUN_CASE(test_x2apic_ids);
	RUN_CASE(test_hpet_fadt);
	RUN_CASE(test_rsdp_valid_and_scan);
	fake_mem_free(&mem);
}
