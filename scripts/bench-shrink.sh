#!/bin/sh
# bench-shrink.sh: the whole `fencecheck check` on one-resource histories
# with a late violation (a stale read, a wrong rejection, planted at 90 %
# of the history), with shrinking and without (--shrink-timeout 0), back
# to back, and on the valid history of the same size: wall time and peak
# RSS of the process (/usr/bin/time), their ratios, RSS per operation, and
# the minimal counterexample's line. Figures in docs/performance.md
# ("The violation path beside the valid one").
#
# usage: scripts/bench-shrink.sh BIN BENCHGEN DIR OPS...
#   BIN       the fencecheck binary
#   BENCHGEN  the benchgen binary (check/internal/benchgen)
#   DIR       where the histories are generated once and kept
#   OPS       operation counts, e.g. 1000000 10000000
# One line per check:
#   OPS CELL shrink|no-shrink: S s, C cpu-s, K KB (B bytes/op), exit E[; minimal counterexample: ...]
# and per violated cell a ratio line:
#   OPS CELL shrink/no-shrink: time T×, cpu C×, RSS R×
# On a machine shared with other work the wall time follows the load;
# the CPU time less so, and the RSS not at all.
set -u
bin=$1 gen=$2 dir=$3
shift 3
mkdir -p "$dir"
measure() { # ops cell file label flags...
	ops=$1 cell=$2 file=$3 label=$4; shift 4
	out=$(mktemp) tm=$(mktemp)
	/usr/bin/time -f "%e %U %S %M" -o "$tm" "$bin" check "$@" "$file" >"$out" 2>/dev/null
	code=$?
	set -- $(tail -n 1 "$tm")
	min=$(grep -m1 '^minimal counterexample' "$out")
	cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u+s }')
	printf '%s %s %s: %s s, %s cpu-s, %s KB (%s bytes/op), exit %s%s\n' "$ops" "$cell" "$label" "$1" "$cpu" "$4" \
		"$(awk -v k="$4" -v n="$ops" 'BEGIN { printf "%.0f", k*1024/n }')" "$code" "${min:+; $min}"
	echo "$1 $cpu $4" >"$dir/.last-$label"
	rm -f "$out" "$tm"
}
for ops in "$@"; do
	for cell in valid stale-read wrong-rejection; do
		file=$dir/ops$ops-clients50-unknown0.1-$cell.jsonl
		if [ ! -s "$file" ]; then
			if [ "$cell" = valid ]; then
				"$gen" -ops "$ops" -clients 50 -unknown 0.1 -out "$file" || exit 1
			else
				"$gen" -ops "$ops" -clients 50 -unknown 0.1 -invalid -late -violation "$cell" -out "$file" || exit 1
			fi
		fi
		if [ "$cell" = valid ]; then
			measure "$ops" "$cell" "$file" check
			continue
		fi
		measure "$ops" "$cell" "$file" no-shrink --shrink-timeout 0
		measure "$ops" "$cell" "$file" shrink
		set -- $(cat "$dir/.last-no-shrink") $(cat "$dir/.last-shrink")
		awk -v o="$ops" -v c="$cell" -v t0="$1" -v c0="$2" -v r0="$3" -v t1="$4" -v c1="$5" -v r1="$6" \
			'BEGIN { printf "%s %s shrink/no-shrink: time %.2f×, cpu %.2f×, RSS %.2f×\n", o, c, t1/t0, c1/c0, r1/r0 }'
	done
done
