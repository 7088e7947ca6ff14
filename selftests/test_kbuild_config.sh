#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Kbuild refuses, with a message that names the reason, every kernel
# configuration the writer does not support: not x86-64, not SMP, no PCI,
# no sysfs, no tracepoints, older than 6.1.  Each case takes an installed
# kernel's headers and overrides one of its settings on Kbuild's command
# line, which stops before anything is compiled.  Then, with nothing
# overridden, Kbuild gets past the checks, and make clean, which reads no
# configuration, refuses nothing.
# Exit: 0 pass, 1 fail, 4 skip (no linux-headers-*-amd64 in /usr/src).

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | head -n 1)
if [ -z "$kdir" ] || [ ! -r "$kdir/Makefile" ]; then
	echo "# skip: no kernel headers in /usr/src"
	exit 4
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-kbuild.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The layout of make module: links to Kbuild, include/uapi/, and to
# include/writer/*.[ch] and kmod/*.[ch] in real directories.
mkdir -p "$tmp/kmod" "$tmp/include/writer"
ln -s "$top/Kbuild" "$tmp/Kbuild"
ln -s "$top/include/uapi" "$tmp/include/uapi"
ln -s "$top"/include/writer/*.[ch] "$tmp/include/writer/"
ln -s "$top"/kmod/*.[ch] "$tmp/kmod/"
fail=0

# refused SETTING PATTERN: Kbuild with SETTING stops with PATTERN.
refused() {
	local out

	out=$(make -C "$kdir" M="$tmp" "$1" modules 2>&1)
	if ! grep -q "ivring: .*$2" <<<"$out"; then
		echo "not ok: $1: no \"$2\" from Kbuild"
		sed 's/^/#   /' <<<"$out" | tail -5
		fail=1
	else
		echo "ok: $1: $(grep -o "ivring: .*$2[^.]*" <<<"$out" | head -n 1)"
	fi
}

refused CONFIG_X86_64= "not x86-64"
refused CONFIG_SMP= "lacks CONFIG_SMP"
refused CONFIG_PCI= "lacks CONFIG_PCI"
refused CONFIG_SYSFS= "lacks CONFIG_SYSFS"
refused CONFIG_TRACEPOINTS= "lacks CONFIG_TRACEPOINTS"
refused PATCHLEVEL=0 "supports 6.1 and later"

# make clean (and DKMS, before each build) reads no .config: no refusal.
if ! make -C "$kdir" M="$tmp" clean >"$tmp.clean" 2>&1; then
	echo "not ok: make clean fails without the kernel's configuration"
	sed 's/^/#   /' "$tmp.clean" | tail -5
	fail=1
fi
rm -f "$tmp.clean"

# The kernel as it is passes every check (make -n compiles nothing).
if make -n -C "$kdir" M="$tmp" modules 2>&1 | grep -q "ivring: "; then
	echo "not ok: Kbuild refuses $kdir as it is"
	fail=1
fi
exit $fail
