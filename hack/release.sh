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

# Builds a release into OUT (default .cache/release/VERSION):
#   - kubectl-route_address_VERSION_OS_ARCH.tar.gz for linux, darwin and
#     windows on amd64 and arm64 (the plugin, with -X …/cli.Version=VERSION,
#     and LICENSE), and SHA256SUMS;
#   - route-address.yaml, the krew manifest: each platform's archive at
#     URL_TEMPLATE with {VERSION} and {ARCHIVE} filled in, its real sha256,
#     and the RBAC a user needs as caveats;
#   - with KO_DOCKER_REPO set, route-address-patches.yaml: the patches of
#     serving's controller and webhook Deployments (config/*-patch.yaml)
#     with serving's own images built by ko in serving v0.50.0 with the pull
#     requests applied (hack/build-serving.sh --images), pushed to
#     KO_DOCKER_REPO.
#
# Usage: hack/release.sh VERSION URL_TEMPLATE [OUT]
#   e.g. hack/release.sh v0.1.0 'https://github.com/OWNER/route-address/releases/download/{VERSION}/{ARCHIVE}'

set -o errexit
set -o nounset
set -o pipefail

if [[ $# -lt 2 || "$1" != v* || "$2" != *"{ARCHIVE}"* ]]; then
  echo "usage: $0 VERSION URL_TEMPLATE [OUT]   (VERSION like v0.1.0; URL_TEMPLATE holds {ARCHIVE}, and may hold {VERSION})" >&2
  exit 2
fi
VERSION="$1"
URL_TEMPLATE="$2"
REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
OUT="$(mkdir -p "${3:-.cache/release/${VERSION}}" && cd "${3:-.cache/release/${VERSION}}" && pwd)"
# RELEASE_PLATFORMS (space-separated OS/ARCH) narrows the platforms, for a
# try of the script.
read -r -a PLATFORMS <<<"${RELEASE_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"

manifest="${OUT}/route-address.yaml"
cat >"${manifest}" <<YAML
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: route-address
spec:
  version: ${VERSION}
  homepage: https://github.com/knative/serving/issues/11821
  shortDescription: Preview and follow Knative route-address-mode switches
  description: |
    Shows what switching Knative Serving's route-address-mode would do to
    every Route's cluster-local Services (headless Services with Endpoints
    and/or EndpointSlices instead of ExternalName), with the controller's
    own planner: each name's shape now and then, the ordered operations,
    Service recreates, fallbacks and objects the Route does not control;
    follows a switch (status --watch), and cleans up after a rollback.
    plan, status and version only read; cleanup writes.
  caveats: |
    The plugin needs the ClusterRole route-address-plugin-reader of
    config/210-plugin-clusterroles.yaml in the route-address repository
    (get/list on routes, ingresses.networking.internal.knative.dev,
    services, endpoints and endpointslices; get on config-network,
    config-domain and the controller Deployment, list on leases, in
    knative-serving; get and list on namespaces, to see their
    route-address-mode annotations; status --watch also watches what it
    lists); cleanup also needs route-address-plugin-cleanup.
  platforms:
YAML

: >"${OUT}/SHA256SUMS"
for platform in "${PLATFORMS[@]}"; do
  os="${platform%/*}"
  arch="${platform#*/}"
  bin=kubectl-route_address
  [[ "${os}" == windows ]] && bin="${bin}.exe"
  archive="kubectl-route_address_${VERSION}_${os}_${arch}.tar.gz"
  work="$(mktemp -d)"
  CGO_ENABLED=0 GOOS="${os}" GOARCH="${arch}" go build -trimpath \
    -ldflags "-s -w -X knative.dev/route-address/pkg/preview/cli.Version=${VERSION}" \
    -o "${work}/${bin}" ./cmd/kubectl-route_address
  cp LICENSE "${work}/"
  tar -C "${work}" --owner=0 --group=0 --mtime='2026-01-01 00:00:00Z' -czf "${OUT}/${archive}" "${bin}" LICENSE
  rm -rf "${work}"
  sum="$(sha256sum "${OUT}/${archive}" | cut -d' ' -f1)"
  echo "${sum}  ${archive}" >>"${OUT}/SHA256SUMS"
  url="${URL_TEMPLATE//\{VERSION\}/${VERSION}}"
  url="${url//\{ARCHIVE\}/${archive}}"
  cat >>"${manifest}" <<YAML
  - selector:
      matchLabels:
        os: ${os}
        arch: ${arch}
    uri: ${url}
    sha256: "${sum}"
    bin: ${bin}
YAML
  echo "built ${archive} (sha256 ${sum})"
done
echo "wrote ${manifest}"

if [[ -z "${KO_DOCKER_REPO:-}" ]]; then
  echo "KO_DOCKER_REPO is not set: the controller and webhook images are not built"
  exit 0
fi
./hack/build-serving.sh --images "${OUT}/images"
cat "${OUT}/images/controller.yaml" <(echo ---) "${OUT}/images/webhook.yaml" >"${OUT}/route-address-patches.yaml"
rm -rf "${OUT}/images"
echo "wrote ${OUT}/route-address-patches.yaml (images in ${KO_DOCKER_REPO}):"
grep 'image:' "${OUT}/route-address-patches.yaml"
