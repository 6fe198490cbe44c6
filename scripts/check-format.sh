#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format (version 14, Debian 12's)
# makes of it under .clang-format; prints the files and the first lines that differ. With --fix it
# rewrites them instead. Installs clang-format-14 through scripts/install-deps.sh when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || true)
if [ -z "$format" ]; then
  bash scripts/install-deps.sh >/dev/null
  format=$(command -v clang-format-14)
fi
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.hpp' '*.cpp' '*.cuh' '*.cu' '*.h' |
  while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done)
if [ "${1:-}" = --fix ]; then
  "$format" --style=file -i "${files[@]}"
  echo "check-format: ${#files[@]} files formatted"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" --style=file "$f" | cmp -s - "$f"; then
    echo "$f: not formatted (bash scripts/check-format.sh --fix)"
    "$format" --style=file "$f" | diff "$f" - | head -6 | sed 's/^/    /'
    bad=1
  fi
done
[ $bad = 0 ] && echo "check-format: ${#files[@]} files as clang-format makes them (.clang-format)"
exit $bad
