/* SPDX-License-Identifier: MIT */
/* preset_file=PATH: a machine's flush model in a file, as `aplog fit`
 * writes it from a probe run (FLUSH=file:PATH in make). One KEY=VALUE per
 * line, the plugin's own keys; '#' starts a comment. Keys given on the
 * command line win over the file's. Pure code, no QEMU. */
#ifndef FLUSHMODEL_PRESET_FILE_H
#define FLUSHMODEL_PRESET_FILE_H

#include <stddef.h>

#define PRESET_FILE_KEY "preset_file"

/* argv with every preset_file=PATH item replaced by the file's items
 * (those whose key argv does not give itself): *out_argv, *out_argc, to
 * hand to model_parse() and then to preset_args_free(). Returns 0, or -1
 * with a one-line reason in err (unreadable file, a line that is not
 * KEY=VALUE, a key that cannot be in a file: out=, preset_file=). */
int preset_args_merge(int argc, char **argv, int *out_argc, char ***out_argv, char *err,
		      size_t errlen);
void preset_args_free(int argc, char **argv);

#endif
