# SPDX-License-Identifier: MIT
# The kernel's build knobs (make NAME=VALUE): one row each, the one place
# a knob is named. Each variant builds in build/VARIANT/, its name made of
# the rows' parts: build/wbinvd0/, build/i386-wbinvd1-slow2000/ ...
#
#   NAME       the make variable
#   DEFAULT    its value when not given
#   VALUES     a|b       one of these words (a leading |: or nothing)
#              a+b+c     any of these words, or none
#              N UNIT    a whole number of UNIT (N>0: a positive one)
#   NAME-PART  what the variant's name gets when the value is not the
#              default: % is the value (words joined by +), after | what
#              no value gets; a leading = : always there
#   C          the kernel's define, -DC=VALUE (C? : 1 when set, else 0)
#   NASM       the trampoline's define, the same way
# and its line in make help, KNOB_DOC.NAME (the default is added).
#
# A bad value stops make: "MAX_CPUS must be a positive number of CPUs, not
# 'x'". BUILD_VARIANT resets every knob to its default but those it names;
# a changed value rebuilds what it reaches (the build's stamp holds them
# all). What make does with a row: tools/build/knob-rules.mk.
ifndef KNOBS_MK_INCLUDED
KNOBS_MK_INCLUDED := 1
include tools/build/knob-rules.mk

#           NAME           DEFAULT  VALUES                NAME-PART   C                      NASM
$(call knob,ARCH,          x86_64,  x86_64|i386,          %-,         ,                      )
KNOB_DOC.ARCH = kernel architecture (i386: 32-bit, build/i386-*/)
$(call knob,WBINVD,        0,       0|1,                  =wbinvd%,   APSTART_WBINVD,        WBINVD)
KNOB_DOC.WBINVD = the trampoline without (0) or with Linux's old wbinvd
$(call knob,SLOW_TRAMP_NS, 0,       N nanoseconds,        -slow%,     APSTART_SLOW_TRAMP_NS, SLOW_SPIN?)
KNOB_DOC.SLOW_TRAMP_NS = test-only: spin N ns where wbinvd sits
$(call knob,SLOW_PARK_NS,  0,       N nanoseconds,        -slowpark%, APSTART_SLOW_PARK_NS,  )
KNOB_DOC.SLOW_PARK_NS = test-only: spin N ns after the park path's wbinvd
# PAD_INSNS=K PAD_AT=P is the short way to say PAD_<P>=K.
$(call knob,PAD_INSNS,     0,       N instructions,       ,           ,                      )
KNOB_DOC.PAD_INSNS = test-only: N more instructions (NOPs) at PAD_AT
$(call knob,PAD_AT,        ,        |real|prot|long|park, ,           ,                      )
KNOB_DOC.PAD_AT = where PAD_INSNS go: real, prot, long (the trampoline), park (after the park path's wbinvd)
ifneq ($(PAD_INSNS),0)
$(if $(PAD_AT),,$(error PAD_INSNS=$(PAD_INSNS) needs PAD_AT=real|prot|long|park))
$(eval PAD_$(subst real,REAL,$(subst prot,PROT,$(subst long,LONG,$(subst park,PARK,$(PAD_AT))))) ?= $(PAD_INSNS))
endif
$(call knob,PAD_REAL,      0,       N instructions,       -padreal%,  ,                      PAD_REAL)
KNOB_DOC.PAD_REAL = test-only: N NOPs at the trampoline's real-mode entry (several at once)
$(call knob,PAD_PROT,      0,       N instructions,       -padprot%,  ,                      PAD_PROT)
KNOB_DOC.PAD_PROT = ... at its protected-mode entry
$(call knob,PAD_LONG,      0,       N instructions,       -padlong%,  ,                      PAD_LONG)
KNOB_DOC.PAD_LONG = ... after its long-mode timestamp
$(call knob,PAD_PARK,      0,       N instructions,       -padpark%,  APSTART_PAD_PARK,      )
KNOB_DOC.PAD_PARK = ... after the park path's wbinvd
$(call knob,MARKS,         1,       0|1,                  -nomarks,   APSTART_MARKS,         MARKS)
KNOB_DOC.MARKS = measurement-only: 0 leaves out the per-phase timestamps, keeping each window's start and end (make marks-cost)
$(call knob,MAX_CPUS,      512,     N>0 CPUs,             -max%,      APSTART_MAX_CPUS,      )
KNOB_DOC.MAX_CPUS = CPUs the build supports
$(call knob,WINGS,         $(ALL_WINGS), $(subst $(knob_space),+,$(ALL_WINGS)), -wings-%|-core, , )
KNOB_DOC.WINGS = the kernel's wings; WINGS= builds the core alone (build/*-core/)

VARIANT := $(call knob_variant_of,knob_value)
KNOB_CFLAGS := $(call knob_cflags_of,knob_value)
KNOB_NASMFLAGS := $(call knob_nasmflags_of,knob_value)
KNOB_WORDS := $(call knob_words_of,knob_value)
KNOB_DEFAULTS := $(call knob_args_of,knob_default)

endif
