#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Host and guest together across a live migration: each host records the
# guest with ivring-read record --host, the source's recorder hands over
# to the destination's with a checkpoint (lagging at the migration, as
# lib_migrate.sh's readers do: mig_handover), and each host has its own
# host file.
#
# Asserted:
#   - each guest file's TIME_SHIFT names its own host file's TRACEID, and
#     that host file's GUEST option names the guest file's TRACEID: the
#     destination's files are a pair of their own;
#   - the guest's clock series starts again at the destination: every
#     clock sample of the destination's file is later, in guest time, than
#     every sample of the source's, and neither file is without one;
#   - trace-cmd report -i host -i guest prints one timeline for each pair;
#   - per CPU, the events the two recorders read plus those they counted
#     lost are the guest's entries plus its dropped events, and what they
#     lost is what the guest dropped: each event once, in one file or the
#     other (trace-cmd report shows as many as they read);
#   - nothing is left in tracefs.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1
vm_require_trace_cmd
[ "$(id -u)" = 0 ] || skip "the host's tracefs needs root"

# mig_recorder ROLE SHM [options]: ROLE's recorder of /dev/shm/SHM into
# $vm_tmp/ROLE.dat, its host into $vm_tmp/ROLE-host.dat, --stats into
# $vm_tmp/ROLE.err; pid in mig_rpid[ROLE], as mig_reader's.
mig_recorder() {
	local role=$1 shm=$2

	shift 2
	"$read_bin" record --follow --quiet --stats -o "$vm_tmp/$role.dat" \
		--host "$vm_tmp/$role-host.dat" "$@" "/dev/shm/$shm" \
		>/dev/null 2>"$vm_tmp/$role.err" </dev/null &
	mig_rpid[$role]=$!
	vm_bg_pids+=("$!")
}

mig_setup
mig_handover mig_recorder
vm_check_no_spools "$vm_tmp/src.dat" "$vm_tmp/dst.dat" \
	"$vm_tmp/src-host.dat" "$vm_tmp/dst-host.dat"
t=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -n "$t" ] && ls "$t/instances" 2>/dev/null | grep -q '^ivring-host-'; then
	for r in "${mig_rpid[@]}"; do
		[ ! -d "$t/instances/ivring-host-$r" ] ||
			fail "the recorder $r left its tracefs instance"
	done
fi

# The value on the line after an option's name in trace-cmd dump --options.
opt() {
	awk -v o="$2" 'f { print $1; exit } $0 ~ "\\[Option " o "," { f = 1 }' "$1"
}
for role in src dst; do
	trace-cmd dump --options -i "$vm_tmp/$role.dat" >"$vm_tmp/$role.opts" 2>&1
	trace-cmd dump --options -i "$vm_tmp/$role-host.dat" \
		>"$vm_tmp/$role-host.opts" 2>&1
	guest_id=$(opt "$vm_tmp/$role.opts" TRACEID)
	host_id=$(opt "$vm_tmp/$role-host.opts" TRACEID)
	peer=$(awk '/peer.s trace id/ { print $1; exit }' "$vm_tmp/$role.opts")
	[ -n "$host_id" ] && [ "$peer" = "$host_id" ] ||
		fail "$role: the guest file's TIME_SHIFT names $peer, not its host file's $host_id"
	awk '/\[Option GUEST,/ { f = 1; next } f && /\[Option / { exit } f' \
		"$vm_tmp/$role-host.opts" >"$vm_tmp/$role.guest"
	grep -qi "^$guest_id \[trace id\]" "$vm_tmp/$role.guest" ||
		fail "$role: the host file's GUEST option does not name the guest file's $guest_id"
	eval "${role}_host_id=$host_id"
done
# shellcheck disable=SC2154 # set by the eval above
[ "$src_host_id" != "$dst_host_id" ] || fail "both host files have TRACEID $src_host_id"
echo "ok: each host's files name each other, the destination's a pair of its own"

# TIME_SHIFT's samples' guest times, as trace-cmd dump prints them:
# "offset scaling fraction time[offset * scaling >> fraction @ time]".
samples() {
	awk '/\[Option TimeShift,/ { f = 1; next } f && /\[Option / { exit }
	     f && /@ time\]$/ { sub(/\[.*/, ""); print $4 }' "$1"
}
samples "$vm_tmp/src.opts" >"$vm_tmp/src.samples"
samples "$vm_tmp/dst.opts" >"$vm_tmp/dst.samples"
src_last=$(sort -n "$vm_tmp/src.samples" | tail -n 1)
dst_first=$(sort -n "$vm_tmp/dst.samples" | head -n 1)
echo "# clock samples: $(wc -l <"$vm_tmp/src.samples") at the source, the last at guest $src_last; $(wc -l <"$vm_tmp/dst.samples") at the destination, the first at $dst_first"
[ -n "$src_last" ] && [ -n "$dst_first" ] ||
	fail "a guest file without clock samples: $(grep -A 3 TimeShift "$vm_tmp/src.opts" "$vm_tmp/dst.opts" | head -n 8)"
awk -v s="$src_last" -v d="$dst_first" 'BEGIN { exit !(d + 0 > s + 0) }' ||
	fail "the destination's clock samples do not start after the source's"
echo "ok: the guest's clock series starts again at the destination"

for role in src dst; do
	trace-cmd report -i "$vm_tmp/$role-host.dat" -i "$vm_tmp/$role.dat" \
		>"$vm_tmp/$role.both" 2>"$vm_tmp/$role.both.err" ||
		fail "$role: trace-cmd report -i host -i guest: $(head -n 3 "$vm_tmp/$role.both.err")"
	vm_awk '
	/^ *[a-z-]+\.dat: / {
		if ($1 != prev && prev != "") turns++
		prev = $1
		n[$1 == g]++
	}
	END {
		printf "# %d host and %d guest events, %d turns\n", n[0], n[1], turns
		exit !(n[0] > 100 && n[1] > 100 && turns > 10)
	}' -v g="$role.dat:" "$vm_tmp/$role.both" ||
		fail "$role: trace-cmd report -i host -i guest: not one timeline"
	trace-cmd report -i "$vm_tmp/$role.dat" 2>/dev/null |
		awk -v g="$role" '/^ *[^ ]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: / {
			c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c); n[c + 0]++ }
			END { for (c in n) print c, n[c] }' >"$vm_tmp/$role.lines"
done
echo "ok: trace-cmd report -i host -i guest prints one timeline on each host"

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	ngcpu = vm_guest_stats(console)
	vm_host_totals(stats)
	n = split(linefiles, f, " ")
	for (i = 1; i <= n; i++)
		while ((getline l < f[i]) > 0) {
			split(l, a, " ")
			lines[a[1]] += a[2]
		}
	for (c in gcpu) {
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]
		printf "# cpu%d: guest entries %s dropped %s; recorders read %d, lost %d; %d in the files\n", \
			c, e, d, hread[c], hlost[c], lines[c]
		if (e == "" || d == "") { bad("cpu" c ": a guest counter is missing"); continue }
		if (hread[c] + hlost[c] != e + d)
			bad("cpu" c ": read " hread[c] " + lost " hlost[c] " != entries " e " + dropped " d)
		if (hlost[c] != d) bad("cpu" c ": lost " hlost[c] ", but the guest dropped " d)
		if (lines[c] != hread[c]) bad("cpu" c ": " lines[c] " events in the files for " hread[c] " read")
		tot += e
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	if (!tot) bad("no events")
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/src.err $vm_tmp/dst.err" \
	-v linefiles="$vm_tmp/src.lines $vm_tmp/dst.lines" ||
	fail "the two recordings are not each of the guest's events once"
echo "ok: each event once across the two recordings, nothing lost but what the guest dropped"
