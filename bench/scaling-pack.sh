#!/usr/bin/env bash
# Packs what bench/scaling.sh needs into .devbench/ at the repository root,
# so that the benchmark runs on a machine that has neither MPI nor this
# project's build: a copy of the Open MPI installation (without headers,
# manual pages and static libraries), ftcoll-bench-native, the project's
# shared libraries it loads, and the system libraries that the binaries
# load beyond the C library itself (libevent, hwloc, udev, zlib, ...).
#
# Usage: bench/scaling-pack.sh BUILD_DIR MPI_PREFIX
#   e.g. bench/scaling-pack.sh build ~/.cache/ftcoll/openmpi-5.0.7-ulfm
#
# .devbench/ (ignored by git) is replaced as a whole. Layout:
#   mpi/      the Open MPI installation (relocated through OPAL_PREFIX & co.)
#   bin/      ftcoll-bench-native
#   lib/      the project's shared libraries (libftcoll-pmpi.so.0)
#   syslib/   system libraries the binaries need beyond glibc
#   MANIFEST  what was packed, from where, and the glibc each binary needs
set -euo pipefail

die() { echo "scaling-pack: $*" >&2; exit 2; }

[[ $# -eq 2 ]] || die "usage: bench/scaling-pack.sh BUILD_DIR MPI_PREFIX"
build=$(cd "$1" && pwd) || die "no build directory $1"
prefix=$(cd "$2" && pwd) || die "no MPI installation $2"
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=$build/bench/ftcoll-bench-native
dest=$repo_root/.devbench

[[ -x "$bench" ]] || die "no $bench (build the project first)"
[[ -x "$prefix/bin/mpirun" ]] || die "no $prefix/bin/mpirun"
command -v ldd >/dev/null || die "ldd is needed"

rm -rf "$dest"
mkdir -p "$dest/mpi" "$dest/bin" "$dest/lib" "$dest/syslib"

# The MPI installation, less what running programs never reads.
# (Nor the compilers' wrappers: nothing is compiled there.)
tar -C "$prefix" -cf - \
    --exclude=./include --exclude=./share/man --exclude=./share/doc \
    --exclude='*.a' --exclude='*.la' --exclude=./lib/pkgconfig \
    --exclude='./bin/mpic*' --exclude='./bin/mpiC*' --exclude='./bin/mpif*' \
    --exclude=./bin/opal_wrapper --exclude=./bin/pmixcc --exclude=./bin/oshrun \
    --exclude='./share/openmpi/*-wrapper-data.txt' --exclude='./share/pmix/*-wrapper-data.txt' . \
    | tar -C "$dest/mpi" -xf -

# No symbolic links, so that the tree survives any way of copying it: each
# library under its run-time name (libmpi.so.40), link-time names dropped,
# a program's second name (prterun, mpiexec) a copy.
find "$dest/mpi/lib" -maxdepth 1 -type l -name '*.so' -delete
while IFS= read -r -d '' link; do
    target=$(readlink -f "$link")
    [[ -f "$target" ]] || die "broken link $link"
    rm "$link"
    mv "$target" "$link"
done < <(find "$dest/mpi/lib" -maxdepth 1 -type l -print0)
while IFS= read -r -d '' link; do
    target=$(readlink -f "$link")
    if [[ -f "$target" ]]; then cp --remove-destination "$target" "$link"; else rm "$link"; fi
done < <(find "$dest/mpi" -type l -print0)
[[ -z "$(find "$dest/mpi" -type l)" ]] || die "links left in $dest/mpi"

cp -p "$bench" "$dest/bin/"

# Every library the binaries load: the project's from the build directory
# go to lib/, MPI's are already in mpi/lib, glibc's own stay on the system,
# anything else goes to syslib/ (the target machine may lack it).
is_glibc() {
    case "$1" in
        linux-vdso.so.*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|\
        libresolv.so.*|libutil.so.*|libanl.so.*|libmvec.so.*|libnsl.so.*) return 0 ;;
    esac
    return 1
}
elfs=("$dest/bin/ftcoll-bench-native")
while IFS= read -r -d '' f; do
    if head -c 4 "$f" | grep -q 'ELF'; then elfs+=("$f"); fi
done < <(find "$prefix" -type f \( -path "$prefix/bin/*" -o -name '*.so*' \) -print0)

missing=()
for f in "${elfs[@]}"; do
    while read -r name arrow path _; do
        [[ "$arrow" == "=>" ]] || continue
        is_glibc "$name" && continue
        if [[ "$path" == "not" ]]; then missing+=("$name (of $f)"); continue; fi
        case "$path" in
            "$prefix"/lib/*) ;;                         # in mpi/lib already
            "$build"/*) [[ -e "$dest/lib/$name" ]] || cp -L --preserve=mode,timestamps "$path" "$dest/lib/$name" ;;
            *) [[ -e "$dest/syslib/$name" ]] || cp -L --preserve=mode,timestamps "$path" "$dest/syslib/$name" ;;
        esac
    done < <(LD_LIBRARY_PATH="$prefix/lib:$build" ldd "$f" 2>/dev/null || true)
done
(( ${#missing[@]} == 0 )) || die "libraries not found: ${missing[*]}"

# The libraries copied to syslib/ may need more of their own.
for f in "$dest"/syslib/*; do
    while read -r name arrow path _; do
        [[ "$arrow" == "=>" ]] || continue
        is_glibc "$name" && continue
        [[ -e "$dest/syslib/$name" || "$path" == "$prefix"/lib/* ]] || cp -L --preserve=mode,timestamps "$path" "$dest/syslib/$name"
    done < <(LD_LIBRARY_PATH="$dest/syslib:$prefix/lib" ldd "$f" 2>/dev/null || true)
done

glibc_needed() {   # the newest GLIBC_ symbol version a binary asks for
    if command -v objdump >/dev/null; then
        objdump -T "$1" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1
    else
        echo "?"
    fi
}
{
    echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(ldd --version | head -n 1)"
    echo "build: $build; the repository was at commit" \
         "$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo '?') when packed"
    echo "uncommitted then: $(git -C "$repo_root" status --porcelain 2>/dev/null \
         | awk '{ printf "%s ", $2 }')"
    echo "mpi: $prefix ($(OPAL_PREFIX="$prefix" PRTE_PREFIX="$prefix" PMIX_PREFIX="$prefix" \
        LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/mpirun" --version 2>/dev/null | head -n 1 || true))"
    for f in "$dest"/bin/* "$dest"/lib/*; do
        echo "sha256 ${f#"$dest"/}: $(sha256sum "$f" | cut -d' ' -f1)" \
             "(built $(date -u -r "$f" +%Y-%m-%dT%H:%M:%SZ))"
    done
    echo "glibc needed (newest symbol version):"
    while IFS= read -r -d '' f; do
        if head -c 4 "$f" | grep -q 'ELF'; then
            printf '  %-40s %s\n' "${f#"$dest"/}" "$(glibc_needed "$f")"
        fi
    done < <(find "$dest" -type f \( -path '*/bin/*' -o -name '*.so*' \) -print0 | sort -z)
} > "$dest/MANIFEST"

cat "$dest/MANIFEST"
echo "scaling-pack: $dest: $(du -sh "$dest" | cut -f1)"
