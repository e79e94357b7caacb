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

# Builds the controller the e2e suite, the demo and the benchmarks run in
# knative.dev/serving's tree as the pull requests leave it
# (hack/upstream-patch.sh, regenerated when the files it reads changed):
# test/_serving/controller/main.go, serving's route, routeaddress,
# domainmapping and labeler controllers, with networking as its pull request
# leaves it.
#
# Usage: hack/build-serving.sh OUT   (writes OUT/controller)
# With SERVING_TREE set, builds in that serving tree as it is instead: one the
# series was applied to and that builds as it stands (verify-upstream.sh's,
# whose go.mod replaces networking by the patched tree), so that the test
# command reuses what verify-upstream.sh compiled.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# != 1 ]]; then
  echo "usage: $0 OUT" >&2
  exit 2
fi
BIN="$(mkdir -p "$1" && cd "$1" && pwd)"
cd "${REPO_ROOT_DIR}"
GEN="${REPO_ROOT_DIR}/.cache/upstream/generated"
MODS="$(mktemp -d)"
MODFILE=()
if [[ -n "${SERVING_TREE:-}" ]]; then
  TREE="$(cd "${SERVING_TREE}" && pwd)"
else
  TREE="${GEN}/serving"
  ./hack/upstream-patch.sh --if-changed "${GEN}" | sed -n '1p;/^diff stat: serving/,$p'
  # serving's go.mod requires the released networking; the tree builds with
  # the patched one next to it, as verify-upstream.sh's update-deps step
  # does, through a copy of go.mod so that the tree stays as the series left
  # it.
  cp "${TREE}/go.mod" "${MODS}/build.mod"
  cp "${TREE}/go.sum" "${MODS}/build.sum"
  MODFILE=(-modfile="${MODS}/build.mod")
  go mod edit -modfile="${MODS}/build.mod" -replace "knative.dev/networking=${GEN}/networking"
fi
trap 'rm -rf "${MODS}" "${TREE}/test/_serving"' EXIT
mkdir -p "${TREE}/test/_serving/controller"
cp test/_serving/controller/main.go "${TREE}/test/_serving/controller/"
# A directory whose name starts with _ is not one of the tree's packages
# (./...); built by its path.
(cd "${TREE}" && GOFLAGS=-mod=mod go build "${MODFILE[@]}" -o "${BIN}/controller" ./test/_serving/controller)
echo "built ${BIN}/controller in ${TREE}"
