#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# make install as a packager runs it, and a program built against the result
# as its users build one: through pkg-config, linked statically and
# dynamically.  The installed <linux/ivring.h> must not land in the system's
# include/linux, and the static library must not export libivring's internal
# names: the program defines one of them itself.
#
# The man pages, so that they cannot rot: ivring-read(1), ivring-vcpus(1)
# and libivring(3) are installed, with a page per exported function, and
# render without a warning; every exported function is in libivring(3)'s
# synopsis, every option of ivring-read --help and ivring-read record
# --help is in ivring-read(1); the example programs of libivring(3) build
# against the installed library and do what the page says, on a segment of
# the installed ivring-gen; make uninstall removes the pages again.
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

# The SIGBUS guard is the application's choice since 1.5; a program built
# against 1.0 to 1.4 binds ivring__open@LIBIVRING_1.0, which still installs
# it, as its first open was promised to.
cat >"$tmp/guard.c" <<'EOC'
#include <signal.h>
#include <stdio.h>
#include <libivring.h>

#ifdef OLD_BINARY
int ivring__open_1_0(const char *, const struct ivring_open_opts *,
		     struct ivring **);
__asm__(".symver ivring__open_1_0, ivring__open@LIBIVRING_1.0");
#define open_segment ivring__open_1_0
#else
#define open_segment ivring__open
#endif

static int handled(void)
{
	struct sigaction sa;

	sigaction(SIGBUS, NULL, &sa);
	return sa.sa_handler != SIG_DFL;
}

int main(void)
{
	struct ivring *r;
	int before = handled();

	open_segment("/nonexistent/segment", NULL, &r);
	printf("%d %d", before, handled());
	ivring__sigbus_guard(true);
	printf(" %d", handled());
	ivring__sigbus_guard(false);
	printf(" %d\n", handled());
	return 0;
}
EOC
for kind in new old; do
	def=
	[ $kind = old ] && def=-DOLD_BINARY
	# shellcheck disable=SC2086 # word lists from pkg-config
	if ! gcc -Wall -Werror $def $cflags -o "$tmp/guard-$kind" "$tmp/guard.c" \
		$(pkg-config --libs ivring) >"$tmp/cc.log" 2>&1; then
		sed 's/^/# /' "$tmp/cc.log"
		not_ok "the $kind SIGBUS guard program does not build"
		continue
	fi
	out=$(LD_LIBRARY_PATH=$dest/usr/lib "$tmp/guard-$kind")
	want="0 0 1 0"
	[ $kind = old ] && want="0 1 1 0"
	if [ "$out" = "$want" ]; then
		echo "ok: SIGBUS guard, $kind binary: $out"
	else
		not_ok "SIGBUS guard, $kind binary: '$out', expected '$want'"
	fi
done

# --- the man pages
man=$dest/usr/share/man
page1=$man/man1/ivring-read.1
page3=$man/man3/libivring.3
funcs=$(sed -n 's/^[[:space:]]*\(ivring__[a-z_]*\);$/\1/p' "$top/lib/libivring.map")
[ -n "$funcs" ] || not_ok "no function in lib/libivring.map"

for page in "$page1" "$man/man1/ivring-vcpus.1" "$page3"; do
	if [ ! -r "$page" ]; then
		not_ok "${page#"$dest"}: not installed"
		continue
	fi
	if ! groff -man -Tutf8 -ww -z "$page" >"$tmp/groff.log" 2>&1 ||
	   [ -s "$tmp/groff.log" ]; then
		sed 's/^/# /' "$tmp/groff.log"
		not_ok "${page#"$dest"}: groff warns"
	fi
	if ! MANWIDTH=80 man --warnings -l "$page" >"$tmp/page.txt" \
		2>"$tmp/man.log" || [ -s "$tmp/man.log" ]; then
		sed 's/^/# /' "$tmp/man.log"
		not_ok "${page#"$dest"}: man --warnings warns"
	fi
	# Lines that man had to break outside the text: an example too wide.
	awk 'length > 80' "$tmp/page.txt" | sed 's/^/# too wide: /'
	[ -z "$(awk 'length > 80' "$tmp/page.txt")" ] ||
		not_ok "${page#"$dest"}: lines wider than 80 columns"
done

for f in $funcs; do
	[ -r "$man/man3/$f.3" ] || not_ok "no man3/$f.3 installed"
	# The synopsis, from .SH SYNOPSIS to the next .SH.
	sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page3" |
		grep -q "[ *]$f(" ||
		not_ok "libivring(3): $f is not in the synopsis"
	grep -q "^\.BR $f ()" "$page3" ||
		not_ok "libivring(3): $f is not described"
done
out=$(MANWIDTH=80 man -M "$man" ivring__rec_open 2>&1 | head -n 1)
case $out in
LIBIVRING*) ;;
*)	not_ok "man ivring__rec_open shows '$out', not libivring(3)" ;;
esac

# Every option of both --help texts, as the page spells it (\- for -).
for mode in "" record; do
	# shellcheck disable=SC2086 # no mode is no word
	opts=$("$dest/usr/bin/ivring-read" $mode --help |
	       grep -o -e '^  -[A-Za-z]' -e '--[a-z][a-z-]*' | tr -d ' ' | sort -u)
	[ -n "$opts" ] || not_ok "ivring-read $mode --help lists no option"
	for o in $opts; do
		grep -qF -- "${o//-/\\-}" "$page1" ||
			not_ok "ivring-read(1) does not document ivring-read $mode $o"
	done
done

# example NAME: the program after '.\" example: NAME' in libivring.3, with
# the roff escapes it uses (\e, \-) undone.
example() {
	awk -v name="$1" '$0 == ".\\\" example: " name { want = 1; next }
		want && /^\.EX$/ { on = 1; next }
		on && /^\.EE$/ { exit }
		on { print }' "$page3" | sed -e 's/\\e/\\/g' -e 's/\\-/-/g'
}

libs=$(pkg-config --libs ivring)
for ex in print record; do
	example $ex.c >"$tmp/$ex.c"
	[ -s "$tmp/$ex.c" ] || { not_ok "libivring(3) has no example $ex.c"; continue; }
	# shellcheck disable=SC2086 # word lists from pkg-config
	if ! gcc -Wall -Wextra -Werror $cflags -o "$tmp/$ex" "$tmp/$ex.c" \
		$libs >"$tmp/cc.log" 2>&1; then
		sed 's/^/# /' "$tmp/cc.log"
		not_ok "libivring(3)'s example $ex.c does not build"
	fi
done

# Not ivring*: that is the guest tests' in /dev/shm (run_tests.sh).
shm=ivt-install-$$
# shellcheck disable=SC2064 # expand now
trap "rm -rf '$tmp'; rm -f /dev/shm/$shm" EXIT
export LD_LIBRARY_PATH=$dest/usr/lib
if [ -x "$tmp/print" ] && [ -x "$tmp/record" ] &&
   "$dest/usr/bin/ivring-gen" -q -c 3 -n 500 -S $shm; then
	# print.c prints what ivring-read --peek prints, and consumes nothing.
	"$dest/usr/bin/ivring-read" --peek $shm >"$tmp/read.txt" 2>/dev/null
	"$tmp/print" $shm >"$tmp/print.txt" 2>"$tmp/print.err" ||
		not_ok "print.c failed: $(cat "$tmp/print.err")"
	if [ ! -s "$tmp/read.txt" ] || ! cmp -s "$tmp/read.txt" "$tmp/print.txt"; then
		diff "$tmp/read.txt" "$tmp/print.txt" | head -n 5 | sed 's/^/# /'
		not_ok "print.c does not print what ivring-read --peek prints"
	else
		echo "ok: print.c: $(wc -l <"$tmp/print.txt") lines, as ivring-read's"
	fi
	# record.c: a trace.dat of every event, and the segment consumed.
	out=$("$tmp/record" $shm "$tmp/rec.dat" 2>&1)
	n=$(trace-cmd report "$tmp/rec.dat" 2>/dev/null | grep -c 'seq=')
	# What a consuming reader gets after it: nothing.
	left=$("$dest/usr/bin/ivring-read" $shm 2>/dev/null | wc -l)
	case $out in
	"1503 events in "*" pages, 0 lost")
		if [ "$n" = 1500 ] && [ "$left" = 0 ]; then
			echo "ok: record.c: $out; trace-cmd report: $n seq events"
		else
			not_ok "record.c: trace-cmd report shows $n seq events, 1500 written; $left left unread"
		fi ;;
	*)	not_ok "record.c printed '$out'" ;;
	esac
else
	not_ok "no segment for the example programs"
fi

if ! make -s -C "$top" uninstall DESTDIR="$dest" prefix=/usr \
	libdir=/usr/lib >"$tmp/uninstall.log" 2>&1; then
	cat "$tmp/uninstall.log"
	not_ok "make uninstall failed"
fi
left=$(find "$man" -type f 2>/dev/null)
[ -z "$left" ] || not_ok "make uninstall left $(echo "$left" | wc -l) man pages"
exit $fail
