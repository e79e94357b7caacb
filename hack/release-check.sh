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

# Runs hack/release.sh end to end against a local registry: go-containerregistry's
# registry on loopback, an empty base image pushed with crane (nothing else is
# reachable to pull a base from), then a release for linux/amd64 with
# KO_DOCKER_REPO pointing at it. Checks SHA256SUMS, the krew manifest's sha256,
# and that the resolved patches name, by digest, images in the registry that
# hold serving's controller and webhook built with the series. Not part of hack/test.sh.
#
# Usage: hack/release-check.sh

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
GGCR_VERSION=v0.22.1
TOOLS="${XDG_CACHE_HOME:-${HOME}/.cache}/route-address/tools/ggcr-${GGCR_VERSION}"
if [[ ! -x "${TOOLS}/registry" || ! -x "${TOOLS}/crane" ]]; then
  GOFLAGS=-mod=mod GOBIN="${TOOLS}" go install \
    "github.com/google/go-containerregistry/cmd/registry@${GGCR_VERSION}" \
    "github.com/google/go-containerregistry/cmd/crane@${GGCR_VERSION}"
fi
WORK="$(mktemp -d)"
PORT=$((20000 + RANDOM % 20000))
"${TOOLS}/registry" -port "${PORT}" >"${WORK}/registry.log" 2>&1 &
REGISTRY_PID=$!
trap 'kill "${REGISTRY_PID}" 2>/dev/null; rm -rf "${WORK}"' EXIT
REG="localhost:${PORT}"
for _ in $(seq 50); do curl -fsS "http://${REG}/v2/" >/dev/null 2>&1 && break; sleep 0.1; done

tar -cf "${WORK}/empty.tar" --files-from /dev/null
"${TOOLS}/crane" append --insecure --platform linux/amd64 -f "${WORK}/empty.tar" -t "${REG}/base" >/dev/null
KO_DOCKER_REPO="${REG}/route-address" KO_DEFAULTBASEIMAGE="${REG}/base" RELEASE_PLATFORMS=linux/amd64 \
  ./hack/release.sh v0.0.0-check "http://${REG}/releases/{VERSION}/{ARCHIVE}" "${WORK}/out" >"${WORK}/release.log" 2>&1 ||
  { cat "${WORK}/release.log"; exit 1; }

cd "${WORK}/out"
sha256sum -c SHA256SUMS
archive=kubectl-route_address_v0.0.0-check_linux_amd64.tar.gz
sum="$(sha256sum "${archive}" | cut -d' ' -f1)"
grep -q "sha256: \"${sum}\"" route-address.yaml || { echo "route-address.yaml lacks the archive's sha256 ${sum}"; exit 1; }
echo "krew manifest: ${archive} sha256 ${sum}"
declare -A want=([controller]=knative.dev/serving/pkg/reconciler/routeaddress [webhook]=route-address-externalname-fallback)
for cmd in controller webhook; do
  image="$(grep -o "${REG}/route-address/${cmd}-[0-9a-f]*@sha256:[0-9a-f]*" route-address-patches.yaml)"
  "${TOOLS}/crane" export --insecure "${image}" "${WORK}/${cmd}.tar"
  tar -tf "${WORK}/${cmd}.tar" 2>/dev/null | grep -qE "^/?ko-app/${cmd}\$" || { echo "${image} holds no /ko-app/${cmd}"; exit 1; }
  tar -xf "${WORK}/${cmd}.tar" -C "${WORK}" "$(tar -tf "${WORK}/${cmd}.tar" | grep -E "^/?ko-app/${cmd}\$")"
  # serving's own command, built with the series: its module is serving's,
  # and it holds the code the series adds (the routeaddress reconciler; the
  # networking key the webhook validates).
  go version -m "${WORK}/ko-app/${cmd}" | grep -qE "^\s+path\s+knative.dev/serving/cmd/${cmd}\$" ||
    { echo "${image}'s /ko-app/${cmd} is not knative.dev/serving/cmd/${cmd}"; exit 1; }
  grep -q "${want[${cmd}]}" "${WORK}/ko-app/${cmd}" || { echo "${image}'s /ko-app/${cmd} lacks ${want[${cmd}]}"; exit 1; }
  echo "${cmd}: ${image} holds /ko-app/${cmd}, knative.dev/serving/cmd/${cmd} with ${want[${cmd}]}"
done
echo "release checked against a local registry"
