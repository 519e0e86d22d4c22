#!/usr/bin/env bash
# ftcoll as its users take it: installed, then used from a project outside the
# source tree. Every step's result is checked.
#
#   test_installed.sh prefix BUILD MPICC MPIRUN
#       cmake --install into a temporary prefix, move the tree elsewhere (no
#       file may still name the first place), then build the outside project
#       (tests/install/consumer) with CMake's find_package and with
#       pkg-config, run each program on 3 ranks, and run ftcrun from the
#       moved bin/.
#   test_installed.sh deb BUILD MPICC MPIRUN
#       cpack makes the Debian package (ftcoll_<version>_amd64.deb, under
#       /usr); as root, with no ftcoll package installed, dpkg installs it,
#       the same outside project is built and run against /usr with no path
#       given, and the package is purged again; otherwise the package is
#       unpacked into a temporary root and used from there.
#
# FTCOLL_INSTALL_LIBDIR: CMAKE_INSTALL_LIBDIR (default lib).
# MPIRUN_ARGS: flags for every mpirun launch (e.g. --oversubscribe --bind-to none);
# FTCRUN_MPIRUN_ARGS: the same for ftcrun's launches.
set -euo pipefail
mode=$1 build=$(realpath "$2") mpicc=$3 mpirun=$4
install_libdir=${FTCOLL_INSTALL_LIBDIR:-lib}   # CMAKE_INSTALL_LIBDIR
here=$(cd "$(dirname "$0")" && pwd)
read -r -a mpirun_args <<< "${MPIRUN_ARGS:-}"
ranks=3

work=$(mktemp -d "${TMPDIR:-/tmp}/ftcoll-install.XXXXXX")
installed_package=0
cleanup() {
    if [ "$installed_package" = 1 ]; then
        dpkg --purge ftcoll >/dev/null || echo "test_installed: dpkg --purge ftcoll failed" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP   # the package is purged on these too

fail() { echo "test_installed: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# run_checked NAME EXPECTED CMD...: runs CMD, shows its output, and requires
# EXPECTED in it.
run_checked() {
    local name=$1 expected=$2 out
    shift 2
    local status=0
    # A hang must end within the test's own time, so that the package is purged.
    out=$(timeout 120 "$@" 2>&1) || status=$?
    [ "$status" = 0 ] || { echo "$out"; fail "$name exited with $status"; }
    echo "$out" | sed 's/^/   /'
    grep -q -- "$expected" <<< "$out" || fail "$name: \"$expected\" not in its output"
}

# The layer ran the collectives: its per-rank report counts them.
check_layer_report() {
    local name=$1 dir=$2 calls
    [ -f "$dir/rank-0.txt" ] || fail "$name: the PMPI layer wrote no report (not linked in?)"
    calls=$(sed -n 's/^routed\.allreduce=//p' "$dir/rank-0.txt")
    [ "${calls:-0}" -gt 0 ] || fail "$name: no MPI_Allreduce ran in ftcoll (report: $(tr '\n' ' ' < "$dir/rank-0.txt"))"
    echo "   the layer ran $calls MPI_Allreduce call(s) on rank 0"
}

# Open MPI passes an environment variable to the ranks when named with -x;
# MPICH passes the whole environment.
pass_report=()
if "$mpirun" --version 2>&1 | grep -q "Open MPI\|PRRTE\|prte"; then
    pass_report=(-x FTCOLL_REPORT)
fi

run_programs() {   # DIR: the programs built there
    local dir=$1 report program
    for program in uses_api uses_api_static; do
        [ -x "$dir/$program" ] || continue
        run_checked "$dir/$program" "uses_api: ok on $ranks ranks" \
            "$mpirun" "${mpirun_args[@]}" -n "$ranks" "$dir/$program"
    done
    report=$(mktemp -d "$work/report.XXXXXX")
    run_checked "$dir/unmodified_linked" "unmodified: ok on $ranks ranks" \
        env FTCOLL_REPORT="$report" "$mpirun" "${mpirun_args[@]}" -n "$ranks" \
            "${pass_report[@]}" "$dir/unmodified_linked"
    check_layer_report "$dir/unmodified_linked" "$report"
}

with_cmake() {   # PREFIX (empty: found where CMake looks by default)
    local prefix=$1 dir=$work/with-cmake
    step "find_package(ftcoll) ${prefix:+from $prefix}"
    cmake -S "$here/consumer" -B "$dir" ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"} \
        -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/cmake.log" 2>&1 \
        || { cat "$work/cmake.log"; fail "configuring the outside project with find_package"; }
    grep "ftcoll .* from" "$work/cmake.log" | sed 's/^/   /'
    grep -q "ftcoll .* from $(realpath "${prefix:-/usr}")/$install_libdir/cmake/ftcoll:" "$work/cmake.log" \
        || fail "find_package found another ftcoll than the one under ${prefix:-/usr}"
    cmake --build "$dir" >"$work/build.log" 2>&1 \
        || { cat "$work/build.log"; fail "building the outside project with CMake"; }
    run_programs "$dir"
}

with_pkg_config() {   # PREFIX (empty: found where pkg-config looks by default)
    local prefix=$1 dir=$work/with-pkg-config libdir
    step "pkg-config ftcoll ftcoll-pmpi ${prefix:+from $prefix}"
    mkdir -p "$dir"
    if [ -n "$prefix" ]; then
        export PKG_CONFIG_PATH
        PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name ftcoll.pc -print -quit)")
    else
        unset PKG_CONFIG_PATH
    fi
    echo "   ftcoll: $(pkg-config --cflags --libs ftcoll)"
    libdir=$(pkg-config --variable=libdir ftcoll)
    [ "$(realpath "$libdir")" = "$(realpath "${prefix:-/usr}")/$install_libdir" ] \
        || fail "pkg-config's libdir $libdir is not that of the ftcoll under ${prefix:-/usr}"
    # Outside the loader's own directories, the program must be told where.
    local rpath=()
    [ -z "$prefix" ] || rpath=(-Wl,-rpath,"$libdir")
    # shellcheck disable=SC2046   # the flags are words
    "$mpicc" -Wall -Wextra -Werror -o "$dir/uses_api" "$here/consumer/uses_api.c" \
        $(pkg-config --cflags --libs ftcoll) "${rpath[@]}" \
        || fail "compiling uses_api.c with pkg-config's flags"
    # shellcheck disable=SC2046
    "$mpicc" -Wall -Wextra -Werror -o "$dir/unmodified_linked" "$here/consumer/unmodified.c" \
        $(pkg-config --cflags --libs ftcoll-pmpi) "${rpath[@]}" \
        || fail "compiling unmodified.c with ftcoll-pmpi's flags"
    run_programs "$dir"
}

with_ftcrun() {   # FTCRUN
    local ftcrun=$1
    step "$ftcrun"
    FTCOLL_MPIRUN_ARGS="${FTCRUN_MPIRUN_ARGS:-}" run_checked "ftcrun" "allreduce [1-9][0-9]* by ftcoll" \
        "$ftcrun" -n "$ranks" -- "$work/with-cmake/unmodified"
}

# A project that picks the other MPI is told so when it configures, not left
# to fail at link or run time.
wrong_mpi() {   # PREFIX
    local other=/usr/bin/mpicc.mpich out
    "$mpicc" -showme:version 2>&1 | grep -q "Open MPI" && [ -x "$other" ] || return 0
    step "find_package(ftcoll) with MPICH's mpicc: refused"
    if out=$(cmake -S "$here/consumer" -B "$work/wrong-mpi" -DCMAKE_PREFIX_PATH="$1" \
                 -DMPI_C_COMPILER="$other" 2>&1); then
        fail "configuring against MPICH an ftcoll built with Open MPI succeeded"
    fi
    grep -q "ftcoll was built with Open MPI, but the MPI found is \"MPICH" <<< "$out" \
        || { echo "$out"; fail "no clear reason given for refusing MPICH"; }
    grep -A1 "ftcoll was built with" <<< "$out" | sed 's/^/   /'
}

# ftcrun on a machine where the MPI it was built with is gone (or out of the
# user's reach): the launcher of the same MPI on PATH is taken; one of the
# other MPI is refused, saying why.
mpi_gone() {   # PREFIX
    local gone=$work/mpi-gone out status=0
    step "ftcrun whose build-time MPI is gone"
    cp -a "$1" "$gone"
    sed -i -e 's|^MPIRUN_DEFAULT=".*/\([^/]*\)"$|MPIRUN_DEFAULT="/nonexistent/bin/\1"|' \
           -e 's|^MPI_PREFIX=.*|MPI_PREFIX="/nonexistent"|' "$gone/bin/ftcrun"
    grep -q '^MPIRUN_DEFAULT="/nonexistent/bin/' "$gone/bin/ftcrun" || fail "could not edit $gone/bin/ftcrun"
    PATH="$(dirname "$mpirun"):$PATH" with_ftcrun "$gone/bin/ftcrun"
    [ -z "${pass_report[*]}" ] && return 0           # built with MPICH: done
    [ -x /usr/bin/mpiexec.mpich ] || return 0
    mkdir "$work/other-mpi"
    ln -s /usr/bin/mpiexec.mpich "$work/other-mpi/mpirun"
    out=$(PATH="$work/other-mpi:$PATH" timeout 60 "$gone/bin/ftcrun" -n 2 -- "$work/with-cmake/unmodified" 2>&1) \
        || status=$?
    [ "$status" = 2 ] && grep -q "is not openmpi's: name one with --mpirun" <<< "$out" \
        || { echo "$out"; fail "ftcrun took MPICH's mpirun for Open MPI's (exit $status)"; }
    echo "   $(head -1 <<< "$out")"
}

use_tree() {   # PREFIX [default]: every way in, against one installed tree
    local prefix=$1 where=${2-$1}
    with_cmake "$where"
    with_pkg_config "$where"
    with_ftcrun "$prefix/bin/ftcrun"
}

case "$mode" in
prefix)
    step "cmake --install into $work/first, moved to $work/moved"
    cmake --install "$build" --prefix "$work/first" >"$work/install.log" \
        || { cat "$work/install.log"; fail "cmake --install"; }
    mv "$work/first" "$work/moved"
    if grep -rl -- "$work/first" "$work/moved"; then
        fail "the files above still name the prefix they were installed into"
    fi
    for f in bin/ftcrun bin/ftcrun-check include/ftcoll.h; do
        [ -e "$work/moved/$f" ] || fail "$f not installed"
    done
    use_tree "$work/moved"
    mkdir "$work/elsewhere"   # ftcrun reached through a link finds its own tree
    ln -s "$work/moved/bin/ftcrun" "$work/elsewhere/ftcrun"
    with_ftcrun "$work/elsewhere/ftcrun"
    # The loader cannot preload a path holding a space or a colon.
    mv "$work/moved" "$work/moved again: 2"
    with_ftcrun "$work/moved again: 2/bin/ftcrun"
    wrong_mpi "$work/moved again: 2"
    mpi_gone "$work/moved again: 2"
    ;;
deb)
    step "cpack: the Debian package"
    cpack --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log" 2>&1 \
        || { cat "$work/cpack.log"; fail "cpack"; }
    deb=$(find "$work/package" -maxdepth 1 -name 'ftcoll_*_amd64.deb' -print -quit)
    [ -n "$deb" ] || { ls "$work/package"; fail "no ftcoll_<version>_amd64.deb made"; }
    echo "   $(basename "$deb"): $(dpkg-deb -f "$deb" Package Version Architecture Depends | tr '\n' ' ')"
    contents=$(dpkg-deb -c "$deb")
    lib=./usr/$install_libdir
    for f in ./usr/bin/ftcrun ./usr/include/ftcoll.h "$lib/cmake/ftcoll/ftcollConfig.cmake" \
             "$lib/pkgconfig/ftcoll.pc" "$lib/pkgconfig/ftcoll-pmpi.pc" \
             "$lib/libftcoll-pmpi.so" "$lib/libftcoll.so"; do
        grep -q " $f\( \|$\)" <<< "$contents" || fail "the package lacks ${f#.}"
    done
    if [ "$(id -u)" = 0 ] && ! dpkg-query -W -f='${Status}' ftcoll 2>/dev/null | grep -q " installed"; then
        step "dpkg -i $(basename "$deb")"
        installed_package=1   # purged even if dpkg stops half-way
        dpkg -i "$deb" || fail "dpkg -i"
        use_tree /usr ""
        [ "$(command -v ftcrun)" = /usr/bin/ftcrun ] || fail "ftcrun is not /usr/bin/ftcrun on PATH"
    else
        step "not root, or an ftcoll package is installed already: unpacked, not installed"
        dpkg-deb -x "$deb" "$work/root"
        use_tree "$work/root/usr"
    fi
    ;;
*)
    fail "unknown mode \"$mode\" (expected prefix or deb)"
    ;;
esac
echo "test_installed: $mode: ok"
