# shellcheck shell=bash
# Shared by scripts/bench-*.sh: sourced, not run. Before sourcing, set
# BENCH_SCRIPT to the script's name (for messages) and `set -euo pipefail`.
#
# Provides:
#   repo_root                      this repository (set on sourcing)
#   die MESSAGE                    "$BENCH_SCRIPT: MESSAGE" on stderr, exit 2
#   bench_check_ranks RANKS        dies unless RANKS is a positive number
#   bench_setup BENCH HINT         checks ftcoll-bench and mpirun, exports what
#                                  Open MPI needs; sets bench, prefix, mpirun,
#                                  cores, mpi_version
#   bench_launch RANKS             sets launch (mpirun ... -n RANKS, with ULFM
#                                  when Open MPI has it) and load
#   bench_print_conditions RANKS   the "# conditions:" line
#   bench_clear_coll_selection     unsets any Open MPI coll selection from outside
#   bench_enabled_components SUBCOMMAND [ENV=VALUE...]
#                                  names of the coll components Open MPI enables
#   bench_run SUBCOMMAND CSV LABEL [ENV=VALUE...] -- [ARGS...]
#                                  one ftcoll-bench run appending to CSV; a failed
#                                  one is added to the array `failed`
#   BENCH_AWK_MEDIAN               awk source of median(list, n) for summaries
# Environment read: FTCOLL_MPI_PREFIX (Open MPI installation, default
# $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm), FTCOLL_BENCH_ARGS (extra
# ftcoll-bench options for every run, e.g. "--max-bytes 64K").

# shellcheck disable=SC2034   # used by the scripts that source this one
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
failed=()

die() { echo "$BENCH_SCRIPT: $*" >&2; exit 2; }

# With "--summary FILE...": the script's summarize function over those
# result files, then exit; otherwise nothing.
bench_summary_mode() {
    [[ "${1:-}" == "--summary" ]] || return 0
    shift
    (( $# )) || die "--summary needs existing result files"
    for file in "$@"; do [[ -f "$file" ]] || die "--summary: no result file \"$file\""; done
    summarize "$@"
    exit 0
}

bench_check_ranks() {
    [[ "$1" =~ ^[1-9][0-9]*$ ]] || die "RANKS must be a positive number, not \"$1\""
}

bench_setup() {   # BENCH HINT (how to give another ftcoll-bench, for the message)
    bench=$1
    [[ "$bench" == /* ]] || bench=$PWD/$bench   # the scripts move to the repository root
    prefix=${FTCOLL_MPI_PREFIX:-$HOME/.cache/ftcoll/openmpi-5.0.7-ulfm}
    mpirun=$prefix/bin/mpirun
    [[ -x "$bench" ]] || die "no ftcoll-bench at $bench (build it, or $2)"
    [[ -x "$mpirun" ]] || die "no mpirun at $mpirun (set FTCOLL_MPI_PREFIX)"

    # A relocated Open MPI finds its own files through these; root needs consent.
    export OPAL_PREFIX=${OPAL_PREFIX:-$prefix} PRTE_PREFIX=${PRTE_PREFIX:-$prefix}
    export PMIX_PREFIX=${PMIX_PREFIX:-$prefix}
    export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    if [[ $(id -u) == 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    cores=$(nproc)
    mpi_version=$("$mpirun" --version 2>/dev/null | head -n 1)
    ft_launch=()
    if "$prefix/bin/ompi_info" 2>/dev/null | grep -q "FT MPI support: yes"; then
        ft_launch=(--with-ft ulfm)
    fi
    read -r -a extra_args <<< "${FTCOLL_BENCH_ARGS:-}"
}

bench_launch() {   # RANKS
    if (( $1 > cores )); then load="oversubscribed: $1 ranks on $cores cores"
    else load="not oversubscribed: $1 ranks on $cores cores"; fi
    launch=("$mpirun" "${ft_launch[@]}" --oversubscribe --bind-to none -n "$1")
}

bench_print_conditions() {   # RANKS
    echo "# conditions: ranks=$1, cores=$cores (nproc), $load, MPI: $mpi_version," \
         "launch: ${launch[*]:1}"
}

# Each run sets the Open MPI selection it needs; none may leak in from outside.
bench_clear_coll_selection() {
    local name
    unset OMPI_MCA_coll
    for name in $(compgen -e OMPI_MCA_coll_tuned_ || true); do unset "$name"; done
}

# With coll_base_verbose, Open MPI lists the components it enables on each
# communicator (the highest priority providing a collective serves it).
bench_enabled_components() {   # SUBCOMMAND ENV=VALUE...
    local subcommand=$1; shift
    env "$@" OMPI_MCA_coll_base_verbose=100 "${launch[@]}" "$bench" "$subcommand" \
        --min-bytes 8 --max-bytes 8 --iterations 1 2>&1 \
        | sed -n 's/.*comm_select: selecting *\([a-z_]*\), priority *[0-9-]*, Enabled.*/\1/p' \
        | sort -u | tr '\n' ' '
}

bench_run() {   # SUBCOMMAND CSV LABEL ENV... -- BENCH-ARGS...
    local subcommand=$1 csv=$2 label=$3; shift 3
    local env_vars=()
    while [[ $1 != -- ]]; do env_vars+=("$1"); shift; done
    shift
    echo
    echo "### $label"
    if ! env "${env_vars[@]}" "${launch[@]}" "$bench" "$subcommand" "$@" --csv "$csv" \
            "${extra_args[@]}"; then
        failed+=("$label")
    fi
}

# shellcheck disable=SC2034   # used by the scripts that source this one
BENCH_AWK_MEDIAN='
function median(list, n,    i, j, v) {   # insertion sort: a dozen values
    for (i = 2; i <= n; i++) {
        v = list[i]
        for (j = i - 1; j >= 1 && list[j] > v; j--) list[j + 1] = list[j]
        list[j + 1] = v
    }
    return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
}'
