#!/usr/bin/env bash
# Every parameter the library names in a usage error (`XxxParams::field`, `XxxOptions::field`,
# `BinRange::field` or `function(argument)` in a
# GIGASEG_REQUIRE / GIGASEG_THROW of kind usage) has its command-line option in
# apps/gigaseg/option_names.cpp, so no error line of the tool speaks the library's names.
set -euo pipefail
root=$1
cd "$root"
subjects=$(grep -rhozE 'ErrorKind::usage,[[:space:]]*"([A-Za-z_]*(Params|Options|Range)::[a-z_]+|[a-z_]+\([a-z_]+\))"' \
  core algorithms backends engine | tr '\0' '\n' | grep -oE '"[^"]+"' | tr -d '"' | sort -u || true)
[ -n "$subjects" ] || { echo "no library parameter names found: the pattern is stale"; exit 1; }
missing=0
for subject in $subjects; do
  if ! grep -qF "{\"$subject\"," apps/gigaseg/option_names.cpp; then
    echo "no option for the library parameter $subject in apps/gigaseg/option_names.cpp"
    missing=1
  fi
done
[ $missing = 0 ] && echo "option names: $(echo "$subjects" | wc -l) library parameters, each with its option"
exit $missing
