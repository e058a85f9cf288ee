/* SPDX-License-Identifier: MIT */
/* \apstart\loader.cfg, one key=value per line, '#' starts a comment:
 *
 *   timeout=N        menu countdown in seconds, 0..3600 (default 5; 0 boots
 *                    the default entry at once)
 *   default=N        entry booted after the countdown: 1..4, or 0 for the
 *                    entry this file defines (default: that one if defined,
 *                    else 1)
 *   wbinvd=0|1       defines an entry: this kernel variant ...
 *   cmdline=TEXT     ... with this kernel command line (rest of the line)
 *   results_wait=N   seconds the results saved by the last run stay on the
 *                    screen before the menu, 0..3600 (default 30; a key
 *                    goes on at once)
 *   session=K        start an A/B session of K runs per variant (1..100)
 *                    at once when none is under way or stopped (a lab's
 *                    unattended stick), with Secure Boot off; with it on
 *                    (or unknown) only what the menu's 's' starts
 *                    (session_trust, wings/efi/session.h); 's' starts
 *                    one anyway
 *   session_cycles=N offline/online cycles per run (default 1: the
 *                    reference's one pass over all CPUs per run)
 *   session_options=TEXT  more kernel options for every run of a session
 *   session_wait=N   countdown before each run, seconds (default 10; any
 *                    key in it stops the session)
 *   session_seed=N   the seed of the run order (default: from the clock;
 *                    plan.txt names it, so an order can be repeated)
 *   test_stale_map_key=1   test builds only (EFI_TEST_HOOKS=1, wings/efi/
 *                    test_hooks.h): make the first ExitBootServices
 *                    fail (wings/efi/handoff.h)
 *   test_session_fail=N    test builds only: run N of a new session gets
 *                    selftest=ap-hang ap_timeout_ms=200 (a failing run)
 *
 * The tools write it into per-run images (tools/run/iso-run.sh --loader,
 * tests/efi/run.sh); a stick ships without one. */
#include "wings/efi/config.h"

#include "wings/efi/handoff.h"
#include "wings/efi/plan.h"

#include <efilib.h>

#define CONFIG_MAX 4096
#define SECONDS_MAX 3600

static BOOLEAN key_is(const CHAR8 *s, UINTN len, const char *key)
{
	UINTN i = 0;
	for (; i < len && key[i]; i++)
		if (s[i] != (CHAR8)key[i])
			return FALSE;
	return i == len && !key[i];
}

static BOOLEAN parse_uint(const CHAR8 *s, UINTN len, UINTN max, UINTN *out)
{
	UINTN v = 0;

	if (!len || len > 9)
		return FALSE;
	for (UINTN i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return FALSE;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return FALSE;
	*out = v;
	return TRUE;
}

void config_load(struct volume *v, struct menu *m, struct loader_config *c)
{
	UINT8 *text;
	UINTN size;

	c->results_wait_s = 30;
	session_config_defaults(&c->session);
	EFI_STATUS st = volume_read_file(v, APSTART_CONFIG, CONFIG_MAX, &text, &size);
	if (st == EFI_NOT_FOUND)
		return;
	if (EFI_ERROR(st)) {
		Print(L"loader.cfg: cannot read %s: %r (ignored)\n", APSTART_CONFIG, st);
		return;
	}

	struct boot_entry own = { .wbinvd = 0, .cmdline = { 0 }, .from_config = TRUE };
	BOOLEAN have_own = FALSE, have_default = FALSE;
	UINTN def = 0, lineno = 0;
	for (UINTN pos = 0; pos < size;) {
		UINTN start = pos;
		while (pos < size && text[pos] != '\n')
			pos++;
		UINTN end = pos++;
		lineno++;
		while (end > start && (text[end - 1] == '\r' || text[end - 1] == ' ' ||
				       text[end - 1] == '\t'))
			end--;
		while (start < end && (text[start] == ' ' || text[start] == '\t'))
			start++;
		if (start == end || text[start] == '#')
			continue;
		const CHAR8 *line = text + start;
		UINTN len = end - start, klen = 0;
		while (klen < len && line[klen] != '=')
			klen++;
		if (klen == len) {
			Print(L"loader.cfg:%d: no '=' (ignored)\n", lineno);
			continue;
		}
		const CHAR8 *val = line + klen + 1;
		UINTN vlen = len - klen - 1, n;
		if (key_is(line, klen, "timeout")) {
			if (parse_uint(val, vlen, SECONDS_MAX, &n))
				m->timeout_s = n;
			else
				Print(L"loader.cfg:%d: timeout must be 0..%d (ignored)\n", lineno,
				      SECONDS_MAX);
		} else if (key_is(line, klen, "results_wait")) {
			if (parse_uint(val, vlen, SECONDS_MAX, &n))
				c->results_wait_s = n;
			else
				Print(L"loader.cfg:%d: results_wait must be 0..%d (ignored)\n",
				      lineno, SECONDS_MAX);
		} else if (key_is(line, klen, "session")) {
			if (parse_uint(val, vlen, PLAN_K_MAX, &n) && n >= 1)
				c->session.k = c->session.k_menu = n;
			else
				Print(L"loader.cfg:%d: session must be 1..%d runs per variant "
				      L"(ignored)\n", lineno, PLAN_K_MAX);
		} else if (key_is(line, klen, "session_cycles")) {
			if (parse_uint(val, vlen, 100000, &n) && n >= 1)
				c->session.cycles = n;
			else
				Print(L"loader.cfg:%d: session_cycles must be 1..100000 (ignored)\n",
				      lineno);
		} else if (key_is(line, klen, "session_wait")) {
			if (parse_uint(val, vlen, SECONDS_MAX, &n))
				c->session.wait_s = n;
			else
				Print(L"loader.cfg:%d: session_wait must be 0..%d (ignored)\n",
				      lineno, SECONDS_MAX);
		} else if (key_is(line, klen, "session_seed")) {
			if (parse_uint(val, vlen, 999999999, &n) && n >= 1)
				c->session.seed = n;
			else
				Print(L"loader.cfg:%d: session_seed must be 1..999999999 (ignored)\n",
				      lineno);
		} else if (key_is(line, klen, "session_options")) {
			UINTN i = 0;
			for (; i < vlen && i < CMDLINE_MAX / 2; i++)
				c->session.options[i] = val[i] >= 0x20 && val[i] < 0x7F ? val[i] : ' ';
			c->session.options[i] = 0;
			if (vlen > CMDLINE_MAX / 2)
				Print(L"loader.cfg:%d: session_options cut to %d characters\n",
				      lineno, CMDLINE_MAX / 2);
#if APSTART_EFI_TEST_HOOKS
		} else if (key_is(line, klen, "test_session_fail")) {
			if (parse_uint(val, vlen, 2 * PLAN_K_MAX, &n))
				c->session.test_fail_run = n;
			else
				Print(L"loader.cfg:%d: test_session_fail must be a run number "
				      L"(ignored)\n", lineno);
		} else if (key_is(line, klen, "test_stale_map_key")) {
			if (parse_uint(val, vlen, 1, &n))
				handoff_test_stale_key = n == 1;
			else
				Print(L"loader.cfg:%d: test_stale_map_key must be 0 or 1 (ignored)\n",
				      lineno);
#endif
		} else if (key_is(line, klen, "default")) {
			if (parse_uint(val, vlen, m->count, &n)) {
				def = n;
				have_default = TRUE;
			} else {
				Print(L"loader.cfg:%d: default must be 0..%d (ignored)\n", lineno,
				      m->count);
			}
		} else if (key_is(line, klen, "wbinvd")) {
			if (parse_uint(val, vlen, 1, &n)) {
				own.wbinvd = n;
				have_own = TRUE;
			} else {
				Print(L"loader.cfg:%d: wbinvd must be 0 or 1 (ignored)\n", lineno);
			}
		} else if (key_is(line, klen, "module")) {
			/* Linux's own trampoline: the blob as shipped or its twin */
			if (vlen == 7 && key_is(val, vlen, "shipped"))
				own.module = APSTART_LRM_SHIPPED;
			else if (vlen == 4 && key_is(val, vlen, "twin"))
				own.module = APSTART_LRM_TWIN;
			else
				Print(L"loader.cfg:%d: module must be shipped or twin (ignored)\n",
				      lineno);
			have_own = have_own || own.module;
		} else if (key_is(line, klen, "cmdline")) {
			UINTN i = 0;
			for (; i < vlen && i < CMDLINE_MAX; i++)
				own.cmdline[i] = val[i] >= 0x20 && val[i] < 0x7F ? val[i] : ' ';
			own.cmdline[i] = 0;
			if (vlen > CMDLINE_MAX)
				Print(L"loader.cfg:%d: cmdline cut to %d characters\n", lineno,
				      CMDLINE_MAX);
			have_own = TRUE;
		} else {
			CHAR8 name[32];
			UINTN i = 0;
			for (; i < klen && i < sizeof name - 1; i++)
				name[i] = line[i];
			name[i] = 0;
			Print(L"loader.cfg:%d: unknown setting '%a' (ignored)\n", lineno, name);
		}
	}
	FreePool(text);

	/* The file's own entry goes first, as GRUB's custom entry does. */
	if (have_own && m->count < MENU_MAX_ENTRIES) {
		for (UINTN i = m->count; i > 0; i--)
			m->entry[i] = m->entry[i - 1];
		m->entry[0] = own;
		m->count++;
		m->def = 0;
	}
	if (have_default) {
		if (def == 0 && !have_own)
			Print(L"loader.cfg: default=0 but no entry defined (wbinvd=, cmdline=)\n");
		else if (def > 0)
			m->def = def - 1 + (have_own ? 1 : 0);
	}
	Print(L"loader.cfg: read (%d bytes)\n", size);
}
