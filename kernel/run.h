/* End of a run: records, exit status, and how the machine is left. */
#ifndef APSTART_RUN_H
#define APSTART_RUN_H

#include <stdbool.h>

#include "cmdline.h"

/* exit=auto resolves to qemu when the ACPI tables are QEMU's. */
void run_set_exit_mode(enum exit_mode mode);
bool run_aborted(void);
/* Print "@end status=fail ...", then exit or halt. Safe from any CPU and
 * from exception context; only the first caller reports. */
void run_abort(const char *why) __attribute__((noreturn));
void run_finish(bool pass) __attribute__((noreturn));
void halt_forever(void) __attribute__((noreturn));

#endif
