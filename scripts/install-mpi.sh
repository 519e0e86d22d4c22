#!/usr/bin/env bash
# Installs what ftcoll needs to build and test, and an Open MPI 5 with ULFM
# (process-failure survival), without touching the system's MPI or apt sources.
#
#   scripts/install-mpi.sh            # prefix: ${FTCOLL_MPI_PREFIX:-$HOME/.cache/ftcoll/openmpi-5.0.7-ulfm}
#
# Environment:
#   FTCOLL_MPI_PREFIX   where the ULFM Open MPI lives (or is installed). If it already
#                       holds an MPI whose ompi_info says "FT MPI support: yes", nothing
#                       is done: point it at your own ULFM build to use that one.
#   FTCOLL_MPI_TARBALL  a prebuilt, relocatable tree (openmpi-5.0.7-ulfm/ inside a
#                       .tar.xz) to unpack instead of building from source.
#   FTCOLL_SKIP_APT=1   do not install Debian packages (you provide them).
#   FTCOLL_BUILD_JOBS   parallel make jobs (default: number of cores + 1).
#
# The source comes from Debian's own archive: the `openmpi` source package of the
# trixie suite, fetched through a private apt configuration that reuses this
# machine's mirror, and checked against a known sha256.
set -euo pipefail

readonly OMPI_VERSION=5.0.7
readonly ORIG_TARBALL=openmpi_${OMPI_VERSION}.orig.tar.xz
readonly ORIG_SHA256=97f10c04e9b9a1771db3fd005009e4c07afa3ce739f940e41eb0fc7397cb9473
readonly SOURCE_SUITE=trixie
readonly PREFIX=${FTCOLL_MPI_PREFIX:-$HOME/.cache/ftcoll/openmpi-${OMPI_VERSION}-ulfm}
readonly JOBS=${FTCOLL_BUILD_JOBS:-$(( $(nproc) + 1 ))}

# Packages to build ftcoll and its tests, to build/run Open MPI, and Debian's
# MPICH, against which the test suite also runs; gdb lets the torture record
# where a hung job's ranks were.
readonly DEBIAN_PACKAGES=(build-essential cmake pkg-config xz-utils ca-certificates
    libhwloc-dev libevent-dev zlib1g-dev libcmocka-dev valgrind mpich libmpich-dev python3
    gdb)

say() { printf '[install-mpi] %s\n' "$*" >&2; }
die() { printf '[install-mpi] error: %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@";
    elif command -v sudo >/dev/null 2>&1; then sudo "$@";
    else die "need root (or sudo) to run: $*"; fi
}

missing_packages() {
    local p
    for p in "${DEBIAN_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

install_debian_packages() {
    [ "${FTCOLL_SKIP_APT:-0}" = 1 ] && { say "FTCOLL_SKIP_APT=1: not installing packages"; return; }
    command -v dpkg-query >/dev/null 2>&1 || { say "not a Debian system: install ${DEBIAN_PACKAGES[*]} yourself"; return; }
    local missing
    missing=$(missing_packages)
    [ -z "$missing" ] && return
    say "installing Debian packages: $(echo $missing)"
    as_root apt-get update -q
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# ftcoll marks the prefixes it creates: "incomplete" while building, then
# "complete". It never deletes or overwrites a prefix without that mark.
readonly MARK=.ftcoll-install
mark_of() { cat "$1/$MARK" 2>/dev/null || true; }

# True when $1 holds an Open MPI built with ULFM.
is_ulfm_prefix() {
    local dir=$1
    [ -x "$dir/bin/ompi_info" ] && [ -x "$dir/bin/mpicc" ] || return 1
    OPAL_PREFIX=$dir PRTE_PREFIX=$dir PMIX_PREFIX=$dir LD_LIBRARY_PATH=$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$dir/bin/ompi_info" 2>/dev/null | grep -qE 'FT MPI support: *yes'
}

# Unpacks beside the prefix, checks the tree, then moves it into place (the
# prefix does not exist at this point: see main).
unpack_prebuilt() {
    local tarball=$1 work top
    say "unpacking prebuilt ULFM Open MPI from $tarball"
    work=$(mktemp -d "${PREFIX%/*}/.unpack.XXXXXX")
    tar -xJf "$tarball" -C "$work"
    top=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -n "$top" ] || { rm -rf "$work"; die "$tarball holds no directory"; }
    is_ulfm_prefix "$top" || { rm -rf "$work"; die "$tarball holds no ULFM Open MPI"; }
    echo complete > "$top/$MARK"
    mv "$top" "$PREFIX"
    rm -rf "$work"
}

# Writes a private apt configuration that knows only the deb-src line of the
# trixie suite, on the mirror this machine already uses.
write_private_apt_config() {
    local dir=$1 mirror
    mirror=$(debian_mirror)
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
    printf 'deb-src [trusted=yes] %s %s main\n' "$mirror" "$SOURCE_SUITE" > "$dir/sources.list"
    say "source package from $mirror ($SOURCE_SUITE)"
}

# The first Debian archive URI configured on this machine (deb822 or one-line style).
debian_mirror() {
    local uri
    uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
          | awk '{print $2}' | grep -v -- '-security' | grep '/debian' | head -n 1)
    if [ -z "$uri" ]; then
        uri=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
              | grep -v -- '-security' | sed -E 's/^deb (\[[^]]*\] )?//' | awk '{print $1}' | grep '/debian' | head -n 1)
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

fetch_source() {
    local build=$1 apt_dir=$build/apt
    write_private_apt_config "$apt_dir"
    local -a apt_opts=(
        -o "Dir::Etc::sourcelist=$apt_dir/sources.list"
        -o "Dir::Etc::sourceparts=-"
        -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir/cache"
        -o "APT::Get::List-Cleanup=0"
        -o "APT::Sandbox::User=root"
    )
    say "reading the $SOURCE_SUITE source index"
    apt-get "${apt_opts[@]}" update -q >&2
    say "downloading the openmpi source package"
    # The sha256 below pins the exact upstream release, whatever Debian revision carries it.
    (cd "$build" && apt-get "${apt_opts[@]}" source --download-only -q openmpi >&2)
    [ -f "$build/$ORIG_TARBALL" ] || die "the source package did not bring $ORIG_TARBALL"
    echo "$ORIG_SHA256  $build/$ORIG_TARBALL" | sha256sum -c --quiet - \
        || die "$ORIG_TARBALL does not match sha256 $ORIG_SHA256"
    say "sha256 verified: $ORIG_TARBALL"
}

build_from_source() {
    local build
    build=$(mktemp -d "${TMPDIR:-/tmp}/ftcoll-ompi-build.XXXXXX")
    fetch_source "$build"
    say "unpacking $ORIG_TARBALL"
    tar -xJf "$build/$ORIG_TARBALL" -C "$build"
    local src
    src=$(find "$build" -mindepth 1 -maxdepth 1 -type d -name 'openmpi-*' | head -n 1)
    [ -n "$src" ] || die "no openmpi-* directory in $ORIG_TARBALL"
    mkdir -p "$PREFIX"
    echo incomplete > "$PREFIX/$MARK"
    say "configuring (ULFM, internal PMIx/PRRTE, no Fortran) into $PREFIX"
    (cd "$src" && ./configure --prefix="$PREFIX" --with-ft=ulfm --disable-mpi-fortran \
        --without-ucx --without-ofi --without-psm2 --without-verbs \
        --with-pmix=internal --with-prrte=internal \
        --with-hwloc=external --with-libevent=external \
        --disable-oshmem --disable-io-romio --disable-man-pages --disable-sphinx \
        --enable-mca-no-build=btl-uct,btl-usnic,coll-hcoll,coll-ucc > "$build/configure.log" 2>&1) \
        || { tail -n 40 "$build/configure.log" >&2; die "configure failed (log: $build/configure.log)"; }
    say "building with $JOBS jobs (about 15 minutes on 2 cores; log: $build/make.log)"
    (cd "$src" && make -j"$JOBS" > "$build/make.log" 2>&1) \
        || { tail -n 40 "$build/make.log" >&2; die "make failed (log: $build/make.log)"; }
    say "installing"
    (cd "$src" && make install > "$build/install.log" 2>&1) \
        || { tail -n 40 "$build/install.log" >&2; die "make install failed"; }
    is_ulfm_prefix "$PREFIX" || die "$PREFIX holds an MPI without ULFM after the build"
    echo complete > "$PREFIX/$MARK"
    rm -rf "$build"
}

# What is at the prefix decides what may be done there.
#   ours, complete, working      -> nothing to do
#   someone's own ULFM Open MPI  -> use it, never touch it
#   ours, incomplete or broken   -> remove and install again
#   anything else that is not empty -> refuse: it is not ours to delete
prepare_prefix() {
    local mark
    mark=$(mark_of "$PREFIX")
    if is_ulfm_prefix "$PREFIX" && [ "$mark" != incomplete ]; then
        say "ULFM Open MPI already at $PREFIX"
        return 1
    fi
    if [ -n "$mark" ]; then
        say "removing an incomplete ftcoll installation at $PREFIX"
        rm -rf "$PREFIX"
    elif [ -e "$PREFIX" ] && [ -n "$(ls -A "$PREFIX" 2>/dev/null)" ]; then
        die "$PREFIX is not empty and holds no ULFM Open MPI installed by ftcoll; refusing to" \
            "touch it. Point FTCOLL_MPI_PREFIX at a ULFM Open MPI or at a new directory."
    fi
    rm -rf "$PREFIX"   # at most an empty directory here
    mkdir -p "${PREFIX%/*}"
    return 0
}

main() {
    install_debian_packages
    prepare_prefix || return 0
    if [ -n "${FTCOLL_MPI_TARBALL:-}" ]; then
        [ -f "$FTCOLL_MPI_TARBALL" ] || die "FTCOLL_MPI_TARBALL=$FTCOLL_MPI_TARBALL: no such file"
        unpack_prebuilt "$FTCOLL_MPI_TARBALL"
    else
        build_from_source
    fi
    is_ulfm_prefix "$PREFIX" || die "$PREFIX holds an MPI without ULFM (ompi_info: no 'FT MPI support: yes')"
    say "ULFM Open MPI ready at $PREFIX"
}

main "$@"
