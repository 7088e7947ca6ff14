#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# KernelShark opens what "ivring-read record" writes, looked at as a person
# would look at it: ivring-gen writes a segment with four CPUs, ivring-read
# record turns it into a trace.dat, and KernelShark (Debian's 2.2.1) opens
# that file on a virtual screen (xvfb-run), and the same segment recorded
# compressed with zstd (ivring-zstd.dat).  A screenshot must then show
#   - the main window titled with the file's name, as KernelShark titles it
#     once the file is loaded;
#   - one coloured task bar per CPU in the plot area, in at least two
#     colours (KernelShark colours each task differently);
#   - rows of text in the event list.
# The same checks must fail on a trace.dat that holds no event and on one
# cut short, or they prove nothing: both are run too.
#
# The screenshots, the files and KernelShark's stderr are kept in
# build/kernelshark/ for a person to look at.
# Exit: 0 pass, 1 fail, 4 skip (a program is missing: make deps).

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "${IVRING_BUILD:-$top/build/plain}")
tools=${IVRING_TOOLS:-$build/plain/tools}
out=$build/kernelshark
# Big enough that the plot area shows all CPUS without scrolling.
width=1280
height=1024
cpus=4

# shellcheck source-path=SCRIPTDIR source=kernelshark_lib.sh
. "$(dirname "$0")/kernelshark_lib.sh"


# view FILE: KernelShark on FILE, screenshot in FILE's name with .png;
# then every check.  Returns 0 when all pass.
view() {
	local file=$1 name shot log ks tries d titled=0 bad=0 areas

	name=$(basename "$file")
	shot=$dir/${name%.dat}.png
	log=$dir/${name%.dat}.log
	kernelshark -geometry "${width}x${height}+0+0" "$file" >"$log" 2>&1 &
	ks=$!
	# As root it first warns in a dialog of its own; Return closes it.
	if [ "$(id -u)" = 0 ]; then
		d=$(timeout 15 xdotool search --sync --onlyvisible \
			--class '^kernelshark$' 2>/dev/null | head -n 1)
		[ -n "$d" ] && xdotool key Return
	fi
	# The title names the file once KernelShark has loaded it.
	for ((tries = 0; tries < 150; tries++)); do
		if xdotool search --name "^Kernel Shark \(.*$name\)\$" \
			>/dev/null 2>&1; then
			titled=1
			break
		fi
		grep -q '^ERROR' "$log" && break
		kill -0 $ks 2>/dev/null || break
		sleep 0.2
	done
	# Let it draw (it draws once, after loading).
	sleep 1
	import -window root "$shot"
	kill $ks 2>/dev/null
	wait $ks 2>/dev/null
	sed 's/^/# kernelshark: /' "$log"
	if [ $titled = 1 ]; then
		echo "# window title names $name"
	else
		echo "# no window titled with $name"
		bad=1
	fi
	areas=$(areas "$shot")
	echo "# white areas (rows):" "$(echo "$areas" | tr '\n' ' ')"
	if [ "$(echo "$areas" | wc -l)" -ne 2 ]; then
		echo "# not a plot area and an event list"
		return 1
	fi
	check_plots "$shot" "$(echo "$areas" | sed -n 1p)" || bad=1
	check_list "$shot" "$(echo "$areas" | sed -n 2p)" || bad=1
	return $bad
}

ks_main() {
	local fail=0 f

	dir=$1
	# KernelShark's settings and cache: its own, fresh, every run.
	export HOME=$dir/home XDG_RUNTIME_DIR=$dir/home/run
	mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
	for f in ivring ivring-zstd; do
		echo "# --- $f.dat"
		if view "$dir/$f.dat"; then
			echo "ok: KernelShark shows $f.dat: $dir/$f.png"
		else
			echo "not ok: KernelShark does not show $f.dat: $dir/$f.png"
			fail=1
		fi
	done
	for f in empty truncated; do
		echo "# --- $f.dat"
		if view "$dir/$f.dat"; then
			echo "not ok: the checks pass on $f.dat too: $dir/$f.png"
			fail=1
		else
			echo "ok: the checks fail on $f.dat"
		fi
	done
	return $fail
}

# Under the virtual X server: "$0" --in-x DIR.
if [ "${1:-}" = --in-x ]; then
	width=${IVRING_KS_WIDTH:-$width} height=${IVRING_KS_HEIGHT:-$height}
	cpus=${IVRING_KS_CPUS:-$cpus}
	ks_main "$2"
	exit $?
fi

for p in kernelshark xvfb-run xdotool import convert; do
	if ! command -v $p >/dev/null; then
		echo "SKIP: $p is not installed (make deps)"
		exit 4
	fi
done

rm -rf "$out"
mkdir -p "$out" || exit 1
# Not ivring*: that is the guest tests' in /dev/shm (run_tests.sh).
shm=ivt-ks-$$
trap 'rm -f /dev/shm/$shm /dev/shm/$shm-empty' EXIT

# The trace: 4 writer threads, one per CPU, each a task of its own.  At
# a limited rate for 2 s, so that their bars overlap in time even when
# the threads start a second apart on a loaded machine.
"$tools/ivring-gen" -q -c $cpus -d 2 -r 1500 -S $shm || exit 1
"$tools/ivring-read" record -q --peek -o "$out/ivring.dat" $shm || exit 1
"$tools/ivring-read" record -q --compression zstd -o "$out/ivring-zstd.dat" \
	$shm || exit 1
# A file with no event: what a segment holds once a reader consumed it all.
"$tools/ivring-gen" -q -c $cpus -n 10 -S $shm-empty || exit 1
"$tools/ivring-read" $shm-empty >/dev/null 2>&1 || exit 1
"$tools/ivring-read" record -q -o "$out/empty.dat" $shm-empty || exit 1
# A file cut in half, as a full disk or a killed copy leaves one.
size=$(stat -c %s "$out/ivring.dat")
head -c $((size / 2)) "$out/ivring.dat" >"$out/truncated.dat"

for f in ivring ivring-zstd; do
	if ! trace-cmd report "$out/$f.dat" 2>&1 | grep -q 'seq='; then
		echo "not ok: trace-cmd report does not read $out/$f.dat"
		exit 1
	fi
done

export IVRING_KS_CPUS=$cpus IVRING_KS_WIDTH=$width IVRING_KS_HEIGHT=$height
in_x "$out"
