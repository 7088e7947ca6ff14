#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Run ivring's tests, as `make check` does after it has built every variant:
#
#   every selftests/test_*.c program under plain and asan (ASan + UBSan),
#   the concurrent ones, selftests/test_mt_*.c, under tsan too,
#   every libFuzzer target of selftests/fuzz for FUZZ_SECONDS (10),
#   every selftests/test_*.sh once, with the plain build,
#   every selftests/vm/*.sh (but lib*.sh) once: each boots TCG guests with
#   build/module/ivring.ko, so the build before us made the module too;
#   then a smoke set of them on every other kernel that the build made a
#   module for, build/module-VERSION/ (make modules-all),
#   a check that libivring exports exactly the IVRING_API functions,
#   and that lib/, include/writer/, tools/ and kmod/ keep their layers
#   (check_layers.sh, each folder's LAYERS).
#
# Each prints "ok <variant>/<test>" or "not ok <variant>/<test>" with the
# tail of its log, build/logs/<variant>/<test>.log.  A sanitizer report in
# the log fails a test even if it exited 0; exit code 4 (KSFT_SKIP) skips it.
# The last line is "N passed, N failed", preceded by "N skipped" when some
# were, and the exit status is 1 if anything failed.
#
# Environment:
#   IVRING_BUILD_ROOT  the build directory (default: build/ beside selftests/)
#   IVRING_VARIANTS    variants to run (default: "plain asan tsan")
#   IVRING_BUILD_OK    0 if the build before us failed: counted as a failure
#   TESTS              space-separated patterns; a test runs if its name
#                      contains one (shell globs allowed: 'test_mt_*')
#   TEST_TIMEOUT       seconds per test (default 600)
#   IVRING_VM_REQUIRED the VM tests fail, not skip, when qemu, the kernel
#                      image or the module is missing (default 1)
#   IVRING_VM_SMOKE    the vm/ tests run on the other kernels (default:
#                      e2e_sched ftrace_agree preempt_storm generic_lane
#                      pid_follow)
#   IVRING_VM_MATRIX   1: every vm/ test on every kernel (make check-matrix)
#   IVRING_SOAK        N: every vm/ test N times, with a summary of each
#                      one's failures and their logs (make check-soak)
#   FUZZ_SECONDS       how long each fuzz target runs (default 10)
#
# The scripts get IVRING_BUILD, IVRING_TOOLS and IVRING_HELPERS for the plain
# variant, IVRING_ASAN_TOOLS and IVRING_ASAN_HELPERS for asan, IVRING_TSAN_TOOLS
# for tsan, and one
# IVRING_<NAME> per helper program (gen_fixed: IVRING_GEN_FIXED).

set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${IVRING_BUILD_ROOT:-$here/../build}
build=$(cd "$build" 2>/dev/null && pwd) || {
	echo "run_tests.sh: no build directory $build; run make check" >&2
	echo "0 passed, 1 failed"
	exit 1
}
variants=${IVRING_VARIANTS:-plain asan tsan}
patterns=${TESTS:-}
timeout_s=${TEST_TIMEOUT:-600}
logs=$build/logs

passed=0
failed=0
skipped=0
# Each test's wall time, "SECONDS NAME" a line: the slowest are said at
# the end, so that a run nearing CI's budget shows where its time went.
durations=$logs/durations
mkdir -p "$logs" && : >"$durations"
start_s=$SECONDS

# Sanitizers: report everything, stop at the first error, keep stacks.
asan=abort_on_error=0:detect_leaks=1:strict_string_checks=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-$asan:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-second_deadlock_stack=1:history_size=4}

# A sanitizer's report, even from a forked child whose exit code is lost.
sanitizer_re='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:'
sanitizer_re+='|WARNING: ThreadSanitizer|FATAL: ThreadSanitizer'
sanitizer_re+='|ThreadSanitizer: reported'

# TSan cannot run with every layout that high-entropy ASLR gives
# (vm.mmap_rnd_bits > 28: "FATAL: ThreadSanitizer: unexpected memory
# mapping"); run its programs with randomization off when we may.
tsan_prefix=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
	tsan_prefix=(setarch "$(uname -m)" -R)
fi

selected() {
	local name=$1 p

	[ -z "$patterns" ] && return 0
	for p in $patterns; do
		# shellcheck disable=SC2254
		case $name in
		*$p*) return 0 ;;
		esac
	done
	return 1
}

has_variant() {
	case " $variants " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# report NAME STATUS LOG: STATUS is pass, skip or a reason for failure.
report() {
	local name=$1 status=$2 log=$3

	case $status in
	pass)
		passed=$((passed + 1))
		echo "ok $name"
		;;
	skip)
		skipped=$((skipped + 1))
		echo "ok $name # SKIP$(skip_reason "$log")"
		;;
	*)
		failed=$((failed + 1))
		echo "not ok $name # $status"
		if [ -s "$log" ]; then
			echo "# --- last lines of $log"
			tail -n 40 "$log" | sed 's/^/# /'
		fi
		;;
	esac
}

skip_reason() {
	local r

	r=$(grep -m1 -o 'SKIP.*' "$1" 2>/dev/null | sed 's/^SKIP[]:[:space:]]*//')
	[ -n "$r" ] && echo " $r"
}

# The session of the test running now, killed if we are interrupted.
current=
stop() {
	# shellcheck disable=SC2046
	[ -n "$current" ] && kill -KILL $(ps -o pid= -s "$current") 2>/dev/null
	echo "run_tests.sh: interrupted" >&2
	exit 130
}
trap stop INT TERM HUP

# run VARIANT NAME CMD... PROGRAM: run one test with a timeout, into its log.
run() {
	local variant=$1 name=$2 log rc status pid left t0=$SECONDS
	shift 2

	log=$logs/$variant/$name.log
	mkdir -p "$logs/$variant"
	if [ ! -e "${!#}" ]; then
		echo "${!#}: not built" >"$log"
		report "$variant/$name" "not built" "$log"
		return
	fi
	# A session of its own, so that whatever the test leaves behind can be
	# found: the harness forks each test into a process group of its own,
	# which outlives the harness when timeout kills it.
	setsid timeout -k 10 "$timeout_s" "$@" </dev/null >"$log" 2>&1 &
	pid=$!
	current=$pid
	wait "$pid"
	rc=$?
	current=
	left=$(ps -o pid= -s "$pid" 2>/dev/null | tr -s ' \n' ' ')
	if [ -n "${left// /}" ]; then
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
		echo "run_tests.sh: killed processes left behind: $left" >>"$log"
	fi
	if grep -Eq "$sanitizer_re" "$log"; then
		status="sanitizer report (exit $rc)"
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		status="timeout after ${timeout_s}s"
	elif [ -n "${left// /}" ]; then
		# A test must clean up after itself even when it passes.
		status="left processes behind (exit $rc)"
	elif [ $rc -eq 0 ]; then
		status=pass
	elif [ $rc -eq 4 ]; then
		status=skip
	else
		status="exit $rc"
	fi
	echo "$((SECONDS - t0)) $variant/$name" >>"$durations"
	report "$variant/$name" "$status" "$log"
}

# libivring.so and libivring.a export exactly what libivring.h declares
# IVRING_API: the archive's internal ivr_* names must not be there for a
# static link to collide with.
check_exports() {
	local name=lib/exports log=$logs/lib/exports.log
	local so=$build/lib/libivring.so ar=$build/lib/libivring.a want got
	local bad=

	mkdir -p "$logs/lib"
	: >"$log"
	if [ ! -e "$so" ] || [ ! -e "$ar" ]; then
		echo "$so or $ar: not built" >"$log"
		report "$name" "not built" "$log"
		return
	fi
	want=$(sed -n '/^IVRING_API/,/(/p' "$here/../lib/libivring.h" |
	       tr '\n' ' ' | sed 's/IVRING_API/\n/g' |
	       sed -n 's/^[^(]*[ *]\(ivring__[A-Za-z0-9_]*\) *(.*/\1/p' | sort)
	for lib in so a; do
		if [ $lib = so ]; then
			got=$(nm -D --defined-only "$so")
		else
			got=$(nm -g --defined-only "$ar" 2>/dev/null)
		fi
		# A versioned function (ivring__open@LIBIVRING_1.0 beside
		# ivring__open@@LIBIVRING_1.5) is one name.
		got=$(printf '%s\n' "$got" |
		      awk '$2 ~ /^[TtWiDdBbRrV]$/ { sub(/@.*/, "", $3); print $3 }' |
		      sort -u)
		if [ "$want" != "$got" ]; then
			diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") \
				--label 'IVRING_API in libivring.h' \
				--label "exported by libivring.$lib" >>"$log"
			bad+=" libivring.$lib"
		fi
	done
	if [ -z "$bad" ]; then
		printf '%s\n' "$want" >"$log"
		report "$name" pass "$log"
	else
		report "$name" "exports differ from libivring.h:$bad" "$log"
	fi
}

# Each folder keeps the layers of its LAYERS file: includes and calls go
# only downward, with no circle of files (check_layers.sh).
check_layers() {
	local folder=$1 objs=$2 name=${3:-layers/${1//\//-}} log

	log=$logs/${name}.log
	mkdir -p "$logs/layers"
	if "$here/check_layers.sh" "$folder" "$objs" >"$log" 2>&1; then
		report "$name" pass "$log"
	else
		report "$name" "the layers of $folder/LAYERS do not hold" "$log"
	fi
}

if [ "${IVRING_BUILD_OK:-1}" != 1 ]; then
	mkdir -p "$logs"
	echo "the build failed; see the make output above" >"$logs/build.log"
	report build "build failed" /dev/null
fi

selected lib/exports && check_exports
selected layers/lib && check_layers lib "$build/plain/lib"
selected layers/include-writer && check_layers include/writer "$build/plain/include/writer"
selected layers/include-writer-kernel &&
	check_layers include/writer "$build/module/include/writer" layers/include-writer-kernel
selected layers/include-filter && check_layers include/filter "$build/plain/include/filter"
selected layers/tools && check_layers tools "$build/plain/tools"
selected layers/kmod && check_layers kmod "$build/module/kmod"
# The test build's hooks (IVRING_TEST) call more: held to the same layers.
selected layers/kmod-test &&
	check_layers kmod "$build/module-test/kmod" layers/kmod-test

for src in "$here"/test_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	selected "$name" || continue
	for v in plain asan; do
		has_variant $v || continue
		run $v "$name" "$build/$v/selftests/$name"
	done
	case $name in
	test_mt_*)
		has_variant tsan &&
			run tsan "$name" "${tsan_prefix[@]}" "$build/tsan/selftests/$name"
		;;
	esac
done

# Each libFuzzer target (selftests/fuzz) for FUZZ_SECONDS, from its seeds,
# into a corpus that later runs start from; make fuzz-long runs longer.
for f in "$build"/fuzz/fuzz_*; do
	[ -x "$f" ] && [ "${f%.d}" = "$f" ] || continue
	name=$(basename "$f")
	selected "$name" || continue
	run fuzz "$name" "$here/fuzz/run.sh" "${FUZZ_SECONDS:-10}" \
		"$build/fuzz/corpus/$name" "$f"
done

# Scripts run once, on the plain build; they may use the asan tools too.
export IVRING_BUILD=$build/plain
export IVRING_TOOLS=$build/plain/tools
export IVRING_HELPERS=$build/plain/helpers
export IVRING_ASAN_TOOLS=$build/asan/tools
export IVRING_TSAN_TOOLS=$build/tsan/tools
export IVRING_ASAN_HELPERS=$build/asan/helpers
for h in "$IVRING_HELPERS"/*; do
	[ -x "$h" ] || continue
	var=IVRING_$(basename "$h" | tr '[:lower:]-' '[:upper:]_')
	export "$var=$h"
done

for script in "$here"/test_*.sh; do
	[ -e "$script" ] || continue
	name=$(basename "$script")
	selected "$name" || continue
	# Not executable: run it with the interpreter that its #! names.
	interp=()
	if [ ! -x "$script" ]; then
		read -r -a interp < <(sed -n '1s/^#! *//p' "$script")
		[ ${#interp[@]} -gt 0 ] || interp=(/bin/sh)
	fi
	run sh "$name" "${interp[@]}" "$script"
done

# The guest tests: one guest at a time, since each takes a host core under
# TCG.  vm_suite VARIANT MODULE [TEST...]: the named vm/ tests (all when
# none are named) with MODULE, which decides the kernel the guest boots.
vm_suite() {
	local variant=$1 mod=$2 script name k
	shift 2

	for script in "$here"/vm/*.sh; do
		[ -e "$script" ] || continue
		name=$(basename "$script" .sh)
		case $name in lib | lib_*) continue ;; esac
		[ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
		selected "$variant/$name" || continue
		for ((k = 1; k <= soak; k++)); do
			vm_run_one "$variant" "$name" "$script" "$mod" "$k"
		done
	done
}

# One run of a guest test; with IVRING_SOAK=N, run K of N, named NAME.K,
# and a failure is counted in soak_failed for the summary.
vm_run_one() {
	local variant=$1 name=$2 script=$3 mod=$4 k=$5 tname=$2 before=$failed
	local skipped_before=$skipped shm_before shm_left shm_untagged

	[ "$soak" -gt 1 ] && tname=$name.$k
	shm_before=$(ls /dev/shm)
	IVRING_MODULE=$mod IVRING_MODULE_TEST=${mod%/ivring.ko}-test/ivring.ko \
		IVRING_VM_KEEP=$logs/$variant/$tname.files \
		run "$variant" "$tname" bash "$script"
	# A guest test must not leave its segment behind either.  Its
	# segments carry our tag (vm/lib.sh, vm_shm), so a run beside
	# ours is neither blamed nor robbed of its files; a new one
	# with no tag at all is a test that does not use vm_shm.
	shm_left=$(ls /dev/shm | grep -e "^ivring-.*-$IVRING_SHM_TAG-" | tr '\n' ' ')
	shm_untagged=$(comm -13 <(echo "$shm_before") <(ls /dev/shm) |
		       grep '^ivring' | grep -v -e '-r[0-9][0-9]*-' | tr '\n' ' ')
	if [ -n "$shm_left$shm_untagged" ]; then
		echo "not ok $variant/$tname # left /dev/shm files behind: $shm_left$shm_untagged"
		failed=$((failed + 1))
		# shellcheck disable=SC2086 # the names are plain words
		[ -z "$shm_left" ] || (cd /dev/shm && rm -f $shm_left)
	fi
	# A run that skipped is no run.
	if [ "$soak" -gt 1 ] && [ "$skipped" = "$skipped_before" ]; then
		soak_runs[$variant/$name]=$(( ${soak_runs[$variant/$name]:-0} + 1 ))
		if [ "$failed" -gt "$before" ]; then
			soak_failed[$variant/$name]=$(( ${soak_failed[$variant/$name]:-0} + 1 ))
			soak_logs[$variant/$name]+=" $logs/$variant/$tname.log"
		fi
	fi
}

# The whole suite with the default kernel's module (build/module), then, on
# every other kernel that make modules-all built for (build/module-VERSION),
# the smoke set, or the whole suite with IVRING_VM_MATRIX=1 (make
# check-matrix).
export IVRING_VM_REQUIRED=${IVRING_VM_REQUIRED:-1}
# make check-soak: every guest test IVRING_SOAK times, each failure's log
# named in a summary at the end.
soak=${IVRING_SOAK:-1}
if ! [[ $soak =~ ^[1-9][0-9]*$ ]]; then
	echo "run_tests.sh: IVRING_SOAK='$soak': expected a number of runs, 1 or more" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
declare -A soak_runs soak_failed soak_logs

# The tag of this run's segments in /dev/shm (vm/lib.sh, vm_shm).
export IVRING_SHM_TAG=r$$
vm_smoke=${IVRING_VM_SMOKE:-e2e_sched ftrace_agree preempt_storm generic_lane pid_follow}
vm_suite vm "$build/module/ivring.ko"
default_kver=$(modinfo -F vermagic "$build/module/ivring.ko" 2>/dev/null | cut -d' ' -f1)
for mod in "$build"/module-*/ivring.ko; do
	[ -e "$mod" ] || continue
	kver=${mod%/ivring.ko}
	kver=${kver##*/module-}
	case $kver in test | *-test) continue ;; esac
	[ "$kver" = "$default_kver" ] && continue
	if [ "${IVRING_VM_MATRIX:-0}" = 1 ]; then
		vm_suite "vm-$kver" "$mod"
	else
		# A smoke run: what depends on the kernel's version and
		# preemption model (its tracepoints' layouts, perf, preemptible
		# callers, the scheduler's probes).
		# shellcheck disable=SC2086 # a list of names
		vm_suite "vm-$kver" "$mod" $vm_smoke
	fi
done

if [ "$soak" -gt 1 ]; then
	echo "# soak: each guest test $soak times"
	for t in $(printf '%s\n' "${!soak_runs[@]}" | sort); do
		echo "# soak: $t failed ${soak_failed[$t]:-0} of ${soak_runs[$t]}${soak_logs[$t]:+:${soak_logs[$t]}}"
	done
fi
echo "# $((SECONDS - start_s)) s in all; the slowest tests, in seconds:"
sort -rn "$durations" | head -n 12 | sed 's/^/#   /'
[ $skipped -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
