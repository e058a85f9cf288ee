/* SPDX-License-Identifier: MIT */
/* Build-time limits. Override with make MAX_CPUS=N. */
#ifndef APSTART_CONFIG_H
#define APSTART_CONFIG_H

#ifndef APSTART_MAX_CPUS
#define APSTART_MAX_CPUS 512
#endif

#ifndef APSTART_VERSION
#define APSTART_VERSION "0.1"
#endif

/* Entries kept from the boot loader's memory map: UEFI maps of large
 * servers run to a few hundred entries. */
#ifndef APSTART_MAX_MEM_RANGES
#define APSTART_MAX_MEM_RANGES 512
#endif

#endif
