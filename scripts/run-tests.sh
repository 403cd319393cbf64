#!/usr/bin/env bash
# Runs the whole suite with bun test and ends with the plain closing line
# "N passed, N failed" that CI reads; exits with bun's own status.
set -o pipefail
# $1: how to run bun (for make test-pg, bun behind scripts/with-postgres.ts).
BUN="$1"
out=$(mktemp)
$BUN test --timeout 30000 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
pass=$(grep -Eo '^ *[0-9]+ pass$' "$out" | tail -1 | grep -Eo '[0-9]+')
fail=$(grep -Eo '^ *[0-9]+ fail$' "$out" | tail -1 | grep -Eo '[0-9]+')
rm -f "$out"
echo "${pass:-0} passed, ${fail:-0} failed"
if [ "${pass:-0}" = 0 ]; then echo "no test ran"; exit 1; fi
exit "$status"
