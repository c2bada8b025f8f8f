# tests/sh/lib/merge_runs.sh - sourced by the tests of pmemerge
# (merge_many.sh, merge_slurm.sh) after common.sh.

# merge_runs N: in the current directory, s0000.smp ... the text of N
# runs' sample files for tests/unit/t_sample write: each run's samples
# in the bucket ranges of GRAVEL (tests/histo/gravel.pmd, 0x1000-0x18ff)
# at addresses and with counts that vary with the run, some in libc, in
# the kernel and in no mapping, and lost samples.
merge_runs() {
	local i f n=$1

	for ((i = 0; i < n; i++)); do
		printf -v f 's%04d.smp' $i
		{
			echo "header method=test event=cpu-clock period=10000000" \
			    "pid=$((100 + i)) start=0 start_mono=0 argv=./gravel,$i"
			echo "map pid=$((100 + i)) start=0x7f0000000000" \
			    "end=0x7f0000100000 offset=0 vaddr=0" \
			    "path=/lib/x86_64-linux-gnu/libc.so.6 flags=exec"
			printf 'sample pid=%d pc=0x%x count=%d\n' $((100 + i)) \
			    $((0x1000 + (i * 37) % 0x900)) $((1 + i % 13)) \
			    $((100 + i)) $((0x1000 + (i * 101) % 0x900)) $((1 + i % 5))
			echo "sample pid=$((100 + i)) tid=$((5000 + i))" \
			    "pc=0x$(printf %x $((0x1000 + (i * 7) % 0x900))) count=2"
			echo "sample pid=$((100 + i)) pc=0x7f0000000100 count=$((i % 3))"
			echo "sample pid=$((100 + i)) pc=0xffff800000001000 flags=kernel count=1"
			echo "sample pid=$((100 + i)) pc=0x9999 count=$((i % 2))"
			echo "close end=1600000000 status=0 lost=$((i % 4)) threads=2"
		} >"$f"
	done
}
