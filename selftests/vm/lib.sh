# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Sourced by the VM tests in this directory (bash).  Finds tools/ivring-vm,
# ivring.ko and ivring-read, skips (exit 4) when qemu, the kernel image or
# the module is missing, and runs one guest with a watchdog, --scan-dmesg
# and cleanup: no qemu process or shm file is left behind, also when the
# test fails or is killed.
#
# Environment:
#   IVRING_MODULE  the guest module (default: build/module/ivring.ko)
#   IVRING_MODULE_TEST  its test build, with fault injection and test hooks
#                  (default: the directory of IVRING_MODULE plus -test, as
#                  make module-test and make modules-all lay them out)
#   IVRING_TOOLS   where ivring-read is (default: build/tools, build/plain/tools)
#   IVRING_VM_TIMEOUT  watchdog seconds per guest (default 180)
#   IVRING_VM_KEEP     if the test fails, its files (console logs, reader
#                      output) are copied to this directory
#   IVRING_VM_KEEP_ALL 1: keep them when it passes too (to capture the
#                      format texts of selftests/data/formats*, for one)
#   IVRING_VM_REQUIRED 1: a missing prerequisite fails the test instead of
#                      skipping it (make check sets it: after make deps
#                      nothing may be missing, and a skip would hide that)

vm_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm_top=$(cd "$vm_here/../.." && pwd)
ivring_vm=$vm_top/tools/ivring-vm
module=${IVRING_MODULE:-$vm_top/build/module/ivring.ko}
module_test=${IVRING_MODULE_TEST:-$(dirname "$module")-test/ivring.ko}
vm_timeout=${IVRING_VM_TIMEOUT:-180}
read_bin=
for d in "${IVRING_TOOLS:-}" "$vm_top/build/tools" "$vm_top/build/plain/tools"; do
	if [ -n "$d" ] && [ -x "$d/ivring-read" ]; then
		read_bin=$d/ivring-read
		break
	fi
done

# vm_shm NAME: a name for a segment in /dev/shm, of this test's alone:
# ivring-NAME-[TAG-]PID-RANDOM.  run_tests.sh sets IVRING_SHM_TAG to one
# of its own, so that its check for segments left behind looks only at its
# tests' segments, never at those of a run beside it.
vm_shm() {
	echo "ivring-$1-${IVRING_SHM_TAG:+$IVRING_SHM_TAG-}$$-$RANDOM"
}

skip() {
	if [ "${IVRING_VM_REQUIRED:-0}" = 1 ]; then
		echo "not ok: cannot run: $*"
		exit 1
	fi
	echo "# SKIP: $*"
	exit 4
}

fail() {
	echo "not ok: $*"
	exit 1
}

# vm_require [read]: skip unless everything a guest run needs is here.
vm_require() {
	local kver

	command -v qemu-system-x86_64 >/dev/null ||
		skip "no qemu-system-x86_64 (Debian package qemu-system-x86)"
	[ -x "$ivring_vm" ] || skip "no $ivring_vm"
	[ -x /bin/busybox ] || skip "no /bin/busybox (busybox-static)"
	[ -r "$module" ] || skip "no $module; run make module"
	kver=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
	[ -n "$kver" ] || skip "cannot read the vermagic of $module"
	[ -r "/boot/vmlinuz-$kver" ] ||
		skip "no /boot/vmlinuz-$kver for $module (linux-image-amd64)"
	vm_kver=$kver
	if [ "${1:-}" = read ] && [ -z "$read_bin" ]; then
		skip "no ivring-read; run make or set IVRING_TOOLS"
	fi
}

# vm_require_trace_cmd: skip unless trace-cmd is here, to read the files
# that ivring-read record writes (vm_report).
vm_require_trace_cmd() {
	command -v trace-cmd >/dev/null || skip "no trace-cmd (Debian package trace-cmd)"
}

# vm_require_kmod NAME...: skip unless the booted kernel has these modules
# (for ivring-vm --kmod).  After vm_require.
vm_require_kmod() {
	local k

	for k in "$@"; do
		modprobe -S "$vm_kver" --show-depends "$k" >/dev/null 2>&1 ||
			skip "no kernel module $k for $vm_kver"
	done
}

vm_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-vmtest.XXXXXX") || exit 1
vm_pid=
vm_shms=()
# Background processes of a test (host readers): ended at exit.
vm_bg_pids=()
vm_cleanup() {
	local rc=$? s p live

	if [ -n "$vm_pid" ]; then
		# ivring-vm kills its qemu and removes its files on TERM.
		kill -TERM "$vm_pid" 2>/dev/null
		wait "$vm_pid" 2>/dev/null
	fi
	# Only those still our jobs: the pid of one already waited for may
	# belong to another process by now.
	live=" $(jobs -p | tr '\n' ' ') "
	for p in "${vm_bg_pids[@]}"; do
		[[ $live == *" $p "* ]] || continue
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for s in "${vm_shms[@]}"; do
		rm -f "/dev/shm/$s"
	done
	# A failure that happens once in CI can only be understood from its
	# whole console logs and reader outputs: keep them.
	if { { [ "$rc" != 0 ] && [ "$rc" != 4 ]; } ||
	     [ "${IVRING_VM_KEEP_ALL:-0}" = 1 ]; } && [ -n "${IVRING_VM_KEEP:-}" ]; then
		rm -rf "$IVRING_VM_KEEP"
		mkdir -p "$IVRING_VM_KEEP" &&
			cp -a "$vm_tmp/." "$IVRING_VM_KEEP/" 2>/dev/null &&
			echo "# the test's files are kept in $IVRING_VM_KEEP"
	fi
	rm -rf "$vm_tmp"
}
trap vm_cleanup EXIT
trap 'exit 1' INT TERM HUP

# vm_disk: a 4M virtio disk for the guest, /dev/vda, as a raw file in
# vm_tmp; pass "${vm_disk_args[@]}" to vm_run.  Skips unless the booted
# kernel has its drivers.  After vm_require.
vm_disk() {
	vm_require_kmod virtio_pci virtio_blk
	truncate -s 4M "$vm_tmp/disk.img" || fail "cannot create the disk image"
	# shellcheck disable=SC2034 # for the tests
	vm_disk_args=(--kmod virtio_pci --kmod virtio_blk
		--qemu-arg -drive --qemu-arg "file=$vm_tmp/disk.img,if=virtio,format=raw")
}

# vm_guest_workload: print the lines of a guest script that make all but
# a few of ivring's events fire (decode_all.sh lists which): forks, execs
# and exits, both CPUs busy, taskset moves, CPU 1 off and on line
# (sched_wait_task: kthread_park), ping over lo (net, NET_RX, itimer:
# busybox ping paces itself with alarm()), O_DIRECT dd to and from
# /dev/vda (block, virtio interrupts), a sleep (cpu_idle, tick_stop).  The
# guest needs lo up and the disk of vm_disk; the lines exit 17 to 25 when
# a step fails.
vm_guest_workload() {
	cat <<'GUEST'
# Both CPUs busy: syscalls, slab and page allocations, rss, faults.
for n in 1 2 3; do
	sh -c 'i=0
	       while [ $i -lt 150 ]; do
		       i=$((i + 1))
		       ls /proc > /dev/null 2>&1
	       done' &
done
# fork, exec (busybox sh execs /proc/self/exe), exit, wait, free.
for n in 1 2 3 4 5 6 7 8; do
	sh -c 'exit 0'
done
# Affinity changes move this shell (sched_migrate_task).
taskset -p 1 $$ > /dev/null || exit 17
taskset -p 2 $$ > /dev/null || exit 18
taskset -p 3 $$ > /dev/null || exit 19
# Offlining a CPU parks its kthreads: kthread_park() waits in
# wait_task_inactive(), the only sched_wait_task a busybox guest makes.
echo 0 > /sys/devices/system/cpu/cpu1/online || { echo "FAIL: cpu1 offline"; exit 20; }
echo 1 > /sys/devices/system/cpu/cpu1/online || { echo "FAIL: cpu1 online"; exit 21; }
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] || { echo "FAIL: cpus $(cat /sys/devices/system/cpu/online)"; exit 22; }
# lo: net_dev_xmit, netif_receive_skb; ping's alarm(): itimer_*.
ping -c 3 -i 0.2 127.0.0.1 > /dev/null || { echo "FAIL: ping"; exit 23; }
# Direct I/O on the virtio disk: block_rq_*, its interrupts, BLOCK softirq.
dd if=/dev/zero of=/dev/vda bs=64k count=16 oflag=direct 2> /dev/null || exit 24
dd if=/dev/vda of=/dev/null bs=64k count=16 iflag=direct 2> /dev/null || exit 25
wait
# Idle: cpu_idle, tick_stop, the tick's hrtimers.
sleep 2
GUEST
}

# vm_guest_mttcg_trace: print the first lines of the script of a
# multi-threaded TCG guest that the host drives through the channel
# (vm_chan_open): the port opened, the module loaded, the sched, irq and
# timer events enabled with one vCPU online (tracepoints patched with both
# online can hang multi-threaded TCG: include/DESIGN, 9), GUEST-READY said,
# and the host's "go" waited for.  The lines exit 9 to 13 when a step
# fails; $t is /sys/kernel/ivring.  ARGS, if any, are the module's
# parameters (words without quotes).
vm_guest_mttcg_trace() {
	echo "ivr_args='$*'"
	cat <<'GUEST'
t=/sys/kernel/ivring
c1=/sys/devices/system/cpu/cpu1/online
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
# shellcheck disable=SC2086 # the parameters, split on purpose
insmod /ivring.ko $ivr_args || exit 10
echo 0 > $c1 || exit 11
for e in sched irq timer; do
	echo 1 > $t/events/$e/enable || exit 12
done
echo 1 > $c1 || exit 11
echo GUEST-READY
read -r msg <&3
[ "$msg" = go ] || { echo "FAIL: the host said $msg"; exit 13; }
GUEST
}

# vm_pin_vcpu_threads SHM OUT: the threads "CPU N/TCG" of the qemu of
# /dev/shm/SHM (multi-threaded TCG, -name ...,debug-threads=on) into OUT,
# a line "vCPU TID" each in vCPU order, and vCPU 0's pinned to host CPU 0.
# Returns 1, having said what it found and told the guest to abort
# (vm_chan_send), unless there are 2.
vm_pin_vcpu_threads() {
	local shm=$1 out=$2 qpid tid comm t0

	qpid=$(pgrep -f "mem-path=/dev/shm/$shm([,]|\$)" | head -n 1)
	[ -n "$qpid" ] || { echo "# no qemu for $shm"; vm_chan_send abort; return 1; }
	for tid in /proc/"$qpid"/task/*; do
		comm=$(cat "$tid/comm" 2>/dev/null)
		[[ $comm =~ ^CPU\ ([0-9]+)/TCG$ ]] && echo "${BASH_REMATCH[1]} ${tid##*/}"
	done | sort -n >"$out"
	t0=$(awk '$1 == 0 { print $2 }' "$out")
	if [ "$(wc -l <"$out")" != 2 ] || [ -z "$t0" ] ||
	   ! taskset -p -c 0 "$t0" >/dev/null; then
		echo "# the vCPU threads of qemu $qpid: $(tr '\n' ' ' <"$out")"
		vm_chan_send abort
		return 1
	fi
}

# vm_guest_switch_load: print the lines of a guest script that run three
# shells, each counting to 3000 and sleeping 1 ms every 300, and wait for
# them: switches and wakeups on both CPUs, for the tests that compare
# ivring's events with the guest's ftrace.
vm_guest_switch_load() {
	cat <<'GUEST'
for n in 1 2 3; do
	sh -c 'i=0
	       while [ $i -lt 3000 ]; do
		       i=$((i + 1))
		       [ $((i % 300)) = 0 ] && usleep 1000
	       done' &
done
wait
GUEST
}

# vm_guest_busy_loops [BODY]: print the lines of a guest script that start
# a loop of BODY (default: a syscall loop, ls /proc) pinned to each of the
# 2 CPUs, in the background, their pids in $pids.
vm_guest_busy_loops() {
	local body=${1:-ls /proc > /dev/null 2>&1}

	cat <<GUEST
pids=
for c in 0 1; do
	taskset -c \$c sh -c 'while :; do $body; done' &
	pids="\$pids \$!"
done
GUEST
}

# vm_wait_line LOG PID WHO PATTERN [SECS]: wait until the console LOG of
# the guest whose ivring-vm is PID has a line that matches PATTERN
# (grep -E), or fail, naming WHO, with the console's tail.
vm_wait_line() {
	local log=$1 pid=$2 who=$3 pat=$4 secs=${5:-120} i

	for ((i = 0; i < secs * 10; i++)); do
		[ -e "$log" ] && tr -d '\r' <"$log" | grep -q -E "$pat" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 30 "$log" | sed "s/^/# $who: /"
	fail "no '$pat' from $who"
}

# vm_guest_wait_stop: print the lines of a guest script that say
# GUEST-READY, wait for "stop" on fd 3 (the host's channel, vm_chan_open),
# then end the workload's $pids.
vm_guest_wait_stop() {
	cat <<'GUEST'
echo GUEST-READY
while read -r msg <&3; do
	[ "$msg" = stop ] && break
done
kill $pids
wait
GUEST
}

# vm_guest_lib: the shell functions that vm_run puts before every guest
# script (--script), so that each script can call them:
#   guest_stats  every CPU's per_cpu stats as "GUEST-STATS <cpu> <line>",
#                for vm_guest_stats (lib.awk); fails when a read does
vm_guest_lib() {
	cat <<'GUEST'
guest_stats() {
	local f c

	for f in /sys/kernel/ivring/per_cpu/cpu*/stats; do
		c=${f#/sys/kernel/ivring/per_cpu/cpu}; c=${c%/stats}
		sed "s/^/GUEST-STATS $c /" $f || return 1
	done
}
GUEST
}

# vm_guest_script FILE: FILE with vm_guest_lib before it, as FILE.run;
# prints that path, for ivring-vm's --script.
vm_guest_script() {
	{ vm_guest_lib; cat "$1"; } >"$1.run" || fail "cannot write $1.run"
	echo "$1.run"
}

# vm_guest_stop_tracing: print the lines of a guest script (after
# t=/sys/kernel/ivring) that stop tracing and print every CPU's stats
# (guest_stats); they exit 90 or 91 when that fails.
vm_guest_stop_tracing() {
	cat <<'GUEST'
echo 0 > $t/tracing_on || exit 90
guest_stats || exit 91
GUEST
}

# vm_run LOG ARGS...: run tools/ivring-vm with the watchdog, --scan-dmesg,
# the module and ARGS; its console goes to LOG.  Sets vm_rc and vm_secs.
# A --shm NAME among ARGS is removed at exit; a --script FILE runs with
# vm_guest_lib's functions before it.
vm_run() {
	local log=$1 a prev='' t0 i
	shift

	local -a args=("$@")
	for i in "${!args[@]}"; do
		a=${args[i]}
		[ "$prev" = --shm ] && vm_shms+=("$a")
		[ "$prev" = --script ] && args[i]=$(vm_guest_script "$a")
		prev=$a
	done
	set -- "${args[@]}"
	t0=$(date +%s.%N)
	"$ivring_vm" --timeout "$vm_timeout" --scan-dmesg --kver "$vm_kver" \
		--module "$module" --log "$log.console" "$@" >"$log" 2>&1 </dev/null &
	vm_pid=$!
	wait "$vm_pid"
	vm_rc=$?
	vm_pid=
	vm_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "# guest run: exit $vm_rc after ${vm_secs}s"
}

# vm_check_rc LOG: fail with the console's tail unless the guest passed.
vm_check_rc() {
	if [ "$vm_rc" -ne 0 ]; then
		echo "# --- last lines of the guest run"
		tail -n 60 "$1" | sed 's/^/# /'
		case $vm_rc in
		124) fail "the guest hung: the watchdog fired after ${vm_timeout}s" ;;
		126) fail "--scan-dmesg found a kernel splat" ;;
		125) fail "ivring-vm failed (status 125)" ;;
		*) fail "the guest script exited with status $vm_rc" ;;
		esac
	fi
}

# vm_check_left SHM: after a run without --keep-shm, no qemu process
# names /dev/shm/SHM and the file is gone.
vm_check_left() {
	if pgrep -f "mem-path=/dev/shm/$1([,]|\$)" >/dev/null 2>&1; then
		fail "a qemu process for /dev/shm/$1 is still running"
	fi
	[ ! -e "/dev/shm/$1" ] || fail "/dev/shm/$1 was left behind"
}

# vm_run_script LOG CONSOLE SCRIPT [ivring-vm options]: run SCRIPT in a
# guest that keeps its segment; the console, without CRs, goes to CONSOLE.
# Fails unless the guest passed and the script printed GUEST-DONE.
vm_run_script() {
	local log=$1 console=$2 script=$3

	shift 3
	vm_run "$log" --keep-shm --script "$script" "$@"
	vm_check_rc "$log"
	tr -d '\r' <"$log" >"$console"
	grep -q '^GUEST-DONE' "$console" || fail "the guest did not finish its script"
}

# vm_read_kept SHM OUT ERR [ivring-read options]: read the segment a guest
# left behind into OUT (stats and summary into ERR), then remove it.
vm_read_kept() {
	local shm=$1 out=$2 err=$3 rc

	shift 3
	"$read_bin" "$@" "/dev/shm/$shm" >"$out" 2>"$err" ||
		{ rc=$?; cat "$err"; fail "ivring-read exited with status $rc"; }
	rm -f "/dev/shm/$shm"
	vm_check_left "$shm"
}

# vm_awk PROGRAM [awk options and operands]: run awk with PROGRAM after
# the functions of lib.awk (vm_event, vm_lost, vm_field, vm_guest_stats,
# vm_host_stats).  In the background (vm_awk ... &), $! is awk's pid.
vm_awk() {
	local prog

	prog=$(mktemp "$vm_tmp/prog.XXXXXX") || return 1
	printf '%s\n' "$1" >"$prog"
	shift
	# A subshell (&, a pipeline) becomes awk, so a TERM reaches awk.
	[ "$BASHPID" = "$$" ] || exec awk -f "$vm_here/lib.awk" -f "$prog" "$@"
	awk -f "$vm_here/lib.awk" -f "$prog" "$@"
}

# vm_reader_start SHM OUT ERR [ivring-read options]: a host reader,
# ivring-read --follow --stats /dev/shm/SHM, in the background, its events
# into OUT and its warnings, statistics and summary into ERR.  Start it
# before the guest: it waits for the segment.  Sets vm_reader_pid.
vm_reader_start() {
	local shm=$1 out=$2 err=$3

	shift 3
	"$read_bin" --follow --stats "$@" "/dev/shm/$shm" >"$out" 2>"$err" </dev/null &
	vm_reader_pid=$!
	vm_bg_pids+=("$vm_reader_pid")
}

# vm_recorder_start SHM FILE ERR [record options]: a host recorder,
# ivring-read record --follow --quiet -o FILE /dev/shm/SHM, in the
# background, its messages and summary into ERR.  Like vm_reader_start it
# waits for the segment and sets vm_reader_pid, so vm_reader_stopped and
# vm_reader_stop apply; it puts FILE together when it is stopped.
vm_recorder_start() {
	local shm=$1 file=$2 err=$3

	shift 3
	"$read_bin" record --follow --quiet -o "$file" "$@" "/dev/shm/$shm" \
		>/dev/null 2>"$err" </dev/null &
	vm_reader_pid=$!
	vm_bg_pids+=("$vm_reader_pid")
}

# vm_reader_stopped ERR N [SECS]: wait until the reader has said N times
# that the guest's writer stopped, which it says only once it has read
# everything published before the segment was stopped (rmmod).  Returns 1,
# with the reader's messages, after SECS seconds (default 60) or if the
# reader exited.
vm_reader_stopped() {
	local err=$1 n=$2 secs=${3:-60} i

	for ((i = 0; i < secs * 10; i++)); do
		[ "$(grep -c "writer stopped; waiting for a new generation" "$err")" -ge "$n" ] &&
			return 0
		kill -0 "$vm_reader_pid" 2>/dev/null || {
			sed 's/^/# reader: /' "$err"
			echo "# the host reader exited early"
			return 1
		}
		sleep 0.1
	done
	sed 's/^/# reader: /' "$err"
	echo "# the host reader did not report the writer stopped ($n) within ${secs}s"
	return 1
}

# vm_reader_wait_stopped ERR N [SECS]: vm_reader_stopped, or fail.
vm_reader_wait_stopped() {
	vm_reader_stopped "$@" || fail "the host reader did not finish"
}

# vm_reader_stop: end the reader with SIGTERM, as Ctrl-C would; it then
# prints its statistics.  Sets vm_reader_rc.
vm_reader_stop() {
	vm_reader_kill TERM
}

# vm_reader_kill SIG: end the reader or recorder with SIG and wait for it;
# on INT or TERM a recorder puts its trace.dat together.  Sets vm_reader_rc.
vm_reader_kill() {
	kill "-$1" "$vm_reader_pid" 2>/dev/null
	wait "$vm_reader_pid"
	# shellcheck disable=SC2034 # for the tests
	vm_reader_rc=$?
}

# vm_check_no_spools FILE...: fail if a recorder left the spool files of
# FILE (FILE.cpuN, FILE.tmp) behind: it removes them once FILE is whole.
vm_check_no_spools() {
	local p f

	for p in "$@"; do
		for f in "$p".*; do
			[ ! -e "$f" ] || fail "a recorder left $f behind"
		done
	done
}

# vm_chan_open: a host-to-guest channel, the guest's second serial port.
# Pass "${vm_chan_args[@]}" to vm_run.  The guest opens it first thing
# (exec 3< /dev/ttyS1; stty -echo <&3; later: read -r line <&3): bytes
# that arrive before the guest opened the port are lost, so send only once
# the guest is known to wait.
vm_chan_open() {
	mkfifo "$vm_tmp/chan.in" "$vm_tmp/chan.out" || fail "mkfifo in $vm_tmp"
	# Read-write: never blocks, whether qemu has opened its end or not.
	exec {vm_chan_fd}<>"$vm_tmp/chan.in"
	# shellcheck disable=SC2034 # for the tests
	vm_chan_args=(--qemu-arg -serial --qemu-arg "pipe:$vm_tmp/chan")
}

# vm_chan_send LINE: send one line to the guest.
vm_chan_send() {
	printf '%s\n' "$1" >&"$vm_chan_fd"
}

# Several guests at once, each called by a ROLE: its ivring-vm's pid in
# vm_pid_of[ROLE], its channel's fd in vm_chan_of[ROLE], its console in
# $vm_tmp/ROLE.log.
declare -A vm_pid_of=() vm_chan_of=()

# vm_guest_start ROLE SHM SCRIPT: boot ROLE's guest in the background, with
# SCRIPT, the segment /dev/shm/SHM (kept: removed at exit) and a
# host-to-guest channel as vm_chan_open makes one.
vm_guest_start() {
	local role=$1 shm=$2 script=$3 fd

	mkfifo "$vm_tmp/$role.chan.in" "$vm_tmp/$role.chan.out" || fail "mkfifo"
	exec {fd}<>"$vm_tmp/$role.chan.in"
	vm_chan_of[$role]=$fd
	vm_shms+=("$shm")
	"$ivring_vm" --timeout "$vm_timeout" --scan-dmesg --kver "$vm_kver" \
		--module "$module" --mem 256M --shm "$shm" --keep-shm \
		--log "$vm_tmp/$role.console" \
		--script "$(vm_guest_script "$script")" \
		--qemu-arg -serial --qemu-arg "pipe:$vm_tmp/$role.chan" \
		>"$vm_tmp/$role.log" 2>&1 </dev/null &
	vm_pid_of[$role]=$!
	vm_bg_pids+=("$!")
}

# vm_guest_send ROLE LINE: send one line to ROLE's guest.
vm_guest_send() {
	printf '%s\n' "$2" >&"${vm_chan_of[$1]}"
}

# vm_guest_wait ROLE PATTERN [SECS]: wait until ROLE's console has a line
# matching PATTERN (grep -E), or fail.
vm_guest_wait() {
	vm_wait_line "$vm_tmp/$1.log" "${vm_pid_of[$1]}" "guest $1" "$2" "${3:-120}"
}

# vm_guest_end ROLE: wait for ROLE's ivring-vm, which must exit 0 after
# the guest finished its script (GUEST-DONE); its console, without CRs,
# in $vm_tmp/ROLE.txt.
vm_guest_end() {
	local role=$1 rc

	wait "${vm_pid_of[$role]}"
	rc=$?
	tr -d '\r' <"$vm_tmp/$role.log" >"$vm_tmp/$role.txt"
	if [ "$rc" != 0 ]; then
		tail -n 40 "$vm_tmp/$role.txt" | sed "s/^/# $role: /"
		[ "$rc" = 124 ] && fail "guest $role hung: the watchdog fired after ${vm_timeout}s"
		fail "guest $role: ivring-vm exited with status $rc"
	fi
	grep -q '^GUEST-DONE' "$vm_tmp/$role.txt" || fail "guest $role did not finish its script"
}

# vm_check_read_all CONSOLE STATS EVENTS: the host read every event the
# guest counted, nothing lost: per CPU, the guest's GUEST-STATS entries
# (CONSOLE) equal ivring-read --stats' read events (STATS) and the event
# lines (EVENTS), for the 2 CPUs of a guest.  Fails the test otherwise.
vm_check_read_all() {
	vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN { ngcpu = vm_guest_stats(console); vm_host_stats(stats) }
vm_lost($0) { bad("lost events: " $0); next }
vm_event($0) { lines[ev_cpu]++; next }
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		e = gstat[c, "entries"]; r = hstat[c, "read events"]; l = hstat[c, "lost events"]
		printf "# cpu%d: guest entries %s, host read %s, lost %s, %d lines\n", c, e, r, l, lines[c]
		if (e == "" || r == "") { bad("cpu" c ": a counter is missing"); continue }
		if (r != e || lines[c] + 0 != e + 0 || l != 0) bad("cpu" c ": the host did not read every event")
		tot += e
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	if (!tot) bad("no events")
	exit fails ? 1 : 0
}' -v console="$1" -v stats="$2" "$3" ||
		{ sed 's/^/# read: /' "$2"; fail "the host did not read every event"; }
}

# vm_report DAT OUT: trace-cmd report of DAT into OUT, without plugins
# (-N): libtraceevent's sched_switch and sched_wakeup plugins print their
# own layout (and prev_state 0x402 as "W" where 6.1's print fmt says
# "I"), and ivring-read prints every event through its print fmt.  Fails
# unless trace-cmd exits 0 and says nothing on stderr.
vm_report() {
	local rc

	trace-cmd report -N "$1" >"$2" 2>"$2.err"
	rc=$?
	if [ "$rc" != 0 ] || [ -s "$2.err" ]; then
		sed 's/^/# trace-cmd: /' "$2.err" | head -20
		fail "trace-cmd report $(basename "$1") exited $rc"
	fi
}

# vm_check_same_events IVRING REPORT WHAT: ivring-read's text (IVRING)
# and trace-cmd report's (REPORT, of vm_report) hold the same events, in
# the same order on each CPU, and the same losses at the same places:
# "CPU:N [LOST K EVENTS]" is "CPU:N [K EVENTS DROPPED]".  An event is the
# same when its pid, CPU, time stamp, name and text (every field through
# the print fmt) are, whitespace runs aside.  Not its comm: trace-cmd
# takes a task's comm from the file's cmdlines, the last one the recorder
# saw for the pid, while ivring-read learns comms as it reads, so a task
# that execs has its old comm in one and its new one in the other, and a
# task not yet seen is "<...>" in ivring-read alone.  The order across
# CPUs is not compared: two events of one time stamp may come in either
# order.  WHAT names the file in the messages.  Fails the test otherwise.
vm_check_same_events() {
	vm_awk '
function bad(msg) { print "not ok: " what ": " msg; fails++ }
# The line of an event or a loss, as compared: its CPU in ev_cpu.
function norm(line,   info) {
	if (vm_lost(line)) { ev_cpu = lost_cpu; return "LOST " lost_n }
	if (vm_dropped(line)) { ev_cpu = lost_cpu; return "LOST " lost_n }
	if (!vm_event(line)) return ""
	info = ev_info
	gsub(/[ \t]+/, " ", info)
	sub(/ $/, "", info)
	return ev_pid " [" ev_cpu "] " ev_ts_str ": " ev_name ": " info
}
BEGIN {
	while ((getline l < ivring) > 0) {
		k = norm(l)
		if (k == "") { if (niv_other++ < 5) bad("not an ivring-read event line: " l); continue }
		n = ++niv[ev_cpu]; iv[ev_cpu, n] = k; ivl[ev_cpu, n] = l; ivc[ev_cpu, n] = ev_comm
		cpus[ev_cpu] = 1
	}
	close(ivring)
}
FNR == 1 && /^cpus=[0-9]+$/ { next }
{
	k = norm($0)
	if (k == "") { if (ntc_other++ < 5) bad("not a trace-cmd event line: " $0); next }
	c = ev_cpu; cpus[c] = 1
	n = ++ntc[c]
	if (k !~ /^LOST /) names[ev_name] = 1
	if (k != iv[c, n]) {
		if (ndiff[c]++ < 3)
			bad("cpu" c " event " n " differs:\n#   ivring-read: " ivl[c, n] "\n#   trace-cmd:   " $0)
	} else if (k !~ /^LOST / && ev_comm != ivc[c, n]) {
		ncomm++
	}
	if (k ~ /^LOST /) nlost[c] += substr(k, 6)
}
END {
	for (c in cpus) {
		printf "# %s: cpu%d: %d lines from trace-cmd, %d from ivring-read, %d differ, %d events dropped\n", \
			what, c, ntc[c], niv[c], ndiff[c], nlost[c]
		if (ntc[c] != niv[c]) bad("cpu" c ": trace-cmd prints " ntc[c] + 0 " lines, ivring-read " niv[c] + 0)
		tot += ntc[c]
	}
	for (e in names) ntypes++
	printf "# %s: %d event types; %d events of the same pid have another comm in trace-cmd (its cmdlines are the last comm)\n", \
		what, ntypes, ncomm
	if (!tot) bad("no events")
	exit fails ? 1 : 0
}' -v ivring="$1" -v what="$3" "$2" || fail "$3: trace-cmd report and ivring-read differ"
}

# vm_check_ftrace_run IVRING FTRACE TON TOFF OFFMARK MAXEDGE MINEV WHAT:
# ivring and the guest's own ftrace recorded the same events in one run,
# ftrace on first and off last, as ftrace_agree.sh describes.  IVRING and
# FTRACE hold one event a line, "CPU TS KEY", TS in seconds of the mono
# trace clock and KEY the text compared (the test's normalized pid, name
# and fields).  Per CPU, ivring's keys must be one contiguous run of
# ftrace's: same events, same order, no gap, nothing extra, and at least
# MINEV of them.  The ftrace-only events around that run are the edges:
# at most MAXEDGE before it, and at most MAXEDGE after it up to OFFMARK
# (ftrace's mark of ivring's off), and none strictly between TON and TOFF,
# the guest's clock readings just after ivring's on and just before its
# off: one there is an event that ivring missed.  WHAT names the events
# in the messages.  Fails the test otherwise.
vm_check_ftrace_run() {
	vm_awk '
function bad(msg) { print "not ok: " what ": " msg; fails++ }
# One "CPU TS KEY" line into the arrays named by its file: the key in
# k[cpu, n], the time stamp in t[cpu, n].
function split_line(l,   a) {
	a[1] = l; sub(/ .*/, "", a[1])
	sub(/^[^ ]* /, "", l)
	a[2] = l; sub(/ .*/, "", a[2])
	sub(/^[^ ]* /, "", l)
	lc = a[1] + 0; lts = a[2] + 0; lkey = l
}
BEGIN {
	while ((getline l < ivf) > 0) {
		split_line(l)
		iv[lc, ++niv[lc]] = lkey
		cpus[lc] = 1
	}
	close(ivf)
	while ((getline l < ftf) > 0) {
		split_line(l)
		n = ++nft[lc]
		ft[lc, n] = lkey; ts[lc, n] = lts
		cpus[lc] = 1
	}
	close(ftf)
	for (c in cpus) check(c)
	exit fails ? 1 : 0
}
function check(c,   s, i, found, best, at, pre, post, n) {
	n = niv[c] + 0
	printf "# %s: cpu%d: ftrace %d events, ivring %d\n", what, c, nft[c], n
	if (n < minev) { bad("cpu" c ": only " n " ivring events, expected at least " minev); return }
	found = 0
	for (s = 0; s + n <= nft[c] && !found; s++) {
		if (ft[c, s + 1] != iv[c, 1]) continue
		for (i = 2; i <= n && ft[c, s + i] == iv[c, i]; i++) ;
		if (i > n) found = s + 1
	}
	if (!found) {
		best = 0; at = 0
		for (s = 0; s < nft[c]; s++) {
			for (i = 1; i <= n && s + i <= nft[c] && ft[c, s + i] == iv[c, i]; i++) ;
			if (i - 1 > best) { best = i - 1; at = s }
		}
		bad("cpu" c ": ivring'"'"'s events are not one contiguous run of ftrace'"'"'s; the longest run matches " best " of " n)
		printf "#   ivring event %d: %s\n#   ftrace event %d: %s\n", best + 1, iv[c, best + 1], at + best + 1, ft[c, at + best + 1]
		return
	}
	pre = found - 1; post = 0
	for (i = found + n; i <= nft[c]; i++)
		if (ts[c, i] <= offmark) post++
	printf "# %s: cpu%d: ivring = ftrace events %d..%d; ftrace alone: %d before, %d after\n", \
		what, c, found, found + n - 1, pre, post
	if (pre > maxedge || post > maxedge)
		bad("cpu" c ": more than " maxedge " ftrace-only events at an edge")
	for (i = 1; i <= nft[c]; i++)
		if ((i < found || i >= found + n) && ts[c, i] > ton && ts[c, i] < toff && nin++ < 5)
			bad(sprintf("cpu%d: ftrace event %d at %.6f is inside ivring'"'"'s window %.6f..%.6f but not in ivring: %s", \
				c, i, ts[c, i], ton, toff, ft[c, i]))
}' -v ivf="$1" -v ftf="$2" -v ton="$3" -v toff="$4" -v offmark="$5" \
		-v maxedge="$6" -v minev="$7" -v what="$8" </dev/null ||
		fail "$8: ivring and ftrace disagree"
}

# vm_guest_ftrace_on: print the lines of a guest script (after
# t=/sys/kernel/ivring, f=/sys/kernel/tracing and gen='SYS:EVENT ...', the
# events already enabled in ivring, its tracing off) that enable the
# events of $gen in the guest's own ftrace too, on the mono trace clock,
# the one ivring stamps with, then turn ftrace on and ivring on, and print
# "GUEST-TON <ivring's now ts>": ftrace first, for vm_check_ftrace_run.
# Enabling them in ftrace after ivring puts ftrace's tracepoint probe
# after ivring's.  They exit 80 to 82 when a step fails.
vm_guest_ftrace_on() {
	cat <<'GUEST'
echo 0 > $f/tracing_on || exit 80
echo 4096 > $f/buffer_size_kb || exit 80
echo mono > $f/trace_clock || exit 80
echo > $f/trace
for e in $gen; do
	echo 1 > $f/events/${e%:*}/${e#*:}/enable || exit 81
done
echo 1 > $f/tracing_on || exit 82
echo 1 > $t/tracing_on || exit 82
echo "GUEST-TON $(sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats)"
GUEST
}

# vm_guest_ftrace_off: the lines that end vm_guest_ftrace_on's window:
# print "GUEST-TOFF <ivring's now ts>", turn ivring off, mark that in
# ftrace's buffer (IVRING-OFF), and turn ftrace off 0.2 s later, for the
# reason ftrace_agree.sh gives: a probe pair under way at ivring's off
# completes.  Then the events of $gen are disabled in ftrace.  They exit
# 83 or 84 when a step fails.
vm_guest_ftrace_off() {
	cat <<'GUEST'
echo "GUEST-TOFF $(sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats)"
echo 0 > $t/tracing_on || exit 83
echo IVRING-OFF > $f/trace_marker
sleep 0.2
echo 0 > $f/tracing_on || exit 84
for e in $gen; do
	echo 0 > $f/events/${e%:*}/${e#*:}/enable
done
GUEST
}

# vm_guest_ftrace_cpus BODY: print the lines of a guest script (after
# f=/sys/kernel/tracing) that, for each CPU of ftrace, print its stats as
# "FTRACE-STATS <cpu> <line>" ("entries: N", "overrun: N") and run the
# guest code BODY with the CPU in $c and its per_cpu directory in $d.
vm_guest_ftrace_cpus() {
	cat <<'GUEST'
for d in $f/per_cpu/cpu*; do
	c=${d#$f/per_cpu/cpu}
	sed "s/^/FTRACE-STATS $c /" $d/stats
GUEST
	printf '%s\ndone\n' "$1"
}
