/* SPDX-License-Identifier: MIT */
/* ACPI table walker: RSDP -> RSDT/XSDT -> MADT, HPET, FADT (ACPI 6.5
 * chapter 5.2). Fields are read byte-wise: tables are byte-packed and
 * XSDT entries are only 4-byte aligned. */
#include "kernel/acpi.h"

#include "lib/bytes.h"

#include <stdarg.h>
#include <stddef.h>

/* System description table header (§5.2.6): Signature 4 @0, Length u32
 * @4, Revision @8, Checksum @9, OEMID @10, ... 36 bytes in all. */
#define SDT_HEADER_LEN 36
/* Far above any real MADT/HPET/FADT/RSDT/XSDT; bounds a corrupt length. */
#define SDT_MAX_LEN (1u << 20)

/* RSDP (§5.2.5.3): Signature @0, Checksum @8 (first 20 bytes), OEMID @9,
 * Revision @15, RsdtAddress u32 @16, Length u32 @20, XsdtAddress u64
 * @24, Extended Checksum @32 (whole length); 36 bytes for revision 2. */
#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36

/* MADT (§5.2.12): LAPIC address u32 @36, Flags u32 @40, entries @44. */
#define MADT_ENTRIES 44
#define MADT_LAPIC 0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9

static uint8_t sum8(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

static bool bytes_eq(const uint8_t *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)s[i])
			return false;
	return true;
}

const char *acpi_rsdp_problem(const void *rsdp, size_t len)
{
	const uint8_t *p = rsdp;

	if (!p || len < RSDP_V1_LEN)
		return "too short";
	if (!bytes_eq(p, "RSD PTR ", 8))
		return "bad signature";
	if (sum8(p, RSDP_V1_LEN))
		return "bad checksum";
	if (p[15] >= 2) {
		if (len < RSDP_V2_LEN)
			return "too short for revision 2";
		uint32_t l = rd32(p + 20);
		if (l < RSDP_V2_LEN || l > len)
			return "bad length";
		if (sum8(p, l))
			return "bad extended checksum";
	}
	return NULL;
}

bool acpi_rsdp_valid(const void *rsdp, size_t len)
{
	return acpi_rsdp_problem(rsdp, len) == NULL;
}

/* Candidates start on 16-byte steps below base + window; len bytes at p
 * (mapped from base) are readable, so each is checked with what remains. */
static uint64_t scan_area(const uint8_t *p, uint64_t base, size_t window, size_t len)
{
	if (!p)
		return 0;
	for (size_t off = 0; off < window && off + RSDP_V1_LEN <= len;
	     off += 16)
		if (acpi_rsdp_valid(p + off, len - off))
			return base + off;
	return 0;
}

uint64_t acpi_scan_rsdp(phys_map_fn map, void *map_ctx, uint64_t ebda_phys)
{
	uint64_t r = 0;

	/* §5.2.5.1: an RSDP starting in the first KiB of the EBDA (it may
	 * end a little past it, so map a v2 RSDP's worth more, or just the
	 * KiB if that fails), then the BIOS ROM area, where it lies wholly. */
	if (ebda_phys) {
		size_t len = 1024 - 16 + RSDP_V2_LEN;
		const uint8_t *p = map(map_ctx, ebda_phys, len);
		if (!p) {
			len = 1024;
			p = map(map_ctx, ebda_phys, len);
		}
		r = scan_area(p, ebda_phys, 1024, len);
	}
	if (!r)
		r = scan_area(map(map_ctx, 0xE0000, 0x20000), 0xE0000, 0x20000, 0x20000);
	return r;
}

struct walk {
	struct acpi_info *out;
	phys_map_fn map;
	void *map_ctx;
	diag_fn diag;
	void *diag_ctx;
	bool seen_hpet, seen_fadt;
};

const char *acpi_warn_name(enum acpi_warn kind)
{
	switch (kind) {
	case ACPI_WARN_TABLE: return "acpi_table_skipped";
	case ACPI_WARN_MADT_TRUNCATED: return "madt_truncated";
	case ACPI_WARN_MADT_ENTRY: return "madt_bad_entry";
	case ACPI_WARN_MADT_DUPLICATE: return "madt_duplicate";
	case ACPI_WARN_CPUS_DROPPED: return "cpus_beyond_max";
	case ACPI_WARN_CHECKSUM: return "acpi_bad_checksum";
	default: return "acpi_other";
	}
}

__attribute__((format(printf, 3, 4)))
static void report(struct walk *w, enum acpi_warn kind, const char *fmt, ...)
{
	va_list ap;

	w->out->problems++;
	w->out->warn[kind]++;
	va_start(ap, fmt);
	diag_vprintf(w->diag, w->diag_ctx, fmt, ap);
	va_end(ap);
}

static void sig_text(char out[5], const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
	out[4] = '\0';
}

/* Does a table's structure hold, checksum aside? What apstart reads of it
 * must be there: the MADT's entries exactly fill it, each of a sane length
 * (the sizes of the types read, cited where each is parsed); a root table
 * is whole entries; HPET and FADT reach the fields read (56, 116 bytes).
 * Other tables are not read: their header is all there is to hold. */
static bool structure_holds(const uint8_t *t, uint32_t len)
{
	if (bytes_eq(t, "APIC", 4)) {
		if (len < MADT_ENTRIES)
			return false;
		size_t off = MADT_ENTRIES;
		while (off < len) {
			if (len - off < 2)
				return false;
			uint8_t type = t[off], elen = t[off + 1];
			if (elen < 2 || elen > len - off ||
			    (type == MADT_LAPIC && elen != 8) ||
			    (type == MADT_X2APIC && elen != 16) ||
			    (type == MADT_LAPIC_OVERRIDE && elen != 12))
				return false;
			off += elen;
		}
		return true;
	}
	if (bytes_eq(t, "XSDT", 4))
		return (len - SDT_HEADER_LEN) % 8 == 0;
	if (bytes_eq(t, "RSDT", 4))
		return (len - SDT_HEADER_LEN) % 4 == 0;
	if (bytes_eq(t, "HPET", 4))
		return len >= 56;
	if (bytes_eq(t, "FACP", 4))
		return len >= 116;
	return true;
}

/* Map the table at phys: header first, then its full validated length.
 * want is the required signature or NULL. NULL return: reported. */
static const uint8_t *load_table(struct walk *w, uint64_t phys, const char *want, uint32_t *len_out)
{
	unsigned long long pa = phys;
	const uint8_t *h = NULL;

	if (phys <= UINT64_MAX - SDT_HEADER_LEN)
		h = w->map(w->map_ctx, phys, SDT_HEADER_LEN);
	if (!h) {
		report(w, ACPI_WARN_TABLE, "acpi: table at 0x%llx unreadable, skipped", pa);
		return NULL;
	}
	char sig[5];
	sig_text(sig, h);
	if (want && !bytes_eq(h, want, 4)) {
		report(w, ACPI_WARN_TABLE, "acpi: expected %s at 0x%llx, found '%s', skipped",
		       want, pa, sig);
		return NULL;
	}
	uint32_t len = rd32(h + 4);
	if (len < SDT_HEADER_LEN || len > SDT_MAX_LEN) {
		report(w, ACPI_WARN_TABLE, "acpi: %s at 0x%llx has length %u, skipped", sig, pa,
		       len);
		return NULL;
	}
	const uint8_t *t = NULL;
	if (phys <= UINT64_MAX - len)
		t = w->map(w->map_ctx, phys, len);
	if (!t) {
		report(w, ACPI_WARN_TABLE, "acpi: %s at 0x%llx (%u bytes) unreadable, skipped",
		       sig, pa, len);
		return NULL;
	}
	/* Re-read through the full mapping: the length checked must be the
	 * length the checksum covers. */
	if (rd32(t + 4) != len) {
		report(w, ACPI_WARN_TABLE, "acpi: %s at 0x%llx changed its length, skipped",
		       sig, pa);
		return NULL;
	}
	/* A bad checksum alone does not make a table unusable: shipped
	 * firmware has such tables, and Linux's ACPICA warns ("Incorrect
	 * checksum in table [APIC] - 0x.., should be 0x..") and uses them
	 * (acpi_ut_verify_checksum(), ACPI_CHECKSUM_ABORT off). apstart does
	 * the same when the structure holds, and counts it (@warn
	 * what=acpi_bad_checksum); garbage that fails both is skipped. */
	uint8_t sum = sum8(t, len);
	if (sum) {
		unsigned have = t[9], should = (uint8_t)(t[9] - sum);
		if (!structure_holds(t, len)) {
			report(w, ACPI_WARN_TABLE, "acpi: %s at 0x%llx bad checksum (0x%02x, "
			       "should be 0x%02x) and its structure does not hold, skipped",
			       sig, pa, have, should);
			return NULL;
		}
		report(w, ACPI_WARN_CHECKSUM, "acpi: %s at 0x%llx incorrect checksum 0x%02x, "
		       "should be 0x%02x: used, as Linux does (its structure holds)",
		       sig, pa, have, should);
	}
	*len_out = len;
	return t;
}

/* Decoded Processor Local APIC / x2APIC entry. A placeholder is an
 * entry firmware writes for a CPU slot that has no CPU (LAPIC ID 0xFF,
 * x2APIC ID 0xFFFFFFFF: the broadcast IDs, never a CPU's); servers and
 * laptops list dozens, so they are counted, not reported one by one. */
enum cpu_entry { ENTRY_OTHER, ENTRY_BAD, ENTRY_PLACEHOLDER, ENTRY_CPU };

static enum cpu_entry decode_cpu(const uint8_t *e, struct acpi_cpu *c, const char **why)
{
	uint8_t type = e[0], len = e[1];

	if (type == MADT_LAPIC) {
		/* §5.2.12.2: UID u8 @2, APIC ID u8 @3, Flags u32 @4. */
		if (len != 8) {
			*why = "length != 8";
			return ENTRY_BAD;
		}
		if (e[3] == 0xFF)
			return ENTRY_PLACEHOLDER;
		*c = (struct acpi_cpu){ e[3], e[2], rd32(e + 4), type };
		return ENTRY_CPU;
	}
	if (type == MADT_X2APIC) {
		/* §5.2.12.12: x2APIC ID u32 @4, Flags u32 @8, UID u32 @12. */
		if (len != 16) {
			*why = "length != 16";
			return ENTRY_BAD;
		}
		if (rd32(e + 4) == 0xFFFFFFFFu)
			return ENTRY_PLACEHOLDER;
		*c = (struct acpi_cpu){ rd32(e + 4), rd32(e + 12), rd32(e + 8), type };
		return ENTRY_CPU;
	}
	return ENTRY_OTHER;
}

/* Table 5.37: an entry with neither Enabled nor Online Capable set can
 * never be brought up. */
static bool usable(const struct acpi_cpu *c)
{
	return c->flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE);
}

static bool stored(const struct acpi_info *o, uint32_t apic_id)
{
	for (uint32_t i = 0; i < o->cpu_count; i++)
		if (o->cpus[i].apic_id == apic_id)
			return true;
	return false;
}

/* Is there a usable entry for apic_id in [MADT_ENTRIES, stop) with the
 * given enabled state? Used only once cpus[] is full, to keep counting
 * distinct CPUs. */
static bool listed(const uint8_t *t, size_t stop, uint32_t apic_id, bool enabled)
{
	const char *why;
	struct acpi_cpu c;

	for (size_t off = MADT_ENTRIES; off < stop; off += t[off + 1])
		if (decode_cpu(t + off, &c, &why) == ENTRY_CPU && usable(&c) &&
		    c.apic_id == apic_id &&
		    !!(c.flags & MADT_CPU_ENABLED) == enabled)
			return true;
	return false;
}

/* Does a CPU entry for apic_id come before stop? */
static bool listed_before(const uint8_t *t, size_t stop, uint32_t apic_id)
{
	const char *why;
	struct acpi_cpu c;

	for (size_t off = MADT_ENTRIES; off < stop; off += t[off + 1])
		if (decode_cpu(t + off, &c, &why) == ENTRY_CPU && c.apic_id == apic_id)
			return true;
	return false;
}

static void parse_madt(struct walk *w, const uint8_t *t, uint32_t len, uint64_t phys)
{
	struct acpi_info *o = w->out;
	unsigned long long pa = phys;

	if (len < MADT_ENTRIES) {
		report(w, ACPI_WARN_TABLE, "acpi: MADT at 0x%llx length %u < 44, skipped", pa, len);
		return;
	}
	o->have_madt = true;
	o->lapic_phys = rd32(t + 36);
	o->madt_flags = rd32(t + 40);

	/* First walk: find how far the entry list is sound (end), report
	 * bad entries and apply the LAPIC address override. */
	size_t end = MADT_ENTRIES;
	uint32_t placeholders = 0;
	for (size_t off = MADT_ENTRIES; off < len;) {
		if (len - off < 2) {
			report(w, ACPI_WARN_MADT_TRUNCATED, "acpi: MADT entry at offset %zu truncated, stopping",
			       off);
			break;
		}
		const uint8_t *e = t + off;
		uint8_t type = e[0], elen = e[1];
		if (elen < 2) {
			report(w, ACPI_WARN_MADT_TRUNCATED, "acpi: MADT entry type %u at offset %zu has length %u, stopping",
			       type, off, elen);
			break;
		}
		if (elen > len - off) {
			report(w, ACPI_WARN_MADT_TRUNCATED, "acpi: MADT entry type %u at offset %zu runs past the table end, stopping",
			       type, off);
			break;
		}
		struct acpi_cpu c;
		const char *why = "";
		if (type == MADT_LAPIC_OVERRIDE) {
			/* §5.2.12.8: reserved u16 @2, address u64 @4. */
			if (elen == 12)
				o->lapic_phys = rd64(e + 4);
			else
				report(w, ACPI_WARN_MADT_ENTRY, "acpi: MADT LAPIC override at offset %zu length %u != 12, skipped",
				       off, elen);
		} else {
			enum cpu_entry k = decode_cpu(e, &c, &why);
			if (k == ENTRY_BAD)
				report(w, ACPI_WARN_MADT_ENTRY, "acpi: MADT entry type %u at offset %zu: %s, skipped",
				       type, off, why);
			else if (k == ENTRY_PLACEHOLDER)
				placeholders++;
			else if (k == ENTRY_CPU && listed_before(t, off, c.apic_id))
				/* The x2APIC structure's section: a CPU is listed
				 * once, as type 0 below ID 255, as type 9 above. */
				report(w, ACPI_WARN_MADT_DUPLICATE,
				       "acpi: MADT entry type %u at offset %zu lists APIC ID %u again, "
				       "taken as the same CPU", type, off, c.apic_id);
			else if (k == ENTRY_CPU && !usable(&c))
				o->cpus_unusable++; /* e.g. QEMU's not-plugged CPUs */
		}
		off += elen;
		end = off;
	}
	if (end < len)
		o->madt_stop_offset = (uint32_t)end;
	if (placeholders) {
		o->placeholders += placeholders;
		/* Information, not a problem: diag without counting. */
		diag_printf(w->diag, w->diag_ctx,
			    "acpi: MADT: %u placeholder entries (LAPIC ID 0xFF / x2APIC "
			    "ID 0xFFFFFFFF: slots without a CPU) ignored", placeholders);
	}

	/* Enabled CPUs first, in MADT order, then online-capable ones. The
	 * same APIC ID listed twice (e.g. as type 0 and type 9) is one CPU;
	 * if either entry says enabled, it counts as enabled. */
	uint32_t dropped = 0;
	for (int pass = 0; pass < 2; pass++) {
		bool want_enabled = pass == 0;
		for (size_t off = MADT_ENTRIES; off < end; off += t[off + 1]) {
			struct acpi_cpu c;
			const char *why;
			if (decode_cpu(t + off, &c, &why) != ENTRY_CPU || !usable(&c) ||
			    !!(c.flags & MADT_CPU_ENABLED) != want_enabled ||
			    stored(o, c.apic_id))
				continue;
			if (o->cpu_count < APSTART_MAX_CPUS) {
				o->cpus[o->cpu_count++] = c;
				if (want_enabled)
					o->enabled_count++;
				continue;
			}
			/* Full: count each distinct CPU once. */
			if (listed(t, off, c.apic_id, want_enabled) ||
			    (!want_enabled && listed(t, end, c.apic_id, true)))
				continue;
			dropped++;
		}
	}
	if (dropped) {
		o->cpus_dropped += dropped;
		report(w, ACPI_WARN_CPUS_DROPPED, "acpi: MADT lists %u more usable CPUs than APSTART_MAX_CPUS=%u, ignored",
		       dropped, (unsigned)APSTART_MAX_CPUS);
	}
}

/* IA-PC HPET Specification 1.0a, table 3: Event Timer Block ID @36, Base
 * Address (GAS) @40: address space id @40, address u64 @44; 56 bytes. */
static void parse_hpet(struct walk *w, const uint8_t *t, uint32_t len)
{
	struct acpi_info *o = w->out;

	if (len < 56) {
		report(w, ACPI_WARN_OTHER, "acpi: HPET length %u < 56, skipped", len);
		return;
	}
	uint8_t space = t[40];
	uint64_t addr = rd64(t + 44);
	if (space != 0 || addr == 0) {
		report(w, ACPI_WARN_OTHER, "acpi: HPET base (space %u, address 0x%llx) not usable",
		       space, (unsigned long long)addr);
		return;
	}
	o->have_hpet = true;
	o->hpet_phys = addr;
}

/* FADT (§5.2.9, Table 5.9): PM_TMR_BLK u32 @76, PM_TMR_LEN u8 @91, Flags
 * u32 @112 (bit 8 TMR_VAL_EXT, bit 20 HW_REDUCED_ACPI), X_PM_TMR_BLK GAS
 * @208 (space id @208, address u64 @212) for lengths >= 220. */
static void parse_fadt(struct walk *w, const uint8_t *t, uint32_t len)
{
	struct acpi_info *o = w->out;

	if (len < 116) {
		report(w, ACPI_WARN_OTHER, "acpi: FADT length %u < 116, no PM timer", len);
		return;
	}
	uint32_t flags = rd32(t + 112);
	/* RESET_REG_SUP (Flags bit 10): RESET_REG, a GAS @116 (space id
	 * @116, address u64 @120), RESET_VALUE u8 @128 (§4.8.3.6). */
	if ((flags & (1u << 10)) && len >= 129) {
		uint8_t space = t[116];
		uint64_t addr = rd64(t + 120);
		if ((space == 0 || space == 1) && addr && (space == 0 || addr <= 0xFFFF)) {
			o->have_reset_reg = true;
			o->reset_space = space;
			o->reset_addr = addr;
			o->reset_value = t[128];
		} else {
			report(w, ACPI_WARN_OTHER, "acpi: FADT reset register (space %u, address "
			       "0x%llx) not usable", space, (unsigned long long)addr);
		}
	}
	if (flags & (1u << 20))
		return; /* hardware-reduced ACPI: no PM timer (§4.1) */

	uint64_t port = rd32(t + 76);
	/* GAS space id 1 = system I/O (Table 5.1). */
	if (len >= 220 && t[208] == 1 && rd64(t + 212) != 0)
		port = rd64(t + 212);
	if (port == 0)
		return; /* no PM timer */
	if (t[91] != 4) {
		report(w, ACPI_WARN_OTHER, "acpi: FADT PM_TMR_LEN %u != 4, PM timer ignored",
		       t[91]);
		return;
	}
	if (port > 0xFFFF) {
		report(w, ACPI_WARN_OTHER, "acpi: PM timer port 0x%llx outside I/O space, ignored",
		       (unsigned long long)port);
		return;
	}
	o->have_pm_timer = true;
	o->pm_timer_port = (uint32_t)port;
	o->pm_timer_32bit = flags & (1u << 8);
}

/* RSDT (§5.2.7): u32 entries; XSDT (§5.2.8): u64 entries, from 36. */
static void walk_root(struct walk *w, const uint8_t *root, uint32_t len, unsigned esize)
{
	uint32_t n = (len - SDT_HEADER_LEN) / esize;

	if ((len - SDT_HEADER_LEN) % esize)
		report(w, ACPI_WARN_OTHER, "acpi: %s has %u trailing bytes, ignored",
		       esize == 8 ? "XSDT" : "RSDT",
		       (len - SDT_HEADER_LEN) % esize);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = root + SDT_HEADER_LEN + (size_t)i * esize;
		uint64_t phys = esize == 8 ? rd64(e) : rd32(e);
		uint32_t tlen;
		if (!phys) {
			report(w, ACPI_WARN_OTHER, "acpi: %s entry %u is null, skipped",
			       esize == 8 ? "XSDT" : "RSDT", i);
			continue;
		}
		const uint8_t *t = load_table(w, phys, NULL, &tlen);
		if (!t)
			continue;
		if (bytes_eq(t, "APIC", 4)) {
			if (w->out->have_madt)
				report(w, ACPI_WARN_OTHER, "acpi: second MADT at 0x%llx ignored",
				       (unsigned long long)phys);
			else
				parse_madt(w, t, tlen, phys);
		} else if (bytes_eq(t, "HPET", 4) && !w->seen_hpet) {
			/* Only the first timer block is used. */
			w->seen_hpet = true;
			parse_hpet(w, t, tlen);
		} else if (bytes_eq(t, "FACP", 4) && !w->seen_fadt) {
			w->seen_fadt = true;
			parse_fadt(w, t, tlen);
		}
	}
}

int acpi_parse(const void *rsdp, size_t rsdp_len, uint64_t rsdp_phys,
	       phys_map_fn map, void *map_ctx, struct acpi_info *out,
	       diag_fn diag, void *diag_ctx)
{
	struct walk w = { out, map, map_ctx, diag, diag_ctx, false, false };
	const uint8_t *p = rsdp;

	/* All but cpus[], which cpu_count bounds (kernel/acpi.h). */
	__builtin_memset(out, 0, offsetof(struct acpi_info, cpus));
	out->rsdp_phys = rsdp_phys;

	const char *why = acpi_rsdp_problem(p, rsdp_len);
	if (why) {
		report(&w, ACPI_WARN_OTHER, "acpi: RSDP invalid: %s", why);
		return -1;
	}
	out->revision = p[15];
	int n = 0;
	for (; n < 6 && p[9 + n]; n++)
		out->oem_id[n] = (p[9 + n] >= 0x20 && p[9 + n] < 0x7f)
					 ? (char)p[9 + n] : '?';
	out->oem_id[n] = '\0';

	/* The RSDP's section: ACPI 2.0+ systems should use the XSDT; the
	 * RSDT is the fallback if the XSDT is absent or fails validation. */
	const uint8_t *root = NULL;
	uint32_t root_len = 0;
	if (out->revision >= 2 && rd64(p + 24)) {
		root = load_table(&w, rd64(p + 24), "XSDT", &root_len);
		if (root) {
			out->used_xsdt = true;
			walk_root(&w, root, root_len, 8);
		}
	}
	if (!root) {
		uint32_t rsdt = rd32(p + 16);
		if (rsdt)
			root = load_table(&w, rsdt, "RSDT", &root_len);
		else
			report(&w, ACPI_WARN_OTHER, "acpi: RSDP has no RSDT address");
		if (root)
			walk_root(&w, root, root_len, 4);
	}

	if (!out->have_madt) {
		report(&w, ACPI_WARN_OTHER, "acpi: no valid MADT found");
		return -1;
	}
	if (out->cpu_count == 0) {
		report(&w, ACPI_WARN_OTHER, "acpi: MADT lists no usable CPU");
		return -1;
	}
	return 0;
}
