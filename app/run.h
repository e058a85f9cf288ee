/* End of a run: records, exit status, and how the machine is left. */
#ifndef APSTART_RUN_H
#define APSTART_RUN_H

#include <stdbool.h>

#include "app/options.h"

/* True under QEMU: only asked when CPUID says we run under a hypervisor,
 * then QEMU's fw_cfg device must answer with its "QEMU" signature (QEMU
 * docs, specs/fw_cfg). Bare metal never sees a port access. */
bool run_under_qemu(void);
/* exit=auto resolves to qemu under QEMU (fw_cfg, or QEMU's ACPI OEM ID). */
void run_set_exit_mode(enum exit_mode mode);
bool run_aborted(void);
/* Print "@end status=fail ...", then exit or halt. Safe from any CPU and
 * from exception context; only the first caller reports. */
void run_abort(const char *why) __attribute__((noreturn));
void run_finish(bool pass) __attribute__((noreturn));
void halt_forever(void) __attribute__((noreturn));

#endif
