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
(cd "${SERVING}" && GOFLAGS=-mod=mod go list -m all) > "${OUT}/verify/serving.modules.before"

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

echo "=== serving: apply each patch; its imports resolved from vendor/ as serving's CI does (-mod=vendor), built, gofmt"
# The networking bump, as hack/update-deps.sh would make it once the
# networking patch is released: here a replace of the patched tree, and
# vendor/ updated for it.
(cd "${SERVING}" && go mod edit -replace knative.dev/networking=../networking && GOFLAGS=-mod=mod go mod vendor)
git_ -C "${SERVING}" add -A
git_ -C "${SERVING}" commit -q -m "networking with the route-address keys (update-deps)"
for p in "${PATCHES}"/serving/*.patch; do
  git_ -C "${SERVING}" am -q "$p"
  # Every package and test of the tree resolved from vendor/ alone: a patch
  # that imports a package serving's vendor/ lacks fails here ("import
  # lookup disabled by -mod=vendor"), as serving's CI build would. vendor/
  # holds the modules' sources unchanged (checked below), so the build runs
  # in module mode and shares the build cache with the rest of CI; a
  # -mod=vendor compile of serving takes over 8 minutes more here.
  (cd "${SERVING}" && go list -mod=vendor -deps -test ./pkg/... ./cmd/... > /dev/null)
  (cd "${SERVING}" && GOFLAGS=-mod=mod go build ./pkg/... ./cmd/...)
  # One whose vendor/ differs from what go mod vendor makes of it fails here.
  (cd "${SERVING}" && GOFLAGS=-mod=mod go mod vendor)
  if [[ -n "$(git_ -C "${SERVING}" status --porcelain -- vendor)" ]]; then
    git_ -C "${SERVING}" status --short -- vendor | head
    echo "FAIL: serving/$(basename "$p"): vendor/ is not what go mod vendor makes"
    exit 1
  fi
  unformatted="$(cd "${SERVING}" && git_ diff --name-only HEAD~1 -- '*.go' ':!vendor' | xargs -r gofmt -l)"
  if [[ -n "${unformatted}" ]]; then
    echo "FAIL: serving/$(basename "$p"): gofmt -l: ${unformatted}"
    exit 1
  fi
  echo "applied, imports resolved from vendor/, built, gofmt-clean: serving/$(basename "$p")"
done

echo "=== zero new modules"
(cd "${NETWORKING}" && go list -m all) > "${OUT}/verify/networking.modules.after"
(cd "${SERVING}" && GOFLAGS=-mod=mod go list -m all | sed -e 's# => ../networking$##' \
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
# go.mod: the replace alone. go.sum: go mod vendor records the go.mod
# hashes of the modules in the graph it checks; nothing else may change
# (no module's code is added: see the module lists above).
if [[ "$(git_ -C "${SERVING}" diff base -- go.mod | grep -c '^[+-][^+-]')" != "1" ]]; then
  git_ -C "${SERVING}" diff base -- go.mod
  echo "FAIL: serving's go.mod changes beyond the replace of networking"
  status=1
elif other_sums="$(git_ -C "${SERVING}" diff base -- go.sum | { grep '^[+-][^+-]' || true; } | { grep -v '^+.*/go.mod h1:' || true; })" &&
  [[ -n "${other_sums}" ]]; then
  echo "${other_sums}"
  echo "FAIL: serving's go.sum changes beyond go.mod hashes"
  status=1
else
  echo "serving go.mod: only $(git_ -C "${SERVING}" diff base -- go.mod | grep '^+[^+]'); go.sum: $(git_ -C "${SERVING}" diff base -- go.sum | grep -c '^+[^+]') go.mod hashes added by go mod vendor"
fi
[[ "${status}" == 0 ]]

echo "=== networking: go vet, go test ./pkg/config/..."
(cd "${NETWORKING}" && go vet ./pkg/config/... && go test -count=1 ./pkg/config/...)

echo "=== serving: go build ./..., go vet, go test"
PKGS=(./pkg/reconciler/route/... ./pkg/reconciler/routeaddress/... ./cmd/...)
(cd "${SERVING}" && export GOFLAGS=-mod=mod && go build ./... && go vet "${PKGS[@]}" && go test -count=1 "${PKGS[@]}")
# The e2e test needs a cluster with serving; here it is compiled and vetted
# as serving's e2e jobs build it.
(cd "${SERVING}" && GOFLAGS=-mod=mod go vet -tags e2e ./test/e2e/routeaddress/)
echo "vetted with -tags e2e: knative.dev/serving/test/e2e/routeaddress"
echo "=== upstream patches verified"
