#!/usr/bin/env bash
# Benchmarks the guard: what a check-in costs a collective, against one
# MPI_Barrier on the same communicator, at several rank counts.
#
# Usage: scripts/bench-guard.sh [RANKS...]
#        scripts/bench-guard.sh --summary CSV...   (summary of earlier runs)
#   RANKS  MPI process counts, one run each (default: 2 4 8 16)
# Environment:
#   FTCOLL_BENCH       the ftcoll-bench binary (default: build/bench/ftcoll-bench
#                      of this repository); results go to its bench-results/
#   FTCOLL_MPI_PREFIX  Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS  extra ftcoll-bench options for every run (e.g. "--every 1,8")
#
# Per rank count p: `ftcoll-bench guard` (ftc_allreduce of one double with
# the guard off, and on for every 1st, 4th and 16th call; ftc_guard_check
# alone; MPI_Barrier; all interleaved). Rows go to bench-results/guard.csv
# (started afresh); the summary lists, per p and setting, the cost of the
# guard per call and its ratio to one barrier (target <= 1).
set -euo pipefail

readonly DEFAULT_RANKS=(2 4 8 16)

BENCH_SCRIPT="bench-guard"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

summarize() {
    awk -F, '
    FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
        r = $col["cost_per_barrier"] + 0
        printf "%5d %6d %9.2f %9.2f %9.2f %12.3f %7s\n", $col["ranks"], $col["every"],
               $col["cost_us"], $col["checkin_us"], $col["barrier_us"], r,
               r <= 1.0 ? "PASS" : "MISS"
    }
    BEGIN {
        printf "%5s %6s %9s %9s %9s %12s %7s\n", "ranks", "every", "cost(us)", "check-in",
               "barrier", "cost/barrier", "target"
    }
    END { print "cost: guarded minus unguarded ftc_allreduce (one double), medians, max " \
                "over ranks; target: cost <= one MPI_Barrier on the same communicator" }
    ' "$@"
}

bench_summary_mode "$@"

rank_counts=("$@")
(( ${#rank_counts[@]} )) || rank_counts=("${DEFAULT_RANKS[@]}")
for ranks in "${rank_counts[@]}"; do bench_check_ranks "$ranks"; done
bench_setup "${FTCOLL_BENCH:-$repo_root/build/bench/ftcoll-bench}" "set FTCOLL_BENCH"

cd "$repo_root"
mkdir -p bench-results
csv=bench-results/guard.csv
rm -f "$csv"
for ranks in "${rank_counts[@]}"; do
    bench_launch "$ranks"
    echo
    bench_print_conditions "$ranks"
    bench_run guard "$csv" "p=$ranks: the guard's cost against MPI_Barrier" --
done

echo
echo "# summary ($csv): cores=$cores, $mpi_version; ranks > $cores are oversubscribed"
[[ -s "$csv" ]] && summarize "$csv"
if (( ${#failed[@]} )); then
    echo "bench-guard: failed runs: ${failed[*]}" >&2
    exit 1
fi
