#!/usr/bin/env bash
# Fetches Debian 12's trilinos source tarball (which carries Kokkos 3.4.01 in packages/kokkos)
# through a private apt state, so the machine's own sources.list is left as it is.
set -euo pipefail
cache=${GIGASEG_CACHE:-$HOME/.cache/gigaseg}
dir=$cache/src
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial"
if ls "$dir"/trilinos_13.2.0.orig.tar.* >/dev/null 2>&1 && [ -f "$dir/.verified" ]; then
  echo "trilinos tarball cached in $dir"; exit 0
fi
cat > "$dir/apt/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SRC
apt_opts=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache="$dir/apt")
apt-get "${apt_opts[@]}" update
cd "$dir"
# --tar-only skips the unpack (no dpkg-dev needed); apt checks each file against the .dsc hashes.
apt-get "${apt_opts[@]}" source --download-only --tar-only trilinos=13.2.0-4
touch .verified
ls -la "$dir"
