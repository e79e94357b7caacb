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

# Generates the upstream pull requests as numbered patches: one series each
# against knative.dev/pkg, knative.dev/networking and knative.dev/serving, at the
# versions go.mod pins, from this repository's packages (import paths
# rewritten) and the hand-written hunks under hack/upstream/. docs/upstream.md
# describes the series.
#
# Usage: hack/upstream-patch.sh [OUT]   (default .cache/upstream, ignored)
# Leaves OUT/patches/{pkg,networking,serving}/NNNN-*.patch, and in
# OUT/{pkg,networking,serving} git trees with one commit per patch on top of the
# pristine module ("base" tag).

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
OUT="$(mkdir -p "${1:-.cache/upstream}" && cd "${1:-.cache/upstream}" && pwd)"
HUNKS="${REPO_ROOT_DIR}/hack/upstream"
RA=pkg/reconciler/routeaddress

go mod download knative.dev/serving knative.dev/networking knative.dev/pkg
SERVING_DIR="$(go list -m -f '{{.Dir}}' knative.dev/serving)"
NETWORKING_DIR="$(go list -m -f '{{.Dir}}' knative.dev/networking)"
PKG_DIR="$(go list -m -f '{{.Dir}}' knative.dev/pkg)"

git_() { git -c user.name="route-address" -c user.email="route-address@knative.dev" \
  -c commit.gpgsign=false -c core.autocrlf=false "$@"; }

# fresh DIR SRC: DIR becomes a git tree of the read-only module SRC.
fresh() {
  rm -rf "$1"
  cp -r "$2" "$1"
  chmod -R u+w "$1"
  git_ -C "$1" init -q
  git_ -C "$1" add -A
  git_ -C "$1" commit -q -m "$(basename "$2")"
  git_ -C "$1" tag base
}

# commit DIR SUBJECT BODY: one reviewable step.
commit() {
  git_ -C "$1" add -A
  git_ -C "$1" commit -q -m "$2" -m "$3"
}

# send SRC DST: copies one file of this repository into serving, with the
# import paths rewritten: pkg/networking/config, this repository's stand-in
# for networking's config package, becomes networking's.
send() {
  mkdir -p "$(dirname "$2")"
  sed -e 's#knative\.dev/route-address/pkg/networking/config#knative.dev/networking/pkg/config#g' \
    -e 's#knative\.dev/route-address/pkg/#knative.dev/serving/pkg/#g' "$1" > "$2"
}

# send_pkg DIR: sends the package DIR (its files, testdata included, not
# its subpackages) to the same path in serving, except the files named
# after it.
send_pkg() {
  local dir="$1"
  shift
  local f
  for f in "${dir}"/* "${dir}"/testdata/* "${dir}"/testdata/*/* "${dir}"/testdata/*/*/*; do
    [[ -f "$f" ]] || continue
    local skip=""
    local x
    for x in "$@"; do [[ "$(basename "$f")" == "$x" ]] && skip=y; done
    [[ -z "${skip}" ]] && send "$f" "${SERVING}/$f"
  done
  return 0
}

NETWORKING="${OUT}/networking"
SERVING="${OUT}/serving"
PKG="${OUT}/pkg"
fresh "${PKG}" "${PKG_DIR}"
fresh "${NETWORKING}" "${NETWORKING_DIR}"
# Module zips leave out symlinks: put back the one networking's config test
# reads, in the base commit.
mkdir -p "${NETWORKING}/pkg/config/testdata"
ln -s ../../../config/config-network.yaml "${NETWORKING}/pkg/config/testdata/config-network.yaml"
git_ -C "${NETWORKING}" add -A
git_ -C "${NETWORKING}" commit -q --amend --no-edit
git_ -C "${NETWORKING}" tag -f base >/dev/null
fresh "${SERVING}" "${SERVING_DIR}"
# And the ones serving's route config tests read (config-network.yaml is
# networking's, vendored upstream: here the networking tree next to it).
ln -s ../../../../networking/config/config-network.yaml "${SERVING}/config/core/configmaps/network.yaml"
mkdir -p "${SERVING}/pkg/reconciler/route/config/testdata"
for c in domain gc features network; do
  ln -s "../../../../../config/core/configmaps/${c}.yaml" "${SERVING}/pkg/reconciler/route/config/testdata/config-${c}.yaml"
done
# serving commits vendor/ (hack/update-deps.sh) and its CI builds with it;
# module zips carry none. The base gets the vendor/ serving would commit at
# this version, and each serving commit below the vendor/ changes that
# update-deps.sh would make for it (new packages it imports): generated
# code, in the patches but not in their reviewed size.
vendor_serving() { (cd "${SERVING}" && GOFLAGS=-mod=mod go mod vendor); }
vendor_serving
git_ -C "${SERVING}" add -A
git_ -C "${SERVING}" commit -q --amend --no-edit
git_ -C "${SERVING}" tag -f base >/dev/null

# --- pkg --------------------------------------------------------------------
git_ -C "${PKG}" apply "${HUNKS}/pkg-twolane.patch"
commit "${PKG}" "controller: an item added to the fast lane is not queued behind the slow lane" \
"The two-lane queue moved every slow-lane item into its consumer queue as
soon as the fast lane was empty, so an item enqueued (fast) right after a
global resync (slow) was handed out after every item of the resync: with
5 000 Routes, a new Route waited for all of them. Slow-lane items now move
into the consumer queue one at a time, only when it is empty (Get signals
it), so a fast item waits behind at most the one slow item already handed
over. TestFastNotBehindSlow: the fast item came out 101st of 101 before,
at most 2nd now."

# --- networking -------------------------------------------------------------
cp pkg/networking/config/route_address.go pkg/networking/config/route_address_test.go "${NETWORKING}/pkg/config/"
git_ -C "${NETWORKING}" apply "${HUNKS}/networking-config.patch"
commit "${NETWORKING}" "config: route-address-mode and route-address-externalname-fallback" \
"Two config-network keys for knative/serving#11821: how a Route's cluster-local
Services are addressed (externalname, the default and today's behaviour;
endpoints; endpointslices; endpointsandslices), and whether a load balancer
that cannot be resolved to IP addresses falls back to an ExternalName Service
(enabled, the default; disabled). Parsed as http-protocol and
system-internal-tls are: without regard to case, and a value that is not
allowed is an error naming the key, the value and the allowed values, which
the config webhooks refuse."

# --- serving ----------------------------------------------------------------
mkdir -p "${SERVING}/${RA}"
send_pkg "${RA}/resources/names"
send_pkg "${RA}/resources"
send_pkg "${RA}/plan"
send_pkg "${RA}/testing"
vendor_serving
commit "${SERVING}" "routeaddress: resources and the planner" \
"The pure parts of the routeaddress reconciler (knative/serving#11821): the
desired headless Service, Endpoints and EndpointSlices of each of a Route's
names under the route-address settings of config-network, and the planner
that diffs them against the cluster into ordered, gap-free operations
(immutable fields, safe ordering, never deleting what cannot be replaced)."

# config.go and its test are where the reconciler meets its configuration:
# in serving, the route reconciler's store and networking's Config.
send_pkg "${RA}" listers_test.go config.go config_test.go
for f in listers_test.go config.go config_test.go; do
  send "${HUNKS}/_serving/${RA}/${f}" "${SERVING}/${RA}/${f}"
done
send "${HUNKS}/_serving/test/e2e/routeaddress/route_address_test.go" "${SERVING}/test/e2e/routeaddress/route_address_test.go"
git_ -C "${SERVING}" apply "${HUNKS}/serving-listers.patch"
git_ -C "${SERVING}" apply "${HUNKS}/serving-controller.patch"
vendor_serving
commit "${SERVING}" "routeaddress: the reconciler, run by the controller" \
"ReconcileKind gathers a Route's KIngress, Services, Endpoints and our
EndpointSlices from listers, builds the desired objects, plans and executes.
The controller binary runs it (and watches only EndpointSlices managed by
it); the controller's role may update services/finalizers (the slices are
controlled by their Service). It reads the route-address settings from the
route reconciler's configuration store. The TableTests' Listers get an
EndpointSlice lister. test/e2e/routeaddress checks, on a cluster with a
managed route-address-mode, that a Route's Service is headless and its
endpoints hold the Ingress's addresses, and that the Route answers."

git_ -C "${SERVING}" apply "${HUNKS}/serving-route.patch"
vendor_serving
commit "${SERVING}" "route: leave the placeholder Services to routeaddress when it manages them" \
"With route-address-mode other than ExternalName the route reconciler does
not create, update or delete a Route's placeholder Services and Endpoints:
the routeaddress reconciler owns them. It still reports a Service or
Endpoints under one of the Route's names that the Route does not control,
with the same condition and reason as before (IngressReady=False, NotOwned).
With ExternalName (the default) nothing changes."

rm -rf "${OUT}/patches"
mkdir -p "${OUT}/patches"
git_ -C "${PKG}" format-patch -q --no-signature -o "${OUT}/patches/pkg" base
git_ -C "${NETWORKING}" format-patch -q --no-signature -o "${OUT}/patches/networking" base
git_ -C "${SERVING}" format-patch -q --no-signature -o "${OUT}/patches/serving" base
echo "patches in ${OUT}/patches:"
(cd "${OUT}/patches" && ls */*.patch)
echo "diff stat: pkg"
git_ -C "${PKG}" diff --shortstat base
echo "diff stat: networking"
git_ -C "${NETWORKING}" diff --shortstat base
echo "diff stat: serving"
git_ -C "${SERVING}" diff --shortstat base
