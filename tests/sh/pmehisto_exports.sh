#!/bin/bash
#
# pmehisto_exports.sh - pmehisto -T svg, -T callgrind and -T pprof on a
# t_sample text with call chains against tests/histo/map.pmd (as in
# pmehisto_folded: a PIE program's modules from prog.map), whose -T folded
# lines are pinned first.  Each export is then read back by its consumer
# and must say the same: the SVG is well-formed XML (xmllint), its frames
# rebuild the folded stacks and are as wide as their samples' share, and
# its script zooms and searches (run in node on a stand-in DOM);
# callgrind_annotate's program total is the samples and its functions'
# inclusive (--inclusive=yes) and self costs are those of the folded
# stacks, recursion, a name both outermost and called, and a function
# whose only call is to a name outer in its stack included, each call
# counted once (samples do not count calls); the
# pprof profile decoded by the npm package pprof-format has the sample
# types, the period and the stacks of -T folded, and go tool pprof -top
# the same flat and cumulative counts.  Then: -o without an extension
# gets the export's, no -o is standard output, and bad cases (no call
# chains, trace input, -D) fail cleanly and write nothing.  The pprof
# readers are skipped, said, where they cannot be installed (npm offline,
# no Go).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/stacks.sh"

need "$tsample"
command -v xmllint >/dev/null || skip "no xmllint (libxml2-utils)"
command -v callgrind_annotate >/dev/null || skip "no callgrind_annotate (valgrind)"

cd "$tmp" || exit 1
cp "$top/tests/histo/map.pmd" "$top/tests/histo/prog.map" . || exit 1
"$pmebuild" -q -o in.PME map.pmd || { fail "pmebuild map.pmd"; exit 1; }

# PROG at 0x555555554000 (link-time 0x1000 at 0x555555555000): Scrt1.o
# 1040-1061, main.o 1062-117F, work.o 1180-137F, util.o 1380-13FF; a
# library whose name needs escaping in XML, and for every report (a
# control character, which callgrind's lines, XML and pprof's UTF-8
# strings must not hold raw).
cat >ex.smp <<'SMP'
header method=test event=cpu-clock period=2000000 pid=300 start=0 start_mono=0 flags=callchain argv=./prog,run arg="<&\x01>"
map pid=300 start=0x555555555000 end=0x555555556000 offset=0x1000 vaddr=0x1000 path=/home/u/prog flags=exec,main
map pid=300 start=0x7ffff7c28000 end=0x7ffff7dbd000 offset=0x28000 vaddr=0x28000 path=/lib/x86_64-linux-gnu/libc.so.6 flags=exec
map pid=300 start=0x7ffff7e00000 end=0x7ffff7e10000 offset=0 vaddr=0 path="/opt/x/a&b<c>\x02.so" flags=exec
sample pid=300 pc=0x5555555552a0 frames=0x555555555180,0x555555555050,0x7ffff7c29d90 count=10
sample pid=300 pc=0x555555555390 frames=0x555555555200,0x555555555300,0x555555555100 count=4
sample pid=300 pc=0x7ffff7c30000 frames=0x555555555390,0x555555555100 count=6
sample pid=300 pc=0x7ffff7e01000 frames=0x555555555100 count=3
sample pid=300 pc=0x5555555552a0 frames=0x7ffff7e01000,0x555555555100 count=2
sample pid=300 pc=0xffffffff81000000 flags=kernel frames=0x555555555390,0x555555555100 count=1
sample pid=300 pc=0x555555555070 count=1
sample pid=300 pc=0x7ffff7c30000 frames=0x10,0x7ffff7c29d90 count=2
close end=29000000 status=0 threads=1
SMP
cat >folded.want <<'EOF2'
[libc.so.6];Scrt1.o;main.o;work.o 10
[libc.so.6];[unknown];[libc.so.6] 2
main.o 1
main.o;[a&b<c>\x02.so] 3
main.o;[a&b<c>\x02.so];work.o 2
main.o;util.o;[kernel]_[k] 1
main.o;util.o;[libc.so.6] 6
main.o;work.o;work.o;util.o 4
EOF2
"$tsample" write ex.PMS <ex.smp || { fail "t_sample write ex.smp"; exit 1; }
"$pmehisto" -q -T folded -b in.PME -B f.PME -o f.HIS ex.PMS >folded 2>err ||
    fail "-T folded: $(cat err)"
diff -u folded.want folded >diff || { fail "-T folded:"; cat diff >&2; }
total=29

# Each export: exit 0, nothing on standard error, the file written and
# nothing on standard output (-o names the export, not a histogram).
for t in svg callgrind pprof; do
	$PME_VALGRIND "$pmehisto" -q -T $t -b in.PME -B $t.PME -o out.$t \
	    ex.PMS >stdout 2>err || fail "-T $t: exit status $?: $(cat err)"
	[ -s err ] && fail "-T $t: standard error: $(cat err)"
	[ -s stdout ] && fail "-T $t -o: standard output not empty"
	[ -s out.$t ] || fail "-T $t: out.$t not written"
	[ -e out.$t.HIS ] && fail "-T $t: a histogram file out.$t.HIS"
	# The filled bucket file is written as ever.
	cmp -s f.PME $t.PME || fail "-T $t: the filled bucket file differs"
done

# --- SVG
xmllint --noout out.svg 2>err || fail "out.svg is not well-formed XML: $(cat err)"
svg_stacks out.svg >svg.stacks || fail "out.svg: frames of the wrong width"
diff -u folded svg.stacks >diff || { fail "the flame graph's stacks:"; cat diff >&2; }
grep -q '<title>\[a&amp;b&lt;c&gt;\\x02.so\] (5 samples, 17.24%)</title>' out.svg ||
    fail "out.svg: no escaped title with count and share"
# The command line escaped as in every report, then for XML.
grep -q '>\./prog run &lt;&amp;\\x01&gt;: 29 samples, every 2 ms</text>' out.svg ||
    fail "out.svg: no subtitle of the command escaped: $(grep -a '>./prog' out.svg)"
# A kernel frame is marked "_[k]" and orange, as FlameGraph has it.
grep -q '<title>\[kernel\]_\[k\] (1 sample, 3.45%)</title>.*fill="rgb([0-9]*,[0-9]*,0)"' out.svg ||
    fail "out.svg: the kernel frame is not marked _[k] in orange"
grep -q '<script type="text/ecmascript"><!\[CDATA\[' out.svg ||
    fail "out.svg: no inline script"
grep -Eq '(href|src)="https?:|url\(' out.svg && fail "out.svg refers to the network"
# A frame's colour is its name's: the same in another graph.
c1=$(grep -o '<title>work.o .*' out.svg | sed -n '1s/.*fill="\([^"]*\)".*/\1/p')
c2=$(grep -o '<title>work.o .*' out.svg | sed -n '2s/.*fill="\([^"]*\)".*/\1/p')
[ -n "$c1" ] && [ "$c1" = "$c2" ] || fail "work.o's frames coloured $c1 and $c2"
# The script: zoom, reset, search (tests/sh/lib/svg_script.js checks
# each frame; here the counts of frames and the matched share, 16 of the
# 29 samples in stacks through work.o).
if command -v node >/dev/null; then
	{
		node "$top/tests/sh/lib/svg_script.js" out.svg work.o '^work'
		node "$top/tests/sh/lib/svg_script.js" out.svg \
		    '[a&b<c>\x02.so]' 'a&b<c>'
	} >script.out 2>&1
	cat >script.want <<'EOF2'
zoom work.o: 1 shown, 4 faded, 11 hidden
search ^work: Matched: 55.2% (16 of 29 samples)
zoom [a&b<c>\x02.so]: 2 shown, 2 faded, 12 hidden
search a&b<c>: Matched: 17.2% (5 of 29 samples)
EOF2
	diff -u script.want script.out >diff ||
	    { fail "the flame graph's script:"; cat diff >&2; }
else
	echo "note: no node here: the flame graph's script was not run"
fi
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o out.png out.svg 2>err || fail "rsvg-convert: $(cat err)"
fi

# callgrind and pprof name the kernel's frames without FlameGraph's
# "_[k]": their stacks are -T folded's without it.
sed 's/_\[k\]//g' folded.want >folded

# --- callgrind
cg_functions out.callgrind >cg.self 2>err
{ self folded; } >self.want
diff -u self.want cg.self >diff ||
    { fail "callgrind_annotate's self costs:"; cat diff >&2; }
cg_functions --inclusive=yes out.callgrind >cg.incl 2>>err
{ inclusive folded; echo "(all) $total"; } | LC_ALL=C sort >incl.want
diff -u incl.want cg.incl >diff ||
    { fail "callgrind_annotate --inclusive=yes:"; cat diff >&2; }
callgrind_annotate out.callgrind 2>>err | grep -q "^$total (100.0%)  PROGRAM TOTALS" ||
    fail "callgrind_annotate: program totals not $total"
grep -q 'WARNING' err && fail "callgrind_annotate warned: $(cat err)"
grep -qx 'ob=([0-9]*) /opt/x/a&b<c>\\x02.so' out.callgrind ||
    fail "out.callgrind: no escaped object: $(grep -a '^ob=.*/opt' out.callgrind)"
grep -qx 'cmd: ./prog run <&\\x01>' out.callgrind ||
    fail "out.callgrind: no escaped command: $(grep -a '^cmd' out.callgrind)"
# Positions are lines, as valgrind --tool=callgrind --dump-instr=no
# writes them; the map file's modules have none: work.o's 12 at line 0.
id=$(sed -n 's/^c*fn=(\([0-9]*\)) work\.o$/\1/p' out.callgrind)
grep -q '^positions: line$' out.callgrind &&
    sed -n "/^fn=($id)/,/^\$/p" out.callgrind | grep -qx '0 12' ||
    fail "out.callgrind: work.o's self cost 12 not at line 0"
# Samples do not count calls: every call is given one (the format has
# no unknown count; callgrind_annotate takes 0 for no call), never its
# samples as "(10x)".
grep -q '^calls=' out.callgrind && ! grep '^calls=' out.callgrind |
    grep -qv '^calls=1 ' ||
    fail "out.callgrind: call counts not 1: $(grep '^calls=' out.callgrind | sort | uniq -c)"
grep -Eq '^(0x|fi=|fe=)' out.callgrind &&
    fail "out.callgrind: an address or a file of lines where no line is known"

# --- pprof
gzip -t out.pprof 2>err || fail "out.pprof is not gzipped: $(cat err)"
if pprof_npm; then
	pprof_decode out.pprof >decoded 2>err || fail "pprof-format: $(cat err)"
	{
		echo "types samples/count cpu/nanoseconds period" \
		    "cpu/nanoseconds 2000000 default cpu"
		echo 'mapping 1 /opt/x/a&b<c>\x02.so -'
		echo "mapping 2 /lib/x86_64-linux-gnu/libc.so.6 -"
		echo "total $total ns $((total * 2000000))"
		sed 's/^/stack /' folded
	} >decoded.want
	diff -u decoded.want decoded >diff ||
	    { fail "pprof-format read:"; cat diff >&2; }
else
	echo "note: the npm package pprof-format cannot be installed here:" \
	    "out.pprof was not decoded"
fi
if [ -n "$pprof" ]; then
	pprof_top out.pprof 1 >top.flat
	pprof_top out.pprof 4 >top.cum
	sed 's/<[^>]*>//g' self.want | LC_ALL=C sort | diff -u - top.flat >diff ||
	    { fail "$pprof -top, flat:"; cat diff >&2; }
	inclusive folded | sed 's/<[^>]*>//g' | LC_ALL=C sort |
	    diff -u - top.cum >diff ||
	    { fail "$pprof -top, cum:"; cat diff >&2; }
else
	echo "note: no go tool pprof nor pprof here: pprof -top not run"
fi

# --- names: -o without an extension gets the export's; no -o (or -o -)
# is standard output.
"$pmehisto" -q -T svg -b in.PME -B o.PME -o flame ex.PMS 2>err &&
    cmp -s out.svg flame.svg || fail "-o flame: no flame.svg like out.svg"
"$pmehisto" -q -T pprof -b in.PME -B o.PME -o prof ex.PMS 2>err &&
    cmp -s out.pprof prof.pb.gz || fail "-o prof: no prof.pb.gz like out.pprof"
"$pmehisto" -q -T callgrind -b in.PME -B o.PME ex.PMS >stdout 2>err &&
    cmp -s out.callgrind stdout || fail "-T callgrind: standard output differs"
"$pmehisto" -q -T svg -b in.PME -B o.PME -o - ex.PMS >stdout 2>err &&
    cmp -s out.svg stdout || fail "-T svg -o -: standard output differs"

# --- bad cases
# No call chains: a clear message, exit status 1, no output of any kind,
# an old one left as it was.
sed -e 's/ frames=[^ ]*//' -e 's/ flags=callchain//' ex.smp >flat.smp
"$tsample" write flat.PMS <flat.smp || fail "t_sample write flat.smp"
for t in svg callgrind pprof; do
	echo old >old.$t
	"$pmehisto" -T $t -b in.PME -B flat.PME -o old.$t flat.PMS \
	    >stdout 2>err
	rc=$?
	[ $rc = 1 ] || fail "-T $t, no call chains: exit status $rc, not 1"
	echo "pmehisto: 'flat.PMS': no call chains for -T $t (record them" \
	    "with pmeclock -g)" | diff -u - err >diff ||
	    { fail "-T $t, no call chains: message:"; cat diff >&2; }
	[ "$(cat old.$t)" = old ] || fail "-T $t, no call chains: old.$t changed"
	[ -s stdout ] && fail "-T $t, no call chains: standard output written"
	[ -e flat.PME ] && fail "-T $t, no call chains: flat.PME written"
	ls -a | grep -q '^\.old\.' && fail "-T $t: a temporary file left"
	# Standard output gets nothing either.
	"$pmehisto" -T $t -b in.PME -B flat.PME flat.PMS >stdout 2>err
	[ $? = 1 ] && [ ! -s stdout ] ||
	    fail "-T $t to standard output, no call chains: not exit 1 and nothing"
done
# Several sample files without call chains are named together.
"$pmehisto" -T callgrind -b in.PME -B flat.PME flat.PMS flat.PMS >stdout 2>err
echo "pmehisto: the sample files: no call chains for -T callgrind (record" \
    "them with pmeclock -g)" | diff -u - err >diff ||
    { fail "two sample files, no call chains: message:"; cat diff >&2; }
# pprof's binary output is not sent to a terminal (script(1) gives one).
if command -v script >/dev/null; then
	script -qec "'$pmehisto' -T pprof -b in.PME -B tty.PME ex.PMS" \
	    /dev/null >stdout 2>&1 </dev/null
	rc=$?
	[ $rc = 2 ] || fail "-T pprof to a terminal: exit status $rc, not 2"
	grep -q "^pmehisto: -T pprof: standard output is a terminal: name a file with -o" stdout ||
	    fail "-T pprof to a terminal: no clear message: $(cat stdout)"
	[ -e tty.PME ] && fail "-T pprof to a terminal: tty.PME written"
else
	echo "note: no script(1): -T pprof to a terminal not tried"
fi
# Trace input has no call stacks; nor are they compared.
"$pmehisto" -t -T svg -b f.PME -o t.svg >stdout 2>err
rc=$?
[ $rc = 2 ] || fail "-t -T svg: exit status $rc, not 2"
grep -q "^pmehisto: -T svg: call stacks come from sample files (clock input)" err ||
    fail "-t -T svg: no clear message: $(cat err)"
[ -e t.svg ] && fail "-t -T svg: t.svg written"
"$pmehisto" -T pprof -D f.PME -b in.PME -B o.PME -o d ex.PMS >stdout 2>err
rc=$?
[ $rc = 2 ] || fail "-T pprof -D: exit status $rc, not 2"
grep -q "^pmehisto: -T pprof: call stacks are not compared (-D)" err ||
    fail "-T pprof -D: no clear message: $(cat err)"

finish
