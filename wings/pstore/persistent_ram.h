/* SPDX-License-Identifier: MIT */
/* Linux's persistent-RAM zone (fs/pstore/ram_core.c), the format ramoops
 * reads back as the previous boot's console: a 12-byte header, then a
 * ring of text.
 *   u32 sig    0x43474244 ("DBGC" little-endian; the console zone XORs
 *              it with 0)
 *   u32 start  where the next byte goes (and, once the ring is full, the
 *              oldest byte kept)
 *   u32 size   bytes of text held, up to the ring's capacity
 *   data[]     capacity = zone size - 12 (ECC off, ramoops' default)
 * Linux reads data[start..size) then data[0..start) (persistent_ram_
 * save_old()), and takes a header as invalid when size > capacity or
 * start > size. Writing follows persistent_ram_write(): size grows to the
 * capacity and stays; start advances modulo the capacity; a write longer
 * than the ring keeps its last capacity bytes. Pure C over a memory view:
 * the kernel gives it the zone, the host tests a buffer. */
#ifndef APSTART_PERSISTENT_RAM_H
#define APSTART_PERSISTENT_RAM_H

#include <stddef.h>
#include <stdint.h>

#define PRAM_SIG 0x43474244u
#define PRAM_HEADER 12u

/* What the zone held when it was opened. */
enum pram_found {
	PRAM_NEW,     /* no signature: header written, ring empty */
	PRAM_INVALID, /* the signature, but size/start out of bounds: emptied */
	PRAM_EMPTY,   /* the signature and nothing held (Linux's zap) */
	PRAM_HELD,    /* text held: appended to, as Linux does */
};

struct pram_zone {
	uint8_t *base;     /* the header; text from base + PRAM_HEADER */
	uint32_t capacity; /* bytes of text the ring holds */
	uint32_t start, size;
	/* Called after each store with the bytes just written (text, then
	 * the header), so that the kernel can push them to RAM; may be NULL. */
	void (*flush)(void *ctx, const void *p, size_t len);
	void *flush_ctx;
};

/* Opens the zone of zone_size bytes (> PRAM_HEADER) at base: keeps what a
 * valid header says is held, else writes an empty header. held_out (may be
 * NULL) gets the bytes held before. */
enum pram_found pram_open(struct pram_zone *z, void *base, uint32_t zone_size,
			  void (*flush)(void *ctx, const void *p, size_t len),
			  void *flush_ctx, uint32_t *held_out);

/* Appends n bytes, ring semantics as Linux's. */
void pram_write(struct pram_zone *z, const void *s, size_t n);

/* The text as Linux's ramoops shows it (oldest first) into out (cap
 * bytes); returns its length, 0 for a zone without a valid header. For
 * tests and tools: reads base only. */
size_t pram_read(const void *base, uint32_t zone_size, void *out, size_t cap);

/* What pram_open found, as a word for messages and records. */
const char *pram_found_name(enum pram_found f);

#endif
