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
# then the e2e conformance suite on a local control plane, and the node
# suite on a real node beside it (test/cluster/node.go: containerd,
# kubelet, kube-proxy; pods, and serving installed as pods).
#
# The third-party programs the e2e suite runs (hack/build-third-party.sh)
# build in the background from the start, at a lower priority, so that
# they use the CPU the steps before the e2e suite leave idle: first the
# control plane's, then the ingresses', then the node's (and the Debian
# packages it runs on). The suite starts once the control
# plane's are built, all of it but TestSkipper, TestContour and
# TestEnvoyGateway, which run once the ingresses are built, the first two
# against a control plane of their own, the third against another. Each
# step prints its time, and a table of all of them is printed at the end,
# whether the run passed or not.

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

# build_third_party GROUP: one group of hack/build-third-party.sh, at a
# lower priority, its log and time in LOGS.
build_third_party() {
  local start=${SECONDS} rc=0
  nice -n 10 ./hack/build-third-party.sh "$1" >"${LOGS}/third-party-$1.log" 2>&1 || rc=$?
  echo "$((SECONDS - start))" >"${LOGS}/third-party-$1.seconds"
  return "${rc}"
}
echo "=== third-party programs: building in the background (logs: ${LOGS}/third-party-*.log)"
rm -f "${LOGS}"/third-party-*.seconds
build_third_party control-plane &
CONTROL_PLANE=$!
# One build at a time: the ingresses' starts when the control plane's ends.
{
  until [[ -f "${LOGS}/third-party-control-plane.seconds" ]]; do sleep 2; done
  build_third_party ingresses
} &
INGRESSES=$!
{
  until [[ -f "${LOGS}/third-party-ingresses.seconds" ]]; do sleep 2; done
  build_third_party node
} &
NODE=$!

# vet the e2e suite too: a test file without the e2e build tag that uses
# the suite's helpers compiles only with the tag.
vet() { go vet ./... && go vet -tags e2e ./... && go vet -tags e2e,node ./test/...; }
step "go vet" vet
step "unit tests" go test -count=1 ./...
step "mutation check (hack/mutation.sh)" ./hack/mutation.sh
step "serving patch series (hack/verify-upstream.sh)" ./hack/verify-upstream.sh

# built GROUP PID: waits for the background build of GROUP.
built() {
  if ! wait "$2"; then
    cat "${LOGS}/third-party-$1.log"
    echo "FAIL: hack/build-third-party.sh $1"
    return 1
  fi
  grep -E '^(built|cached)' "${LOGS}/third-party-$1.log"
  echo "hack/build-third-party.sh $1 took $(cat "${LOGS}/third-party-$1.seconds") s in the background"
}

# e2e LOG go-test-flags...: the e2e suite, its output in LOGS/LOG. The
# controller is built in the serving tree verify-upstream.sh left (the
# series applied, networking replaced), whose packages it compiled.
e2e() {
  local log="$1"
  shift
  SERVING_TREE="${REPO_ROOT_DIR}/.cache/upstream/verify/serving" \
    go test -count=1 -tags "${E2E_TAGS:-e2e}" -timeout 30m -v "$@" ./test/conformance/ 2>&1 | tee "${LOGS}/${log}" |
    grep -E '^(=== RUN|--- |    --- |\s+\w+_test\.go:|ok|FAIL|PASS|local)'
  return "${PIPESTATUS[0]}"
}
INGRESS_TESTS='^(TestSkipper|TestContour|TestEnvoyGateway)$'
step "wait for the control plane's programs" built control-plane "${CONTROL_PLANE}"
step "e2e conformance suite (local control plane)" e2e e2e.log -skip "${INGRESS_TESTS}"
step "wait for the ingresses (Skipper, Contour, Envoy Gateway)" built ingresses "${INGRESSES}"
step "e2e: Skipper and Contour" e2e e2e-ingresses.log -run '^(TestSkipper|TestContour)$'
# Its own control plane: Envoy Gateway's Gateway API CRDs (v1.6) are not
# Contour's (v1.3), and a CRD is created once per control plane.
step "e2e: Envoy Gateway" e2e e2e-envoy-gateway.log -run '^TestEnvoyGateway$'
step "wait for the node's programs (kubelet, kube-proxy, kube-scheduler, containerd)" built node "${NODE}"
# The node suite (build tag node): its tests start a node beside the control
# plane (root; the Debian packages installed by the build above).
node_e2e() { E2E_TAGS=e2e,node e2e e2e-node.log -run '^TestNode'; }
step "e2e: the node (serving as pods, kube-proxy)" node_e2e
