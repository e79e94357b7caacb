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

# The project's test command (README.md): verifies generated code, vets and
# runs every unit test, runs the mutation check on the routeaddress tree,
# verifies the upstream patch series against serving
# and networking, then the e2e conformance suite on a local control plane
# when one can be started.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"

echo "=== verify-codegen"
./hack/verify-codegen.sh

echo "=== go vet"
go vet ./...

echo "=== unit tests"
go test -count=1 ./...

echo "=== mutation check (hack/mutation.sh: gremlins on the routeaddress tree, efficacy >= 95 %, mutant coverage >= 90 %)"
./hack/mutation.sh

echo "=== upstream patch series (docs/upstream.md): applied to pkg, networking and serving, built, vetted, tested"
./hack/verify-upstream.sh

echo "=== e2e conformance suite (local control plane: etcd, kube-apiserver, kube-controller-manager, CoreDNS)"
./hack/build-third-party.sh
go test -count=1 -tags e2e -timeout 30m -v ./test/conformance/ 2>&1 | tee "${TMPDIR:-/tmp}/route-address-e2e.log" | grep -E '^(=== RUN|--- |    --- |\s+\w+_test\.go:|ok|FAIL|PASS|local)'
exit "${PIPESTATUS[0]}"
