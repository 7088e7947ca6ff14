#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# run.sh SECONDS CORPUS FUZZER: run one libFuzzer target of selftests/fuzz
# for SECONDS, keeping what it finds in CORPUS (made if missing), from its
# seeds in the tree: fuzz_format starts from the kernels' format texts in
# selftests/data/formats, fuzz_filter from the filters in
# selftests/data/filters; fuzz_segment and fuzz_checkpoint start from the
# honest segment and checkpoint that their empty input stands for.  Exits
# as libFuzzer does: 0 when it found nothing.

set -u
[ $# = 3 ] || { echo "usage: $0 SECONDS CORPUS FUZZER" >&2; exit 2; }
seconds=$1 corpus=$2 fuzzer=$3
here=$(cd "$(dirname "$0")" && pwd)

seeds=()
case $(basename "$fuzzer") in
fuzz_format) seeds=("$here/../data/formats") ;;
fuzz_filter) seeds=("$here/../data/filters") ;;
esac
mkdir -p "$corpus" || exit 1
# -timeout: one input taking 20 s is a hang; -rss_limit_mb: a leak or a
# blow-up; -print_funcs=0: no llvm-symbolizer to name newly covered
# functions (it was left behind, a zombie, when the fuzzer ended); a crash
# leaves its input in CORPUS/.. as crash-*; lsan.supp names the leaks that
# are libtraceevent's.  symbolize=0: the sanitizers start no
# llvm-symbolizer either (to match a suppression, it was, and outlived the
# fuzzer); run the fuzzer on a crash-* input by hand for a named stack.
# malloc_context_size=2, quarantine_size_mb=8, max_malloc_fill_size=0:
# every input opens a segment twice, and ASan's stack depot, quarantine
# and malloc fill took a third of fuzz_segment's time (166 inputs a
# second, 348 MB; 250 and 46 MB with these).  A use after free is still
# caught within the 8 MB of frees after it.
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="symbolize=0:malloc_context_size=2:quarantine_size_mb=8:max_malloc_fill_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="symbolize=0${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
cd "$corpus/.." && exec "$fuzzer" -max_total_time="$seconds" -timeout=20 \
	-rss_limit_mb=2048 -print_final_stats=1 -print_funcs=0 "$corpus" "${seeds[@]}"
