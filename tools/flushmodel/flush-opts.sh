# SPDX-License-Identifier: MIT
# Sourced by tools/run/qemu-run.sh and tools/run/iso-run.sh: FLUSH=SPEC -> the
# -plugin option that loads the flushmodel plugin.
#
#   flush_plugin ROOT SPEC VCPUS
#     SPEC: plugin arguments joined by commas; an item without '=' names a
#     preset (xeon6985p = preset=xeon6985p) and file:PATH a preset file
#     (`aplog fit --out PATH`: preset_file=PATH, made absolute). Sets flush_arg (the -plugin
#     value) and flush_what (what the model charges), or prints why not and
#     returns 1. The arguments are checked by the plugin's own parser here,
#     before QEMU starts: QEMU exits with status 1 when a plugin refuses
#     them, the same status as a kernel that reported pass.
#     Unless SPEC names out=, the plugin's exit report goes to a temporary
#     file (flush_report); flush_report_show prints it to stderr once QEMU
#     and the runner's tee are done, so it never lands inside a serial line.
#   flush_accel ACCEL ICOUNT
#     The accelerator a modelled run uses: TCG (plugins exist only there;
#     and -icount's virtual clock does not see a host-side wait). Prints
#     it, or why not and returns 1.
flush_plugin() {
	local root=$1 spec=$2 vcpus=$3 tok
	local so=$root/build/host/flushmodel.so chk=$root/build/host/flushmodel-args
	local items=() args=() out=0
	if [ ! -f "$so" ] || [ ! -x "$chk" ]; then
		echo "no flush model plugin at $so (run: make flushmodel)" >&2
		return 1
	fi
	if [[ ! $spec =~ ^[A-Za-z0-9_.=,/+:-]+$ ]]; then
		echo "FLUSH='$spec': plugin arguments (KEY=VALUE) and preset names joined by commas, without blanks" >&2
		return 1
	fi
	IFS=, read -r -a items <<<"$spec"
	for tok in "${items[@]}"; do
		case "$tok" in
		'') echo "FLUSH='$spec': an empty item" >&2; return 1 ;;
		out=*) args+=("$tok"); out=1 ;;
		file:*)
			if [ ! -r "${tok#file:}" ]; then
				echo "FLUSH='$spec': cannot read the preset file ${tok#file:}" >&2
				return 1
			fi
			tok=$(realpath "${tok#file:}")
			if [[ ! $tok =~ ^[A-Za-z0-9_./+:-]+$ ]]; then
				echo "FLUSH: preset file path $tok: only letters, digits and _./+:- (no commas or blanks)" >&2
				return 1
			fi
			args+=("preset_file=$tok") ;;
		*=*) args+=("$tok") ;;
		*) args+=("preset=$tok") ;;
		esac
	done
	flush_what=$("$chk" --vcpus "$vcpus" "${args[@]}") || return 1
	flush_report=
	if [ $out = 0 ]; then
		flush_report=$(mktemp) || return 1
		args+=("out=$flush_report")
	fi
	flush_arg="file=${so//,/,,},$(IFS=,; echo "${args[*]}")"
}

flush_report_show() {
	[ -n "${flush_report:-}" ] || return 0
	cat "$flush_report" >&2
	rm -f "$flush_report"
}

flush_accel() {
	case "$1" in
	auto|tcg) ;;
	*) echo "FLUSH needs TCG: the flush model is a QEMU TCG plugin (ACCEL=$1 given)" >&2; return 1 ;;
	esac
	if [ "$2" = 1 ]; then
		echo "FLUSH cannot run with -icount: the plugin holds a vCPU for host time, which icount's virtual clock does not see" >&2
		return 1
	fi
	echo tcg
}
