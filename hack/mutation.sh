#!/usr/bin/env bash

# Copyright 2026 The Knative Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Mutation check: gremlins (pinned in third_party/gremlins) changes each
# condition and arithmetic operator of the routeaddress reconciler tree in
# turn and runs the package's tests; a change no test notices LIVED. Fails
# when, for the planner, the resources, or the whole tree, the test efficacy
# (killed / (killed + lived)) is below 95 % or the mutant coverage
# ((killed + lived) / all mutants) below 90 %.
#
# The tree is run as three disjoint parts (plan, resources, the rest) and
# the whole tree's figures are their sums, so that no mutant runs twice.
# Left out of "the rest": the test fixtures (testing/, whose mutants change
# expectations, not the product).
#
# A part whose inputs are unchanged since a passing run is not run again:
# hack/mutation.sum records, per part, a SHA-256 of everything that can
# change its result (every file git tracks in each directory of this module
# that the part's packages and tests build from, go.mod, go.sum, gremlins'
# module, this script and the Go version) with the counts that run printed.
# The check then reuses those counts, and says so; a changed file, a new
# Go version or -force reruns the part. A passing run rewrites the record,
# to be committed with the change that produced it.
#
# Usage: hack/mutation.sh [-workers N] [-force]   (default 2; logs in $TMPDIR)

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"

WORKERS=2
FORCE=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -workers) WORKERS="$2"; shift 2 ;;
    -force) FORCE=1; shift ;;
    *) echo "usage: $0 [-workers N] [-force]" >&2; exit 2 ;;
  esac
done

EFFICACY_MIN=95
COVERAGE_MIN=90
TREE=pkg/reconciler/routeaddress
LOGS="${TMPDIR:-/tmp}/route-address-mutation"
mkdir -p "${LOGS}"
RECORD=hack/mutation.sum
NEW_RECORD="${LOGS}/mutation.sum"
: >"${NEW_RECORD}"

# inputs DIR: the SHA-256 of what a part's result depends on: every file
# git tracks under each directory of this module that DIR's packages and
# their tests build from (sources, tests, testdata), the module files,
# gremlins' module, this script and the Go version.
inputs() {
  local dir="$1"
  {
    go version
    go list -deps -test -f '{{if not .Standard}}{{.Dir}}{{end}}' "./${dir}/..." |
      awk -v r="${REPO_ROOT_DIR}/" 'index($0, r) == 1' | sort -u |
      while IFS= read -r d; do git ls-files -z -- "${d#"${REPO_ROOT_DIR}"/}" | xargs -0 -r sha256sum; done | sort -u
    sha256sum go.mod go.sum third_party/gremlins/go.mod third_party/gremlins/go.sum hack/mutation.sh
  } | sha256sum | cut -d' ' -f1
}

gremlins() {
  go tool -modfile=third_party/gremlins/go.mod gremlins "$@"
}

# run NAME DIR [gremlins flags...]: runs gremlins on DIR, prints what lived
# or was not covered, and sets KILLED/LIVED/UNCOVERED/TIMEDOUT.
run() {
  local name="$1" dir="$2"
  shift 2
  local log="${LOGS}/${name}.log" start=${SECONDS} sum recorded
  sum="$(inputs "${dir}")"
  recorded="$(awk -v n="${name}" -v s="${sum}" '$1 == n && $2 == s' "${RECORD}" 2>/dev/null || true)"
  if [[ "${FORCE}" == 0 && -n "${recorded}" ]]; then
    read -r _ _ KILLED LIVED UNCOVERED TIMEDOUT <<<"${recorded}"
    echo "--- ${name} (${dir}): unchanged since the recorded run (${RECORD}, inputs ${sum:0:12}): Killed: ${KILLED}, Lived: ${LIVED}, Not covered: ${UNCOVERED}; Timed out: ${TIMEDOUT}"
    echo "${recorded}" >>"${NEW_RECORD}"
    return
  fi
  # Thresholds are judged below; gremlins' own exit code is not.
  gremlins unleash --workers "${WORKERS}" --timeout-coefficient 10 "$@" "./${dir}" >"${log}" 2>&1 || true
  # Strip colours, if any.
  sed -i 's/\x1b\[[0-9;]*m//g' "${log}"
  local counts timeouts
  counts=$(grep -E '^Killed: [0-9]+, Lived: [0-9]+, Not covered: [0-9]+' "${log}") || {
    echo "gremlins printed no totals for ${dir}; its log (${log}):" >&2
    cat "${log}" >&2
    exit 1
  }
  timeouts=$(grep -E '^Timed out: [0-9]+' "${log}")
  read -r KILLED LIVED UNCOVERED <<<"$(echo "${counts}" | sed -E 's/[^0-9]+/ /g')"
  read -r TIMEDOUT _ <<<"$(echo "${timeouts}" | sed -E 's/[^0-9]+/ /g')"
  echo "--- ${name} (${dir}): ${counts}; ${timeouts} ($((SECONDS - start)) s)"
  grep -E '^ *(LIVED|NOT COVERED) ' "${log}" | sed -E "s#( at )#\1${dir}/#" || true
  echo "${name} ${sum} ${KILLED} ${LIVED} ${UNCOVERED} ${TIMEDOUT}" >>"${NEW_RECORD}"
}

failed=0
# check NAME KILLED LIVED UNCOVERED: prints a table row and fails below the
# thresholds.
check() {
  local name="$1" k="$2" l="$3" n="$4"
  local eff cov verdict=ok
  eff=$(awk -v k="$k" -v l="$l" 'BEGIN { printf "%.1f", (k + l) ? 100 * k / (k + l) : 100 }')
  cov=$(awk -v k="$k" -v l="$l" -v n="$n" 'BEGIN { printf "%.1f", (k + l + n) ? 100 * (k + l) / (k + l + n) : 100 }')
  if awk -v e="$eff" -v c="$cov" -v em="${EFFICACY_MIN}" -v cm="${COVERAGE_MIN}" 'BEGIN { exit !(e < em || c < cm) }'; then
    verdict=FAIL
    failed=1
  fi
  printf '| %-40s | %6s | %5s | %11s | %8s %% | %8s %% | %-4s |\n' "$name" "$k" "$l" "$n" "$eff" "$cov" "$verdict"
}

total_start=${SECONDS}
run plan "${TREE}/plan"
P=("${KILLED}" "${LIVED}" "${UNCOVERED}" "${TIMEDOUT}")
run resources "${TREE}/resources"
R=("${KILLED}" "${LIVED}" "${UNCOVERED}" "${TIMEDOUT}")
run rest "${TREE}" -E '^(plan|resources|testing)/'
O=("${KILLED}" "${LIVED}" "${UNCOVERED}" "${TIMEDOUT}")
# The keys' parse, sent to knative/networking, counts in the whole tree.
run netcfg pkg/networking/config
N=("${KILLED}" "${LIVED}" "${UNCOVERED}" "${TIMEDOUT}")
O=("$((O[0] + N[0]))" "$((O[1] + N[1]))" "$((O[2] + N[2]))" "$((O[3] + N[3]))")

echo
echo "Mutation check (gremlins v0.6.0, ${WORKERS} workers, $((SECONDS - total_start)) s; thresholds: efficacy >= ${EFFICACY_MIN} %, mutant coverage >= ${COVERAGE_MIN} %)"
echo "| package                                  | killed | lived | not covered | efficacy   | coverage   |      |"
echo "|------------------------------------------|--------|-------|-------------|------------|------------|------|"
check "${TREE}/plan" "${P[0]}" "${P[1]}" "${P[2]}"
check "${TREE}/resources" "${R[0]}" "${R[1]}" "${R[2]}"
check "${TREE}/... + pkg/networking/config" "$((P[0] + R[0] + O[0]))" "$((P[1] + R[1] + O[1]))" "$((P[2] + R[2] + O[2]))"
echo "timed out (counted in neither figure, as gremlins counts them): $((P[3] + R[3] + O[3]))"
if [[ ${failed} -ne 0 ]]; then
  echo "mutation check FAILED: a package is below its thresholds (logs: ${LOGS})"
  exit 1
fi
{
  echo "# hack/mutation.sh's record: part, SHA-256 of its inputs, killed, lived, not covered, timed out."
  echo "# Written by a passing run; a part whose inputs match is not run again."
  cat "${NEW_RECORD}"
} >"${RECORD}"
echo "mutation check passed (record: ${RECORD})"
