/* SPDX-License-Identifier: MIT */
/* The blob found by validation (scan.h). */
#include "tools/linux/realmode/scan.h"

#include <string.h>

#include "lib/bytes.h"

/* Could a real_mode_header start here? text_start is a page of a blob
 * (< 64 KiB), ro_end after it: cheap, so that only a few pages of a
 * 60 MB vmlinux are looked at closer. */
static int header_shape(const uint8_t *p, size_t avail)
{
	if (avail < LRM_PAGE + 8)
		return 0;
	uint32_t text = rd32(p), ro_end = rd32(p + 4);
	return text && text % LRM_PAGE == 0 && text < LRM_BLOB_MAX && ro_end > text &&
	       ro_end <= LRM_BLOB_MAX;
}

unsigned scan_for_blob(const uint8_t *buf, size_t len, struct scan_result *r)
{
	unsigned nearest_rank = 0;
	memset(r, 0, sizeof *r);
	for (size_t at = 0; at < len && len - at >= LRM_PAGE + 8; at += LRM_PAGE) {
		const uint8_t *p = buf + at;
		size_t avail = len - at;
		if (!header_shape(p, avail))
			continue;
		/* Each end signature after ro_end ends a possible blob whose
		 * relocations follow it. */
		size_t max = avail < LRM_BLOB_MAX ? avail : LRM_BLOB_MAX;
		for (size_t size = (rd32(p + 4) + 3) & ~(size_t)3; size + 4 <= max; size += 4) {
			if (size < LRM_PAGE + 8 || rd32(p + size - 4) != LRM_END_SIGNATURE)
				continue;
			char why[LRM_WHY_SIZE];
			size_t rsize = lrm_relocs_parse(p + size, avail - size, size, why);
			struct lrm_blob_info info;
			if (rsize && lrm_blob_check(p, size, p + size, rsize, &info, why)) {
				if (r->found++ == 0) {
					r->blob_at = at;
					r->blob_size = size;
					r->relocs_size = rsize;
					r->info = info;
				} else if (r->found == 2) {
					r->second_at = at;
				}
				break;
			}
			/* The nearest: the first whose tables parsed, else the
			 * first of all. */
			unsigned rank = rsize ? 2 : 1;
			if (r->shapes++ == 0 || rank > nearest_rank) {
				nearest_rank = rank;
				r->nearest_at = at;
				memcpy(r->why, why, sizeof r->why);
			}
		}
	}
	return r->found;
}

int scan_banner(const uint8_t *buf, size_t len, char *out, size_t size)
{
	static const char key[] = "Linux version ";
	const size_t klen = sizeof key - 1;
	out[0] = 0;
	if (size == 0)
		return 0;
	for (size_t at = 0; at + klen + 1 <= len; at++) {
		const uint8_t *p = memchr(buf + at, 'L', len - at);
		if (!p)
			return 0;
		at = (size_t)(p - buf);
		if (len - at < klen + 1 || memcmp(p, key, klen) || p[klen] < '0' || p[klen] > '9')
			continue;
		size_t n = 0;
		while (n + 1 < size && at + n < len && p[n] >= 0x20 && p[n] <= 0x7e)
			n++;
		memcpy(out, p, n);
		out[n] = 0;
		return 1;
	}
	return 0;
}
