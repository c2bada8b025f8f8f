#!/bin/bash
#
# man_examples.sh - every C example in the EXAMPLES section of a section-3
# man page compiles (issue 23 item 7: pme_event(3) called newHistoMetric()
# in a file-scope initializer, which is not C).  The literal displays
# (.Bd -literal) are taken from the page as mandoc shows them (\e a
# backslash); a display of shell commands ($ first) or of output (no
# semicolon) is not C.  A display with a line holding only '{' (a
# function's body) or an #include is at file scope; any other is the body
# of a function of its own.  A page's displays are one translation unit,
# in their order, so that a later example may use an earlier one's
# functions; the names an example takes as the reader's own (its
# program's jobs, its setup and its work) are declared below, per page;
# the rest each example declares itself.  Compiled with the public
# headers, -std=c11 -Wall -Werror, -fsyntax-only.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
cc=${CC:-cc}
command -v "$cc" >/dev/null || skip "no C compiler ($cc)"
cd "$tmp" || exit 1

# The reader's own names, per page.
context() {
	case $1 in
	pme_event.3)
		echo '#define NWORKERS 4'
		echo 'struct job { uint64_t queued; };'
		echo 'struct job *take(void);'
		echo 'void run(struct job *);' ;;
	libpmeclock.3|libpmetrace.3)
		echo 'void setup(void), solve(void), compute(void), report(void);' ;;
	esac
}

# The EXAMPLES' literal displays of page $1 as ex.N files, roff escapes
# undone.
extract() {
	rm -f ex.*
	awk '
	/^\.Sh / { ex = ($0 == ".Sh EXAMPLES") }
	ex && /^\.Bd -literal/ { n++; out = "ex." n; inblk = 1; next }
	inblk && /^\.Ed/ { inblk = 0; close(out); next }
	inblk {
		gsub(/\\\(aq/, "\047"); gsub(/\\\(dq/, "\""); gsub(/\\-/, "-")
		gsub(/\\&/, ""); gsub(/\\e/, "\\")
		print > out
	}' "$1"
}

nc=0
for page in "$top"/man/*.3; do
	base=${page##*/}
	extract "$page"
	{
		printf '#include <%s>\n' err.h inttypes.h stdint.h stdio.h \
		    stdlib.h string.h pme.h pme_sample.h pme_symbols.h \
		    pme_render.h pme_event.h
		context "$base"
		k=0
		for f in $(ls ex.* 2>/dev/null | sort -t. -k2 -n); do
			grep -q '^\$ ' "$f" && continue
			grep -q ';' "$f" || continue
			k=$((k + 1))
			echo "#line 1 \"$base example $k\""
			if grep -qx '{' "$f" || grep -q '^#include' "$f"; then
				cat "$f"
			else
				echo "void example_$k(void);"
				echo "void example_$k(void) {"
				cat "$f"
				echo "}"
			fi
		done
		echo "int examples_$k;"
	} >"$base.c"
	n=$(grep -c '^#line 1 ' "$base.c")
	[ "$n" -gt 0 ] || continue
	nc=$((nc + n))
	"$cc" -std=c11 -D_GNU_SOURCE -Wall -Werror -Wno-unused-variable \
	    -Wno-unused-function -fsyntax-only -I"$top/lib" \
	    -I"$top/sample" -I"$top/trace" "$base.c" 2>"$base.err" ||
	    fail "$base: an example does not compile: $(head -n 12 "$base.err")"
done
# The pages hold 10 C examples today: one lost (a display that stopped
# being recognised) must not pass unseen.
[ "$nc" -ge 10 ] || fail "only $nc C examples found in man/*.3"

finish
