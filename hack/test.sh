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
# control plane's, then the node's (and the Debian packages it runs on),
# then the ingresses'. The suite starts once the control plane's are built,
# as two runs at once (e2e_all, below), then the node's tests, with
# TestSkipper, TestContour and TestEnvoyGateway beside them once the
# ingresses are built. Each step prints its time and CPU, and a table of
# all of them is printed at the end, whether the run passed or not.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"

LOGS="${TMPDIR:-/tmp}/route-address-test"
mkdir -p "${LOGS}"
T0=${SECONDS}
TIMES=()

# cpu_of PID: the user and system CPU seconds of PID's children that it
# has waited for (/proc/PID/stat's cutime and cstime), "USER SYSTEM".
cpu_of() { sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{printf "%d %d\n", $14 / hz, $15 / hz}'; }

# Transparent huge pages for every process while the command runs, when it
# may set them (root), put back on exit: most of what the command does is
# Go's compiler, which on a 2-core VM here takes a third less CPU with them
# (client-go's packages compiled cold: 110 s before, 70 s after; system CPU
# 51 s before, 20 s after). THP_KEEP=1 leaves the setting alone.
THP=/sys/kernel/mm/transparent_hugepage/enabled
THP_BEFORE=""
if [[ "${THP_KEEP:-0}" != 1 && -w "${THP}" ]] && ! grep -q '\[always\]' "${THP}"; then
  before="$(sed -E 's/.*\[([a-z]+)\].*/\1/' "${THP}")"
  if echo always 2>/dev/null >"${THP}"; then
    THP_BEFORE="${before}"
    echo "=== transparent huge pages: always while the command runs (${before} before; THP_KEEP=1 leaves it)"
  fi
fi

# Every Go program the command builds is built as serving's release builds
# its images (ko: -trimpath, CGO_ENABLED=0), so that a package compiled for
# one step is the one every other step links: the serving tree's builds,
# ko's images of serving, the node's images, the test binaries. Built
# otherwise, each of those compiled serving and its dependencies again
# (ko's five commands: 302 CPU seconds on a cache that held them built
# without -trimpath). And without DWARF, which nothing here reads (a panic's
# stack comes from the symbol table): routeaddress's tests compiled and
# linked cold took 335 CPU seconds with it, 304 without. The scripts that
# set GOFLAGS for a command add to it.
export GOFLAGS="-trimpath -gcflags=all=-dwarf=false -ldflags=-w ${GOFLAGS:-}" CGO_ENABLED=0

summary() {
  local rc=$?
  [[ -z "${THP_BEFORE}" ]] || echo "${THP_BEFORE}" >"${THP}"
  echo
  echo "=== times (hack/test.sh, $(nproc) cores; exit ${rc}): wall, and the CPU (user + system) of what the step ran"
  printf '%s\n' "${TIMES[@]}"
  [[ ! -f "${LOGS}/parts" ]] || { echo "the e2e runs in them:"; cat "${LOGS}/parts"; }
  local group
  for group in control-plane ingresses node; do
    [[ -f "${LOGS}/third-party-${group}.seconds" ]] || continue
    printf '%-60s %6d s %6s s (in the background)\n' "third-party programs: ${group}" \
      "$(cat "${LOGS}/third-party-${group}.seconds")" "$(awk '{print $1 + $2}' "${LOGS}/third-party-${group}.cpu")"
  done
  read -r user system < <(cpu_of $$)
  printf '%-60s %6d s %6d s (user %d s, system %d s)\n' "total" "$((SECONDS - T0))" "$((user + system))" "${user}" "${system}"
}
trap summary EXIT

# step NAME COMMAND...: runs a step (in a subshell: its CPU is its own) and
# records its time.
step() {
  local name="$1" start=${SECONDS} rc=0 cpu
  shift
  echo "=== ${name}"
  cpu="$(mktemp)"
  (
    rc=0
    "$@" || rc=$?
    cpu_of "${BASHPID}" >"${cpu}"
    exit "${rc}"
  ) || rc=$?
  TIMES+=("$(printf '%-60s %6d s %6s s%s' "${name}" "$((SECONDS - start))" "$(awk '{print $1 + $2}' "${cpu}")" \
    "$([[ ${rc} == 0 ]] || echo "  FAILED (exit ${rc})")")")
  rm -f "${cpu}"
  echo "=== ${name}: $((SECONDS - start)) s (total $((SECONDS - T0)) s)"
  return "${rc}"
}

# build_third_party GROUP: one group of hack/build-third-party.sh, at a
# lower priority, its log, exit status, time and CPU in LOGS.
build_third_party() {
  local start=${SECONDS} rc=0
  nice -n 10 ./hack/build-third-party.sh "$1" >"${LOGS}/third-party-$1.log" 2>&1 || rc=$?
  cpu_of "${BASHPID}" >"${LOGS}/third-party-$1.cpu"
  echo "${rc}" >"${LOGS}/third-party-$1.rc"
  echo "$((SECONDS - start))" >"${LOGS}/third-party-$1.seconds"
}
echo "=== third-party programs: building in the background (logs: ${LOGS}/third-party-*.log)"
rm -f "${LOGS}"/third-party-*.{seconds,rc,cpu}
build_third_party control-plane &
# One build at a time: the node's (Skipper first) when the control plane's
# ends, then the ingresses', so that the node's tests can run beside the
# ingresses' runs.
{
  until [[ -f "${LOGS}/third-party-control-plane.seconds" ]]; do sleep 2; done
  build_third_party node
} &
{
  until [[ -f "${LOGS}/third-party-node.seconds" ]]; do sleep 2; done
  build_third_party ingresses
} &

# vet the e2e suite too: a test file without the e2e build tag that uses
# the suite's helpers compiles only with the tag.
vet() { go vet ./... && go vet -tags e2e ./... && go vet -tags e2e,node ./test/...; }
step "go vet" vet
# go test's own vet checks are a subset of go vet's, which ran on the same
# packages in the step before.
step "unit tests" go test -vet=off -count=1 ./...
step "mutation check (hack/mutation.sh)" ./hack/mutation.sh
step "serving patch series (hack/verify-upstream.sh)" ./hack/verify-upstream.sh

# built GROUP: waits for the background build of GROUP.
built() {
  until [[ -f "${LOGS}/third-party-$1.seconds" ]]; do sleep 2; done
  if [[ "$(cat "${LOGS}/third-party-$1.rc")" != 0 ]]; then
    cat "${LOGS}/third-party-$1.log"
    echo "FAIL: hack/build-third-party.sh $1"
    return 1
  fi
  grep -E '^(built|cached)' "${LOGS}/third-party-$1.log"
  echo "hack/build-third-party.sh $1 took $(cat "${LOGS}/third-party-$1.seconds") s in the background"
}

# own_netns COMMAND...: runs COMMAND in a network namespace of its own,
# with only its loopback up: its addresses, routes and ports are its own, so
# that two runs of the suite, each adding the webhook's address, a veth on
# 198.18.0.0/30 and the routes to its gateway stand-ins, do not meet.
own_netns() { unshare -n bash -c 'ip link set lo up && exec "$@"' _ "$@"; }

# The e2e suite builds in the serving tree verify-upstream.sh left (the
# series applied, networking replaced), whose packages it compiled: serving's
# binaries, and the node's images and serving's own e2e test.
export SERVING_TREE="${REPO_ROOT_DIR}/.cache/upstream/verify/serving"

# e2e_bin TAGS: where the suite's test binary built with the build tags
# TAGS is; e2e_binary TAGS builds it there, once for the runs that use it.
e2e_bin() { echo "${LOGS}/conformance-${1//,/-}.test"; }
e2e_binary() { go test -c -tags "$1" -o "$(e2e_bin "$1")" ./test/conformance/; }

# e2e LOG TEST-FLAGS...: runs the suite's binary built with E2E_TAGS (e2e
# unless set) in its package's directory, as go test would, its output in
# LOGS/LOG, the lines it prints prefixed with [LOG] when E2E_PREFIX=1, in a
# network namespace of its own when E2E_NETNS=1, and its time recorded.
e2e() {
  local log="$1" start=${SECONDS} rc=0 prefix=""
  shift
  [[ "${E2E_PREFIX:-0}" != 1 ]] || prefix="[${log%.log}] "
  (cd test/conformance && ${E2E_NETNS:+own_netns} "$(e2e_bin "${E2E_TAGS:-e2e}")" -test.v -test.timeout 30m "$@") 2>&1 |
    tee "${LOGS}/${log}" |
    grep --line-buffered -E '^(=== RUN|--- |    --- |\s+\w+_test\.go:|ok|FAIL|PASS|local)' | sed -u "s/^/${prefix}/"
  rc="${PIPESTATUS[0]}"
  printf '  %-58s %6d s%s\n' "${log%.log}" "$((SECONDS - start))" "$([[ ${rc} == 0 ]] || echo "  FAILED (exit ${rc})")" >>"${LOGS}/parts"
  return "${rc}"
}
rm -f "${LOGS}/parts"

# The suite spends most of its time waiting (leases expiring, namespaces
# deleted, resyncs), so it is split into two runs at once, each with a
# control plane of its own: "e2e-long" the tests that wait longest, "e2e"
# the others, then the node's tests; and beside them, once the ingresses are
# built, TestSkipper and TestContour on a control plane of their own, then
# TestEnvoyGateway on another (Envoy Gateway's Gateway API CRDs, v1.6, are
# not Contour's, v1.3, and a CRD is created once per control plane).
LONG_TESTS='TestNamespaceDeleted|TestHALeaderLostMidSwitch|TestMetricsFollowSwitch|TestHADemotionMetrics|TestHABucketsHolderKilledMidSwitch'
INGRESS_TESTS='TestSkipper|TestContour|TestEnvoyGateway'
e2e_all() {
  export E2E_PREFIX=1 E2E_NETNS=1
  e2e_binary e2e || return 1
  e2e e2e.log -test.skip "^(${LONG_TESTS}|${INGRESS_TESTS})$" &
  local suite=$!
  e2e e2e-long.log -test.run "^(${LONG_TESTS})$" &
  local long=$!
  {
    built ingresses >"${LOGS}/wait-ingresses.log" &&
      e2e e2e-ingresses.log -test.run '^(TestSkipper|TestContour)$' &&
      e2e e2e-envoy-gateway.log -test.run '^TestEnvoyGateway$'
  } &
  local ingresses=$!
  local rc=0
  wait "${suite}" || rc=1
  wait "${long}" || rc=1
  # The node's tests (build tag node) once both runs are over, beside the
  # ingresses' if they still run: they start a node beside a control plane
  # of their own (root; the Debian packages installed by the node's build),
  # in the host's network namespace, whose iptables its kube-proxy writes.
  { built node >"${LOGS}/wait-node.log" && e2e_binary e2e,node &&
    E2E_TAGS=e2e,node E2E_NETNS="" e2e e2e-node.log -test.run '^TestNode'; } || rc=1
  wait "${ingresses}" || rc=1
  cat "${LOGS}/wait-node.log" "${LOGS}/wait-ingresses.log"
  return "${rc}"
}
# serving's binaries as the pull requests leave them, built once for every
# run of the suite below (E2E_SERVING_BIN).
export E2E_SERVING_BIN="${LOGS}/serving-bin"
serving_binaries() { rm -rf "${E2E_SERVING_BIN}" && ./hack/build-serving.sh "${E2E_SERVING_BIN}"; }
step "serving's binaries (hack/build-serving.sh)" serving_binaries
step "wait for the control plane's programs" built control-plane
step "e2e: the suite as two runs, then the node's; Skipper, Contour, Envoy Gateway beside them" e2e_all
