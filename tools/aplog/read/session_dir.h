/* SPDX-License-Identifier: MIT */
/* A session folder as apstart.efi leaves it on the stick
 * (\apstart\results\session-NNNN\: wings/efi/session.c): given as the one
 * argument of a two-set command (aplog compare DIR/session-NNNN), its
 * run-NNN-A-wbinvd1.log files become set A and its run-NNN-B-wbinvd0.log
 * files set B, in run order. Runs recorded .interrupted are counted on
 * stderr; failed runs are left out by the commands as from any set. */
#ifndef APLOG_SESSION_DIR_H
#define APLOG_SESSION_DIR_H

/* After parse_cli(): expands a lone directory argument; exits with a
 * usage error if it holds no run files. */
void session_dir_expand(void);
void session_dir_free(void);

#endif
