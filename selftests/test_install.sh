#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# make install as a packager runs it, and a program built against the result
# as its users build one: through pkg-config, linked statically and
# dynamically.  The installed <linux/ivring.h> must not land in the system's
# include/linux, and the static library must not export libivring's internal
# names: the program defines one of them itself.
# Exit: 0 pass, 1 fail.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
fail=0

not_ok() {
	echo "not ok: $*"
	fail=1
}

# DEB_KDIR= leaves the module out: this is about the host side.
if ! make -s -C "$top" install DEB_KDIR= DESTDIR="$dest" prefix=/usr \
	libdir=/usr/lib >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "not ok: make install failed"
	exit 1
fi

[ -e "$dest/usr/include/linux/ivring.h" ] &&
	not_ok "the uapi header was installed into include/linux"
[ -r "$dest/usr/include/ivring/linux/ivring.h" ] ||
	not_ok "no include/ivring/linux/ivring.h"

cat >"$tmp/app.c" <<'EOC'
#include <stdio.h>
#include <linux/ivring.h>
#include <libivring.h>

/* A name that libivring uses inside: the application may use it too. */
int ivr_err(void) { return 0; }

int main(void)
{
	char err[256] = "";
	struct ivring_open_opts o = { .sz = sizeof(o), .errbuf = err,
				      .errbuf_len = sizeof(err) };
	struct ivring *r;
	int ret = ivring__open("/nonexistent/segment", &o, &r);

	printf("%d %s %d\n", ret, err, IVRING_ABI_MAJOR + ivr_err());
	return 0;
}
EOC

export PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig
cflags=$(pkg-config --cflags ivring) || not_ok "pkg-config --cflags ivring"
for link in static shared; do
	if [ $link = static ]; then
		libs=$(pkg-config --static --libs ivring)
		libs=${libs/-livring/$dest/usr/lib/libivring.a}
	else
		libs=$(pkg-config --libs ivring)
	fi
	# shellcheck disable=SC2086 # word lists from pkg-config
	if ! gcc -Wall -Werror $cflags -o "$tmp/app-$link" "$tmp/app.c" \
		$libs >"$tmp/cc.log" 2>&1; then
		sed 's/^/# /' "$tmp/cc.log"
		not_ok "a program linked $link against the installed libivring does not build"
		continue
	fi
	out=$(LD_LIBRARY_PATH=$dest/usr/lib "$tmp/app-$link")
	case $out in
	"-2 /nonexistent/segment: No such file or directory 1")
		echo "ok: $link: $out" ;;
	*)	not_ok "$link: the program printed '$out'" ;;
	esac
done
exit $fail
