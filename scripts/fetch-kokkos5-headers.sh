#!/usr/bin/env bash
# Fetches Debian sid's libkokkos-dev (Kokkos 5.x headers configured for OpenMP) without touching the
# system's apt configuration: a private sources list and state directory, `apt-get download`, and
# `dpkg-deb -x` into the cache. The library inside needs a newer glibc than Debian 12's, so it is
# used for the compile-only check (scripts/check-kokkos5.sh), never linked.
set -euo pipefail
cache=${GIGASEG_CACHE:-$HOME/.cache/gigaseg}
dir=$cache/kokkos5
if [ -f "$dir/.complete" ]; then echo "Kokkos 5 headers cached in $dir"; exit 0; fi
rm -rf "$dir"; mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs" "$dir/root"
cat > "$dir/apt/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
SRC
apt_opts=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache="$dir/apt"
          -o Dir::State::Status=/dev/null -o APT::Architecture=amd64)
apt-get "${apt_opts[@]}" update
cd "$dir/debs"
apt-get "${apt_opts[@]}" download libkokkos-dev
for deb in *.deb; do dpkg-deb -x "$deb" "$dir/root"; done
hdr=$(find "$dir/root" -name Kokkos_Core.hpp | head -n1)
[ -n "$hdr" ] || { echo "fetch-kokkos5-headers.sh: no Kokkos_Core.hpp in libkokkos-dev" >&2; exit 1; }
dirname "$hdr" > "$dir/include-dir"
touch "$dir/.complete"
echo "Kokkos 5 headers in $(cat "$dir/include-dir")"
