# SPDX-License-Identifier: MIT
# What make does with each row of tools/build/knobs.mk (read that first):
#
#   $(call knob,NAME,DEFAULT,VALUES,NAME-PART,C-DEFINE,NASM-DEFINE)
#
# sets NAME ?= DEFAULT, stops make when the value is not one VALUES
# allows ("NAME must be ..., not '...'"), and records the row. From the
# rows, after the table:
#   KNOBS               every knob's name, in the table's order
#   VARIANT             the variant's name: each row's NAME-PART in order
#   KNOB_CFLAGS         -DC-DEFINE=VALUE for the rows with a C define
#   KNOB_NASMFLAGS      -DNASM-DEFINE=VALUE for the trampoline's
#   KNOB_WORDS          NAME=VALUE of every knob (the build's stamp has them)
#   KNOB_DEFAULTS       NAME='DEFAULT' of every knob (BUILD_VARIANT's reset)
#   $(call knob_help)   make help's lines for the knobs
# and the same for another set of values through $(call knob_..._of,GET),
# GET naming a function from a knob's name to its value (the plain
# variant's, tools/build/plain-objects.mk).
ifndef KNOB_RULES_MK_INCLUDED
KNOB_RULES_MK_INCLUDED := 1

knob_empty :=
knob_space := $(knob_empty) $(knob_empty)

define knob_row
KNOBS += $1
KNOB_DEFAULT.$1 := $2
KNOB_VALUES.$1 := $3
KNOB_PART.$1 := $4
KNOB_C.$1 := $5
KNOB_NASM.$1 := $6
$1 ?= $2
endef
knob = $(eval $(call knob_row,$(strip $1),$(strip $2),$(strip $3),$(strip $4),$(strip $5),$(strip $6)))$(call \
	knob_check,$(strip $1))

# ---- the values a row allows: one of a|b, some of a+b, N or N>0 UNIT
# (knobs.mk's header), the kind told by a | or a + or the first word
knob_digits = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst \
	7,,$(subst 8,,$(subst 9,,$1))))))))))
knob_number = $(and $(filter 1,$(words $1)),$(if $(call knob_digits,$1),,y))
knob_kind = $(if $(findstring |,$1),one,$(if $(findstring +,$1),some,$(firstword $1)))
# knob_ok NAME VALUE: y when VALUE is allowed
knob_ok = $(call knob_ok_$(call knob_kind,$(KNOB_VALUES.$1)),$(KNOB_VALUES.$1),$(strip $2))
knob_ok_one = $(if $2,$(and $(filter 1,$(words $2)),$(filter $2,$(subst |, ,$1))),$(filter |%,$1))
knob_ok_some = $(if $(filter-out $(subst +, ,$1),$2),,y)
knob_ok_N = $(call knob_number,$2)
knob_ok_N>0 = $(and $(call knob_number,$2),$(filter-out 0%,$2))
# knob_says NAME: what the values may be, in words
knob_says = $(call knob_says_$(call knob_kind,$(KNOB_VALUES.$1)),$(KNOB_VALUES.$1))
knob_comma := ,
knob_list = $(if $(word 2,$1),$(subst $(knob_space),$(knob_comma) ,$(wordlist 2,$(words $1),x $1)) or $(lastword $1),$1)
knob_says_one = $(call knob_list,$(subst |, ,$1))$(if $(filter |%,$1), (or nothing))
knob_says_some = any of $(call knob_list,$(subst +, ,$1)) (or none)
knob_says_N = a number of $(wordlist 2,99,$1)
knob_says_N>0 = a positive number of $(wordlist 2,99,$1)
knob_check = $(if $(call knob_ok,$1,$($1)),,$(error $1 must be $(call knob_says,$1), not '$($1)'))

# ---- what the rows give, for the values GET returns
knob_value = $($1)
knob_default = $(KNOB_DEFAULT.$1)
# knob_set NAME GET: y when GET's value is not the default (as sets of words)
knob_set = $(strip $(filter-out $(call $2,$1),$(KNOB_DEFAULT.$1))$(filter-out $(KNOB_DEFAULT.$1),$(call $2,$1)))
# One row's part of the variant's name: = first: always there; else only
# when set, % the value (its words joined by +), after | for no value.
knob_part_of = $(if $(or $(filter =%,$(KNOB_PART.$1)),$(call knob_set,$1,$2)),$(call \
	knob_part_text,$(patsubst =%,%,$(KNOB_PART.$1)),$(strip $(call $2,$1))))
knob_part_text = $(if $(or $2,$(if $(findstring |,$1),,y)),$(subst %,$(subst $(knob_space),+,$2),$(firstword \
	$(subst |, ,$1))),$(word 2,$(subst |, ,$1)))
knob_variant_of = $(subst $(knob_space),$(knob_empty),$(strip $(foreach k,$(KNOBS),$(call knob_part_of,$k,$1))))
# A define ending in ? is 1 when the knob is set, 0 when at its default.
knob_define = $(if $(filter %?,$1),-D$(patsubst %?,%,$1)=$(if $(call knob_set,$2,$3),1,0),-D$1=$(call $3,$2))
knob_cflags_of = $(strip $(foreach k,$(KNOBS),$(if $(KNOB_C.$k),$(call knob_define,$(KNOB_C.$k),$k,$1))))
knob_nasmflags_of = $(strip $(foreach k,$(KNOBS),$(if $(KNOB_NASM.$k),$(call knob_define,$(KNOB_NASM.$k),$k,$1))))
knob_words_of = $(strip $(foreach k,$(KNOBS),$k=$(subst $(knob_space),+,$(strip $(call $1,$k)))))
knob_args_of = $(strip $(foreach k,$(KNOBS),$k='$(strip $(call $1,$k))'))

# make help: two words a knob, NAME=VALUES and its KNOB_DOC (the default said).
knob_values_shown = $(if $(filter one,$(call knob_kind,$(KNOB_VALUES.$1))),$(patsubst |%,%,$(KNOB_VALUES.$1)),$(if \
	$(filter some,$(call knob_kind,$(KNOB_VALUES.$1))),"...",N))
knob_help_doc = $(KNOB_DOC.$1) (default $(if $(KNOB_DEFAULT.$1),$(KNOB_DEFAULT.$1),none))
knob_help = $(foreach k,$(KNOBS),$(if $(KNOB_DOC.$k),'$k=$(call knob_values_shown,$k)' '$(subst ','\'',$(call knob_help_doc,$k))'))

endif
