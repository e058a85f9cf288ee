# SPDX-License-Identifier: MIT
# What the screen shows, checked from screendumps (sourced by
# tests/iso/run.sh): the status line mid-run, the result page, and the QR
# code page, whose code must decode (zbarimg) to the run's serial records
# and read back with aplog verify as the run it came from.
#
#   screen_script DIR          the iso-run.sh --screen-script for a boot
#   screen_checks LOG FW DIR   prints one line per problem; status 1 if any
#
# LOG is the boot's serial log (CRs removed), FW bios|uefi, DIR holds
# progress.ppm, result.ppm and qr.ppm; the text read off each goes next to
# it (.txt), the decoded QR code to qr.decoded.

SCREENTEXT=${SCREENTEXT:-build/host/screentext}

screen_script() { # DIR
	cat <<SCRIPT
wait ^@sample cpu=2 .*cycle=5 op=online
screendump $1/progress.ppm
wait ^screen: result page
screendump $1/result.ppm
sendkey spc
wait ^screen: QR code page
screendump $1/qr.ppm
SCRIPT
}

# fmt_duration of kernel/format.c, for the figures the page must show.
duration() { # NS
	awk -v ns="$1" 'function fixed(unit, dec, name,   scale, v) {
		scale = dec == 1 ? 10 : 100
		v = int(ns / unit) * scale + int(((ns % unit) * scale + int(unit / 2)) / unit)
		return sprintf(dec == 1 ? "%d.%01d %s" : "%d.%02d %s", int(v / scale), v % scale, name)
	}
	BEGIN {
		if (ns >= 999995000) print fixed(1000000000, 2, "s")
		else if (ns >= 999950) print fixed(1000000, 2, "ms")
		else if (ns >= 1000) print fixed(1000, 1, "us")
		else printf "%d ns\n", ns
	}'
}

summary_total() { # LOG OP [PREFIX]: @summary op=OP's PREFIXtotal_ns
	sed -n "s/^@summary op=$2 .* ${3:-}total_ns=\([0-9]*\)\( .*\)\{0,1\}\$/\1/p" "$1" | head -n 1
}

screen_checks() { # LOG FW DIR
	local log=$1 fw=$2 dir=$3 bad=0 f t
	local cpus=4 cycles fwname=BIOS
	[ "$fw" = uefi ] && fwname=UEFI
	cycles=$(sed -n 's/^@boot .* cycles=\([0-9]*\) .*/\1/p' "$log" | head -n 1)
	for f in progress result qr; do
		if [ ! -s "$dir/$f.ppm" ]; then
			echo "no $f.ppm"; bad=1; continue
		fi
		"$SCREENTEXT" "$dir/$f.ppm" >"$dir/$f.txt" 2>&1 || { echo "screentext $f.ppm: $(tail -n 1 "$dir/$f.txt")"; bad=1; }
	done
	[ $bad = 0 ] || return 1
	has() { # FILE REGEX WHAT
		grep -Eq -- "$2" "$1" || { echo "$(basename "$1" .txt): no $3 (/$2/)"; bad=1; }
	}
	# Mid-run: header, status line short of the end, no machine records.
	t=$dir/progress.txt
	has "$t" "^ apstart [^ ]+  WBINVD=0 \(patched\)  park=[a-z]+  bring-up=[a-z]+\$" "header row 1"
	has "$t" "  $cpus CPUs  $cycles cycles  $fwname via GRUB [^ ]+\$" "header row 2"
	local status
	status=$(tail -n 1 "$t")
	if [[ $status =~ ^\ cycles\ \ CPU\ ([0-9]+)\ of\ 3\ \ cycle\ ([0-9]+)\ of\ $cycles\ \ \ elapsed\ [0-9]+:[0-9]{2}\ \ \ left\ ~[0-9]+:[0-9]{2}$ ]]; then
		if [ "${BASH_REMATCH[1]}" = 3 ] && [ "${BASH_REMATCH[2]}" = "$cycles" ]; then
			echo "progress: the status line shows the end, not mid-run: '$status'"; bad=1
		fi
	else
		echo "progress: last row is not the cycles status line: '$status'"; bad=1
	fi
	grep -q '@' "$t" && { echo "progress: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	# The result page: the verdict and the reference's three rows, in the
	# serial @summary's figures, one row per AP, no warnings.
	t=$dir/result.txt
	local off on
	# Offline is the settled figure (request -> the AP parked) when every
	# AP gave one, as serial's totals say; else the BSP's.
	local settled=
	off=$(summary_total "$log" offline settled_) on=$(summary_total "$log" online)
	if [ -n "$off" ]; then
		settled="  \(until settled\)"
	else
		off=$(summary_total "$log" offline)
	fi
	if [ -z "$off" ] || [ -z "$on" ]; then
		echo "serial log has no @summary totals"; bad=1
	else
		has "$t" "^ PASS  3 APs x $cycles cycles, every cycle completed\$" "verdict"
		has "$t" "^ Offline: +$(duration "$off")   per AP: median [^ ]+ [a-z]+, max [^ ]+ [a-z]+$settled\$" "Offline row = @summary offline ${settled:+settled_}total_ns $off"
		has "$t" "^ Online: +$(duration "$on")   per AP: median " "Online row = @summary online total_ns $on"
		has "$t" "^ Total: +$(duration $((off + on)))\$" "Total row"
	fi
	local apic
	for apic in 1 2 3; do
		has "$t" "^ +$apic +$apic +[0-9.]+ (ns|us|ms|s) " "table row for apic $apic"
	done
	has "$t" "^ Warnings and failures: none\$" "empty warnings block"
	has "$t" "^ Next page: these results as a QR code" "footer"
	grep -q '@' "$t" && { echo "result: a machine record on the screen: $(grep -m1 '@' "$t")"; bad=1; }
	# The QR code: decoded, it is the serial's records, in order.
	local dec=$dir/qr.decoded
	if ! zbarimg -q --raw "$dir/qr.ppm" >"$dec" 2>"$dir/zbarimg.err"; then
		echo "zbarimg decoded no QR code in qr.ppm: $(tail -n 1 "$dir/zbarimg.err")"; bad=1
		return 1
	fi
	sed -i '${/^$/d}' "$dec" # --raw adds a newline after the data
	local rec missing=0 w
	grep '^@' "$log" | grep -Ev '^@(sample|cpu) ' >"$dir/serial.records"
	awk 'NR == FNR { want[++n] = $0; next }
	     { while (i < n && want[i + 1] != $0) i++
	       if (i == n) { print "qr line not in the serial records (in order): " $0; bad = 1; exit }
	       i++ }
	     END { exit bad }' "$dir/serial.records" "$dec" || bad=1
	for w in @boot @env '@summary op=offline' '@summary op=online' @end; do
		grep -q "^$w " "$dec" || { echo "qr: no $w record"; bad=1; }
	done
	[ "$(grep -c '^@cpusum ' "$dec")" = 3 ] || { echo "qr: $(grep -c '^@cpusum ' "$dec") @cpusum records, want 3"; bad=1; }
	local v
	v=$("${APLOG:-build/host/aplog}" verify --cpus $cpus --cycles "$cycles" "$dec" 2>&1) ||
		{ echo "aplog verify of the scanned text: $(grep -v '^FAIL' <<<"$v" | head -n 2 | paste -sd';')"; bad=1; }
	has "$dir/qr.txt" "apstart records" "caption"
	has "$dir/qr.txt" "$(wc -l <"$dec") lines, $(wc -c <"$dec") bytes" "caption's size of the payload"
	return $bad
}
