/* SPDX-License-Identifier: MIT */
/* What the screen shows once the run is over and the machine halts: the
 * result page and the QR code page in turn, each for PAGER_SECONDS or
 * until a key is pressed (8042 keyboard, where there is one). */
#ifndef APSTART_PAGER_H
#define APSTART_PAGER_H

#include <stdbool.h>

#define PAGER_SECONDS 20

/* Never returns. Only the BSP runs (the APs are parked). Says on serial
 * which page it shows, the first time each is shown. */
void pager_run(bool pass) __attribute__((noreturn));

#endif
