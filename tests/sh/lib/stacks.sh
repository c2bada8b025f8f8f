# tests/sh/lib/stacks.sh - sourced by the tests of pmehisto's exports of
# call stacks (pmehisto_exports, pmehisto_exports_real), after common.sh.
# Each function reads an export and prints what a peer or pmehisto -T
# folded says of it, in one form, so that the tests compare them:
#
#	svg_stacks FILE	the SVG flame graph's frames as folded stacks
#			(a frame's own samples: its samples less its
#			children's), lines in byte order; fails a frame
#			whose width is not its samples' share
#	inclusive FOLDED, self FOLDED
#			"name count" per frame name, in byte order: the
#			samples of the stacks holding it, or ending in it
#	cg_functions OPTIONS...
#			callgrind_annotate OPTIONS' functions as "name
#			count", in byte order, counts of 0 left out
#	pprof_top FILE COLUMN
#			$pprof -top's flat (COLUMN 1) or cum (4) samples as
#			"name count", in byte order; $pprof is go tool
#			pprof or pprof, empty when neither is installed.
#			pprof shows names without what is in <...> (C++
#			template arguments)
#	pprof_npm	installs the npm package pprof-format in $tmp/npm;
#			fails when npm cannot fetch it
#	pprof_decode FILE
#			the pprof-format decoder's reading of FILE
#			(tests/sh/lib/pprof_dump.js)

svg_stacks() {
	awk -v file="$1" '
	function unxml(s) {
		gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s)
		gsub(/&quot;/, "\"", s); gsub(/&amp;/, "\\&", s)
		gsub(/[; ]/, "_", s)
		return s
	}
	function close_to(d,    k, path) {
		while (depth >= d) {
			if (depth >= 1 && n[depth] > sub_[depth]) {
				path = nm[1]
				for (k = 2; k <= depth; k++)
					path = path ";" nm[k]
				print path, n[depth] - sub_[depth]
			}
			depth--
		}
	}
	BEGIN { depth = -1 }
	/^<svg / {
		match($0, /data-w="[0-9]+"/)
		w = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, /data-total="[0-9]+"/)
		total = substr($0, RSTART + 12, RLENGTH - 13) + 0
	}
	/^<g class="f"/ {
		# Numbers, not strings: they are compared.
		match($0, /data-n="[0-9]+"/)
		fn = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, /data-d="[0-9]+"/)
		fd = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, /<title>.*<\/title>/)
		t = substr($0, RSTART + 7, RLENGTH - 15)
		sub(/ \([0-9]+ samples?, [0-9.]+%\)$/, "", t)
		match($0, / width="[0-9.]+"/)
		fw = substr($0, RSTART + 8, RLENGTH - 9) + 0
		want = fn * w / total
		if (fw - want > 0.006 || want - fw > 0.006) {
			print file ": frame " t " of " fn " samples is " fw \
			    " wide, not " want > "/dev/stderr"
			bad = 1
		}
		if (fd == 0 && fn != total) {
			print file ": the root has " fn " samples, not " \
			    total > "/dev/stderr"
			bad = 1
		}
		close_to(fd)
		if (fd > 0)
			sub_[fd - 1] += fn
		depth = fd; nm[fd] = unxml(t); n[fd] = fn; sub_[fd] = 0
	}
	END { close_to(0); exit bad }' "$1" | LC_ALL=C sort
}

inclusive() {
	awk '{
		c = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		delete seen
		for (i = 1; i <= k; i++)
			if (!(f[i] in seen)) { seen[f[i]] = 1; s[f[i]] += c }
	} END { for (x in s) print x, s[x] }' "$1" | LC_ALL=C sort
}

self() {
	awk '{ c = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
	    s[f[k]] += c } END { for (x in s) print x, s[x] }' "$1" |
	    LC_ALL=C sort
}

# Lines "26 (100.0%)  file:function [object]" after the header.
cg_functions() {
	callgrind_annotate --threshold=100 "$@" | sed -n \
	    's/^ *\([0-9,][0-9,]*\) ([^)]*)  [^:]*:\(.*\) \[.*\]$/\2 \1/p' |
	    tr -d , | awk '$NF != 0' | LC_ALL=C sort
}

pprof_top() {
	$pprof -top -sample_index=samples -nodecount=100000 -nodefraction=0 \
	    -edgefraction=0 "$1" 2>/dev/null |
	    awk -v col="$2" '
	    go && NF >= 6 { c = $col
		for (i = 0; i < 5; i++) sub(/^ *[^ ]+ +/, "")
		if (c != 0) print $0, c }
	    $1 == "flat" { go = 1 }' | LC_ALL=C sort
}

# Installs the npm package pprof-format in $tmp/npm: 0, or 1 when npm
# cannot fetch it.
pprof_npm() {
	command -v node >/dev/null && command -v npm >/dev/null || return 1
	[ -e "$tmp/npm/node_modules/pprof-format/package.json" ] && return 0
	mkdir -p "$tmp/npm" &&
	    (cd "$tmp/npm" && timeout 300 npm install --no-audit --no-fund \
	    --silent pprof-format) >/dev/null 2>&1 &&
	    [ -e "$tmp/npm/node_modules/pprof-format/package.json" ]
}

pprof_decode() {
	NODE_PATH=$tmp/npm/node_modules node "$top/tests/sh/lib/pprof_dump.js" \
	    "$1"
}

# The go tool's pprof, or a pprof command: $pprof, empty when none.
pprof=
if command -v go >/dev/null && go tool -n pprof >/dev/null 2>&1; then
	pprof="go tool pprof"
elif command -v pprof >/dev/null; then
	pprof=pprof
fi
