#!/usr/bin/env bash
# The layer check passes on this repository and fails, naming the file and line, on a scratch
# checkout where core/ includes algorithms/, algorithms/ includes backends/ and backends/ includes
# engine/ (one each, through both include spellings), while downward and same-layer includes pass.
set -euo pipefail
check=$1 repo=$2
bash "$check" "$repo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" && git init -q .
mkdir -p core algorithms/detail backends/cuda engine apps
printf '#include "core/b.hpp"\n' >core/a.hpp
printf '#include <gigaseg/core/a.hpp>\n#include "algorithms/detail/c.hpp"\n' >algorithms/b.hpp
printf '#include "core/a.hpp"\n' >algorithms/detail/c.hpp
printf '#include "algorithms/b.hpp"\n#include "core/a.hpp"\n' >backends/cuda/d.cpp
printf '#include "backends/cuda/d.hpp"\n#include "algorithms/b.hpp"\n' >engine/f.hpp
printf '#include "backends/cuda/d.hpp"\n#include <gigaseg/engine/f.hpp>\n' >apps/e.cpp
git add -A
bash "$check" "$work" >"$work/ok.log" || { echo "a clean tree failed:"; cat "$work/ok.log"; exit 1; }
printf '#include "algorithms/b.hpp"\n' >>core/a.hpp
printf '#include <gigaseg/backends/cuda/d.hpp>\n' >>algorithms/detail/c.hpp
printf '#include "engine/f.hpp"\n' >>backends/cuda/d.cpp
if bash "$check" "$work" >"$work/bad.log"; then
  echo "upward includes were not detected"; exit 1
fi
grep -q '^core/a.hpp:2: ' "$work/bad.log" || { echo "core/a.hpp:2 not named"; cat "$work/bad.log"; exit 1; }
grep -q '^algorithms/detail/c.hpp:2: ' "$work/bad.log" || { echo "algorithms/detail/c.hpp:2 not named"; cat "$work/bad.log"; exit 1; }
grep -q '^backends/cuda/d.cpp:3: ' "$work/bad.log" || { echo "backends/cuda/d.cpp:3 not named"; cat "$work/bad.log"; exit 1; }
[ "$(wc -l <"$work/bad.log")" -eq 3 ] || { echo "expected three findings:"; cat "$work/bad.log"; exit 1; }
echo "layer check test passed"
