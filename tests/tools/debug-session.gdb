# SPDX-License-Identifier: MIT
# make debug DEBUG_BATCH=this (tests/tools/run.sh): run to the blob's
# installation, break in its 16-bit and 64-bit code by symbol, step out of
# real mode with tramp-continue, then let the run finish.
continue
printf "test: tramp=0x%lx\n", $tramp
break real_mode_entry
break long_mode_entry
continue
tramp-where
tramp-continue
printf "test: stopped in "
info symbol $pc
delete
continue
