# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# What test_kernelshark.sh and test_kernelshark_pair.sh share, sourced by
# them (bash, ImageMagick): how a screenshot of KernelShark is taken
# apart, and how the script runs itself on a virtual screen.  The caller sets width (the screenshot's), dir (where the
# pictures made on the way go) and, for check_plots, cpus.
# shellcheck disable=SC2154 # width, dir and cpus are the caller's

# rows IMG: one number per row of IMG, top to bottom: how many of the
# row's pixels are white (IMG is black and white).
rows() {
	local w h

	read -r w h < <(identify -format '%w %h' "$1")
	convert "$1" -colorspace gray -scale "1x$h!" -depth 16 txt:- |
		awk -F'[,:() ]+' -v w="$w" 'NR > 1 { printf "%d\n", $4 * w / 65535 + 0.5 }'
}

# runs MIN GAP: from rows' numbers on stdin, "first last" of each run of
# rows whose number is at least MIN, bridging gaps of up to GAP rows.
runs() {
	awk -v min="$1" -v gap="$2" '
		$1 >= min { if (n && NR - 1 - last <= gap) { last = NR - 1; next }
			    if (n) print first, last
			    first = last = NR - 1; n = 1 }
		END { if (n) print first, last }'
}

# areas IMG: "top bottom" of the window's white areas at least 40 rows
# high, top to bottom: the plot area, then the event list.  A row is in
# one when at most a tenth of it has the window's grey.  (The plots and
# the list keep their size at a given window size, but only where they
# are is fixed by KernelShark's layout and fonts: found, not assumed.)
areas() {
	local bg

	bg=$(convert "$1" -depth 8 -format '#%[hex:u.p{2,2}]' info:)
	convert "$1" -fill '#000001' -opaque "$bg" -fill white \
		+opaque '#000001' -fill black -opaque '#000001' "$dir/mask.png"
	rows "$dir/mask.png" | runs $((width * 9 / 10)) 3 | awk '$2 - $1 >= 40'
}

# crop IMG "TOP BOTTOM" OUT
crop() {
	local top=${2% *} bottom=${2#* }

	convert "$1" -crop "${width}x$((bottom - top + 1))+0+$top" +repage "$3"
}

# check_plots IMG "TOP BOTTOM": a strip of task colour per CPU, and at
# least two colours: each writer thread is a task of its own.  A task
# that ran for a short time only is a bar of a few pixels: it counts.
check_plots() {
	local strips colours

	crop "$1" "$2" "$dir/plots.png"
	# Saturated pixels white, the rest (white, grey, black, text) black.
	convert "$dir/plots.png" -colorspace HSB -channel G -separate \
		+channel -threshold 40% "$dir/plots-sat.png"
	strips=$(rows "$dir/plots-sat.png" | runs 2 4 | wc -l)
	colours=$(convert "$dir/plots.png" -depth 8 -format %c histogram:info:- |
		  awk -F'[:(),]+' '{ n = $1 + 0; r = $3; g = $4; b = $5
			hi = r > g ? r : g; hi = hi > b ? hi : b
			lo = r < g ? r : g; lo = lo < b ? lo : b
			if (n >= 20 && hi - lo >= 80) c++ }
			END { print c + 0 }')
	echo "# plot area: $strips coloured strips, $colours task colours"
	[ "$strips" -eq "$cpus" ] && [ "$colours" -ge 2 ]
}

# check_list IMG "TOP BOTTOM": rows of text in the event list.
check_list() {
	local lines

	crop "$1" "$2" "$dir/list.png"
	convert "$dir/list.png" -colorspace gray -threshold 50% -negate \
		"$dir/list-ink.png"
	lines=$(rows "$dir/list-ink.png" | runs 2 3 | wc -l)
	echo "# event list: $lines lines of text"
	[ "$lines" -ge 20 ]
}

# in_x OUT: this script again, with --in-x OUT, on a virtual screen of
# $width x $height (xvfb-run); its status, once its X server ended too
# (xvfb-run signals it to end but does not wait for it).
in_x() {
	local rc tries

	xvfb-run -a -s "-screen 0 ${width}x${height}x24 -nolisten tcp" \
		"$0" --in-x "$1"
	rc=$?
	for ((tries = 0; tries < 50; tries++)); do
		pgrep -s 0 -x Xvfb >/dev/null || break
		sleep 0.1
	done
	return $rc
}
