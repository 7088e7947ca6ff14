#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# KernelShark opens what "ivring-read record --host" writes, the host's
# file and a guest's, looked at as a person would look at them.  As in
# test_host_cli.sh, ivring-gen writes a guest's segment (2 CPUs, its clock
# 1000 s behind the host's) and fake_vcpus stands in for the QEMU that
# runs it (threads "CPU 0/TCG" and "CPU 1/TCG"); ivring-read record -f
# --host records the guest's file and the host's scheduler events, linked.
# KernelShark (Debian's 2.2.1) opens the two as the README says,
# "kernelshark host.dat -a guest.dat" (-a appends a file as a second
# stream), on a virtual screen (xvfb-run).  A screenshot must then show
#   - the main window, settled, once KernelShark said that it loads each
#     file, with no message box about them, still running;
#   - a row with a task bar for each host CPU shown, then one for each of
#     the guest's 2 CPUs, under a label colour of their own (KernelShark
#     colours the labels by stream when there are several): the rows of
#     both streams, the host's above;
#   - the guest's events in the host's time: full-height bars (events) in
#     each guest's row, beside the host's over at least half of the
#     columns that have either.  Only the guest file's TIME_SHIFT puts
#     them there: KernelShark keeps the host's time range, and draws a
#     guest's task that ran before it as a low bar, no event in it;
#   - rows of text in the event list.
# KernelShark titles its window "Kernel Shark (FILE)" once it loaded FILE,
# but appending a file sets the title back to "Kernel Shark" (2.2.1's
# KsMainWindow::appendDataFile): the title names no file here, unlike in
# test_kernelshark.sh; the log that it writes does.  At most 4 host CPUs
# are shown (--cpu, for the host's stream), those that ran a task, so
# that the rows fit without scrolling and each has a bar.
#
# The checks must fail, or they prove nothing; each for its reason:
#   - on the host's file alone: the guest's rows are missing (the host's
#     rows and the list are there);
#   - on the host's file with a guest's file recorded without --host, on
#     the guest's clock: the guest's rows are there but no event in them;
#   - on the host's file with a guest's file that holds no event:
#     KernelShark says that it "contains no data" (a message box, kept as
#     pair-empty-message1.png, which Return closes), then crashes
#     (SIGSEGV, at times SIGABRT);
#   - on the host's file with the guest's file cut in half: KernelShark
#     crashes (SIGSEGV).
# A crashed KernelShark leaves no window: the screenshot is not looked at.
#
# KernelShark's KVM combo plugin (Plots > Virt. Combos: each vCPU's host
# thread beside the guest's CPU) is not exercised here: it draws from the
# host's kvm_entry and kvm_exit events, and this host has no usable KVM
# (no /dev/kvm, the vCPUs are fake_vcpus' threads), so the host's file
# has those events' formats but none of them.
#
# The screenshots, the files and KernelShark's logs are kept in
# build/kernelshark/pair* for a person to look at, and the screenshot of
# the pair as build/kernelshark/host-guest.png.  Needs root (tracefs),
# ivring-read, ivring-gen ($IVRING_TOOLS), fake_vcpus ($IVRING_HELPERS),
# trace-cmd, kernelshark, xvfb-run, xdotool and ImageMagick.
# Exit: 0 pass, 1 fail, 4 skip.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "${IVRING_BUILD:-$top/build/plain}")
tools=${IVRING_TOOLS:-$build/plain/tools}
helpers=${IVRING_HELPERS:-$build/plain/helpers}
out=$build/kernelshark
# Big enough that the plot area shows all the rows without scrolling.
width=1280
height=1024
guest_cpus=2
max_host_cpus=4

# shellcheck source-path=SCRIPTDIR source=tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source-path=SCRIPTDIR source=kernelshark_lib.sh
. "$(dirname "$0")/kernelshark_lib.sh"
# shellcheck source-path=SCRIPTDIR source=wait_lib.sh
. "$(dirname "$0")/wait_lib.sh"

# cpu_ticks PID: the CPU time that PID used so far, in clock ticks.
cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null ||
		echo 0
}

# windows: "ID NAME" of each of KernelShark's windows on the screen: its
# main window, "Kernel Shark...", a progress bar, "KernelShark", or a
# message box, "kernelshark".
windows() {
	local w

	for w in $(xdotool search --onlyvisible --class '^kernelshark$' \
		2>/dev/null); do
		echo "$w $(xdotool getwindowname "$w" 2>/dev/null)"
	done
}

# label IMG Y: the colour that fills the stream's label at the left of
# row Y of IMG: the commonest pale, tinted one ("none" if none).
label() {
	convert "$1" -crop "120x1+0+$2" +repage -depth 8 -format %c \
		histogram:info:- |
		awk -F'[:(),]+' '{ n = $1 + 0; r = $3; g = $4; b = $5
			hi = r > g ? r : g; hi = hi > b ? hi : b
			lo = r < g ? r : g; lo = lo < b ? lo : b
			if (lo >= 120 && hi - lo >= 30 && n > best) {
				best = n; c = sprintf("#%02x%02x%02x", r, g, b) } }
			END { print best ? c : "none" }'
}

# ticks IMG TOP BOTTOM: "first last" columns of IMG's white pixels
# between rows TOP and BOTTOM (IMG is black and white), "-1 -1" if none.
ticks() {
	[ "$2" -lt 0 ] && set -- "$1" 0 "$3"
	convert "$1" -crop "${width}x$(($3 - $2 + 1))+0+$2" +repage \
		-scale "${width}x1!" -depth 16 txt:- |
		awk -F'[,:() ]+' 'NR > 1 && $4 > 0 { if (f == "") f = $1; l = $1 }
			END { print f == "" ? "-1 -1" : f " " l }'
}

# check_streams IMG "TOP BOTTOM" HOST GUEST: in the plot area, a strip of
# task colour per CPU: HOST strips first (the host's stream; its label
# has a colour of its own when there are two streams), then GUEST under
# another label colour (the guest's).  A task that ran for a short time
# only is a bar of a few pixels: it counts.  Sets host_ok, guest_ok, and
# time_ok: each guest's row has events in the host's time, where
# KernelShark draws the task's bar full height (it draws a task that
# runs on from before as a low bar), and the columns that have the
# guest's events and the host's overlap over at least half of those that
# have either.
check_streams() {
	local groups ng hc=none hr=0 gc=none gr=0 a b c h=0 hs=-1 he=-1
	local gs=-1 ge=-1 s e lo hi span

	host_ok=1 guest_ok=1 time_ok=1
	crop "$1" "$2" "$dir/plots.png"
	# Task colours white: saturated and bright pixels.  The rest black:
	# white, grey, black, the streams' pale labels and their text.
	convert "$dir/plots.png" -colorspace HSB -separate -delete 0 \
		\( -clone 0 -threshold 40% \) \( -clone 1 -threshold 30% \) \
		-delete 0,1 -compose multiply -composite "$dir/plots-sat.png"
	rows "$dir/plots-sat.png" | runs 2 4 | while read -r a b; do
		echo "$a $b $(label "$dir/plots.png" $(((a + b) / 2)))"
	done >"$dir/strips"
	echo "# plot area: strips (rows, label):" \
		"$(awk '{ printf "%d-%d %s  ", $1, $2, $3 }' "$dir/strips")"
	# "colour strips" of each run of strips of one label colour.
	groups=$(awk '$3 != c { if (n) print c, n; c = $3; n = 0 } { n++ }
		      END { if (n) print c, n }' "$dir/strips")
	ng=$(echo "$groups" | grep -c .)
	[ "$ng" -ge 1 ] && read -r hc hr < <(echo "$groups" | sed -n 1p)
	[ "$ng" -ge 2 ] && read -r gc gr < <(echo "$groups" | sed -n 2p)
	echo "# host's stream: $hr rows of $3 (label $hc);" \
		"guest's stream: $gr rows of $4 (label $gc)"
	[ "$ng" -gt 2 ] && echo "# more than two streams' labels"
	[ "$ng" -le 2 ] && [ "$hr" -eq "$3" ] && host_ok=0
	[ "$ng" -eq 2 ] && [ "$hc" != none ] && [ "$gc" != none ] &&
		[ "$gr" -eq "$4" ] && guest_ok=0
	[ $host_ok = 0 ] && [ $guest_ok = 0 ] || return 1
	# The rows' height: the host's tallest strip.  Each strip's upper
	# half of that (bars stand on the row's base line) has the events.
	h=$(head -n "$hr" "$dir/strips" | awk '$2 - $1 + 1 > h { h = $2 - $1 + 1 }
						END { print h }')
	while read -r a b c; do
		read -r s e < <(ticks "$dir/plots-sat.png" $((b - h + 1)) \
			$((b - h / 2)))
		if [ "$c" = "$hc" ]; then
			[ "$s" -ge 0 ] || continue
			[ $hs -lt 0 ] || [ "$s" -lt $hs ] && hs=$s
			[ "$e" -gt $he ] && he=$e
		elif [ "$s" -lt 0 ]; then
			echo "# the guest's row at $a-$b: no event in the host's time"
			gs=-2
		elif [ $gs -ne -2 ]; then
			[ $gs -lt 0 ] || [ "$s" -lt $gs ] && gs=$s
			[ "$e" -gt $ge ] && ge=$e
		fi
	done <"$dir/strips"
	[ $hs -ge 0 ] && [ $gs -ge 0 ] || return 1
	lo=$((hs > gs ? hs : gs)) hi=$((he < ge ? he : ge))
	span=$(((he > ge ? he : ge) - (hs < gs ? hs : gs) + 1))
	echo "# events: the host's in columns $hs-$he, the guest's in $gs-$ge:" \
		"both in $((hi - lo + 1)) of $span"
	[ $((2 * (hi - lo + 1))) -ge $span ] && time_ok=0
	[ $time_ok = 0 ]
}

# view NAME HOST [GUEST]: KernelShark on HOST with GUEST appended,
# screenshot $out/NAME.png, its stderr in $out/NAME.log; then every check.
# Sets loaded_ok, host_ok, guest_ok, time_ok, list_ok (0: passed) and
# returns 0 when all pass.
view() {
	local name=$1 shot log ks t0 last w wname main pb seen=" " msgs=0
	local sig prev='' ticks prev_ticks=0 settled=0 alive=1 status areas f
	local args=()

	shift
	shot=$out/$name.png
	log=$out/$name.log
	args=("$1")
	[ $# -gt 1 ] && args+=(-a "$2")
	[ -n "$host_list" ] && args+=(--cpu "$host_list")
	last=$(basename "${!#}")
	echo "# kernelshark ${args[*]}"
	kernelshark -geometry "${width}x${height}+0+0" "${args[@]}" \
		>"$log" 2>&1 &
	ks=$!
	# Until the main window is up, no progress bar is, KernelShark said
	# that it loads the last file, and the screen and KernelShark stay
	# still: the same screen three times in a row, KernelShark taking no
	# CPU time meanwhile (up to 50 ms each time); the last one is the
	# screenshot.  A message box is closed with Return: as root, it
	# first warns in one of its own; later ones are about the files,
	# their screenshots kept.
	t0=$SECONDS
	while [ $((SECONDS - t0)) -lt 60 ]; do
		if ! kill -0 $ks 2>/dev/null; then
			alive=0
			break
		fi
		main='' pb=0
		while read -r w wname; do
			case $wname in
			"Kernel Shark"*) main=$wname ;;
			KernelShark) pb=1 ;;
			kernelshark)
				case $seen in *" $w "*) continue ;; esac
				seen="$seen$w "
				if grep -q '^Loading' "$log"; then
					msgs=$((msgs + 1))
					f=$out/$name-message$msgs.png
					import -window root "$f"
					echo "# KernelShark shows a message box: $f"
				fi
				timeout 10 xdotool windowfocus --sync "$w" \
					key Return 2>/dev/null
				;;
			esac
		done < <(windows)
		import -window root "$dir/screen.ppm"
		sig=$(cksum <"$dir/screen.ppm")
		ticks=$(cpu_ticks $ks)
		if [ -n "$main" ] && [ $pb = 0 ] &&
		   grep -q "^Loading .*$last\"\$" "$log" &&
		   [ "$sig" = "$prev" ] && [ $((ticks - prev_ticks)) -le 5 ]; then
			settled=$((settled + 1))
			[ $settled -ge 2 ] && break
		else
			settled=0
		fi
		prev=$sig prev_ticks=$ticks
		sleep 0.1
	done
	if [ $alive = 1 ]; then
		convert "$dir/screen.ppm" "$shot"
		kill $ks 2>/dev/null
		wait $ks 2>/dev/null
	else
		# What it left on the screen.
		import -window root "$shot"
		wait $ks 2>/dev/null
		status=$?
		if [ $status -gt 128 ]; then
			echo "# KernelShark ended on signal $(kill -l $((status - 128)))"
		else
			echo "# KernelShark ended, exit $status"
		fi
	fi
	sed 's/^/# kernelshark: /' "$log"
	loaded_ok=1 host_ok=1 guest_ok=1 time_ok=1 list_ok=1
	for f in "$@"; do
		grep -q "^Loading .*$(basename "$f")\"\$" "$log" ||
			echo "# KernelShark did not say that it loads $f"
	done
	if [ $alive = 1 ] && [ $settled -ge 2 ] && [ $msgs = 0 ]; then
		echo "# KernelShark loaded and settled in $((SECONDS - t0)) s," \
			"its window titled \"$main\""
		loaded_ok=0
	elif [ $alive = 1 ]; then
		echo "# KernelShark did not settle in 60 s"
	else
		echo "# no window to look at"
		return 1
	fi
	areas=$(areas "$shot")
	echo "# white areas (rows):" "$(echo "$areas" | tr '\n' ' ')"
	if [ "$(echo "$areas" | grep -c .)" -ne 2 ]; then
		echo "# not a plot area and an event list"
		return 1
	fi
	check_streams "$shot" "$(echo "$areas" | sed -n 1p)" "$host_rows" \
		$guest_cpus
	check_list "$shot" "$(echo "$areas" | sed -n 2p)" && list_ok=0
	[ $((loaded_ok + host_ok + guest_ok + time_ok + list_ok)) = 0 ]
}

ks_main() {
	local pair=$out/pair-host.dat

	dir=$out/pair-work
	mkdir -p "$dir" || return 1
	# KernelShark's settings and cache: its own, fresh, every run.
	export HOME=$out/pair-home XDG_RUNTIME_DIR=$out/pair-home/run
	mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

	echo "# --- the host's file and the guest's"
	if view pair "$pair" "$out/pair-guest.dat"; then
		ok "KernelShark shows the host's and the guest's CPUs: $out/pair.png"
		cp "$out/pair.png" "$out/host-guest.png"
	else
		not_ok "KernelShark shows the host's and the guest's CPUs: $out/pair.png"
	fi

	echo "# --- the host's file alone"
	# Its own rows, list and window, but no guest's rows.
	if view pair-host-only "$pair"; then
		not_ok "the checks pass on the host's file alone too: $out/pair-host-only.png"
	elif [ $host_ok = 0 ] && [ $list_ok = 0 ] && [ $guest_ok = 1 ]; then
		ok "the checks fail on the host's file alone, for want of the guest's rows"
	else
		not_ok "the checks fail on the host's file alone, but not only for want of the guest's rows: $out/pair-host-only.png"
	fi

	echo "# --- the host's file and a guest's on the guest's clock"
	# Its rows, but its events 1000 s before the host's: no event of
	# its in the host's time.
	if view pair-unlinked "$pair" "$out/pair-unlinked-guest.dat"; then
		not_ok "the checks pass on a guest's file on its own clock too: $out/pair-unlinked.png"
	elif [ $host_ok = 0 ] && [ $guest_ok = 0 ] && [ $list_ok = 0 ] &&
	     [ $time_ok = 1 ]; then
		ok "the checks fail on a guest's file on its own clock, for want of its events in the host's time"
	else
		not_ok "the checks fail on a guest's file on its own clock, but not only for want of its events in the host's time: $out/pair-unlinked.png"
	fi

	for f in empty cut; do
		echo "# --- the host's file and a guest's file, $f"
		if view pair-$f "$pair" "$out/pair-$f-guest.dat"; then
			not_ok "the checks pass on a guest's file $f too: $out/pair-$f.png"
		else
			ok "the checks fail on a guest's file $f"
		fi
	done
	echo "# $((n - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
}

# Under the virtual X server: "$0" --in-x DIR.
if [ "${1:-}" = --in-x ]; then
	out=$2
	n=$IVRING_KS_N
	host_list=$IVRING_KS_HOST_LIST
	host_rows=$IVRING_KS_HOST_ROWS
	ks_main
	exit $?
fi

for p in kernelshark xvfb-run xdotool import convert identify trace-cmd; do
	if ! command -v $p >/dev/null; then
		echo "SKIP: $p is not installed (make deps)"
		exit 4
	fi
done
for p in "$tools/ivring-read" "$tools/ivring-gen" "$helpers/fake_vcpus"; do
	if [ ! -x "$p" ]; then
		echo "SKIP: no $p; set IVRING_TOOLS and IVRING_HELPERS"
		exit 4
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the host's tracefs needs root"
	exit 4
fi

mkdir -p "$out" || exit 1
rm -rf "$out"/pair* "$out/host-guest.png"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-kspair.XXXXXX") || exit 1
# Not ivring*: that is the guest tests' in /dev/shm (run_tests.sh).
shm=ivt-kspair-$$
bg=()
cleanup() {
	[ ${#bg[@]} -gt 0 ] && kill "${bg[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
	rm -f "/dev/shm/$shm" "/dev/shm/$shm-empty"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

vcpus_up() {
	[ "$(wc -l <"$tmp/vcpus" 2>/dev/null)" -ge $guest_cpus ]
}
# record NAME [HOST]: ivring-read record -f of the segment into
# $out/NAME.dat (and with --host, into HOST), until each of the guest's
# CPUs (and the host's file) has pages in its spool; then Ctrl-C.
record() {
	local name=$1 rec rc spools=() opts=() i

	for ((i = 0; i < guest_cpus; i++)); do
		spools+=("$out/$name.dat.cpu$i")
	done
	if [ $# -gt 1 ]; then
		opts=(--host "$2")
		spools+=("$2.cpu*")
	fi
	"$tools/ivring-read" record -q -f -o "$out/$name.dat" "${opts[@]}" \
		"/dev/shm/$shm" 2>"$out/$name.err" &
	rec=$!
	bg+=("$rec")
	wait_for "$name's recording" spooled "${spools[@]}" || return 1
	kill -INT $rec
	wait $rec
	rc=$?
	sed 's/^/# /' "$out/$name.err"
	return $rc
}

# The guest: its clock 1000 s behind the host's, so that only its file's
# TIME_SHIFT puts its events among the host's.
"$tools/ivring-gen" -q -c $guest_cpus --rate 2000 -k --answer-clock \
	--clock-behind 1000000000000 "$shm" &
bg+=("$!")
wait_for "the segment" test -s "/dev/shm/$shm" || exit 1
# Its vCPU threads; fake_vcpus holds stdin open until the test ends.
mkfifo "$tmp/hold"
"$helpers/fake_vcpus" "/dev/shm/$shm" $guest_cpus <"$tmp/hold" \
	>"$tmp/vcpus" &
bg+=("$!")
exec 9>"$tmp/hold"
wait_for "the vCPU threads" vcpus_up || exit 1
if record pair-guest "$out/pair-host.dat"; then
	ok "ivring-read record --host records the pair"
else
	not_ok "ivring-read record --host records the pair"
fi
# A control: the guest's file on its own clock, no TIME_SHIFT.
if record pair-unlinked-guest; then
	ok "ivring-read record records the guest on its own clock"
else
	not_ok "ivring-read record records the guest on its own clock"
fi
# The guest and its vCPUs are done with: their CPU time goes to
# KernelShark.
exec 9>&-
kill "${bg[@]}" 2>/dev/null
wait
bg=()
# A control: a guest's file with no event, what a segment holds once a
# reader consumed it all.
if ! "$tools/ivring-gen" -q -c $guest_cpus -n 10 -S "$shm-empty" ||
   ! "$tools/ivring-read" "$shm-empty" >/dev/null 2>&1 ||
   ! "$tools/ivring-read" record -q -o "$out/pair-empty-guest.dat" \
	"$shm-empty" 2>"$out/pair-empty-guest.err"; then
	not_ok "ivring-read record records a guest's file with no event"
else
	ok "ivring-read record records a guest's file with no event"
fi
# A control: the guest's file cut in half, as a full disk or a killed
# copy leaves one.
size=$(stat -c %s "$out/pair-guest.dat" 2>/dev/null || echo 0)
head -c $((size / 2)) "$out/pair-guest.dat" >"$out/pair-cut-guest.dat"

trace-cmd report -i "$out/pair-host.dat" -i "$out/pair-guest.dat" \
	>"$tmp/both" 2>&1
if grep -q "^ *pair-host.dat: .*sched_switch:" "$tmp/both" &&
   grep -q "^ *pair-guest.dat: .*seq:" "$tmp/both"; then
	ok "trace-cmd report reads the pair"
else
	not_ok "trace-cmd report reads the pair"
	head -n 5 "$tmp/both" | sed 's/^/# /'
fi
# The host's CPUs to show: at most $max_host_cpus, those that ran a task.
host_cpus=$(awk '/^ *pair-host.dat: cpus=/ { sub(/^.*=/, ""); print; exit }' \
	"$tmp/both")
host_list=$(awk '/^ *pair-host.dat: .* sched_switch: / &&
		 !/==> swapper\/[0-9]+:0 / {
			sub(/^ *pair-host.dat: /, "")
			if (match($0, /\[[0-9]+\]/))
				print substr($0, RSTART + 1, RLENGTH - 2) + 0 }' \
	"$tmp/both" | sort -nu | head -n $max_host_cpus)
host_rows=$(echo "$host_list" | grep -c .)
host_list=$(echo "$host_list" | paste -sd,)
echo "# host CPUs: ${host_cpus:-?}; shown: $host_list"
if [ "$host_rows" -eq 0 ] || [ "$fails" -gt 0 ]; then
	[ "$host_rows" -eq 0 ] && not_ok "the host's file shows a task on a CPU"
	echo "# $((n - fails)) passed, $fails failed"
	exit 1
fi
# Every CPU of the host's ran a task: no need to say which to show.
[ "$host_rows" = "$host_cpus" ] && host_list=

export IVRING_KS_N=$n IVRING_KS_HOST_LIST=$host_list
export IVRING_KS_HOST_ROWS=$host_rows
in_x "$out"
