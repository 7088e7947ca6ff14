# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Sourced by the live migration tests (migrate_*.sh); sources lib.sh: a guest
# that QEMU migrates, over a unix socket, from one ivring-vm to another on
# this host, each with its own /dev/shm file, as two hosts would have.
#
# A guest is a role (src, dst, or any name): mig_vm starts its ivring-vm in
# the background with a monitor socket ($vm_tmp/ROLE.mon), a host-to-guest
# channel on its second serial port (mig_send ROLE LINE) and its console in
# $vm_tmp/ROLE.log.  Every role gets the same machine, as migration needs.
# The guest script is mig_guest_script's: it traces sched and raw_syscalls
# under a busy loop per CPU until the host sends "stop", then prints its
# per_cpu stats (GUEST-STATS) and unloads the module, which stops the
# segment (the readers then say "writer stopped").

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

# mig_setup [insmod parameters]: skip unless everything is here; the shm
# names of the two hosts in $a and $b; the guest script.
# shellcheck disable=SC2120 # the tests pass parameters, or none
mig_setup() {
	vm_require read
	command -v socat >/dev/null || skip "no socat (Debian package socat)"
	a=$(vm_shm mig-a)
	b=$(vm_shm mig-b)
	mig_guest_script "$vm_tmp/guest.sh" "$@"
}

# mig_guest_script FILE [insmod parameters]: write the guest script.
mig_guest_script() {
	local file=$1

	shift
	{
		cat <<GUEST
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
insmod /ivring.ko $* || exit 10
echo 'sched:* raw_syscalls:*' > \$t/set_event || exit 11
GUEST
		vm_guest_busy_loops
		vm_guest_wait_stop
		vm_guest_stop_tracing
		cat <<'GUEST'
rmmod ivring || exit 12
echo GUEST-DONE
GUEST
	} >"$file"
}

# mig_vm ROLE SHM [ivring-vm options]: start the guest of ROLE in the
# background (pid in mig_pid[ROLE]) with /dev/shm/SHM of mig_shm_size
# (default 16M), and the options in the array mig_vm_args too; a source
# takes --may-migrate.  mig_vm_incoming ROLE SHM
# [options]: the same for a destination, waiting on $vm_tmp/ROLE.sock.
declare -A mig_pid mig_fd
mig_vm_args=()
mig_vm() {
	local role=$1 shm=$2 fd

	shift 2
	mkfifo "$vm_tmp/$role.chan.in" "$vm_tmp/$role.chan.out" || fail "mkfifo"
	exec {fd}<>"$vm_tmp/$role.chan.in"
	mig_fd[$role]=$fd
	vm_shms+=("$shm")
	"$ivring_vm" --timeout "$vm_timeout" --scan-dmesg --kver "$vm_kver" \
		--module "$module" --mem 256M --shm "$shm" \
		--shm-size "${mig_shm_size:-16M}" \
		--monitor "$vm_tmp/$role.mon" --log "$vm_tmp/$role.console" \
		--script "$(vm_guest_script "$vm_tmp/guest.sh")" \
		--qemu-arg -serial --qemu-arg "pipe:$vm_tmp/$role.chan" \
		${mig_vm_args[@]+"${mig_vm_args[@]}"} \
		"$@" >"$vm_tmp/$role.log" 2>&1 </dev/null &
	mig_pid[$role]=$!
	vm_bg_pids+=("$!")
}

mig_vm_incoming() {
	mig_vm "$1" "$2" --incoming "unix:$vm_tmp/$1.sock" "${@:3}"
}

# mig_send ROLE LINE: a line to the guest's second serial port, through
# ROLE's qemu.
mig_send() {
	printf '%s\n' "$2" >&"${mig_fd[$1]}"
}

# mig_hmp ROLE COMMAND: run a monitor command on ROLE's qemu; its output.
mig_hmp() {
	{ printf '%s\n' "$2"; sleep 0.3; } |
		socat - "UNIX-CONNECT:$vm_tmp/$1.mon" 2>/dev/null | tr -d '\r'
}

# mig_wait_line ROLE PATTERN [SECS]: wait until ROLE's console has a line
# that matches PATTERN (grep -E), or fail.
mig_wait_line() {
	vm_wait_line "$vm_tmp/$1.log" "${mig_pid[$1]}" "the $1 guest" "$2" "${3:-120}"
}

# mig_migrate FROM TO [SECS]: migrate FROM's guest to TO (mig_vm_incoming)
# and wait for the end (mig_migrate_wait).
mig_migrate() {
	mig_start "$1" "$2"
	mig_migrate_wait "$1" "${3:-120}"
}

# mig_start FROM TO: start migrating FROM's guest to TO, once TO listens.
mig_start() {
	local i

	for ((i = 0; i < 300; i++)); do
		[ -S "$vm_tmp/$2.sock" ] && break
		sleep 0.1
	done
	mig_hmp "$1" "migrate -d unix:$vm_tmp/$2.sock" >/dev/null
}

# mig_migrate_wait FROM [SECS]: wait until FROM's migration ends;
# mig_status is completed, failed or cancelled.  Fails when it does not
# end within SECS (default 120).
mig_migrate_wait() {
	local from=$1 secs=${2:-120} i out

	for ((i = 0; i < secs * 5; i++)); do
		out=$(mig_hmp "$from" "info migrate")
		mig_status=$(sed -n 's/^Migration status: \([a-z-]*\).*/\1/p' <<<"$out" | tail -n 1)
		case $mig_status in
		completed | failed | cancelled)
			echo "# migration $from: $mig_status $(sed -n 's/^total time: /after /p' <<<"$out")"
			return 0
			;;
		esac
		sleep 0.2
	done
	fail "the migration did not end within ${secs}s (status '$mig_status')"
}

# mig_lagging_migrate FROM TO: FROM's reader falls behind (SIGSTOP) a
# second before the migration and catches up (SIGCONT) once it completed:
# what it reads then, the host area that reaches TO does not know of,
# however late QEMU sent its page.  Fails unless the migration completed.
mig_lagging_migrate() {
	sleep 1
	kill -STOP "${mig_rpid[$1]}"
	sleep 1
	mig_migrate "$1" "$2"
	kill -CONT "${mig_rpid[$1]}"
	[ "$mig_status" = completed ] || fail "the migration $mig_status"
}

# mig_end ROLE: wait for ROLE's ivring-vm; fail unless it exited 0.
mig_end() {
	local rc

	wait "${mig_pid[$1]}"
	rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 40 "$vm_tmp/$1.log" | sed "s/^/# $1: /"
		fail "the $1 guest's ivring-vm exited with status $rc"
	fi
}

# mig_reader ROLE SHM [ivring-read options]: a consuming host reader of
# /dev/shm/SHM, --follow --stats, events in $vm_tmp/ROLE.events, messages
# in $vm_tmp/ROLE.err; pid in mig_rpid[ROLE].
declare -A mig_rpid
mig_reader() {
	local role=$1 shm=$2

	shift 2
	"$read_bin" --follow --stats "$@" "/dev/shm/$shm" \
		>"$vm_tmp/$role.events" 2>"$vm_tmp/$role.err" </dev/null &
	mig_rpid[$role]=$!
	vm_bg_pids+=("$!")
}

# mig_reader_end ROLE SIG: end ROLE's reader with SIG (USR1: drain first),
# TERM once it has seen the writer stop, TERM_NOW at once; fail unless it
# exits 0.
mig_reader_end() {
	local role=$1 sig=$2 rc

	if [ "$sig" = TERM ]; then
		vm_reader_pid=${mig_rpid[$role]}
		vm_reader_wait_stopped "$vm_tmp/$role.err" 1 120
	fi
	kill "-${sig%_NOW}" "${mig_rpid[$role]}"
	wait "${mig_rpid[$role]}"
	rc=$?
	grep '^ivring-read: ' "$vm_tmp/$role.err" | sed "s/^/# $role reader: /"
	[ "$rc" = 0 ] || fail "the $role reader exited with status $rc"
}

# mig_check_union CONSOLE ROLE...: the events of the readers of the ROLEs,
# in order, are each of the guest's events once: per CPU, the guest's
# entries + dropped (its GUEST-STATS in CONSOLE) equal the events the
# readers read plus those they counted lost, every event line is one read,
# time never goes back from one reader to the next, and nothing is lost
# but what the guest itself dropped (a discard ring that filled up while
# no reader took from it, as around a migration): per CPU the readers'
# lost events are exactly the guest's dropped ones.  mig_loss_ok=1 allows
# any counted loss (overwrite mode, where the writer may really
# overwrite), mig_loss_ok=0 none.  With mig_repeat_ok=1, an event that a
# later reader delivers again (an earlier line, time going back) is a
# repeat, not a failure: they are taken out of the counts, and
# mig_repeats says how many.
mig_check_union() {
	local console=$1 files=() stats=() role

	shift
	for role in "$@"; do
		files+=("$vm_tmp/$role.events")
		stats+=("$vm_tmp/$role.err")
	done
	vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	ngcpu = vm_guest_stats(console)
	vm_host_totals(statfiles)
}
FNR == 1 { nfile++ }
vm_lost($0) {
	lost[lost_cpu] += lost_n
	if (lossok == 0) bad("file " nfile ": " $0)
	next
}
vm_event($0) {
	c = ev_cpu
	lines[c]++
	# Not the comm: a reader that starts late knows fewer of them.
	key = ev_pid " " c " " ev_ts_str " " ev_name " " ev_info
	if ((c in last) && ev_ts <= last[c] && (key in seen)) {
		rep[c]++
		if (!repeatok && nrep++ < 5) bad("cpu" c ": again in file " nfile ": " $0)
		next
	}
	if ((c in last) && ev_ts < last[c])
		if (nback++ < 5) bad("cpu" c ": time goes back in file " nfile ": " $0)
	seen[key] = 1
	last[c] = ev_ts
	next
}
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]
		printf "# cpu%d: guest entries %s dropped %s; host read %d, lost %d, %d lines, %d repeated\n", \
			c, e, d, hread[c], hlost[c], lines[c], rep[c]
		if (e == "" || d == "") { bad("cpu" c ": a guest counter is missing"); continue }
		if (hread[c] - rep[c] + hlost[c] != e + d)
			bad("cpu" c ": read " hread[c] " - repeated " rep[c] " + lost " hlost[c] " != entries " e " + dropped " d)
		if (lines[c] != hread[c]) bad("cpu" c ": " lines[c] " lines for " hread[c] " events read")
		if (lost[c] != hlost[c]) bad("cpu" c ": " lost[c] " lost in the text, " hlost[c] " in the stats")
		if (lossok == 2 && hlost[c] != d)
			bad("cpu" c ": lost " hlost[c] ", but the guest dropped " d)
		tot += e
		reps += rep[c]
	}
	print reps + 0 > repfile
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	if (!tot) bad("no events")
	exit fails ? 1 : 0
}' -v console="$console" -v statfiles="${stats[*]}" -v lossok="${mig_loss_ok:-2}" \
		-v repeatok="${mig_repeat_ok:-0}" -v repfile="$vm_tmp/repeats" \
		"${files[@]}" ||
		fail "the readers did not deliver each event once"
	# shellcheck disable=SC2034 # for the tests
	mig_repeats=$(cat "$vm_tmp/repeats")
}

# mig_finish ROLE: the guest, at ROLE now, traces on a while, then is told
# to stop; wait for it and for ROLE's reader to read all; its console in
# $vm_tmp/console.  Fails unless it finished its script and left nothing.
mig_finish() {
	sleep 2
	mig_send "$1" stop
	mig_end "$1"
	mig_reader_end "$1" TERM
	tr -d '\r' <"$vm_tmp/$1.log" >"$vm_tmp/console"
	grep -q '^GUEST-DONE' "$vm_tmp/console" || fail "the guest did not finish its script"
	vm_check_left "$a"
	vm_check_left "$b"
}

# mig_check_resumed ROLE...: fail unless the readers of the ROLEs started
# from their checkpoints.
mig_check_resumed() {
	local r

	for r in "$@"; do
		grep -q '^ivring-read: resuming from the checkpoint' "$vm_tmp/$r.err" ||
			fail "the $r reader did not start from its checkpoint"
	done
}

# mig_move: the guest starts at src (/dev/shm/$a), and is migrated to
# dst ($b) 2 s after it is ready, with no reader; src's qemu then quits.
# Fails unless the migration completed.
mig_move() {
	mig_vm src "$a" --may-migrate
	mig_wait_line src '^GUEST-READY'
	mig_vm_incoming dst "$b"
	sleep 2
	mig_migrate src dst
	[ "$mig_status" = completed ] || fail "the migration $mig_status"
	mig_hmp src quit >/dev/null
	mig_end src
}

# mig_handover [READER]: the guest streams under a consuming reader on
# each host (READER ROLE SHM [options], mig_reader by default); the
# migration completes in the middle; the source's reader, lagging at the
# migration and then told with SIGUSR1, drains and saves a checkpoint,
# from which the destination's reader, started before the migration, goes
# on; the destination's guest ends (mig_finish).  With mig_reader, each
# event once, counts reconciled with the guest's stats after migration.
# After mig_setup.
mig_handover() {
	local reader=${1:-mig_reader}

	"$reader" src "$a" --checkpoint "$vm_tmp/ckpt"
	mig_vm src "$a" --may-migrate
	mig_wait_line src '^GUEST-READY'
	mig_vm_incoming dst "$b"
	"$reader" dst "$b" --resume "$vm_tmp/ckpt"
	mig_lagging_migrate src dst
	mig_hmp src quit >/dev/null
	mig_reader_end src USR1
	[ -s "$vm_tmp/ckpt" ] || fail "the source reader saved no checkpoint"
	sed 's/^/# checkpoint: /' "$vm_tmp/ckpt"
	mig_end src
	mig_finish dst
	mig_check_resumed dst
	[ "$reader" = mig_reader ] || return 0
	mig_check_union "$vm_tmp/console" src dst
}
