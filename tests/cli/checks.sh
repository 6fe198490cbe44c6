# The command-line test scripts' checks (sourced): they set $gigaseg and $work first.
#   expect CODE NAME -- ARGS...  runs gigaseg ARGS, checks its exit code; stdout and stderr kept in
#                                $work/out and $work/err
#   check NAME COMMAND...        a test on the last run's output
#   one_line_naming TEXT         stderr is one line holding TEXT
#   json EXPR                    the last run's stdout is JSON `d` for which the Python EXPR holds
# They count into $passes and $failures.
failures=0
passes=0
expect() {
  local code=$1 name=$2
  shift 3
  "$gigaseg" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    echo "FAIL $name: exit $got, expected $code (gigaseg $*)"; cat "$work/err"; failures=$((failures + 1))
    return 1
  fi
  passes=$((passes + 1))
}
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}
one_line_naming() { [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "$1" "$work/err"; }
json() { python3 -c "import json, sys; d = json.load(open('$work/out')); sys.exit(0 if ($1) else 1)"; }
