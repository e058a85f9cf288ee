/* SPDX-License-Identifier: MIT */
/* \apstart\loader.cfg: optional settings of apstart.efi. */
#ifndef APSTART_EFI_CONFIG_H
#define APSTART_EFI_CONFIG_H

#include <efi.h>

#include "wings/efi/menu.h"
#include "wings/efi/session.h"
#include "wings/efi/volume.h"

struct loader_config {
	UINTN results_wait_s;  /* how long saved results stay on screen */
	struct session_config session;
};

/* Reads the file if there is one and applies it to the menu (timeout,
 * default entry, an entry of its own). Problems are printed; every
 * setting not given, or given wrongly, keeps its default. */
void config_load(struct volume *v, struct menu *m, struct loader_config *c);

#endif
