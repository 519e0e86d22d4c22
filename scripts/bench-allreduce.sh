#!/usr/bin/env bash
# Benchmarks ftcoll's allreduce against Open MPI's default, at several rank counts.
#
# Usage: scripts/bench-allreduce.sh [RANKS...]
#        scripts/bench-allreduce.sh --summary CSV...   (summary of earlier runs)
#   RANKS  MPI process counts, one run each (default: 2 4 8 16)
# Environment:
#   FTCOLL_BENCH       the ftcoll-bench binary (default: build/bench/ftcoll-bench
#                      of this repository); results go to its bench-results/
#   FTCOLL_MPI_PREFIX  Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS  extra ftcoll-bench options for every run (e.g. "--max-bytes 64K")
#
# Per rank count p: `ftcoll-bench allreduce` (MPI_SUM on MPI_DOUBLE, vectors
# of 8 B..1 MiB per rank), ftc_allreduce against MPI_Allreduce as Open MPI
# selects it by itself: no coll component or algorithm is forced, and any
# such setting from outside is cleared. Rows go to
# bench-results/allreduce-p.csv (started afresh). The summary compares, per p,
# the median over the sizes 8 B..64 KiB of the ratio ours/native (of median
# times) with the target 1.10, shows the worst ratio there, and reports the
# median ratio of the larger sizes without a target.
set -euo pipefail

readonly SUMMARY_MIN_BYTES=8
readonly SUMMARY_MAX_BYTES=65536
readonly TARGET=1.10
readonly DEFAULT_RANKS=(2 4 8 16)

BENCH_SCRIPT="bench-allreduce"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

# ---- summary -------------------------------------------------------------------
# Reads the CSVs by their header names (each file has one; ftcoll-bench never
# writes commas inside a field) and prints one line per rank count.
summarize() {
    awk -F, -v lo="$SUMMARY_MIN_BYTES" -v hi="$SUMMARY_MAX_BYTES" -v target="$TARGET" \
        "$BENCH_AWK_MEDIAN"'
    FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
        p = $col["ranks"] + 0
        if (!(p in seen)) { seen[p] = 1; order[++runs] = p; native[p] = $col["native_label"] }
        if ($col["ratio"] == "") { na[p] = $col["native_status"]; next }
        bytes = $col["bytes"] + 0; ratio = $col["ratio"] + 0
        if (bytes > hi) { large[p, ++nlarge[p]] = ratio; next }
        if (bytes < lo) next
        n[p]++; ratios[p, n[p]] = ratio; paired[p, n[p]] = $col["pair_ratio"] + 0
        if (n[p] == 1 || ratio > worst[p]) { worst[p] = ratio; worst_at[p] = bytes }
    }
    END {
        printf "%5s %-14s %5s %6s %7s %17s %7s %6s %6s   %11s %6s\n", "ranks", "native",
               "sizes", "median", "verdict", "worst (at bytes)", "worst", "paired", "target",
               "large sizes", "median"
        for (k = 1; k <= runs; k++) {
            p = order[k]
            if (nlarge[p] > 0) {
                for (i = 1; i <= nlarge[p]; i++) list[i] = large[p, i]
                large_median = sprintf("%6.3f", median(list, nlarge[p]))
            } else large_median = "n/a"
            if (n[p] == 0) {
                printf "%5d %-14s %5d %6s %7s %17s %7s %6s %6.2f   %11d %6s  %s\n", p, native[p],
                       0, "n/a", "n/a", "n/a", "n/a", "n/a", target, nlarge[p], large_median,
                       na[p] == "" ? "" : na[p]
                continue
            }
            for (i = 1; i <= n[p]; i++) list[i] = ratios[p, i]
            m = median(list, n[p])
            for (i = 1; i <= n[p]; i++) list[i] = paired[p, i]
            pm = median(list, n[p])
            printf "%5d %-14s %5d %6.3f %7s %6.3f (%8d) %7s %6.3f %6.2f   %11d %6s\n", p,
                   native[p], n[p], m, m <= target ? "PASS" : "MISS", worst[p], worst_at[p],
                   worst[p] <= target ? "PASS" : "MISS", pm, target, nlarge[p], large_median
        }
        printf "median, worst: ratio of medians ours/native over vectors of %d..%d bytes per " \
               "rank (verdicts: within the target %.2f); paired: median over those sizes of " \
               "the per-iteration ratio median; large sizes: above %d bytes, median ratio, " \
               "no target\n", lo, hi, target, hi
    }' "$@"
}

bench_summary_mode "$@"

# ---- set-up --------------------------------------------------------------------
rank_counts=("$@")
(( ${#rank_counts[@]} )) || rank_counts=("${DEFAULT_RANKS[@]}")
for ranks in "${rank_counts[@]}"; do bench_check_ranks "$ranks"; done
bench_setup "${FTCOLL_BENCH:-$repo_root/build/bench/ftcoll-bench}" "set FTCOLL_BENCH"
bench_clear_coll_selection

cd "$repo_root"
mkdir -p bench-results

# ---- the runs --------------------------------------------------------------------
csvs=()
for ranks in "${rank_counts[@]}"; do
    bench_launch "$ranks"
    echo
    bench_print_conditions "$ranks"
    components=$(bench_enabled_components allreduce)
    echo "# enabled coll components (Open MPI's own selection, nothing forced):" \
         "$components-> MPI_Allreduce is served by the highest priority among them"
    csv=bench-results/allreduce-$ranks.csv
    rm -f "$csv"
    bench_run allreduce "$csv" "p=$ranks: ftc_allreduce vs Open MPI default MPI_Allreduce" -- \
        --native-label "ompi:default"
    [[ -s "$csv" ]] && csvs+=("$csv")
done

echo
echo "# summary (${csvs[*]:-no CSV}): cores=$cores, $mpi_version;" \
     "ranks > $cores are oversubscribed"
(( ${#csvs[@]} )) && summarize "${csvs[@]}"
if (( ${#failed[@]} )); then
    echo "bench-allreduce: failed runs: ${failed[*]}" >&2
    exit 1
fi
