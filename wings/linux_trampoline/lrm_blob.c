/* SPDX-License-Identifier: MIT */
/* Linux's realmode blob checked against the layouts verified here: every
 * header word inside the blob and where its section puts it, the header's
 * words in the linear relocations, the relocation tables sorted and inside
 * the blob, trampoline_header and the pgd zero (.bss), the end signature,
 * and the first instructions of trampoline_start, which pin the layout's
 * trampoline_header (Linux's code addresses its fields). */
#include "wings/linux_trampoline/lrm_blob.h"

#include <stdarg.h>

#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/kstring.h"

/* The table of verified layouts. A new one is added only after a real
 * blob of it was checked (docs/linux-trampoline.md, "Layouts verified");
 * an id is never reused. */
const struct lrm_layout lrm_layouts[] = {
	{ LRM_LAYOUT_LINUX_6_1_X86_64, "linux-6.1-x86_64",
	  "CONFIG_X86_64 CONFIG_AMD_MEM_ENCRYPT CONFIG_ACPI_SLEEP, no tr_lock",
	  "Debian 12 linux-image-6.1.0-57-amd64 (6.1.192-3); linux-source-6.1 built with its config",
	  64, 11,
	  { RMH_TEXT_START, RMH_RO_END, RMH_TRAMPOLINE_START, RMH_TRAMPOLINE_HEADER,
	    RMH_SEV_ES_TRAMPOLINE_START, RMH_TRAMPOLINE_START64, RMH_TRAMPOLINE_PGD,
	    RMH_WAKEUP_START, RMH_WAKEUP_HEADER, RMH_MACHINE_REAL_RESTART_ASM,
	    RMH_MACHINE_REAL_RESTART_SEG },
	  24, 0 },
	{ LRM_LAYOUT_LINUX_6_12_X86_64, "linux-6.12-x86_64",
	  "CONFIG_X86_64 CONFIG_AMD_MEM_ENCRYPT CONFIG_ACPI_SLEEP, tr_lock (6.6+)",
	  "Debian 12 linux-image-6.12.117+deb12-amd64 (6.12.117-1~deb12u1)",
	  64, 11,
	  { RMH_TEXT_START, RMH_RO_END, RMH_TRAMPOLINE_START, RMH_TRAMPOLINE_HEADER,
	    RMH_SEV_ES_TRAMPOLINE_START, RMH_TRAMPOLINE_START64, RMH_TRAMPOLINE_PGD,
	    RMH_WAKEUP_START, RMH_WAKEUP_HEADER, RMH_MACHINE_REAL_RESTART_ASM,
	    RMH_MACHINE_REAL_RESTART_SEG },
	  28, 1 },
	{ LRM_LAYOUT_LINUX_6_1_I386, "linux-6.1-i386",
	  "CONFIG_X86_32 CONFIG_ACPI_SLEEP",
	  "Debian 12 linux-image-6.1.0-57-686 (6.1.192-3, i386)",
	  32, 7,
	  { RMH_TEXT_START, RMH_RO_END, RMH_TRAMPOLINE_START, RMH_TRAMPOLINE_HEADER,
	    RMH_WAKEUP_START, RMH_WAKEUP_HEADER, RMH_MACHINE_REAL_RESTART_ASM },
	  12, 0 },
};
const unsigned lrm_layout_count = sizeof lrm_layouts / sizeof lrm_layouts[0];

/* x86_64's __KERNEL32_CS (GDT entry 1, arch/x86/include/asm/segment.h):
 * the last word of the 64-bit header, not relocated. */
#define KERNEL32_CS 0x08u
/* Bytes of struct wakeup_header up to and with its signature. */
#define WAKEUP_HEADER_BYTES (LRM_WAKEUP_SIGNATURE_AT + 4u)

const struct lrm_layout *lrm_layout_by_id(uint32_t id)
{
	for (unsigned i = 0; i < lrm_layout_count; i++)
		if (lrm_layouts[i].id == id)
			return &lrm_layouts[i];
	return NULL;
}

int lrm_why(char *why, const char *fmt, ...)
{
	if (why) {
		va_list ap;
		va_start(ap, fmt);
		fmt_vsnprintf(why, LRM_WHY_SIZE, fmt, ap);
		va_end(ap);
	}
	return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------- relocations */

/* One table's n entries, each naming a word of width bytes: inside the
 * blob, sorted, not overlapping (as Linux's relocs tool writes them). */
static int table_ok(const uint8_t *entry, uint32_t n, unsigned width,
		    const char *kind, size_t blob_size, char *why)
{
	uint64_t next = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = rd32(entry + 4 * (size_t)i);
		if ((uint64_t)off + width > blob_size)
			return lrm_why(why, "%s relocation %u at 0x%x: outside the blob (0x%zx bytes)",
				    kind, (unsigned)i, (unsigned)off, blob_size);
		if (off < next)
			return lrm_why(why, "%s relocation %u at 0x%x: not after the one before",
				    kind, (unsigned)i, (unsigned)off);
		next = (uint64_t)off + width;
	}
	return 1;
}

size_t lrm_relocs_parse(const uint8_t *relocs, size_t avail, size_t blob_size,
			char *why)
{
	if (avail < 8)
		return lrm_why(why, "relocations: %zu bytes, fewer than the two counts", avail);
	uint32_t nseg = rd32(relocs);
	/* Each entry names a distinct 2- or 4-byte word of the blob. */
	if (nseg > blob_size / 2)
		return lrm_why(why, "relocations: %u segment entries for a blob of %zu bytes",
			    (unsigned)nseg, blob_size);
	size_t at = 4 + 4 * (size_t)nseg;
	if (at + 4 > avail)
		return lrm_why(why, "relocations: %u segment entries, the tables end after %zu bytes",
			    (unsigned)nseg, avail);
	uint32_t nlin = rd32(relocs + at);
	if (nlin > blob_size / 4)
		return lrm_why(why, "relocations: %u linear entries for a blob of %zu bytes",
			    (unsigned)nlin, blob_size);
	size_t total = at + 4 + 4 * (size_t)nlin;
	if (total > avail)
		return lrm_why(why, "relocations: %u + %u entries need %zu bytes, there are %zu",
			    (unsigned)nseg, (unsigned)nlin, total, avail);
	if (!table_ok(relocs + 4, nseg, 2, "segment", blob_size, why) ||
	    !table_ok(relocs + at + 4, nlin, 4, "linear", blob_size, why))
		return 0;
	return total;
}

/* The parsed tables of a blob already checked by lrm_relocs_parse. */
struct relocs {
	const uint8_t *seg, *lin; /* the first entry of each */
	uint32_t nseg, nlin;
};

static int has_entry(const uint8_t *table, uint32_t n, uint32_t off)
{
	uint32_t lo = 0, hi = n; /* sorted: binary search */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, v = rd32(table + 4 * (size_t)mid);
		if (v == off)
			return 1;
		if (v < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Does some linearly relocated word of the blob hold value (an address the
 * code uses, e.g. pa_tr_cr4)? */
static int linear_value_used(const uint8_t *blob, const struct relocs *r, uint32_t value)
{
	for (uint32_t i = 0; i < r->nlin; i++)
		if (rd32(blob + rd32(r->lin + 4 * (size_t)i)) == value)
			return 1;
	return 0;
}

/* ------------------------------------------------------- trampoline_start */

/* Do the len bytes at off match want? (0x100: any byte.) */
static int code_is(const uint8_t *blob, size_t size, uint32_t off,
		   const uint16_t *want, size_t len)
{
	if ((uint64_t)off + len > size)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (want[i] != 0x100 && blob[off + i] != want[i])
			return 0;
	return 1;
}
#define CODE_IS(off, ...) \
	code_is(blob, size, (off), (const uint16_t[]){ __VA_ARGS__ }, \
		sizeof((const uint16_t[]){ __VA_ARGS__ }) / sizeof(uint16_t))
#define ANY 0x100

/* trampoline_start's first instructions, as trampoline_{64,32}.S write
 * them (the register moves, the lock loop of 6.6+ and the loads that name
 * trampoline_header's fields), with [cli;] [wbinvd;] ljmpw: as shipped,
 * as the reference patch builds it (no wbinvd), or as apstart's twin edit
 * leaves it (ljmpw moved 2 bytes earlier, 0xCC 0xCC after it). */
static int check_entry(const uint8_t *blob, size_t size, const struct lrm_layout *l,
		       const struct relocs *r, struct lrm_blob_info *in, char *why,
		       unsigned *score)
{
	uint32_t p = in->trampoline_start;
	if (l->bits == 64) {
		if (!CODE_IS(p, 0xfa))
			return lrm_why(why, "trampoline_start at 0x%x does not begin with cli (fa)", (unsigned)p);
		p++;
		++*score;
	}
	if (CODE_IS(p, 0x0f, 0x09)) { /* wbinvd (SDM Vol. 2D, WBINVD) */
		in->wbinvd_at = p;
		in->flags |= LRM_WBINVD;
		p += 2;
	}
	/* ljmpw $real_mode_seg, $1f: ea off16 seg16, seg16 0 in the file. */
	if (!CODE_IS(p, 0xea, ANY, ANY, 0x00, 0x00))
		return lrm_why(why, "trampoline_start at 0x%x: no ljmpw (ea .. .. 00 00) at 0x%x",
			    (unsigned)in->trampoline_start, (unsigned)p);
	in->ljmp_at = p;
	++*score;
	if (!has_entry(r->seg, r->nseg, p + 3))
		return lrm_why(why, "trampoline_start's ljmpw at 0x%x: its segment word 0x%x is not relocated",
			    (unsigned)p, (unsigned)(p + 3));
	uint32_t to = rd16(blob + p + 1);
	if (to == p + 7 && !in->wbinvd_at && CODE_IS(p + 5, 0xcc, 0xcc)) {
		in->flags |= LRM_EDITED;
	} else if (to != p + 5) {
		return lrm_why(why, "trampoline_start's ljmpw at 0x%x goes to 0x%x, not to the next instruction",
			    (unsigned)p, (unsigned)to);
	}
	++*score;
	uint32_t th = in->trampoline_header;
	if (l->bits == 32) {
		/* mov %cs,%ax; mov %ax,%ds; cli; movl tr_start,%eax;
		 * lidtl tr_idt; lgdtl tr_gdt */
		if (!CODE_IS(to, 0x8c, 0xc8, 0x8e, 0xd8, 0xfa, 0x66, 0xa1, ANY, ANY,
			     0x66, 0x0f, 0x01, 0x1e, ANY, ANY, 0x66, 0x0f, 0x01, 0x16, ANY, ANY))
			return lrm_why(why, "trampoline_start at 0x%x: not trampoline_32.S's code after the ljmpw",
				    (unsigned)in->trampoline_start);
		++*score;
		if (rd16(blob + to + 7) != th || rd16(blob + to + 19) != th + 6)
			return lrm_why(why, "trampoline_32.S's tr_start/tr_gdt at 0x%x/0x%x, not trampoline_header 0x%x + 0/6",
				    (unsigned)rd16(blob + to + 7), (unsigned)rd16(blob + to + 19), (unsigned)th);
		in->tr_start = th;
		in->tr_gdt = th + 6;
		return 1;
	}
	/* mov %cs,%ax; mov %ax,%ds; mov %ax,%es; mov %ax,%ss */
	uint32_t q = to;
	if (!CODE_IS(q, 0x8c, 0xc8, 0x8e, 0xd8, 0x8e, 0xc0, 0x8e, 0xd0))
		return lrm_why(why, "trampoline_start at 0x%x: not trampoline_64.S's segment moves after the ljmpw",
			    (unsigned)in->trampoline_start);
	q += 8;
	++*score;
	/* 6.6+: 1: lock btsl $0, tr_lock; jnc 2f; pause; jmp 1b; 2: */
	int locked = CODE_IS(q, 0x66, 0xf0, 0x0f, 0xba, 0x2e, ANY, ANY, 0x00,
			     0x73, 0x04, 0xf3, 0x90, 0xeb, 0xf2);
	if (locked != l->has_lock)
		return lrm_why(why, "trampoline_start %s the lock bts loop on tr_lock (Linux 6.6+)",
			    locked ? "has" : "lacks");
	++*score;
	if (locked) {
		in->tr_lock = rd16(blob + q + 5);
		if (in->tr_lock != th + 24)
			return lrm_why(why, "trampoline_start locks 0x%x, not tr_lock = trampoline_header 0x%x + 24",
				    (unsigned)in->tr_lock, (unsigned)th);
		q += 14;
		++*score;
	}
	/* movl $rm_stack_end, %esp; call verify_cpu */
	if (!CODE_IS(q, 0x66, 0xbc, ANY, ANY, 0x00, 0x00, 0xe8))
		return lrm_why(why, "trampoline_start at 0x%x: no movl $rm_stack_end,%%esp; call verify_cpu at 0x%x",
			    (unsigned)in->trampoline_start, (unsigned)q);
	in->rm_stack_end = rd32(blob + q + 2);
	if (in->rm_stack_end > size || in->rm_stack_end < in->ro_end)
		return lrm_why(why, "the real-mode stack's top 0x%x is not in the blob's data (0x%x..0x%zx)",
			    (unsigned)in->rm_stack_end, (unsigned)in->ro_end, size);
	in->tr_start = th;
	in->tr_efer = th + 8;
	in->tr_cr4 = th + 16;
	in->tr_flags = th + 20;
	/* startup_32 reads pa_tr_flags, pa_tr_cr4, pa_tr_efer (both halves):
	 * the code's own word for where the fields are. */
	static const uint8_t used[] = { 8, 12, 16, 20 };
	for (unsigned i = 0; i < sizeof used; i++)
		if (!linear_value_used(blob, r, th + used[i]))
			return lrm_why(why, "no relocated word of the code names trampoline_header 0x%x + %u",
				    (unsigned)th, (unsigned)used[i]);
	return 1;
}

/* ------------------------------------------------------- the header */

static const char *const field_names[] = {
	[RMH_TEXT_START] = "text_start",
	[RMH_RO_END] = "ro_end",
	[RMH_TRAMPOLINE_START] = "trampoline_start",
	[RMH_TRAMPOLINE_HEADER] = "trampoline_header",
	[RMH_SEV_ES_TRAMPOLINE_START] = "sev_es_trampoline_start",
	[RMH_TRAMPOLINE_START64] = "trampoline_start64",
	[RMH_TRAMPOLINE_PGD] = "trampoline_pgd",
	[RMH_WAKEUP_START] = "wakeup_start",
	[RMH_WAKEUP_HEADER] = "wakeup_header",
	[RMH_MACHINE_REAL_RESTART_ASM] = "machine_real_restart_asm",
	[RMH_MACHINE_REAL_RESTART_SEG] = "machine_real_restart_seg",
};

const char *lrm_field_name(unsigned field)
{
	if (field >= sizeof field_names / sizeof field_names[0] || !field_names[field])
		return "?";
	return field_names[field];
}

/* The blob against one layout; *score counts the checks passed (the
 * nearest layout names the first that failed). */
static int try_layout(const uint8_t *blob, size_t size, const struct lrm_layout *l,
		      const struct relocs *r, struct lrm_blob_info *in, char *why,
		      unsigned *score)
{
	uint32_t w[RMH_MACHINE_REAL_RESTART_SEG + 1] = { 0 };
	unsigned relocated = 0;

	*score = 0;
	memset(in, 0, sizeof *in);
	if (size < 4u * l->nfields)
		return lrm_why(why, "the blob is shorter than its header");
	for (unsigned i = 0; i < l->nfields; i++) {
		w[l->fields[i]] = rd32(blob + 4 * i);
		if (l->fields[i] != RMH_MACHINE_REAL_RESTART_SEG) {
			relocated++;
			if (!has_entry(r->lin, r->nlin, 4 * i))
				return lrm_why(why, "header word %u (%s) is not in the linear relocations",
					    i, field_names[l->fields[i]]);
		}
		++*score;
	}
	/* The header's relocated words are the first linear entries, and
	 * only they (the next word is not relocated). */
	if (has_entry(r->lin, r->nlin, 4 * l->nfields) ||
	    (relocated < l->nfields && has_entry(r->lin, r->nlin, 4 * relocated)))
		return lrm_why(why, "the linear relocations go on past the header's %u words", l->nfields);
	++*score;

	uint32_t ts = w[RMH_TEXT_START], ro = w[RMH_RO_END];
	if (!ts || ts % LRM_PAGE || ts >= size)
		return lrm_why(why, "text_start 0x%x is not a page inside the blob", (unsigned)ts);
	if (ro <= ts || ro > size)
		return lrm_why(why, "ro_end 0x%x is not after text_start 0x%x inside the blob", (unsigned)ro, (unsigned)ts);
	if (w[RMH_TRAMPOLINE_START] != ts)
		return lrm_why(why, "trampoline_start 0x%x is not text_start 0x%x (the page the SIPI names)",
			    (unsigned)w[RMH_TRAMPOLINE_START], (unsigned)ts);
	++*score;
	for (unsigned i = 0; i < l->nfields; i++) {
		unsigned f = l->fields[i];
		uint32_t v = w[f];
		switch (f) {
		case RMH_SEV_ES_TRAMPOLINE_START:
		case RMH_TRAMPOLINE_START64:
		case RMH_WAKEUP_START:
		case RMH_MACHINE_REAL_RESTART_ASM:
			if (v < ts || v >= ro)
				return lrm_why(why, "%s 0x%x is not code (text 0x%x..0x%x)",
					    field_names[f], (unsigned)v, (unsigned)ts, (unsigned)ro);
			break;
		case RMH_TRAMPOLINE_HEADER:
			if (v % 8 || v < ro || (uint64_t)v + l->th_size > size ||
			    !all_zero(blob + v, l->th_size))
				return lrm_why(why, "trampoline_header 0x%x is not %u zero bytes of data, 8-aligned, after ro_end 0x%x",
					    (unsigned)v, (unsigned)l->th_size, (unsigned)ro);
			break;
		case RMH_TRAMPOLINE_PGD:
			if (v % LRM_PAGE || v < ro || (uint64_t)v + LRM_PAGE > size ||
			    !all_zero(blob + v, LRM_PAGE))
				return lrm_why(why, "trampoline_pgd 0x%x is not a zero page of data after ro_end 0x%x",
					    (unsigned)v, (unsigned)ro);
			break;
		case RMH_WAKEUP_HEADER:
			if (v < ro || (uint64_t)v + WAKEUP_HEADER_BYTES > size ||
			    rd32(blob + v + LRM_WAKEUP_SIGNATURE_AT) != LRM_WAKEUP_SIGNATURE)
				return lrm_why(why, "wakeup_header 0x%x has no signature 0x%x at +%u",
					    (unsigned)v, LRM_WAKEUP_SIGNATURE, LRM_WAKEUP_SIGNATURE_AT);
			break;
		case RMH_MACHINE_REAL_RESTART_SEG:
			if (v != KERNEL32_CS)
				return lrm_why(why, "machine_real_restart_seg 0x%x is not __KERNEL32_CS 0x%x",
					    (unsigned)v, KERNEL32_CS);
			break;
		default:
			break;
		}
		++*score;
	}
	in->layout = l;
	in->text_start = ts;
	in->ro_end = ro;
	in->trampoline_start = ts;
	in->trampoline_header = w[RMH_TRAMPOLINE_HEADER];
	in->trampoline_pgd = w[RMH_TRAMPOLINE_PGD];
	in->seg_relocs = r->nseg;
	in->linear_relocs = r->nlin;
	if (l->bits == 32)
		in->flags |= LRM_32BIT;
	return check_entry(blob, size, l, r, in, why, score);
}

int lrm_blob_check(const uint8_t *blob, size_t blob_size,
		   const uint8_t *relocs, size_t relocs_size,
		   struct lrm_blob_info *info, char *why)
{
	memset(info, 0, sizeof *info);
	if (blob_size < LRM_PAGE + 8 || blob_size > LRM_BLOB_MAX || blob_size % 4)
		return lrm_why(why, "a blob of %zu bytes: Linux's are 4-byte multiples, 0x%x..0x%x bytes",
			    blob_size, LRM_PAGE + 8, LRM_BLOB_MAX);
	if (rd32(blob + blob_size - 4) != LRM_END_SIGNATURE)
		return lrm_why(why, "the blob does not end with the realmode signature 0x%x (found 0x%x)",
			    LRM_END_SIGNATURE, (unsigned)rd32(blob + blob_size - 4));
	size_t used = lrm_relocs_parse(relocs, relocs_size, blob_size, why);
	if (!used)
		return 0;
	if (used != relocs_size)
		return lrm_why(why, "relocations: %zu bytes after the tables' end", relocs_size - used);
	struct relocs r = { relocs + 4, 0, rd32(relocs), 0 };
	r.nlin = rd32(relocs + 4 + 4 * (size_t)r.nseg);
	r.lin = relocs + 8 + 4 * (size_t)r.nseg;
	for (uint32_t i = 0; i < r.nseg; i++) {
		uint32_t off = rd32(r.seg + 4 * (size_t)i);
		if (rd16(blob + off))
			return lrm_why(why, "segment relocation at 0x%x: the word is 0x%x, realmode.bin holds 0 there",
				    (unsigned)off, (unsigned)rd16(blob + off));
	}

	char best_why[LRM_WHY_SIZE] = "", this_why[LRM_WHY_SIZE];
	const struct lrm_layout *best = NULL;
	unsigned best_score = 0;
	for (unsigned i = 0; i < lrm_layout_count; i++) {
		unsigned score;
		if (try_layout(blob, blob_size, &lrm_layouts[i], &r, info, this_why, &score))
			return 1;
		if (!best || score > best_score) {
			best = &lrm_layouts[i];
			best_score = score;
			memcpy(best_why, this_why, sizeof best_why);
		}
	}
	memset(info, 0, sizeof *info);
	/* What was found: the header's words and how many are relocated. */
	char words[12 * LRM_HEADER_WORDS_MAX] = "";
	size_t at = 0;
	unsigned nrel = 0;
	while (nrel < LRM_HEADER_WORDS_MAX && has_entry(r.lin, r.nlin, 4 * nrel))
		nrel++;
	for (unsigned i = 0; i <= nrel && i < LRM_HEADER_WORDS_MAX && at < sizeof words; i++)
		at += (size_t)fmt_snprintf(words + at, sizeof words - at, "%s%x", i ? " " : "",
					   (unsigned)rd32(blob + 4 * i));
	return lrm_why(why, "unknown realmode layout (header %s; %u words relocated): nearest %s: %s",
		    words, nrel, best ? best->name : "none", best_why);
}
