# SPDX-License-Identifier: MIT
# A variant that sets knobs (WBINVD=1, SLOW_TRAMP_NS=2000, PAD_*, MAX_CPUS=4
# ...) compiles only the C files that read one of the defines they change;
# for every other file it links the plain variant's object: the same ARCH
# and WINGS, every other knob at its default (build/wbinvd0/ for
# build/wbinvd0-slow2000/ and build/wbinvd1/), which a sub-make brings up
# to date first. A file that reads none of the defines that differ compiles
# to the same bytes either way; make tools-tests checks a variant built so
# against the same variant built whole. Which files read a define:
# tools/build/knob-readers.sh, from the sources as they are now (a file
# and the headers it includes). The assembly, the trampoline and the
# generated files are always the variant's own. Off when OUT is given
# (make ab's build/ab/build-a holds its whole build).
#
# Included by the top-level Makefile after KERNEL_C and KERNEL_OBJS, before
# the rules that use KERNEL_OBJS; it may change KERNEL_OBJS.
ifndef PLAIN_OBJECTS_MK_INCLUDED
PLAIN_OBJECTS_MK_INCLUDED := 1

# Which objects the kernel links is itself a stamp (tools/build/build-vars.mk):
# an object taken from the plain variant instead of compiled here, or
# back, relinks it even when no file changed.
VARS.$(OUT)/link = $(KERNEL_OBJS)
$(OUT)/apstart.elf: $(OUT)/link.vars

# The knobs that change how every file is built, or which are linked.
PLAIN_KEEPS := ARCH WINGS
plain_value = $(if $(filter $(PLAIN_KEEPS),$1),$($1),$(KNOB_DEFAULT.$1))
PLAIN_VARIANT := $(call knob_variant_of,plain_value)
PLAIN_OUT := build/$(PLAIN_VARIANT)

ifneq ($(PLAIN_VARIANT),$(VARIANT))
ifeq ($(origin OUT),file)
# The defines this variant changes, by name; the files that read one.
PLAIN_DEFINES := $(foreach d,$(filter-out $(call knob_cflags_of,plain_value),$(KNOB_CFLAGS)),$(firstword \
	$(subst =, ,$(patsubst -D%,%,$d))))
PLAIN_READERS := $(if $(PLAIN_DEFINES),$(shell tools/build/knob-readers.sh '$(PLAIN_DEFINES)' $(KERNEL_C)))
PLAIN_SHARED := $(filter-out $(PLAIN_READERS),$(KERNEL_C))
PLAIN_OBJS := $(patsubst %.c,$(PLAIN_OUT)/%.o,$(PLAIN_SHARED))
# In KERNEL_OBJS, in place (the link's order stays): the shared files' objects.
KERNEL_OBJS := $(foreach o,$(KERNEL_OBJS),$(if $(filter $(patsubst %.c,$(OUT)/%.o,$(PLAIN_SHARED)),$o),$(patsubst \
	$(OUT)/%,$(PLAIN_OUT)/%,$o),$o))

# The plain variant first, as its own make builds it; then its objects
# are looked at again (an empty recipe: make reads their times anew).
# (Rules here never become the includer's default goal.)
PLAIN_SAVED_GOAL := $(.DEFAULT_GOAL)
$(PLAIN_OBJS): $(PLAIN_OUT)/apstart.elf ;
$(PLAIN_OUT)/apstart.elf: FORCE
	@$(MAKE) --no-print-directory $(call knob_args_of,plain_value) $@
.DEFAULT_GOAL := $(PLAIN_SAVED_GOAL)
endif
endif

endif
