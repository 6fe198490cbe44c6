#!/usr/bin/env bash
# The test suite and the CLI checks under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer: the debug-sanitize preset (Debug, -fsanitize=address,undefined,
# -fno-sanitize-recover=all), host backends. ASAN_OPTIONS=allocator_may_return_null=1 (set by the
# test preset) lets the tests that ask for impossible allocations see the failure gigaseg reports
# instead of ASan's abort. The install test is left out (it checks packaging in the plain run; a
# consumer of a sanitized static library would need the sanitizer flags too). Used by CI (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/build-kokkos.sh host
cmake --preset debug-sanitize
cmake --build --preset debug-sanitize
ctest --preset debug-sanitize
