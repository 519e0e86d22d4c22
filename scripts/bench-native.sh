#!/usr/bin/env bash
# Times the collectives as users do: back-to-back calls, no barrier between
# them, through the PMPI layer (what an unmodified program gets under
# ftcrun) against MPI's own in the same run, at several rank counts.
#
# Usage: scripts/bench-native.sh [RANKS...]            (default: 2 4 8)
#        scripts/bench-native.sh --summary CSV...      (summary of earlier runs)
# Environment:
#   FTCOLL_BENCH_NATIVE  the ftcoll-bench-native binary (default: build/bench/
#                        of this repository)
#   FTCOLL_MPI_PREFIX    Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS    extra options (e.g. "--rounds 25 --max-bytes 64K")
#
# Rows go to bench-results/native.csv (started afresh), the chart (ratio per
# size, one line per collective and rank count) to bench-results/native.svg.
# The summary gives, per rank count and collective, the median ratio over
# the sizes (layer / native), the worst size and the ratio at the largest,
# against the targets: at p = 2 a median within 1.05 and every size within
# 1.10 (the barrier: within 1.10); at any other p a median within 1.05.
set -euo pipefail

readonly DEFAULT_RANKS=(2 4 8)

BENCH_SCRIPT="bench-native"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

summarize() {
    awk -F, "$BENCH_AWK_MEDIAN"'
    FNR == 1 { next }
    {
        key = $1 SUBSEP $2
        if (!(key in n)) { order[++keys] = key }
        n[key]++; ratio[key, n[key]] = $8
        if ($8 > worst[key]) { worst[key] = $8; worst_at[key] = $3 }
        last[key] = $8; last_at[key] = $3
    }
    END {
        printf "%5s %-10s %5s %7s %15s %16s %s\n", "ranks", "collective", "sizes", "median",
               "worst (bytes)", "largest (bytes)", "verdict"
        for (k = 1; k <= keys; k++) {
            key = order[k]; split(key, part, SUBSEP)
            for (i = 1; i <= n[key]; i++) list[i] = ratio[key, i]
            m = median(list, n[key])
            if (part[1] == 2 && part[2] == "barrier") ok = m <= 1.10
            else if (part[1] == 2) ok = m <= 1.05 && worst[key] <= 1.10
            else ok = m <= 1.05
            printf "%5d %-10s %5d %7.3f %6.3f (%7d) %7.3f (%7d) %s\n", part[1], part[2], n[key],
                   m, worst[key], worst_at[key], last[key], last_at[key], ok ? "PASS" : "MISS"
        }
        print "ratio: layer / native, medians of back-to-back blocks; targets: p = 2, median <= 1.05"
        print "and every size <= 1.10 (barrier <= 1.10); other p, median <= 1.05"
    }' "$@"
}
bench_summary_mode "$@"

bench_setup "${FTCOLL_BENCH_NATIVE:-$repo_root/build/bench/ftcoll-bench-native}" \
    "set FTCOLL_BENCH_NATIVE"
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=("${DEFAULT_RANKS[@]}")
for p in "${ranks[@]}"; do bench_check_ranks "$p"; done
bench_clear_coll_selection
cd "$repo_root"
mkdir -p bench-results
csv=bench-results/native.csv
rm -f "$csv"
for p in "${ranks[@]}"; do
    bench_launch "$p"
    echo
    bench_print_conditions "$p"
    "${launch[@]}" "$bench" --csv "$csv" "${extra_args[@]}" || failed+=("p=$p")
done
echo
echo "# summary ($csv): cores=$cores, $mpi_version; ranks > $cores are oversubscribed"
summarize "$csv"
python3 "$repo_root/scripts/bench-native-chart.py" "$csv" bench-results/native.svg
echo "# chart: bench-results/native.svg"
if [ ${#failed[@]} -gt 0 ]; then
    echo "$BENCH_SCRIPT: failed runs: ${failed[*]}" >&2
    exit 1
fi
