#!/bin/bash
#
# pmetrace_plt.sh - code outside .text (PLT stubs of .plt, .plt.sec and
# .plt.got, .init, .fini), which callgrind puts in no object: a program
# calling a shared library's function 1000 times through its PLT stub
# (tests/fixtures/trace/pltmain.c, pltlib.c), built PIE with lazy
# binding, PIE with -z now, PIE with IBT stubs (.plt.sec) and not PIE.
# Buckets made from readelf's section headers cover those sections; both
# engines count the same in each, the same outside the buckets of each
# module and nothing unmapped; and the callgrind engine's counts there
# equal what callgrind_annotate gives the "???" functions at those
# sections' run-time addresses on the same run.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/trace.sh"

need_valgrind
need_no_pme_valgrind "pmetrace runs valgrind itself"
need_step
command -v callgrind_annotate >/dev/null && command -v readelf >/dev/null ||
    { echo "callgrind_annotate or readelf is missing"; exit 77; }

cd "$tmp" || exit 1
N=1000
$cc -g -O2 -shared -fPIC -o libplt.so "$fx/pltlib.c" &&
build_pmecounts || { echo "cannot build the fixtures" >&2; exit 1; }

# sections EXE: "name start end" (hexadecimal, end excluded) of its code
# sections outside .text.
sections() {
	local nm type addr off size rest
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
	    while read -r nm type addr off size rest; do
		case $nm in
		.init|.fini|.plt|.plt.got|.plt.sec)
			printf '%s %s %x\n' $nm $addr $((0x$addr + 0x$size));;
		esac
	done
}

# annotate FILE BIAS SECTIONS: "section Ir" of callgrind_annotate's "???"
# functions whose run-time address minus BIAS lies in a section.
annotate() {
	local ir addr a nm lo hi
	callgrind_annotate --inclusive=no --threshold=100 "$1" 2>/dev/null |
	    sed -n 's/,//g; s/^ *\([0-9]*\) .*???:0x\([0-9a-f]*\).*/\1 \2/p' |
	    while read -r ir addr; do
		a=$((0x$addr - $2))
		while read -r nm lo hi; do
			[ $a -ge $((0x$lo)) ] && [ $a -lt $((0x$hi)) ] &&
			    echo "$nm $ir"
		done <"$3"
	done | awk '{ s[$1] += $2 } END { for (n in s) print n, s[n] }'
}

# variant NAME CFLAGS...: builds pltmain as NAME and checks it.
variant() {
	local v=$1 e kept bias nm lo hi
	shift
	$cc -g -O2 "$@" -o $v "$fx/pltmain.c" -L. -lplt \
	    -Wl,-rpath,"$tmp" || { fail "$v: cannot build"; return; }
	sections $v >$v.sect
	grep -q '^\.plt ' $v.sect || { fail "$v: no .plt: $(cat $v.sect)"; return; }
	{
		# The sections' units go under pltmain.c's module unit,
		# declared before EXE gives it its load module.
		echo "DEFINE UNITS: PROGRAM, MODULE, ROUTINE"
		echo "PROGRAM P"
		echo "MODULE PLTMAIN"
		echo "DEFINE ADDRESSES: EXE \"$v\""
		echo "DEFINE UNITS"
		while read -r nm lo hi; do
			printf 'ROUTINE "%s", %s - %x\n' $nm $lo $((0x$hi - 1))
		done <$v.sect
		echo "DEFINE SAMPLING"
		echo "PROGRAM P BY ROUTINE"
		echo "END"
	} >$v.pmd
	$pmebuild -q -o $v.pme $v.pmd || { fail "$v: pmebuild"; return; }
	rm -rf keep && mkdir keep
	TMPDIR=$tmp/keep PMETRACE_KEEP=1 $pmetrace -q -e callgrind \
	    -b $v.pme -o $v.cg.pme -- ./$v $N >/dev/null 2>$v.err ||
	    fail "$v: callgrind: $(cat $v.err)"
	$pmetrace -q -e step -b $v.pme -o $v.st.pme -- ./$v $N \
	    >/dev/null 2>>$v.err || fail "$v: step: $(cat $v.err)"
	if have_pmevg; then
		$pmetrace -q -e pmevg -b $v.pme -o $v.pv.pme -- ./$v $N \
		    >/dev/null 2>>$v.err || fail "$v: pmevg: $(cat $v.err)"
	else
		cp $v.st.pme $v.pv.pme
	fi
	for e in cg st pv; do
		# The loader and the C library do other work under
		# valgrind (pmetrace(1)): only this program's modules.
		./pmecounts $v.$e.pme | awk -v t="$tmp/" '
		    $1 == "bucket" && $2 ~ /^\./ { print $2, $3 }
		    $1 == "module" && index($2, t) == 1 {
			print "outside", $2, $3 }
		    $1 == "info" { print "unmapped", $9 }' | sort >$v.$e.txt
	done
	diff -u $v.cg.txt $v.st.txt >diff.txt ||
	    fail "$v: the engines differ: $(cat diff.txt)"
	diff -u $v.cg.txt $v.pv.txt >diff.txt ||
	    fail "$v: pmevg differs from callgrind: $(cat diff.txt)"
	grep -qx 'unmapped 0' $v.cg.txt || fail "$v: unmapped: $(cat $v.cg.txt)"
	awk -v n=$N '$1 ~ /^\.plt/ { s += $2 } END { exit !(s >= n) }' \
	    $v.cg.txt || fail "$v: fewer than $N in the PLT: $(cat $v.cg.txt)"

	# callgrind_annotate: the "???" functions at the sections' run-time
	# addresses, the load bias from valgrind's log (svma, avma).
	kept=$(echo keep/pmetrace.*)
	bias=$(grep -A1 "Reading syms from $tmp/$v\$" $kept/log.* |
	    sed -n 's/.*svma 0x\([0-9a-f]*\), avma 0x\([0-9a-f]*\)/\1 \2/p')
	[ -n "$bias" ] || { fail "$v: no load bias in the log"; return; }
	set -- $bias
	annotate $kept/cg.* $((0x$2 - 0x$1)) $v.sect >$v.ann.txt
	# Sections that ran nothing are not in callgrind_annotate's list.
	grep '^\.' $v.cg.txt | awk '$2 > 0' >$v.ours.txt
	sort -o $v.ann.txt $v.ann.txt
	grep '^\.' $v.cg.txt >$v.ours.txt
	diff -u $v.ann.txt $v.ours.txt >diff.txt ||
	    fail "$v: callgrind_annotate differs: $(cat diff.txt)"
}

variant lazy -pie -fPIE -Wl,-z,lazy
variant now -pie -fPIE -Wl,-z,now
variant nopie -no-pie -fno-pie -Wl,-z,lazy
if $cc -fcf-protection=full -Wl,-z,ibtplt -o ibt_probe "$fx/pltmain.c" \
    -L. -lplt 2>/dev/null && sections ibt_probe | grep -q '^\.plt\.sec '; then
	variant ibt -pie -fPIE -fcf-protection=full -Wl,-z,ibtplt,-z,lazy
fi

finish
