#!/bin/bash
#
# outputs_killed - every program that writes a file, killed by SIGKILL at
# its first write of that file (strace's fault injection: deterministic,
# no timing), leaves the previous file as it was and no temporary file
# beside it: the new file has no name until it is complete (O_TMPFILE,
# util.h).  Then each, under a file size limit of nothing (ulimit -f 0):
# exit status 1, a message naming the file ("File too large",
# not death by SIGXFSZ), the previous file intact, nothing left beside
# it.  pmeclock's live file has tests of its own (pmeclock_write).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

command -v strace >/dev/null || skip "no strace (apt-get install strace)"
need "$tsample"
pmemerge=$top/histo/pmemerge
stats=$top/stats/stats
cd "$tmp" || exit 1

# The inputs: gravel's bucket file and samples, and an event file.
cp "$top/tests/histo/gravel.pmd" g.pmd
"$pmebuild" -q -o g.PME g.pmd >/dev/null || { fail "pmebuild g.pmd"; finish; }
"$tsample" write g.PMS <"$top/tests/histo/gravel.smp" || exit 1
"$pmehisto" -q -b g.PME -s g.PMS -B filled.PME -T none -o /dev/null ||
    { fail "pmehisto: a filled bucket file"; finish; }
# (sim links libpme.a: with this build's sanitizer flags, as stats.sh.)
sanitize=$(sed -n 's/^SANITIZE_FLAGS = *//p' "$top/config.mk" 2>/dev/null)
# shellcheck disable=SC2086 # flag lists
${CC:-cc} -std=c11 -D_GNU_SOURCE $sanitize -I"$top/lib" -o sim \
    "$top/tests/fixtures/stats/sim.c" "$top/lib/libpme.a" \
    $(sed -n 's/^LIBS = //p' "$top/config.mk") -lpthread -lm &&
    ./sim 30 >/dev/null 2>&1 || { fail "no event file"; finish; }

# The programs, each writing OUT (a file that exists beforehand; with an
# extension, so that no default one is added).
cmd_pmebuild()	{ "$pmebuild" -q -o "$1" g.pmd; }
cmd_pmehisto()	{ "$pmehisto" -q -b g.PME -s g.PMS -B /dev/null -T none \
		    -o "$1"; }
cmd_bucket()	{ "$pmehisto" -q -b g.PME -s g.PMS -B "$1" -T none \
		    -o /dev/null; }
cmd_pmemerge()	{ "$pmemerge" -q -o "$1" filled.PME filled.PME; }
cmd_stats()	{ "$stats" -f events.sim -T text -o "$1" </dev/null; }
cmds="pmebuild pmehisto bucket pmemerge stats"
[ -x "$pmemerge" ] || cmds=${cmds/pmemerge/}
[ -x "$stats" ] && [ -f events.sim ] || cmds=${cmds/stats/}

# around WHAT: the output is as it was, nothing hidden beside it.
around() {
	cmp -s out.keep out.f || fail "$1: the previous file changed"
	local left
	left=$(ls -A | grep '^\.' | tr '\n' ' ')
	[ -z "$left" ] || fail "$1: left beside it: $left"
	rm -f .out.f.* 2>/dev/null
}

for c in $cmds; do
	# A good run first: the file it writes is the one to keep.
	rm -f out.f
	"cmd_$c" out.f >/dev/null 2>&1 </dev/null ||
	    { fail "$c: a plain run failed"; continue; }
	[ -s out.f ] || { fail "$c: wrote nothing"; continue; }
	printf 'previous %s\n' "$c" >out.f
	cp out.f out.keep

	# Its first write(2) of any file kills it (it writes nothing else
	# before its output: -q, and standard output to /dev/null).  The
	# subshell keeps bash's "Killed" off the test's standard error.
	( strace -f -qq -o /dev/null -e trace=write,writev,pwrite64 \
	    -e inject=write,writev,pwrite64:signal=KILL:when=1 \
	    "$BASH" -c "$(declare -f "cmd_$c"); pmebuild=$pmebuild
		pmehisto=$pmehisto pmemerge=$pmemerge stats=$stats
		cmd_$c out.f" >/dev/null 2>&1 </dev/null
	  echo $? >status ) 2>/dev/null
	st=$(cat status)
	rm -f status
	[ "$st" = 137 ] || fail "$c: killed: exit status $st, not 137 (SIGKILL)"
	around "$c killed"

	# No byte may be written to a file; the message goes through a pipe.
	(ulimit -f 0; "cmd_$c" out.f) 2>&1 >/dev/null </dev/null | cat >err
	st=${PIPESTATUS[0]}
	[ "$st" = 1 ] || fail "$c: ulimit -f 0: exit status $st, not 1"
	grep -q "^$c\|^pme[a-z]*: '[^']*': .*File too large" err ||
	    fail "$c: ulimit -f 0: no message naming the file: $(cat err)"
	rm -f err
	around "$c ulimit -f"
done
finish
