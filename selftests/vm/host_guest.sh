#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Host and guest on one timeline, with a real guest: ivring-read record
# --host records the guest's events and the host's scheduler in one run,
# and the files answer the question they are for.
#
# The guest runs under multi-threaded TCG, one host thread per vCPU named
# "CPU N/TCG" (-name ...,debug-threads=on), with tsc=reliable (include/DESIGN,
# "Time").  A guest task named spin0 spins on vCPU 0, whose host thread is
# pinned to host CPU 0 beside a host busy loop, so that the host preempts
# it about half of the time; vCPU 1 mostly sleeps.
#
# Asserted:
#   - the host file's GUEST option names the guest file's TRACEID and the
#     host threads of both vCPUs, as /proc names them;
#   - trace-cmd report -i host -i guest prints both files' events on one
#     timeline, with the vCPU threads switched in and out by name;
#   - ivring-vcpus: vCPU 0 waited while the busy loop ran (0.1 s at
#     least; other host load may take its share too); spin0 lost a fifth
#     of its running time or more to the host, and no more than vCPU 0 was
#     runnable; vCPU 1 was halted most of the time;
#   - nothing is left in tracefs.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
vm_require_trace_cmd
[ "$(id -u)" = 0 ] || skip "the host's tracefs needs root"
[ "$(nproc)" -ge 2 ] || skip "needs 2 host CPUs: one for the busy loop"
vcpus_bin=$(dirname "$read_bin")/ivring-vcpus
[ -x "$vcpus_bin" ] || skip "no $vcpus_bin; run make"

shm=$(vm_shm hg)
log=$vm_tmp/vm.log
guest=$vm_tmp/guest.dat
host=$vm_tmp/host.dat

{
vm_guest_mttcg_trace
cat <<'GUEST'
taskset -c 0 sh -c 'printf spin0 > /proc/self/comm
	i=0; while [ $i -lt 40000 ]; do i=$((i + 1)); done' &
taskset -c 1 sh -c 'n=0; while [ $n -lt 100 ]; do n=$((n + 1)); usleep 5000; done' &
wait
echo 0 > $t/tracing_on || exit 14
rmmod ivring || exit 15
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

# host_side: once the guest is ready, its vCPU threads into
# $vm_tmp/threads ("vCPU TID"), vCPU 0's pinned to host CPU 0 beside a busy
# loop (its pid into $vm_tmp/busy), and the guest told to go.
host_side() {
	vm_wait_line "$log" $$ guest '^GUEST-READY' 300 || return 1
	vm_pin_vcpu_threads "$shm" "$vm_tmp/threads" || return 1
	taskset -c 0 sh -c 'while :; do :; done' &
	echo $! >"$vm_tmp/busy"
	vm_chan_send go
}

vm_chan_open
vm_recorder_start "$shm" "$guest" "$vm_tmp/rec.err" --host "$host"
host_side &
host_pid=$!
vm_bg_pids+=("$host_pid")
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--mttcg --qemu-arg -name --qemu-arg "ivring-hg,debug-threads=on" \
	--append tsc=reliable "${vm_chan_args[@]}"
wait "$host_pid" || fail "the host's side failed"
busy=$(cat "$vm_tmp/busy")
vm_bg_pids+=("$busy")
kill "$busy"
# Not this shell's child (host_side's): gone once kill -0 fails.
for ((i = 0; i < 100; i++)); do
	kill -0 "$busy" 2>/dev/null || break
	sleep 0.1
done
vm_reader_wait_stopped "$vm_tmp/rec.err" 1
vm_reader_stop
sed 's/^/# recorder: /' "$vm_tmp/rec.err"
[ "$vm_reader_rc" = 0 ] || fail "the recorder exited with $vm_reader_rc"
vm_check_no_spools "$guest" "$host"

# The GUEST option: the guest's TRACEID, then each vCPU and its thread.
trace-cmd dump --options -i "$host" >"$vm_tmp/host.opts" 2>&1
trace-cmd dump --options -i "$guest" >"$vm_tmp/guest.opts" 2>&1
guest_id=$(awk 'f { print $1; exit } /\[Option TRACEID,/ { f = 1 }' "$vm_tmp/guest.opts")
awk '/\[Option GUEST,/ { f = 1; next } f && /\[Option / { exit } f' \
	"$vm_tmp/host.opts" >"$vm_tmp/guest.opt"
sed 's/^/# GUEST: /' "$vm_tmp/guest.opt"
grep -qi "^$guest_id \[trace id\]" "$vm_tmp/guest.opt" ||
	fail "the host file's GUEST option does not name the guest file's TRACEID $guest_id"
while read -r vcpu tid; do
	grep -Eq "^[[:space:]]*$vcpu[^0-9]+$tid([^0-9]|\$)" "$vm_tmp/guest.opt" ||
		fail "the GUEST option does not give vCPU $vcpu's thread $tid"
done <"$vm_tmp/threads"
echo "ok: the host file links the guest file and its vCPU threads"

trace-cmd report -i "$host" -i "$guest" >"$vm_tmp/both" 2>"$vm_tmp/both.err" ||
	fail "trace-cmd report -i host -i guest: $(head -n 3 "$vm_tmp/both.err")"
vm_awk '
/^ *(host|guest)\.dat: / {
	side = $1
	if (side != prev && prev != "") turns++
	prev = side
	n[side]++
	if (side == "host.dat:" && / sched_switch: / && /CPU [01]\/TCG:/) vcpu++
}
END {
	printf "# %d host and %d guest events, %d turns, %d switches of the vCPU threads\n", n["host.dat:"], n["guest.dat:"], turns, vcpu
	exit !(n["host.dat:"] > 1000 && n["guest.dat:"] > 1000 && turns > 100 && vcpu > 100)
}' "$vm_tmp/both" || fail "trace-cmd report -i host -i guest: not one timeline of both"
echo "ok: trace-cmd report -i host -i guest prints one timeline"

"$vcpus_bin" "$host" "$guest" >"$vm_tmp/vcpus" 2>"$vm_tmp/vcpus.err" ||
	fail "ivring-vcpus: $(cat "$vm_tmp/vcpus.err")"
sed 's/^/# /' "$vm_tmp/vcpus"
vm_awk '
# vCPU lines: vCPU, thread, then seconds and percent of each state.
$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 12 {
	c = $1; gsub(/%/, ""); run[c] = $3; runnable[c] = $5; halted_pct[c] = $8; next
}
/ran instead:/ && c == 0 && match($0, ":" busy " [0-9.]+") {
	busy_s = substr($0, RSTART + length(busy) + 2, RLENGTH - length(busy) - 2) + 0
}
$2 == "spin0" { spin_run = $3; spin_lost = $4 }
END {
	printf "# vCPU 0: runnable %.3f s, %.3f s of it while the busy loop (%s) ran; spin0 ran %.3f s and lost %.3f s; vCPU 1 halted %.1f%%\n", runnable[0], busy_s, busy, spin_run, spin_lost, halted_pct[1]
	if (!(busy_s >= 0.1)) { print "not ok: vCPU 0 hardly waited for the busy loop"; f = 1 }
	if (!(spin_run > 0 && spin_lost >= 0.2 * spin_run)) { print "not ok: spin0 lost too little to the host"; f = 1 }
	if (spin_lost > runnable[0] + 0.001) { print "not ok: spin0 lost more than vCPU 0 waited"; f = 1 }
	if (!(halted_pct[1] > 50)) { print "not ok: vCPU 1 was not mostly halted"; f = 1 }
	exit f
}' -v busy="$busy" "$vm_tmp/vcpus" ||
	fail "ivring-vcpus does not tell what the host did to vCPU 0"
echo "ok: ivring-vcpus: vCPU 0 preempted by the busy loop, and spin0's loss"

left=$(ls /sys/kernel/tracing/instances 2>/dev/null | grep -c "^ivring-host-$vm_reader_pid\$")
[ "$left" = 0 ] || fail "the recorder left its tracefs instance"
echo "ok: no tracefs instance left"
