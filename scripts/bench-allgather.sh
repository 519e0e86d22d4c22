#!/usr/bin/env bash
# Benchmarks ftcoll's allgather against Open MPI's, algorithm by algorithm.
#
# Usage: scripts/bench-allgather.sh [RANKS] [BENCH]
#        scripts/bench-allgather.sh --summary CSV    (summary of an earlier run)
#   RANKS  MPI processes (default 8)
#   BENCH  the ftcoll-bench binary (default: $FTCOLL_BENCH, else build/bench/ftcoll-bench
#          of this repository); results go to this repository's bench-results/
# Environment:
#   FTCOLL_MPI_PREFIX  Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS  extra ftcoll-bench options for every run (e.g. "--max-bytes 64K")
#
# Runs, each an ftcoll-bench process group, one after the other:
#   N = 1..7  Open MPI's coll/tuned forced to allgather algorithm N
#             (coll_tuned_use_dynamic_rules=1, coll_tuned_allgather_algorithm=N)
#             against ftcoll forced to the same N: both number them alike.
#   default   no forcing on either side: ftcoll's decision table against
#             whatever Open MPI selects by itself.
# All rows go to bench-results/allgather-RANKS.csv (started afresh); the
# summary at the end compares, per run, the median over the block sizes
# 1 KiB..1 MiB of the ratio ours/native (of median times) with the targets:
# 1.10 for a forced algorithm, 1.05 for the default selection.
set -euo pipefail

readonly SUMMARY_MIN_BYTES=1024
readonly SUMMARY_MAX_BYTES=1048576
readonly TARGET_FORCED=1.10
readonly TARGET_DEFAULT=1.05
# Open MPI's allgather algorithm numbers, which ftcoll shares.
readonly ALGORITHMS=(linear bruck recursive_doubling ring neighbor_exchange two_proc sparbit)

BENCH_SCRIPT="bench-allgather"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

# ---- summary -------------------------------------------------------------------
# Reads the CSV by its header names (no quoting needed: ftcoll-bench never
# writes commas inside a field) and prints one line per run.
summarize() {
    awk -F, -v lo="$SUMMARY_MIN_BYTES" -v hi="$SUMMARY_MAX_BYTES" \
        -v target_forced="$TARGET_FORCED" -v target_default="$TARGET_DEFAULT" "$BENCH_AWK_MEDIAN"'
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
        run = $col["requested"] " vs " $col["native_label"]
        if (!(run in seen)) { seen[run] = 1; order[++runs] = run
                              requested[run] = $col["requested"]; native[run] = $col["native_label"] }
        if (!((run, $col["executed"]) in ran)) {      # what ftcoll ran, each name once
            ran[run, $col["executed"]] = 1
            executed[run] = executed[run] (executed[run] == "" ? "" : "+") $col["executed"]
        }
        bytes = $col["bytes"] + 0
        if (bytes < lo || bytes > hi) next
        if ($col["ratio"] == "") { na[run] = $col["native_status"]; next }
        ratio = $col["ratio"] + 0
        n[run]++; ratios[run, n[run]] = ratio; paired[run, n[run]] = ("pair_ratio" in col) ? $col["pair_ratio"] + 0 : -1
        if (n[run] == 1 || ratio > worst[run]) { worst[run] = ratio; worst_at[run] = bytes }
    }
    END {
        printf "%-19s %-19s %-25s %5s %6s %17s %6s %6s  %s\n", "algorithm", "ours ran", "native",
               "sizes", "median", "worst (at bytes)", "paired", "target", "verdict"
        for (k = 1; k <= runs; k++) {
            run = order[k]
            target = requested[run] == "auto" ? target_default : target_forced
            if (n[run] == 0) {
                printf "%-19s %-19s %-25s %5d %6s %17s %6s %6.2f  %s\n", requested[run],
                       executed[run], native[run], 0, "n/a", "n/a", "n/a", target,
                       na[run] == "" ? "n/a" : na[run]
                continue
            }
            for (i = 1; i <= n[run]; i++) list[i] = ratios[run, i]
            m = median(list, n[run])
            for (i = 1; i <= n[run]; i++) list[i] = paired[run, i]
            pm = median(list, n[run])
            pm = pm < 0 ? "n/a" : sprintf("%6.3f", pm)     # older CSV: no pair_ratio column
            printf "%-19s %-19s %-25s %5d %6.3f %6.3f (%8d) %6s %6.2f  %s\n", requested[run],
                   executed[run], native[run], n[run], m, worst[run], worst_at[run], pm, target,
                   m <= target ? "PASS" : "MISS"
        }
        printf "median, worst: ratio of medians ours/native over blocks of %d..%d bytes per " \
               "rank; paired: median over those sizes of the per-iteration ratio median; " \
               "verdict: median within target\n", lo, hi
    }' "$1"
}

if [[ "${1:-}" == "--summary" ]]; then
    [[ -f "${2:-}" ]] || die "--summary needs an existing CSV file"
    summarize "$2"
    exit 0
fi

# ---- set-up --------------------------------------------------------------------
ranks=${1:-8}
bench_check_ranks "$ranks"
bench_setup "${2:-${FTCOLL_BENCH:-$repo_root/build/bench/ftcoll-bench}}" "pass its path"
bench_launch "$ranks"
bench_print_conditions "$ranks"
bench_clear_coll_selection

cd "$repo_root"
mkdir -p bench-results
csv=bench-results/allgather-$ranks.csv
rm -f "$csv"

# ---- which coll component serves MPI_Allgather ----------------------------------
# Forcing coll_tuned_allgather_algorithm only means something if coll/tuned
# serves MPI_Allgather. coll/han has a higher priority (35 > 30) and takes
# allgather when ranks span several nodes (on one node it disqualifies itself),
# so forced runs exclude it with OMPI_MCA_coll=^han, and this probe proves it:
# tuned must be among the enabled components and han must not.
forced_env=(OMPI_MCA_coll=^han OMPI_MCA_coll_tuned_use_dynamic_rules=1)
components=$(bench_enabled_components allgather "${forced_env[@]}" \
                 OMPI_MCA_coll_tuned_allgather_algorithm=4)
[[ " $components" == *" tuned "* && " $components" != *" han "* ]] \
    || die "forced runs: coll/tuned does not serve MPI_Allgather (enabled: $components)"
echo "# forced runs: enabled coll components: $components-> MPI_Allgather is coll/tuned's"
components=$(bench_enabled_components allgather)
if [[ " $components" == *" han "* ]]; then served_by="coll/han (hierarchical)"
else served_by="coll/tuned (fixed decision rules)"; fi
echo "# default run: enabled coll components: $components-> MPI_Allgather is $served_by"

# ---- the runs --------------------------------------------------------------------
run_bench() {   # LABEL ENV... -- BENCH-ARGS...
    bench_run allgather "$csv" "$@"
}

for number in "${!ALGORITHMS[@]}"; do
    name=${ALGORITHMS[$number]}
    run_bench "$name: ftcoll forced $name vs Open MPI tuned forced $name" \
        "${forced_env[@]}" OMPI_MCA_coll_tuned_allgather_algorithm=$((number + 1)) -- \
        --algorithm "$name" --native-label "tuned:$name"
done
run_bench "default: ftcoll auto vs Open MPI default" -- \
    --algorithm auto --native-label "ompi:default"

echo
echo "# summary ($csv): ranks=$ranks, cores=$cores, $load, $mpi_version"
summarize "$csv"
if (( ${#failed[@]} )); then
    echo "bench-allgather: failed runs: ${failed[*]}" >&2
    exit 1
fi
