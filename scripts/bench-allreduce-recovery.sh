#!/usr/bin/env bash
# Measures what one rank's death costs an allreduce, with ftcoll and with a
# hand-written ULFM recovery, at several rank counts (ULFM Open MPI only).
#
# Usage: scripts/bench-allreduce-recovery.sh [--repeats N] [RANKS...]
#        scripts/bench-allreduce-recovery.sh --summary FILE...   (summary of earlier runs)
#   RANKS        MPI process counts, at least 2: one rank dies (default: 4 8 16)
#   --repeats N  jobs of each kind per rank count (default: FTCOLL_BENCH_REPEATS, or 3)
# Environment:
#   FTCOLL_BENCH          the ftcoll-bench binary (default: build/bench/ftcoll-bench
#                         of this repository); results go to its bench-results/
#   FTCOLL_MPI_PREFIX     Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS     extra ftcoll-bench options for every job (e.g. "--bytes 64K")
#   FTCOLL_BENCH_REPEATS  as --repeats
#   FTCOLL_BENCH_TIMEOUT  seconds one job may take before it is killed (default 120)
#   FTCOLL_BENCH_EVENT_TICK  Open MPI's mpi_event_tick_rate for the jobs, in
#                         microseconds (default 1000, as ftcrun launches;
#                         "default": Open MPI's own, 10 ms)
#
# A job is one mpirun of `ftcoll-bench allreduce-recovery --measure KIND`
# (MPI_SUM on MPI_DOUBLE, 8 B per rank unless FTCOLL_BENCH_ARGS says
# otherwise): failure-free medians of ftc_allreduce and Open MPI's own
# MPI_Allreduce (no coll selection forced; any from outside is cleared),
# then, 200 ms later (ftcoll-bench's --settle: a death in the first ~50 ms
# after MPI_Init is reported 20-45 ms late), one failing call, the job's
# only failure: an ftc_allreduce in which
# ftcoll's fault injection kills the last rank (ftcoll), or an MPI_Allreduce
# that loses the last rank, recovered by hand: revoke, agree, shrink,
# MPI_Allreduce again (alternative). One kind and one failure per job, so
# that every sample starts from the same state. The progress engine of
# each rank takes up the runtime's news of a death only every
# mpi_event_tick_rate microseconds: the jobs run with the value ftcrun
# sets (1000; docs/pmpi.md), both kinds alike.
# Per rank count, the kinds alternate (ftcoll, alternative, ftcoll, ...) so
# that a drift of the machine hits both. Each rank count's "# conditions:"
# line and each job's RECOVERY line are appended to
# bench-results/allreduce-recovery-DATE.txt; a summary row per rank count
# follows (medians over the jobs).
#
# After a kill under ULFM, mpirun's exit status says little: a job counts by
# what it printed. It failed when it printed no RECOVERY line, when no rank
# died in the call (fired=no: --step names no step of that p), or when its
# result check is not "exact"; then the script exits 1 after the summary.
set -euo pipefail

readonly DEFAULT_RANKS=(4 8 16)
readonly MIN_RANKS=2
readonly KINDS=(ftcoll alternative)

BENCH_SCRIPT="bench-allreduce-recovery"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

# ---- summary -------------------------------------------------------------------
# Reads the RECOVERY lines (key=value fields) of the files, or of stdin, and
# prints one row per rank count and vector size, in the order first seen.
# Failing-call medians are over the jobs in which the victim died; the
# failure-free ones over all jobs, both kinds measure them.
summarize() {
    awk "$BENCH_AWK_MEDIAN"'
    function med(values, k, n,    list, i) {   # median of values[k, 1..n]
        for (i = 1; i <= n; i++) list[i] = values[k, i]
        return median(list, n)
    }
    function ms(values, k, n) { return n ? sprintf("%.2f", med(values, k, n) / 1000) : "-" }
    $1 != "RECOVERY" { next }
    {
        delete f
        for (i = 2; i <= NF; i++) {
            eq = index($i, "=")
            f[substr($i, 1, eq - 1)] = substr($i, eq + 1)
        }
        if (!("measure" in f)) next   # an older format: one job measured both kinds
        k = f["p"] " " f["bytes"]
        if (!(k in seen)) { seen[k] = 1; order[++groups] = k }
        kind = f["measure"]
        jobs[k, kind]++
        native[k, ++free_jobs[k]] = f["native_us"] + 0   # + 0: numbers sort as numbers
        ftc_free[k, free_jobs[k]] = f["ftc_free_us"] + 0
        good = f["fired"] == "yes" && f["result"] == "exact"
        exact[k] += good
        if (f["fired"] != "yes") next
        fail[k, kind, ++fired[k, kind]] = f["fail_us"] + 0
        if (kind != "ftcoll") next
        recovery[k, fired[k, kind]] = f["recovery_us"] + 0
        kept[k] += f["kept"] == "yes"
    }
    END {
        if (!groups) { print "no RECOVERY lines (of this format)"; exit }
        printf "%5s %8s %5s %10s %10s %8s %10s %10s %10s %9s %9s %5s %6s\n", "p", "bytes",
               "jobs", "ftc_ms", "alt_ms", "ftc/alt", "ftc_rec_ms", "native_us", "ftc_free",
               "ftc_x", "alt_x", "kept", "exact"
        for (g = 1; g <= groups; g++) {
            k = order[g]; split(k, pb, " ")
            nf = fired[k, "ftcoll"]; na = fired[k, "alternative"]; n = free_jobs[k]
            ftc = nf ? med(fail, k SUBSEP "ftcoll", nf) : 0
            alt = na ? med(fail, k SUBSEP "alternative", na) : 0
            nat = med(native, k, n); free = med(ftc_free, k, n)
            printf "%5d %8d %5s %10s %10s %8s %10s %10.2f %10.2f %9s %9s %5s %6s\n",
                   pb[1], pb[2], (jobs[k, "ftcoll"] + 0) "+" (jobs[k, "alternative"] + 0),
                   ms(fail, k SUBSEP "ftcoll", nf), ms(fail, k SUBSEP "alternative", na),
                   nf && na ? sprintf("%.2f", ftc / alt) : "-", ms(recovery, k, nf), nat, free,
                   nf ? sprintf("%.0f", ftc / free) : "-", na ? sprintf("%.0f", alt / nat) : "-",
                   kept[k] + 0 "/" jobs[k, "ftcoll"] + 0, exact[k] + 0 "/" n
        }
        print "medians over jobs (jobs: ftcoll+alternative); times: entry to return, max over the survivors"
        print "ftc_ms: the ftc_allreduce in which a rank dies; ftc_rec_ms: its report, detection to return"
        print "alt_ms: MPI_Allreduce losing a rank + revoke + agree + shrink + MPI_Allreduce again"
        print "native_us, ftc_free: failure-free MPI_Allreduce, ftc_allreduce (us), all jobs"
        print "ftc_x = ftc_ms / ftc_free; alt_x = alt_ms / native_us (failing / failure-free)"
        print "kept: ftcoll jobs whose result holds the dead rank'"'"'s input (the alternative loses it)"
        print "exact: jobs in which a rank died and the result check was exact"
    }' "$@"
}

bench_summary_mode "$@"

# ---- set-up --------------------------------------------------------------------
repeats=${FTCOLL_BENCH_REPEATS:-3}
if [[ "${1:-}" == "--repeats" ]]; then
    (( $# >= 2 )) || die "--repeats needs a number"
    repeats=$2
    shift 2
fi
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "repeats must be a positive number, not \"$repeats\""
rank_counts=("$@")
(( ${#rank_counts[@]} )) || rank_counts=("${DEFAULT_RANKS[@]}")
for ranks in "${rank_counts[@]}"; do
    bench_check_ranks "$ranks"
    (( ranks >= MIN_RANKS )) || die "RANKS must be at least $MIN_RANKS (one rank dies), not $ranks"
done
bench_setup "${FTCOLL_BENCH:-$repo_root/build/bench/ftcoll-bench}" "set FTCOLL_BENCH"
(( ${#ft_launch[@]} )) || die "needs an Open MPI with ULFM (FT MPI support: yes) at $prefix"
bench_clear_coll_selection
run_timeout=${FTCOLL_BENCH_TIMEOUT:-120}
event_tick=${FTCOLL_BENCH_EVENT_TICK:-1000}
[[ "$event_tick" == default || "$event_tick" =~ ^[1-9][0-9]*$ ]] \
    || die "FTCOLL_BENCH_EVENT_TICK must be a number of microseconds or \"default\", not \"$event_tick\""
tick_launch=()
[[ "$event_tick" == default ]] || tick_launch=(--mca mpi_event_tick_rate "$event_tick")
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] \
    || die "FTCOLL_BENCH_TIMEOUT must be a number of seconds, not \"$run_timeout\""

cd "$repo_root"
mkdir -p bench-results
results=bench-results/allreduce-recovery-$(date +%Y-%m-%d).txt
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ---- the jobs --------------------------------------------------------------------
# One job; its output is shown and kept in $log. The status is the job's own
# verdict, from its RECOVERY line, never mpirun's. --measure comes last, so
# that FTCOLL_BENCH_ARGS cannot change the kind.
run_job() {   # KIND RANKS
    local status=0
    timeout --kill-after=10 "$run_timeout" "${launch[@]}" "$bench" allreduce-recovery \
        "${extra_args[@]}" --measure "$1" | tee "$log" || status=$?
    if (( status == 124 || status == 137 )); then
        echo "$BENCH_SCRIPT: p=$2 $1: killed after ${run_timeout}s" >&2
    fi
    grep -q "^RECOVERY measure=$1 .* result=exact fired=yes " "$log"
}

recovery_lines=()
for ranks in "${rank_counts[@]}"; do
    bench_launch "$ranks"
    launch+=("${tick_launch[@]}")
    echo
    bench_print_conditions "$ranks" | tee -a "$results"
    for (( job = 1; job <= repeats; job++ )); do
        for kind in "${KINDS[@]}"; do
            echo "### p=$ranks, $kind $job/$repeats: the allreduce in which a rank dies"
            run_job "$kind" "$ranks" || failed+=("p=$ranks:$kind#$job")
            line=$(grep '^RECOVERY ' "$log" || true)
            if [[ -n "$line" ]]; then
                echo "$line" >> "$results"
                recovery_lines+=("$line")
            fi
        done
    done
done

echo
echo "# summary ($results): cores=$cores, $mpi_version; ranks > $cores are oversubscribed"
printf '%s\n' "${recovery_lines[@]}" | summarize
if (( ${#failed[@]} )); then
    echo "$BENCH_SCRIPT: jobs without a RECOVERY line, without a death in the call," \
         "or with a result check not exact: ${failed[*]}" >&2
    exit 1
fi
