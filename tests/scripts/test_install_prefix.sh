#!/usr/bin/env bash
# scripts/install-mpi.sh and the directory it is pointed at: it must use a
# ULFM Open MPI it finds, redo an installation of its own that did not
# finish, and never delete or overwrite anything else. A fake Open MPI (an
# ompi_info that prints the ULFM line) keeps this test to a second.
set -u
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passes=0
failures=0
check() {
    if eval "$2"; then echo "ok: $1"; passes=$((passes + 1));
    else echo "FAIL: $1"; failures=$((failures + 1)); fi
}
run() { FTCOLL_SKIP_APT=1 FTCOLL_MPI_PREFIX="$1" FTCOLL_MPI_TARBALL="${2:-}" "$script" >"$work/log" 2>&1; }

# A fake ULFM tree, and a tarball of it as install-mpi.sh expects one.
fake_ulfm() {
    mkdir -p "$1/bin" "$1/lib"
    printf '#!/bin/sh\necho "          FT MPI support: yes"\n' > "$1/bin/ompi_info"
    printf '#!/bin/sh\nexit 0\n' > "$1/bin/mpicc"
    chmod +x "$1/bin/ompi_info" "$1/bin/mpicc"
}
fake_ulfm "$work/src/openmpi-5.0.7-ulfm"
tar -cJf "$work/ulfm.tar.xz" -C "$work/src" openmpi-5.0.7-ulfm

# Someone else's directory: refused, left exactly as it was.
mkdir -p "$work/foreign/bin"
printf '#!/bin/sh\necho "          FT MPI support: no"\n' > "$work/foreign/bin/ompi_info"
chmod +x "$work/foreign/bin/ompi_info"
touch "$work/foreign/bin/mpicc" "$work/foreign/PRECIOUS"
run "$work/foreign" "$work/ulfm.tar.xz"; rc=$?
check "a foreign non-ULFM prefix is refused with a reason" "[ $rc -ne 0 ] && grep -q 'refusing to' '$work/log'"
check "a foreign prefix keeps its files" "[ -f '$work/foreign/PRECIOUS' ] && [ -f '$work/foreign/bin/mpicc' ]"

# A new directory: unpacked and marked complete; a second run does nothing.
run "$work/new/mpi" "$work/ulfm.tar.xz"; rc=$?
check "a new prefix gets the tarball" "[ $rc -eq 0 ] && [ -x '$work/new/mpi/bin/ompi_info' ]"
check "ftcoll marks what it installed" "[ \"\$(cat '$work/new/mpi/.ftcoll-install')\" = complete ]"
touch "$work/new/mpi/KEEP"
run "$work/new/mpi" "$work/ulfm.tar.xz"; rc=$?
check "a complete installation is left alone" "[ $rc -eq 0 ] && [ -f '$work/new/mpi/KEEP' ]"

# An installation of ours that did not finish: removed and done again.
echo incomplete > "$work/new/mpi/.ftcoll-install"
run "$work/new/mpi" "$work/ulfm.tar.xz"; rc=$?
check "an incomplete installation is redone" "[ $rc -eq 0 ] && [ ! -f '$work/new/mpi/KEEP' ] && [ \"\$(cat '$work/new/mpi/.ftcoll-install')\" = complete ]"

# A user's own ULFM Open MPI (no mark): used as it is.
fake_ulfm "$work/own"
touch "$work/own/KEEP"
run "$work/own"; rc=$?
check "a user's own ULFM prefix is used untouched" "[ $rc -eq 0 ] && [ -f '$work/own/KEEP' ] && [ ! -e '$work/own/.ftcoll-install' ]"

# A tarball that holds no ULFM: refused, nothing left behind.
mkdir -p "$work/bad/openmpi"
tar -cJf "$work/bad.tar.xz" -C "$work/bad" openmpi
run "$work/frombad" "$work/bad.tar.xz"; rc=$?
check "a tarball without ULFM is refused" "[ $rc -ne 0 ] && [ ! -e '$work/frombad' ]"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
