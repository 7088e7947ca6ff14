#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# check_layers.sh FOLDER [OBJDIR]: FOLDER's files keep the layers that
# FOLDER/LAYERS declares, lowest first:
#
#   layer NAME GLOB...      the files of layer NAME (paths relative to FOLDER)
#   sees NAME GLOB...       NAME's files include only headers matching these
#                           (its own layer's always), through the headers
#                           they include too, and call in lower layers only
#                           what those headers declare
#   pair FILE FILE REASON   two files of one layer that call each other by
#                           design
#
# Checked: every .c and .h under FOLDER is in exactly one layer; every
# #include that names a file of the project ("..." or <...>, resolved as
# the compiler would, paths normalised) names a header of its own layer or
# a lower one, or one of the folders FOLDER may see (ALLOWED below); and, with OBJDIR, where each
# FOLDER/X.c was built as OBJDIR/X.o, every symbol an object uses that
# another of them defines is of its own layer or a lower one, and the
# objects form no circle but the declared pairs.  Prints "ok" or "not ok" lines and
# "# ..." details; exits 0 when all hold, 1 otherwise, 2 on a usage error.
# selftests/run_tests.sh runs it for lib, kmod, tools, include/writer and
# include/filter.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)

[ $# -ge 1 ] || { echo "usage: check_layers.sh FOLDER [OBJDIR]" >&2; exit 2; }
folder=${1%/}
objdir=${2:+$(cd "$2" 2>/dev/null && pwd)}
if [ $# -ge 2 ] && [ -z "$objdir" ]; then
	echo "not ok: $folder: no object directory $2"
	exit 1
fi
layers=$top/$folder/LAYERS
fail=0

not_ok() {
	echo "not ok: $folder: $*"
	fail=1
}

# What each folder may include from outside itself: the Makefile's and
# Kbuild's include paths, narrowed to what the folder is for.
case $folder in
lib)		allowed="include/uapi/*" ;;
kmod)		allowed="include/uapi/* include/writer/* include/filter/*" ;;
include/writer)	allowed="include/uapi/*" ;;
tools)		allowed="include/uapi/* include/writer/* include/filter/* lib/libivring.h" ;;
*)		allowed="include/uapi/*" ;;
esac
# Searched for a quoted include that is not beside its file or at the
# folder's top, in this order.
search="include/uapi include/writer include/filter lib"

if [ ! -r "$layers" ]; then
	not_ok "no $folder/LAYERS"
	exit 1
fi

declare -A layer_of rank sees pairs
declare -a globs_of_layer
n=0
while read -r kind name rest; do
	case $kind in
	''|'#'*) continue ;;
	layer)
		rank[$name]=$n
		n=$((n + 1))
		for g in $rest; do
			globs_of_layer+=("$name:$g")
		done ;;
	sees)
		sees[$name]=$rest ;;
	pair)
		read -r b _ <<<"$rest"
		pairs["$name $b"]=1
		pairs["$b $name"]=1 ;;
	*)	not_ok "LAYERS: unknown line '$kind $name $rest'" ;;
	esac
done < <(sed 's/[[:space:]]*#.*$//' "$layers")

cd "$top/$folder" || exit 2
mapfile -t files < <(find . -type f \( -name '*.c' -o -name '*.h' \) \
			-printf '%P\n' | sort)

# Every file in exactly one layer.
for f in "${files[@]}"; do
	hit=
	for lg in "${globs_of_layer[@]}"; do
		l=${lg%%:*}
		g=${lg#*:}
		# shellcheck disable=SC2053 # the glob is meant
		if [[ $f == $g ]]; then
			if [ -n "$hit" ] && [ "$hit" != "$l" ]; then
				not_ok "$f is in two layers, $hit and $l"
			fi
			hit=$l
		fi
	done
	if [ -z "$hit" ]; then
		not_ok "$f is in no layer of $folder/LAYERS"
		continue
	fi
	layer_of[$f]=$hit
done

matches() {	# matches PATH GLOB...
	local p=$1 g
	shift
	for g in "$@"; do
		# shellcheck disable=SC2053
		[[ $p == $g ]] && return 0
	done
	return 1
}

# Where an #include of FILE names a project file: the path from the top,
# normalised, or nothing for a system header.  A quoted one is looked for
# beside FILE first, as the compiler does; then, for both kinds, at the
# folder's top and in the search paths.
resolve() {	# resolve FILE INCLUDE QUOTED
	local f=$1 inc=$2 dir c

	dir=$(dirname "$f")
	for c in ${3:+"$folder/$dir/$inc"} "$folder/$inc" \
		 $(for s in $search; do echo "$s/$inc"; done); do
		if [ -e "$top/$c" ]; then
			realpath -m --relative-to="$top" "$top/$c"
			return
		fi
	done
}

# The includes of FILE, one "q NAME" (quoted) or "a NAME" (angle) a line.
includes_of() {
	sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/q \1/p' \
	       -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/a \1/p' "$1"
}

# Includes.
bad_inc=0
for f in "${files[@]}"; do
	l=${layer_of[$f]:-}
	[ -n "$l" ] || continue
	# A layer that sees only some headers sees only them through the
	# headers it includes, too: follow its includes through the folder.
	todo=("$f")
	declare -A done_inc=()
	while [ ${#todo[@]} -gt 0 ]; do
		cur=${todo[0]}
		todo=("${todo[@]:1}")
		while read -r kind inc; do
			target=$(resolve "$cur" "$inc" "${kind#a}")
			if [ -z "$target" ]; then
				[ "$kind" = q ] || continue	# a system header
				not_ok "$cur includes \"$inc\", which is nowhere it may look"
				bad_inc=1
				continue
			fi
			if [ "${target#"$folder"/}" = "$target" ]; then
				# Outside the folder: only what it may see.
				# shellcheck disable=SC2086
				if ! matches "$target" $allowed; then
					not_ok "$cur includes $target, outside what $folder may include ($allowed)"
					bad_inc=1
				fi
				continue
			fi
			target=${target#"$folder"/}
			t=${layer_of[$target]:-}
			if [ -z "$t" ]; then
				not_ok "$cur includes $target, which is in no layer"
				bad_inc=1
				continue
			fi
			if [ "$cur" = "$f" ] && [ "${rank[$t]}" -gt "${rank[$l]}" ]; then
				not_ok "$f ($l) includes $target, of the higher layer $t"
				bad_inc=1
			elif [ -n "${sees[$l]:-}" ] && [ "$t" != "$l" ]; then
				# shellcheck disable=SC2086
				if ! matches "$target" ${sees[$l]}; then
					if [ "$cur" = "$f" ]; then
						not_ok "$f ($l) includes $target; $l sees only ${sees[$l]}"
					else
						not_ok "$f ($l) includes $target through $cur; $l sees only ${sees[$l]}"
					fi
					bad_inc=1
				fi
			fi
			if [ -n "${sees[$l]:-}" ] && [ -z "${done_inc[$target]:-}" ]; then
				done_inc[$target]=1
				todo+=("$target")
			fi
		done < <(includes_of "$cur")
	done
	unset done_inc
done
[ $bad_inc = 0 ] && echo "ok: $folder: ${#files[@]} files, each includes only its own layer, lower ones and what $folder may include"

[ -n "$objdir" ] || exit $fail

# Objects: the symbols each defines and uses, by its source's path.
declare -A src_of
for f in "${files[@]}"; do
	case $f in *.c) ;; *) continue ;; esac
	o=$objdir/${f%.c}.o
	if [ ! -e "$o" ]; then
		not_ok "$o: not built"
		continue
	fi
	src_of[$o]=$f
done
edges=$(for o in "${!src_of[@]}"; do
	nm "$o" | awk -v s="${src_of[$o]}" '
		NF == 3 && $2 ~ /^[TDBRVWGu]$/ { print "D", s, $3 }
		NF == 2 && $1 == "U" { print "U", s, $2 }'
done | awk '
	$1 == "D" { if (!($3 in def)) def[$3] = $2; next }
	{ use[NR] = $2 " " $3 }
	END {
		for (i in use) {
			split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1])
				print u[1], def[u[2]], u[2]
		}
	}' | sort -u)

# What a layer that sees only some headers may call in the layers below:
# the functions those headers declare.  Their text, a file a layer.
declare -A sees_decl sees_decl_file
scratch=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
for l in "${!sees[@]}"; do
	sees_decl[$l]=1
	sees_decl_file[$l]=$scratch/$l
	: >"$scratch/$l"
	for f in "${files[@]}"; do
		case $f in *.h) ;; *) continue ;; esac
		# shellcheck disable=SC2086
		matches "$f" ${sees[$l]} && cat "$f" >>"$scratch/$l"
	done
done

bad_call=0
declare -A graph
while read -r from to sym; do
	[ -n "$from" ] || continue
	lf=${layer_of[$from]:-}
	lt=${layer_of[$to]:-}
	if [ -z "$lf" ] || [ -z "$lt" ]; then
		not_ok "$from or $to (symbol $sym) is in no layer"
		bad_call=1
		continue
	fi
	if [ "${rank[$lt]}" -gt "${rank[$lf]}" ]; then
		not_ok "$from ($lf) uses $sym of $to, of the higher layer $lt"
		bad_call=1
	elif [ -n "${sees_decl[$lf]:-}" ] && [ "$lt" != "$lf" ] &&
	     ! grep -qw -- "$sym" "${sees_decl_file[$lf]}"; then
		not_ok "$from ($lf) uses $sym of $to, which no header that $lf sees declares (${sees[$lf]})"
		bad_call=1
	fi
	graph["$from $to"]=1
done <<<"$edges"
[ $bad_call = 0 ] && echo "ok: $folder: ${#src_of[@]} objects call only their own layer and lower ones"

# Circles: the strongly connected components of the file graph (Tarjan),
# each larger than one file and not a declared pair.
cycles=$(for e in "${!graph[@]}"; do echo "$e"; done | awk '
	{ adj[$1] = adj[$1] " " $2; node[$1]; node[$2] }
	function visit(v,    ws, n, i, w) {
		idx[v] = low[v] = ++counter
		stack[++sp] = v
		on[v] = 1
		n = split(adj[v], ws, " ")
		for (i = 1; i <= n; i++) {
			w = ws[i]
			if (!(w in idx)) {
				visit(w)
				if (low[w] < low[v])
					low[v] = low[w]
			} else if (on[w] && idx[w] < low[v]) {
				low[v] = idx[w]
			}
		}
		if (low[v] == idx[v]) {
			comp = ""
			do {
				w = stack[sp--]
				on[w] = 0
				comp = comp " " w
				size++
			} while (w != v)
			if (size > 1)
				print substr(comp, 2)
			size = 0
		}
	}
	END { for (v in node) if (!(v in idx)) visit(v) }')
bad_cycle=0
while read -r -a comp; do
	[ ${#comp[@]} -gt 0 ] || continue
	if [ ${#comp[@]} -eq 2 ] && [ -n "${pairs["${comp[0]} ${comp[1]}"]:-}" ]; then
		echo "# $folder: ${comp[0]} and ${comp[1]} call each other: a declared pair"
		continue
	fi
	not_ok "a circle of files: ${comp[*]}"
	for a in "${comp[@]}"; do
		for b in "${comp[@]}"; do
			[ -n "${graph["$a $b"]:-}" ] || continue
			echo "#   $a -> $b: $(awk -v a="$a" -v b="$b" '$1 == a && $2 == b { printf "%s ", $3 }' <<<"$edges")"
		done
	done
	bad_cycle=1
done <<<"$cycles"
[ $bad_cycle = 0 ] && echo "ok: $folder: no circle of files"
exit $fail
