#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Host times of guest events against an independent channel: the guest's
# second serial port.  Each round, the host takes its CLOCK_REALTIME (H0,
# bash's EPOCHREALTIME) and writes "ping N" to the port; a guest process
# reads it, writes "in N" then "out N" to /sys/kernel/ivring/trace_marker
# and "pong N" back to the port; the host reads it and takes H1.  The host
# reader, ivring-read --clock realtime --clock-bound, prints the markers in
# host time, each with its bound: "in N" must come at or after H0, "out N"
# at or before H1, every round, with as slack the printing's rounding (a
# microsecond) and the bound that the reader claims for that marker.
# Rounds run before, and after, a live migration, across which the
# destination's reader takes its own clock samples from the start (a new
# series).
#
# Reported: the bound the readers claim (best and last sample) against the
# window H1 - H0 the channel shows, and the guest's cost of answering
# (/sys/kernel/ivring/clock_sync: time in the poller).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1
mig_setup
rounds=${IVRING_CAUSALITY_ROUNDS:-200}

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
exec 4> /dev/ttyS1 || exit 9
insmod /ivring.ko || exit 10
t0=$(cut -d' ' -f1 /proc/uptime)
echo GUEST-READY
while read -r cmd n <&3; do
	case $cmd in
	ping)
		echo "in $n" > $t/trace_marker || exit 11
		echo "out $n" > $t/trace_marker || exit 12
		echo "pong $n" >&4
		;;
	stop) break ;;
	esac
done
echo "GUEST-UPTIME $t0 $(cut -d' ' -f1 /proc/uptime)"
sed 's/^/GUEST-SYNC /' $t/clock_sync
rmmod ivring || exit 13
echo GUEST-DONE
GUEST

# rounds ROLE FIRST LAST: ping rounds through ROLE's serial port, each
# line "N H0 H1" (microseconds of CLOCK_REALTIME) into $vm_tmp/window.
rounds() {
	local role=$1 n=$2 last=$3 rfd h0 h1 cmd m

	exec {rfd}<>"$vm_tmp/$role.chan.out"
	for ((; n <= last; n++)); do
		h0=${EPOCHREALTIME/./}
		mig_send "$role" "ping $n"
		while :; do
			read -r -t 30 cmd m <&"$rfd" || fail "no pong $n from the $role guest"
			m=${m%$'\r'}
			[ "$cmd" = pong ] && [ "$m" = "$n" ] && break
		done
		h1=${EPOCHREALTIME/./}
		echo "$n $h0 $h1" >>"$vm_tmp/window"
	done
	exec {rfd}<&-
}

mig_reader src "$a" --clock realtime --clock-bound --checkpoint "$vm_tmp/ckpt" -e ivring:marker
mig_vm src "$a" --may-migrate
mig_wait_line src '^GUEST-READY'
# Samples before the first round: the reader takes one once the guest's
# module answers (it looks once a second until asked), then one a second;
# two a second apart measure the drift, and the markers' bounds are then
# microseconds, not the 500 us a second of an unknown drift.  Not needed
# for the check to hold (each marker has its own bound), only for it to
# be strict.
sleep 4
rounds src 1 "$rounds"
mig_vm_incoming dst "$b"
mig_reader dst "$b" --clock realtime --clock-bound --resume "$vm_tmp/ckpt" -e ivring:marker
mig_migrate src dst
[ "$mig_status" = completed ] || fail "the migration $mig_status"
mig_hmp src quit >/dev/null
mig_reader_end src USR1
mig_end src
sleep 4
rounds dst $((rounds + 1)) $((2 * rounds))
mig_finish dst
mig_check_resumed dst

sed -n 's/^GUEST-SYNC /# guest clock_sync: /p' "$vm_tmp/console"
vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
function us(s,   p) { p = index(s, "."); return substr(s, 1, p - 1) * 1000000 + substr(s, p + 1) }
# A bound of --clock-bound (microseconds, 3 decimals), in whole
# microseconds rounded up; a line with no bound ("-") has a guest time.
function slack(b) { return b == "-" ? -1 : int(b + 0.999) }
# The best bound of reader i, in whole microseconds, rounded up.
function bestus(i) { return int((best[i] + 999) / 1000) }
BEGIN {
	while ((getline l < console) > 0) {
		if (l ~ /^GUEST-UPTIME /) { split(l, u, " "); up = u[3] - u[2] }
		if (l ~ /^GUEST-SYNC busy_ns: /) { split(l, u, " "); busy = u[3] }
		if (l ~ /^GUEST-SYNC polls: /) { split(l, u, " "); polls = u[3] }
	}
}
FNR == 1 { nfile++ }
nfile == 1 { h0[$1] = $2; h1[$1] = $3; nw++; next }
nfile == 2 && /^clock (last )?bound ns: / { b = $NF; if ($2 == "bound") best[++nb] = b; else lastb[nb] = b; next }
# The events of reader 1 (the source), then of reader 2 (the destination),
# each line led by its bound.
(FILENAME == srcf || FILENAME == dstf) && match($0, /^ *([0-9]+\.[0-9]+|-) /) {
	b = substr($0, 1, RLENGTH - 1); sub(/^ +/, "", b)
	if (!vm_event(substr($0, RLENGTH + 1)) || ev_name != "marker")
		next
	split(ev_info, f, " ")
	n = f[2]; t = us(ev_ts_str); rd = FILENAME == dstf ? 2 : 1
	if (slack(b) < 0) { if (nguest++ < 5) bad("round " n ": " f[1] " has the guest time, no host time"); next }
	if (slack(b) > maxslack[rd]) maxslack[rd] = slack(b)
	if (f[1] == "in") { inn[n] = t; nin++; rin[n] = slack(b); rdin[n] = rd }
	if (f[1] == "out") { out[n] = t; nout++; rout[n] = slack(b); rdout[n] = rd }
}
END {
	for (n in h0) {
		if (!(n in inn) || !(n in out)) { if (nmiss++ < 5) bad("round " n ": a marker is missing"); continue }
		# One microsecond of rounding: times print rounded, EPOCHREALTIME
		# cut; and the bound that the reader claims for the marker.
		if (inn[n] < h0[n] - 1 - rin[n]) { if (nv++ < 10) bad("round " n ": in at " inn[n] ", " h0[n] - inn[n] " us before the host wrote (" h0[n] "); its bound is " rin[n] " us") }
		if (out[n] > h1[n] + 2 + rout[n]) { if (nv++ < 10) bad("round " n ": out at " out[n] ", " out[n] - h1[n] " us after the host read the answer (" h1[n] "); its bound is " rout[n] " us") }
		if (inn[n] < h0[n] - 1 - bestus(rdin[n]) || out[n] > h1[n] + 2 + bestus(rdout[n])) loose++
		lead += inn[n] - h0[n]; lag += h1[n] - out[n]; k++
		if (k == 1 || inn[n] - h0[n] < minlead) minlead = inn[n] - h0[n]
		if (k == 1 || h1[n] - out[n] < minlag) minlag = h1[n] - out[n]
	}
	printf "# %d rounds, %d and %d markers; window H1 - H0: median %d us\n", \
		nw, nin, nout, median
	if (k) printf "# H0 -> in: mean %.0f us, least %d us; out -> H1: mean %.0f us, least %d us\n", \
		lead / k, minlead, lag / k, minlag
	for (i = 1; i <= nb; i++)
		printf "# reader %d: best bound %.1f us, last sample %.1f us, the widest of its markers %d us\n", i, best[i] / 1000, lastb[i] / 1000, maxslack[i]
	printf "# rounds outside their window by more than the best bound of their reader, within their own: %d\n", loose
	if (up > 0)
		printf "# guest cost: %.3f%% of one CPU in the poller (%d ns in %.1f s), %.1f polls/s\n", \
			busy / (up * 1e9) * 100, busy, up, polls / up
	else
		bad("no GUEST-UPTIME line")
	if (nb != 2) bad("expected the clock lines of 2 readers, got " nb)
	if (nw != 2 * rounds) bad(nw " rounds, not " 2 * rounds)
	exit fails ? 1 : 0
}' -v rounds="$rounds" -v console="$vm_tmp/console" \
	-v srcf="$vm_tmp/src.events" -v dstf="$vm_tmp/dst.events" -v median="$(awk '{ print $3 - $2 }' "$vm_tmp/window" | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }')" "$vm_tmp/window" <(cat "$vm_tmp/src.err" "$vm_tmp/dst.err") \
	"$vm_tmp/src.events" "$vm_tmp/dst.events" ||
	fail "a marker's host time contradicts the serial port"
echo "ok: no marker outside its serial-port window, before and after the migration"
