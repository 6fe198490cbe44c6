#!/usr/bin/env bash
# Fails when an include runs upward through the layers core <- algorithms <- backends <- engine <- apps:
# a file may include its own layer and the layers below it, never one above. Prints one line per
# offending include (file:line: include) and exits 1; prints the number of files checked and
# exits 0 otherwise. Checks the git checkout given as the argument (default: this repository).
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
rank() {
  case "$1" in
    core/*) echo 0 ;;
    algorithms/*) echo 1 ;;
    backends/*) echo 2 ;;
    engine/*) echo 3 ;;
    apps/*) echo 4 ;;
    *) echo 9 ;;
  esac
}
status=0
checked=0
while IFS= read -r file; do
  own=$(rank "$file")
  checked=$((checked + 1))
  while IFS=: read -r line text; do
    target=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](gigaseg\/)?([^>"]*)[>"].*/\2/' <<<"$text")
    theirs=$(rank "$target")
    if [ "$theirs" != 9 ] && [ "$theirs" -gt "$own" ]; then
      echo "$file:$line: $text  (includes upward: ${target%%/*}/ is above ${file%%/*}/)"
      status=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$file" || true)
done < <(git ls-files --cached --others --exclude-standard core algorithms backends engine apps | sort -u | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done | grep -E '\.(hpp|cpp|cuh|cu|h)$')
if [ "$status" = 0 ]; then
  echo "check-layers: $checked files, every include runs downward (core <- algorithms <- backends <- engine <- apps)"
fi
exit "$status"
