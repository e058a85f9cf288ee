#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Network boot tests (make netboot-tests): the directory make netboot
# makes (tools/lab/netboot/mknetboot.sh), then QEMU booting apstart from it
# the way lab machines do, -smp 4, TCG:
#   BIOS PXE  SeaBIOS + iPXE (e1000) -> GRUB i386-pc core.0 over TFTP
#   UEFI PXE  OVMF's own PXE (virtio-net) -> GRUB x86_64-efi core.efi
#   UEFI HTTP OVMF's HTTP boot -> core.efi over HTTP, from dnsmasq and a
#             web server in a network namespace this test makes (root,
#             dnsmasq, /dev/net/tun; else skipped, saying which is missing)
# PXE uses QEMU's user-mode network and its TFTP server. Which menu a
# machine gets is part of every check: tests/netboot/machines gives MAC
# 52:54:00:27:00:01 variant 1 and IP 10.0.2.15 variant 0, both cycles=2;
# a guest on another subnet must get the image's own default entry.
# Logs: build/test-logs/netboot-*.log.
set -uo pipefail
cd "$(dirname "$0")/../.."

NDIR=${NETBOOT_TEST_DIR:-build/netboot-test}
KDIR=${ISO_KDIR:-build/iso/kernels}
APLOG=${APLOG:-build/host/aplog}
VARSTORE=${VARSTORE:-build/host/varstore}
BOOT_TIMEOUT=${NETBOOT_BOOT_TIMEOUT:-120}
OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
MAC_LISTED=52:54:00:27:00:01 MAC_OTHER=52:54:00:27:00:02
out=build/test-logs
mkdir -p "$out"
work=$(mktemp -d "$out/netboot-tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/protocol.sh
. tests/protocol.sh


# ------------------------------------------------------------ the directory
contents() {
	local f bad=0
	for f in boot/grub/i386-pc/core.0 boot/grub/x86_64-efi/core.efi boot/grub/grub.cfg \
		boot/grub/grub.cfg-01-52-54-00-27-00-01 boot/grub/grub.cfg-0A00020F README.txt; do
		[ -s "$NDIR/$f" ] || { echo "no $NDIR/$f"; bad=1; }
	done
	for f in apstart-wbinvd0.elf apstart-wbinvd1.elf apstart-i386-wbinvd0.elf \
		apstart-i386-wbinvd1.elf apstart.efi; do
		cmp -s "$KDIR/boot/$f" "$NDIR/boot/$f" || { echo "boot/$f is not the image's $KDIR/boot/$f"; bad=1; }
	done
	return $bad
}
check "netdir: BIOS and UEFI boot files, per-machine menus, the image's kernels" contents

# The menu every unlisted machine gets is the image's (bar the timeouts:
# the menu's, and the BIOS A/B session's countdown, which follows it).
same_menu() {
	local image=build/iso/menu/boot/grub/grub.cfg
	[ -f "$image" ] || { echo "no $image (make iso)"; return 1; }
	untimed() { grep -v 'set timeout=' | sed -E 's/ in [0-9]+ s; a key stops/ in N s; a key stops/'; }
	diff <(untimed <"$image") \
		<(sed -n '/^# apstart boot menu/,/^# make netboot: apstart.efi only/p' "$NDIR/boot/grub/grub.cfg" |
			sed '$d' | sed '$d' | untimed | sed '1i # SPDX-License-Identifier: MIT')
}
check "netdir: grub.cfg holds the image's menu, entry for entry" same_menu
# ... and apstart.efi's entry never fetches apstart.efi over the network.
efi_from_stick() {
	local f bad=0
	for f in "$NDIR"/boot/grub/grub.cfg*; do
		[ "$(grep -c '^function chainload_apstart_efi' "$f")" = 2 ] &&
			tail -n 12 "$f" | grep -q 'kernels and results on a stick' &&
			! tail -n 12 "$f" | grep -q 'chainloader /boot/' ||
			{ echo "$f: no stick-only chainload_apstart_efi at its end"; bad=1; }
	done
	return $bad
}
check "netdir: every menu's apstart.efi entry needs a stick (no network copy)" efi_from_stick

# Bad machine files stop make netboot with a message and leave no
# directory behind.
refuses() { # TEXT WANTED-MESSAGE
	printf '%s\n' "$1" >"$work/machines"
	local msg st
	msg=$(tools/lab/netboot/mknetboot.sh --out "$work/nd" --kernels "$KDIR" --timeout 0 \
		--machines "$work/machines" 2>&1)
	st=$?
	[ $st = 2 ] || { echo "exit status $st, not 2: $msg"; return 1; }
	[[ $msg == *"$2"* ]] || { echo "message '$msg' does not say '$2'"; return 1; }
	[ ! -e "$work/nd" ] && [ ! -e "$work/nd.new" ] || { echo "left a directory behind"; return 1; }
}
check "machines file: a bad MAC is refused" refuses "52:54:00:27:00 0" "must be a MAC"
check "machines file: an IP octet above 255 is refused" refuses "10.0.2.256 0" "not an IPv4 address"
check "machines file: a machine twice is refused" \
	refuses $'52:54:00:27:00:01 0\n52-54-00-27-00-01 1' "listed twice"
check "machines file: an unknown variant is refused" refuses "default 2" "VARIANT must be"
check "machines file: an argument GRUB could parse is refused" \
	refuses "10.0.2.1 0 cycles=2;reboot" "bad entry"

# ----------------------------------------------------------------- the boots
# verify NAME LOG WBINVD CYCLES FIRMWARE QEMU-STATUS SECONDS
verify() {
	local name=$1 log=$2 w=$3 c=$4 fw=$5 st=$6 secs=$7 why
	if [ "$st" != 1 ]; then
		fail "$name" "QEMU exit status $st, not 1 (the kernel's pass) after ${secs}s (log: $log)" \
			"$(tr -d '\r' <"$log" | grep -a -v '^@phase' | tail -n 12)"
	elif why=$("$APLOG" verify --status pass --cpus 4 --cycles "$c" --wbinvd "$w" \
		--boot firmware="$fw" "$log" 2>&1); then
		ok "$name"
		echo "netboot: $name: @end status=pass in ${secs}s"
	else
		fail "$name" "$(tail -n 3 <<<"$why") (log: $log)"
	fi
}

elapsed() { # T0 (date +%s%N): seconds since, one decimal
	local ns=$(($(date +%s%N) - $1))
	printf '%d.%d' $((ns / 1000000000)) $((ns / 100000000 % 10))
}

qemu_common=(-display none -no-reboot -m 512 -monitor none -serial stdio
	-device isa-debug-exit,iobase=0xf4,iosize=4 -accel tcg -cpu max -smp 4)
# The HTTP boot: OVMF with its variables in RAM (-bios OVMF.fd, ~3 CPU-s
# less than pflash): its checks read nothing from NVRAM (the PXE boots
# below keep the flash store and read the kernel's summary back).
OVMF_FD=/usr/share/ovmf/OVMF.fd
uefi_fw=(-machine q35 -bios "$OVMF_FD")
# The UEFI PXE boots share one writable variable store, as one machine's
# NVRAM: what the kernel keeps there is read back after each boot.
nvram=$work/OVMF_VARS.fd
uefi_pxe_fw=(-machine q35
	-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
	-drive "if=pflash,format=raw,unit=1,file=$nvram")

# pxe NAME FIRMWARE MAC WBINVD CYCLES [NET]: one boot over QEMU's TFTP.
pxe() {
	local name=$1 fw=$2 mac=$3 w=$4 c=$5 net=${6:-} log t0 st machine nic boot
	log=$out/netboot-${fw}-${mac//:/}${net:+-other}.log
	if [ "$fw" = bios ]; then
		machine=(-machine pc) boot=/boot/grub/i386-pc/core.0
		nic=(-device "e1000,netdev=n0,mac=$mac" -boot n)
	else
		machine=("${uefi_pxe_fw[@]}") boot=/boot/grub/x86_64-efi/core.efi
		nic=(-device "virtio-net-pci,netdev=n0,mac=$mac,romfile=,bootindex=1")
	fi
	t0=$(date +%s%N)
	timeout -k 5 "$BOOT_TIMEOUT" qemu-system-x86_64 "${qemu_common[@]}" "${machine[@]}" \
		-netdev "user,id=n0,tftp=$NDIR,bootfile=$boot${net:+,net=$net}" "${nic[@]}" \
		</dev/null >"$log" 2>&1
	st=$?
	verify "$name" "$log" "$w" "$c" "$fw" $st "$(elapsed "$t0")"
}

# iPXE loading apstart itself, as the LAVA iPXE job (tools/lab/lava/x86-ipxe.yaml)
# has it do: a script from QEMU's TFTP with that job's commands.
ipxe_direct() {
	local name="BIOS PXE: iPXE loads apstart itself (the LAVA iPXE job's commands)"
	local dir=$work/ipxe log=$out/netboot-bios-ipxe.log t0 st
	mkdir -p "$dir"
	cp "$NDIR/boot/apstart-wbinvd1.elf" "$dir/"
	printf '#!ipxe\ndhcp net0 ||\nkernel tftp://10.0.2.2/apstart-wbinvd1.elf cycles=2\nboot\n' >"$dir/boot.ipxe"
	t0=$(date +%s%N)
	timeout -k 5 "$BOOT_TIMEOUT" qemu-system-x86_64 "${qemu_common[@]}" -machine pc \
		-netdev "user,id=n0,tftp=$dir,bootfile=/boot.ipxe" -device "e1000,netdev=n0" -boot n \
		</dev/null >"$log" 2>&1
	st=$?
	verify "$name" "$log" 1 2 bios $st "$(elapsed "$t0")"
}
# The BIOS boots run beside the UEFI ones (OVMF spends seconds in
# firmware): their lines go to a file and are counted after.
bios_boots() {
	local ipxe_rom=/usr/lib/ipxe/qemu/efi-e1000.rom # e1000's ROM in QEMU 7.2: iPXE
	if [ ! -f "$ipxe_rom" ]; then
		for n in "BIOS PXE, WBINVD=1 (menu by MAC)" "BIOS PXE, WBINVD=0 (menu by IP)" \
			"BIOS PXE, another subnet: the image's default entry" \
			"BIOS PXE: iPXE loads apstart itself"; do
			skip "$n" "no $ipxe_rom (package ipxe-qemu)"
		done
		return
	fi
	pxe "BIOS PXE, WBINVD=1 (menu by MAC)" bios $MAC_LISTED 1 2
	pxe "BIOS PXE, WBINVD=0 (menu by IP)" bios $MAC_OTHER 0 2
	# 10.0.3.15 has no file: grub.cfg's default entry, WBINVD=0 10 cycles.
	pxe "BIOS PXE, another subnet: the image's default entry" bios $MAC_OTHER 0 10 10.0.3.0/24
	ipxe_direct
}
bios_boots >"$work/bios.out" 2>&1 &
bios_pid=$!
# count_part FILE: a part's check lines, counted here as if made here.
count_part() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "${line#ok   }" ;;
		"FAIL "*) t_failed=$((t_failed + 1)); echo "$line" ;;
		"skip "*) t_skipped=$((t_skipped + 1)); echo "$line" ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}
# nvram_holds NAME WBINVD: the store's one ApstartResults variable is the
# summary of the run just made (tests/efi/varstore.c reads it).
nvram_holds() {
	local name=$1 w=$2 text n
	if ! text=$("$VARSTORE" "$nvram" 2>&1); then
		fail "$name" "no summary in NVRAM: $text"
		return
	fi
	n=$("$VARSTORE" --list "$nvram" | grep -c "^live .* $("$VARSTORE" --name)\$")
	if ! grep -q "^@boot .* wbinvd=$w " <<<"$text" || ! grep -q '^@end status=pass ' <<<"$text"; then
		fail "$name" "the NVRAM summary is not this run's (WBINVD=$w, pass)" "$(grep -a '^@boot\|^@end' <<<"$text")"
	elif [ "$n" != 1 ]; then
		fail "$name" "$n live ApstartResults variables in NVRAM, not 1"
	else
		ok "$name"
	fi
}
if [ ! -f "$OVMF_CODE" ]; then
	skip "UEFI PXE, WBINVD=1 (menu by MAC)" "no $OVMF_CODE (package ovmf)"
	skip "UEFI PXE, WBINVD=0 (menu by IP)" "no $OVMF_CODE (package ovmf)"
else
	cp "$OVMF_VARS" "$nvram"
	pxe "UEFI PXE, WBINVD=1 (menu by MAC)" uefi $MAC_LISTED 1 2
	nvram_holds "UEFI PXE: NVRAM keeps the run's summary (no stick collects it)" 1
	pxe "UEFI PXE, WBINVD=0 (menu by IP)" uefi $MAC_OTHER 0 2
	nvram_holds "UEFI PXE: the next run's summary replaces it in NVRAM" 0
fi

# grub_gave_up LOG PID: while QEMU PID runs, watch its serial LOG for
# GRUB giving up on a menu entry ("Press any key to continue...", after
# which it sits at its menu with no countdown); then stop QEMU and print
# GRUB's error lines, so that a failed load is named at once rather than
# after the hang guard's minutes.
grub_gave_up() {
	local log=$1 pid=$2
	while kill -0 "$pid" 2>/dev/null; do
		if grep -aq 'Press any key to continue' "$log" 2>/dev/null; then
			sleep 0.5 # the rest of the error text
			kill "$pid" 2>/dev/null
			local errs
			# The error lines after the last "Booting `ENTRY'" (OVMF mirrors
			# GRUB's console to serial: each line comes twice).
			errs=$(tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' |
				awk '/Booting `/ { n = 0; delete e } /^error: / && !($0 in e) { e[$0]; l[n++] = $0 }
					END { for (i = 0; i < n; i++) print l[i] }' | paste -sd ';')
			echo "${errs:-gave up on its entry without an error: line}"
			return
		fi
		sleep 0.5
	done
}
# ------------------------------------------------------------ UEFI HTTP boot
# A namespace of our own: a bridge with the tap QEMU uses, dnsmasq as the
# DHCP server answering HTTPClient with the boot URI (UEFI 2.10 §24.7),
# tests/netboot/httpd.py as the HTTP server. OVMF's PXE entries are turned
# off through fw_cfg so that its HTTPv4 entry is the first it tries.
http_name="UEFI HTTP boot, WBINVD=1 (menu by MAC through grub.cfg)"
http_missing() {
	[ "$(id -u)" = 0 ] || { echo "needs root (a network namespace and a tap device)"; return; }
	command -v dnsmasq >/dev/null || { echo "no dnsmasq (package dnsmasq-base)"; return; }
	command -v ip >/dev/null || { echo "no ip (package iproute2)"; return; }
	[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3 (the web server)"; return; }
	[ -c /dev/net/tun ] || { echo "no /dev/net/tun (tap devices)"; return; }
	[ -f "$OVMF_FD" ] || { echo "no $OVMF_FD (package ovmf)"; return; }
}
http_boot() {
	local ns=apstart-nb-$$ srv=192.168.127.1 log=$out/netboot-uefi-http.log t0 st
	if ! ip netns add "$ns" 2>"$work/ns.err"; then
		skip "$http_name" "cannot make a network namespace: $(head -n 1 "$work/ns.err")"
		return
	fi
	# shellcheck disable=SC2064 # expand now: the names are this run's
	trap "ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null; sleep 0.3; ip netns del $ns 2>/dev/null; rm -rf '$work'" EXIT
	local x=(ip netns exec "$ns")
	if ! { "${x[@]}" ip link set lo up && "${x[@]}" ip link add br0 type bridge &&
		"${x[@]}" ip tuntap add dev tap0 mode tap && "${x[@]}" ip link set tap0 master br0 &&
		"${x[@]}" ip addr add $srv/24 dev br0 && "${x[@]}" ip link set br0 up &&
		"${x[@]}" ip link set tap0 up; } 2>"$work/ns.err"; then
		skip "$http_name" "cannot set up the namespace's bridge and tap: $(head -n 1 "$work/ns.err")"
		return
	fi
	"${x[@]}" dnsmasq --no-daemon --conf-file=/dev/null --port=0 --interface=br0 \
		--bind-interfaces --dhcp-range=192.168.127.10,192.168.127.50,1h \
		--dhcp-leasefile="$work/leases" --dhcp-vendorclass=set:http,HTTPClient \
		--dhcp-option-force=tag:http,60,HTTPClient \
		--dhcp-boot=tag:http,http://$srv/boot/grub/x86_64-efi/core.efi \
		>"$out/netboot-dnsmasq.log" 2>&1 &
	# tests/netboot/httpd.py: http.server answering GRUB's byte ranges
	# (NETBOOT_HTTPD_ARGS=--no-ranges: http.server's own answer, the fault).
	# shellcheck disable=SC2086 # words
	"${x[@]}" /usr/bin/python3 tests/netboot/httpd.py --bind $srv --port 80 --directory "$NDIR" \
		${NETBOOT_HTTPD_ARGS:-} >"$out/netboot-httpd.log" 2>&1 &
	for _ in $(seq 50); do # the web server takes a moment to listen
		"${x[@]}" bash -c "exec 3<>/dev/tcp/$srv/80" 2>/dev/null && break
		sleep 0.1
	done
	t0=$(date +%s%N)
	# A hang guard, not a timing check: GRUB reads ~11 files one by one
	# over HTTP (core.efi carries its modules); with ~80, on a host loaded
	# 8x over, it took 115 s, and once each fetch took 10 s.
	"${x[@]}" timeout -k 5 $((2 * BOOT_TIMEOUT)) qemu-system-x86_64 "${qemu_common[@]}" "${uefi_fw[@]}" \
		-fw_cfg name=opt/org.tianocore/IPv4PXESupport,string=n \
		-fw_cfg name=opt/org.tianocore/IPv6PXESupport,string=n \
		-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
		-device "virtio-net-pci,netdev=n0,mac=$MAC_LISTED,romfile=,bootindex=1" \
		</dev/null >"$log" 2>&1 &
	local qpid=$! grub_err
	grub_err=$(grub_gave_up "$log" $qpid)
	wait $qpid
	st=$?
	if [ -n "$grub_err" ]; then
		fail "$http_name" "GRUB: $grub_err after $(elapsed "$t0")s (its entry failed; log: $log, web server: $out/netboot-httpd.log)"
	else
		verify "$http_name" "$log" 1 2 uefi $st "$(elapsed "$t0")"
	fi
	if ! grep -q '"GET /boot/grub/grub.cfg-01-52-54-00-27-00-01 HTTP/1.1" 200' "$out/netboot-httpd.log"; then
		fail "UEFI HTTP boot: the machine's menu came over HTTP" "the web server's log has no GET of it"
	else
		ok "UEFI HTTP boot: the machine's menu came over HTTP"
	fi
}
why=$(http_missing)
if [ -n "$why" ]; then
	skip "$http_name" "$why"
else
	http_boot
fi
wait $bios_pid
count_part "$work/bios.out"

summary netboot
