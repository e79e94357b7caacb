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

# The project's test command (README.md): vets and runs every unit test,
# runs the mutation check on the routeaddress tree,
# verifies the serving patch series against pkg, networking and serving,
# then the e2e conformance suite on a local control plane.
#
# The third-party programs the e2e suite runs (hack/build-third-party.sh)
# build in the background from the start, at a lower priority, so that
# they use the CPU the steps before the e2e suite leave idle; the suite
# waits for them. Each step prints its time, and a table of all of them is
# printed at the end, whether the run passed or not.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"

LOGS="${TMPDIR:-/tmp}/route-address-test"
mkdir -p "${LOGS}"
T0=${SECONDS}
TIMES=()

summary() {
  local rc=$?
  echo
  echo "=== times (hack/test.sh, $(nproc) cores; exit ${rc})"
  printf '%s\n' "${TIMES[@]}"
  printf '%-44s %6d s\n' "total" "$((SECONDS - T0))"
}
trap summary EXIT

# step NAME COMMAND...: runs a step and records its time.
step() {
  local name="$1" start=${SECONDS} rc=0
  shift
  echo "=== ${name}"
  "$@" || rc=$?
  TIMES+=("$(printf '%-44s %6d s%s' "${name}" "$((SECONDS - start))" "$([[ ${rc} == 0 ]] || echo "  FAILED (exit ${rc})")")")
  echo "=== ${name}: $((SECONDS - start)) s (total $((SECONDS - T0)) s)"
  return "${rc}"
}

echo "=== third-party programs: building in the background (log: ${LOGS}/third-party.log)"
(
  start=${SECONDS}
  nice -n 10 ./hack/build-third-party.sh >"${LOGS}/third-party.log" 2>&1
  echo "$((SECONDS - start))" >"${LOGS}/third-party.seconds"
) &
THIRD_PARTY=$!

# vet the e2e suite too: a test file without the e2e build tag that uses
# the suite's helpers compiles only with the tag.
vet() { go vet ./... && go vet -tags e2e ./...; }
step "go vet" vet
step "unit tests" go test -count=1 ./...
step "mutation check (hack/mutation.sh)" ./hack/mutation.sh
step "serving patch series (hack/verify-upstream.sh)" ./hack/verify-upstream.sh

third_party() {
  if ! wait "${THIRD_PARTY}"; then
    cat "${LOGS}/third-party.log"
    echo "FAIL: hack/build-third-party.sh"
    return 1
  fi
  grep -E '^(built|cached)' "${LOGS}/third-party.log"
  echo "hack/build-third-party.sh took $(cat "${LOGS}/third-party.seconds") s in the background"
}
step "wait for the third-party programs" third_party

# The suite's controller is built in the serving tree verify-upstream.sh
# left (the series applied, networking replaced), whose packages it compiled.
e2e() {
  SERVING_TREE="${REPO_ROOT_DIR}/.cache/upstream/verify/serving" \
    go test -count=1 -tags e2e -timeout 30m -v ./test/conformance/ 2>&1 | tee "${LOGS}/e2e.log" |
    grep -E '^(=== RUN|--- |    --- |\s+\w+_test\.go:|ok|FAIL|PASS|local)'
  return "${PIPESTATUS[0]}"
}
step "e2e conformance suite (local control plane)" e2e
