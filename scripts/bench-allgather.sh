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

die() { echo "bench-allgather: $*" >&2; exit 2; }

# ---- summary -------------------------------------------------------------------
# Reads the CSV by its header names (no quoting needed: ftcoll-bench never
# writes commas inside a field) and prints one line per run.
summarize() {
    awk -F, -v lo="$SUMMARY_MIN_BYTES" -v hi="$SUMMARY_MAX_BYTES" \
        -v target_forced="$TARGET_FORCED" -v target_default="$TARGET_DEFAULT" '
    function median(list, n,    i, j, v, s) {   # insertion sort: a dozen values
        for (i = 2; i <= n; i++) {
            v = list[i]
            for (j = i - 1; j >= 1 && list[j] > v; j--) list[j + 1] = list[j]
            list[j + 1] = v
        }
        return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
    }
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
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ranks=${1:-8}
bench=${2:-${FTCOLL_BENCH:-$repo_root/build/bench/ftcoll-bench}}
[[ "$bench" == /* ]] || bench=$PWD/$bench   # we move to the repository root below
prefix=${FTCOLL_MPI_PREFIX:-$HOME/.cache/ftcoll/openmpi-5.0.7-ulfm}
mpirun=$prefix/bin/mpirun
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || die "RANKS must be a positive number, not \"$ranks\""
[[ -x "$bench" ]] || die "no ftcoll-bench at $bench (build it, or pass its path)"
[[ -x "$mpirun" ]] || die "no mpirun at $mpirun (set FTCOLL_MPI_PREFIX)"

# A relocated Open MPI finds its own files through these; root needs consent.
export OPAL_PREFIX=${OPAL_PREFIX:-$prefix} PRTE_PREFIX=${PRTE_PREFIX:-$prefix}
export PMIX_PREFIX=${PMIX_PREFIX:-$prefix}
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [[ $(id -u) == 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

cores=$(nproc)
if (( ranks > cores )); then load="oversubscribed: $ranks ranks on $cores cores"
else load="not oversubscribed: $ranks ranks on $cores cores"; fi
mpi_version=$("$mpirun" --version 2>/dev/null | head -n 1)
launch=("$mpirun" --oversubscribe --bind-to none -n "$ranks")
if "$prefix/bin/ompi_info" 2>/dev/null | grep -q "FT MPI support: yes"; then
    launch=("$mpirun" --with-ft ulfm --oversubscribe --bind-to none -n "$ranks")
fi
read -r -a extra_args <<< "${FTCOLL_BENCH_ARGS:-}"

echo "# conditions: ranks=$ranks, cores=$cores (nproc), $load, MPI: $mpi_version," \
     "launch: ${launch[*]:1}"

# Each run sets the Open MPI selection it needs; none may leak in from outside.
unset OMPI_MCA_coll OMPI_MCA_coll_tuned_use_dynamic_rules OMPI_MCA_coll_tuned_allgather_algorithm

cd "$repo_root"
mkdir -p bench-results
csv=bench-results/allgather-$ranks.csv
rm -f "$csv"

# ---- which coll component serves MPI_Allgather ----------------------------------
# Forcing coll_tuned_allgather_algorithm only means something if coll/tuned
# serves MPI_Allgather. coll/han has a higher priority (35 > 30) and takes
# allgather when ranks span several nodes (on one node it disqualifies itself),
# so forced runs exclude it with OMPI_MCA_coll=^han, and this probe proves it:
# with coll_base_verbose, Open MPI lists the components it enables on each
# communicator; tuned must be among them and han must not.
enabled_components() {   # ENV=VALUE... : names of the enabled coll components
    env "$@" OMPI_MCA_coll_base_verbose=100 "${launch[@]}" "$bench" allgather \
        --min-bytes 8 --max-bytes 8 --iterations 1 2>&1 \
        | sed -n 's/.*comm_select: selecting *\([a-z_]*\), priority *[0-9-]*, Enabled.*/\1/p' \
        | sort -u | tr '\n' ' '
}

forced_env=(OMPI_MCA_coll=^han OMPI_MCA_coll_tuned_use_dynamic_rules=1)
components=$(enabled_components "${forced_env[@]}" OMPI_MCA_coll_tuned_allgather_algorithm=4)
[[ " $components" == *" tuned "* && " $components" != *" han "* ]] \
    || die "forced runs: coll/tuned does not serve MPI_Allgather (enabled: $components)"
echo "# forced runs: enabled coll components: $components-> MPI_Allgather is coll/tuned's"
components=$(enabled_components)
if [[ " $components" == *" han "* ]]; then served_by="coll/han (hierarchical)"
else served_by="coll/tuned (fixed decision rules)"; fi
echo "# default run: enabled coll components: $components-> MPI_Allgather is $served_by"

# ---- the runs --------------------------------------------------------------------
failed=()
run_bench() {   # LABEL ENV... -- BENCH-ARGS...
    local label=$1; shift
    local env_vars=()
    while [[ $1 != -- ]]; do env_vars+=("$1"); shift; done
    shift
    echo
    echo "### $label"
    if ! env "${env_vars[@]}" "${launch[@]}" "$bench" allgather "$@" --csv "$csv" \
            "${extra_args[@]}"; then
        failed+=("$label")
    fi
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
