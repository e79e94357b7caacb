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

# Runs the e2e conformance suite (all of it but TestSkipper, TestContour and
# TestEnvoyGateway) against the kube-apiserver and kube-controller-manager of
# each Kubernetes version given, built from the module proxy
# (hack/build-third-party.sh with ROUTE_ADDRESS_KUBERNETES_VERSION; about 10
# minutes cold per version on 2 cores), and prints one markdown row per version for docs/operating.md's
# table "Versions". The test command runs the suite on third_party/kubernetes's
# version only.
#
# Usage: hack/e2e-kubernetes.sh VERSION... (for example v1.37.2 v1.36.3)
# Logs: $TMPDIR/route-address-e2e-kubernetes-VERSION.log. The controller is
# built in the serving tree hack/verify-upstream.sh leaves, if there is one,
# else as hack/build-serving.sh builds it.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
[[ $# -gt 0 ]] || {
  echo "usage: $0 VERSION... (for example v1.37.2)" >&2
  exit 2
}

TREE="${REPO_ROOT_DIR}/.cache/upstream/verify/serving"
if [[ -z "${SERVING_TREE:-}" && -d "${TREE}" ]]; then
  export SERVING_TREE="${TREE}"
fi

ROWS=()
rc=0
for version in "$@"; do
  log="${TMPDIR:-/tmp}/route-address-e2e-kubernetes-${version}.log"
  start=${SECONDS}
  commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +changes)"
  result=PASS
  if ! ROUTE_ADDRESS_KUBERNETES_VERSION="${version}" ./hack/build-third-party.sh control-plane >"${log}" 2>&1; then
    result="build failed"
  elif ! ROUTE_ADDRESS_KUBERNETES_VERSION="${version}" go test -count=1 -tags e2e -timeout 40m -v \
    -skip '^(TestSkipper|TestContour|TestEnvoyGateway)$' ./test/conformance/ >>"${log}" 2>&1; then
    result=FAIL
  fi
  [[ "${result}" == PASS ]] || rc=1
  passed="$(grep -c '^--- PASS' "${log}" || true)"
  failed="$(grep '^--- FAIL' "${log}" | awk '{print $3}' | paste -sd, - || true)"
  ROWS+=("| ${version} | $(date -u +%F) | ${commit} | ${result}: ${passed} passed${failed:+, failed ${failed}} | $((SECONDS - start)) s |")
  echo "${ROWS[-1]} (log: ${log})" >&2
done

echo "| Kubernetes (kube-apiserver, kube-controller-manager) | date | commit | e2e conformance suite | time, with the build |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
exit "${rc}"
