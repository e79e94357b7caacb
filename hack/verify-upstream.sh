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

# Verifies the upstream patch series (hack/upstream-patch.sh): applies the
# patches one by one to fresh knative.dev/pkg (its controller package's
# tests run), knative.dev/networking and knative.dev/serving trees, builds each step, then builds, vets and tests the patched trees,
# and checks that serving needs no module it did not need before (its
# go.mod unchanged but for a replace of networking by the patched tree).
#
# Usage: hack/verify-upstream.sh [OUT]   (default .cache/upstream, ignored)

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
OUT="$(mkdir -p "${1:-.cache/upstream}" && cd "${1:-.cache/upstream}" && pwd)"

./hack/upstream-patch.sh "${OUT}/generated" | sed -n '/^diff stat/,$p'
PATCHES="${OUT}/generated/patches"
NETWORKING="${OUT}/verify/networking"
SERVING="${OUT}/verify/serving"
PKG="${OUT}/verify/pkg"
mkdir -p "${OUT}/verify"

git_() { git -c user.name="route-address" -c user.email="route-address@knative.dev" \
  -c commit.gpgsign=false "$@"; }
# fresh DIR: the pristine base of the generated tree DIR's namesake.
fresh() {
  rm -rf "$1"
  git_ clone -q "${OUT}/generated/$(basename "$1")" "$1"
  git_ -C "$1" checkout -q --detach base
}
fresh "${PKG}"
fresh "${NETWORKING}"
fresh "${SERVING}"

# The modules each tree builds with, before the patches.
(cd "${NETWORKING}" && go list -m all) > "${OUT}/verify/networking.modules.before"
(cd "${SERVING}" && go list -m all) > "${OUT}/verify/serving.modules.before"

echo "=== pkg: apply each patch; build, vet and test ./controller/... (with -race)"
for p in "${PATCHES}"/pkg/*.patch; do
  git_ -C "${PKG}" am -q "$p"
  echo "applied: pkg/$(basename "$p")"
done
(cd "${PKG}" && go build ./controller/... && go vet ./controller/... && go test -count=1 -race ./controller/...)

echo "=== networking: apply and build each patch"
for p in "${PATCHES}"/networking/*.patch; do
  git_ -C "${NETWORKING}" am -q "$p"
  (cd "${NETWORKING}" && go build ./...)
  echo "applied and built: networking/$(basename "$p")"
done

echo "=== serving: apply and build each patch (networking replaced by the patched tree)"
(cd "${SERVING}" && go mod edit -replace knative.dev/networking=../networking)
for p in "${PATCHES}"/serving/*.patch; do
  git_ -C "${SERVING}" am -q "$p"
  (cd "${SERVING}" && go build ./pkg/... ./cmd/...)
  echo "applied and built: serving/$(basename "$p")"
done

echo "=== zero new modules"
(cd "${NETWORKING}" && go list -m all) > "${OUT}/verify/networking.modules.after"
(cd "${SERVING}" && go list -m all | sed -e 's# => ../networking$##' \
  -e "s#^knative.dev/networking .*#$(grep '^knative.dev/networking ' "${OUT}/verify/serving.modules.before")#") \
  > "${OUT}/verify/serving.modules.after"
status=0
for m in networking serving; do
  if ! diff -u "${OUT}/verify/${m}.modules.before" "${OUT}/verify/${m}.modules.after"; then
    echo "FAIL: the patches change the modules ${m} builds with"
    status=1
  else
    echo "${m}: $(wc -l < "${OUT}/verify/${m}.modules.after") modules before and after the patches, none new"
  fi
done
if [[ "$(git_ -C "${SERVING}" diff base -- go.mod go.sum | grep -c '^[+-][^+-]')" != "1" ]]; then
  git_ -C "${SERVING}" diff base -- go.mod go.sum
  echo "FAIL: serving's go.mod/go.sum change beyond the replace of networking"
  status=1
else
  echo "serving go.mod: only $(git_ -C "${SERVING}" diff base -- go.mod | grep '^+[^+]')"
fi
[[ "${status}" == 0 ]]

echo "=== networking: go vet, go test ./pkg/config/..."
(cd "${NETWORKING}" && go vet ./pkg/config/... && go test -count=1 ./pkg/config/...)

echo "=== serving: go build ./..., go vet, go test"
PKGS=(./pkg/reconciler/route/... ./pkg/reconciler/routeaddress/... ./cmd/...)
(cd "${SERVING}" && go build ./... && go vet "${PKGS[@]}" && go test -count=1 "${PKGS[@]}")
echo "=== upstream patches verified"
