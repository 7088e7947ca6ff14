#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# make install-dkms as "make install" runs it, then DKMS as an admin uses
# it: for the first kernel whose headers are installed, "dkms build" and
# "dkms install" give an ivring.ko for that kernel (its vermagic), with
# the module's version and without the test build's hooks; for the last
# kernel, "dkms autoinstall", which is what a kernel upgrade runs, does the
# same.  With IVRING_DKMS_ALL=1 (make check-matrix), every kernel between
# gets the first's; make check leaves them to make modules-all, which
# builds the same sources for each.  DKMS works in trees of its own under
# a temporary directory, so the machine's /usr/src, /var/lib/dkms and
# /lib/modules are left alone.
# Exit: 0 pass, 1 fail, 4 skip.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
command -v dkms >/dev/null || { echo "# SKIP: no dkms (make deps)"; exit 4; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-dkms.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^VERSION[[:space:]]*:= *//p' "$top/Makefile")
src=$tmp/src
fail=0

not_ok() {
	echo "not ok: $*"
	fail=1
}

if ! make -s -C "$top" install-dkms DESTDIR="$tmp" dkmsdir=/src/ivring-"$version" \
	>"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "not ok: make install-dkms failed"
	exit 1
fi
[ -r "$src/ivring-$version/dkms.conf" ] || { echo "not ok: no dkms.conf"; exit 1; }
mkdir -p "$tmp/tree" "$tmp/inst"

# --verbose: without it dkms runs a build in the background beside a
# progress loop whose "sleep 3" it may leave behind when the build ends
# (invoke_command() in /usr/sbin/dkms); the harness then found one left
# after the test.  The output goes to the logs either way.
dkms_() {
	dkms --verbose --sourcetree "$src" --dkmstree "$tmp/tree" \
		--installtree "$tmp/inst" "$@"
}

kvers=()
for d in /usr/src/linux-headers-*-amd64; do
	k=${d#/usr/src/linux-headers-}
	case $k in *-common*) continue ;; esac
	[ -e "/lib/modules/$k/build" ] && kvers+=("$k")
done
[ ${#kvers[@]} -gt 0 ] || { echo "# SKIP: no kernel headers"; exit 4; }

last=${kvers[${#kvers[@]}-1]}
[ "${IVRING_DKMS_ALL:-0}" = 1 ] || [ ${#kvers[@]} -le 2 ] ||
	kvers=("${kvers[0]}" "$last")
for k in "${kvers[@]}"; do
	mkdir -p "$tmp/inst/$k"
	if [ "$k" = "$last" ]; then
		dkms_ autoinstall --no-depmod -k "$k" >"$tmp/$k.log" 2>&1
	else
		dkms_ build ivring/"$version" -k "$k" >"$tmp/$k.log" 2>&1 &&
			dkms_ install --no-depmod ivring/"$version" -k "$k" \
				>>"$tmp/$k.log" 2>&1
	fi
	# Compressed where the kernel compresses its modules (6.12: .ko.xz).
	ko=$(ls "$tmp/inst/$k/updates/dkms/ivring.ko"* 2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		sed 's/^/# /' "$tmp/$k.log" | tail -n 20
		find "$tmp/tree" -name make.log -path "*/$k/*" -exec tail -n 20 {} \; |
			sed 's/^/# make: /'
		not_ok "$k: DKMS installed no ivring.ko"
		continue
	fi
	vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ "$vm" = "$k" ] || not_ok "$k: the module's vermagic is $vm"
	v=$(modinfo -F version "$ko")
	[ "$v" = "$version" ] || not_ok "$k: the module's version is '$v', not $version"
	modinfo -F parm "$ko" | grep -q '^preempt_storm:' &&
		not_ok "$k: the installed module has the test build's hooks"
	echo "# $k: $(basename "$ko") $v for $vm"
done

[ $fail = 0 ] && echo "ok test_dkms (${#kvers[@]} kernels)"
exit $fail
