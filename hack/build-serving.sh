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

# Builds serving's binaries as the e2e suite, the demo and the benchmarks run
# them, in knative.dev/serving's tree as the pull requests leave it
# (hack/upstream-patch.sh, regenerated when the files it reads changed),
# with networking as its pull request leaves it:
#   OUT/controller        serving's cmd/controller
#   OUT/webhook           serving's cmd/webhook
#   OUT/replica           serving's cmd/controller with its health probes off:
#                         the one change, so that replicas can share a host
#                         (the probes always listen on :8080)
#   OUT/controller-stock  serving v0.50.0's cmd/controller as released (the
#                         version go.mod pins), for rollbacks and side-by-side
#                         measurements
#
# Usage: hack/build-serving.sh OUT
#        hack/build-serving.sh --images OUT
#        hack/build-serving.sh --core OUT
# With --images, builds no binary here: ko (from the module proxy, built once
# into ~/.cache/route-address/tools) builds serving's cmd/controller and
# cmd/webhook in that tree, pushes their images to KO_DOCKER_REPO, and writes
# OUT/controller.yaml and OUT/webhook.yaml, the patches of serving's
# Deployments that install them (config/*-patch.yaml resolved).
# With --core, the same for all of serving's config/core in that tree:
# OUT/serving-core.yaml, what an install from that tree applies, every image
# (controller, webhook, activator, autoscaler, queue) built and pushed.
# BUILD_SERVING_REPLACE="MODULE=DIR …" builds with those modules replaced too.
# With SERVING_TREE set, builds in that serving tree as it is instead: one the
# series was applied to and that builds as it stands (verify-upstream.sh's,
# whose go.mod replaces networking by the patched tree), so that the test
# command reuses what verify-upstream.sh compiled.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
IMAGES=""
if [[ "${1:-}" == --images || "${1:-}" == --core ]]; then
  IMAGES="$1"
  shift
fi
if [[ $# != 1 ]]; then
  echo "usage: $0 [--images|--core] OUT" >&2
  exit 2
fi
if [[ -n "${IMAGES}" && -z "${KO_DOCKER_REPO:-}" ]]; then
  echo "$0 ${IMAGES}: set KO_DOCKER_REPO to the registry ko pushes the images to" >&2
  exit 2
fi
BIN="$(mkdir -p "$1" && cd "$1" && pwd)"
cd "${REPO_ROOT_DIR}"
GEN="${REPO_ROOT_DIR}/.cache/upstream/generated"
# One build at a time: a second would regenerate the tree under the first.
mkdir -p "$(dirname "${GEN}")"
exec 9>"${GEN}.lock"
flock 9
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
  # More replacements, MODULE=DIR … (hack/bench.sh's -queue-fix: pkg with its
  # pull request applied).
  for r in ${BUILD_SERVING_REPLACE:-}; do
    go mod edit -modfile="${MODS}/build.mod" -replace "${r}"
  done
fi
trap 'rm -rf "${MODS}" "${TREE}/test/_replica"' EXIT
if [[ -n "${IMAGES}" ]]; then
  KO_VERSION=v0.19.1
  TOOLS="${XDG_CACHE_HOME:-${HOME}/.cache}/route-address/tools/ko-${KO_VERSION}"
  if [[ ! -x "${TOOLS}/ko" ]]; then
    GOFLAGS="-mod=mod ${GOFLAGS:-}" GOBIN="${TOOLS}" go install "github.com/google/ko@${KO_VERSION}"
  fi
  if [[ "${IMAGES}" == --core ]]; then
    (cd "${TREE}" && GOFLAGS="-mod=mod ${MODFILE[*]} ${GOFLAGS:-}" "${TOOLS}/ko" resolve --insecure-registry -R -f config/core) >"${BIN}/serving-core.yaml"
    echo "wrote ${BIN}/serving-core.yaml: $(grep -c '@sha256:' "${BIN}/serving-core.yaml") image references"
    exit 0
  fi
  for cmd in controller webhook; do
    (cd "${TREE}" && GOFLAGS="-mod=mod ${MODFILE[*]} ${GOFLAGS:-}" "${TOOLS}/ko" resolve -f "${REPO_ROOT_DIR}/config/${cmd}-patch.yaml") >"${BIN}/${cmd}.yaml"
    echo "wrote ${BIN}/${cmd}.yaml: $(grep 'image:' "${BIN}/${cmd}.yaml" | tr -s ' ')"
  done
  exit 0
fi
# A directory whose name starts with _ is not one of the tree's packages
# (./...); built by its path.
mkdir -p "${TREE}/test/_replica"
sed 's/^\(\t*\)ctx := signals.NewContext()$/\1ctx := sharedmain.WithHealthProbesDisabled(signals.NewContext())/' \
  "${TREE}/cmd/controller/main.go" >"${TREE}/test/_replica/main.go"
grep -q WithHealthProbesDisabled "${TREE}/test/_replica/main.go" ||
  { echo "cmd/controller/main.go has no 'ctx := signals.NewContext()' to turn the probes off in" >&2; exit 1; }
(cd "${TREE}" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go build "${MODFILE[@]}" -o "${BIN}/" ./cmd/controller ./cmd/webhook &&
  GOFLAGS="-mod=mod ${GOFLAGS:-}" go build "${MODFILE[@]}" -o "${BIN}/replica" ./test/_replica)
echo "built ${BIN}/controller, webhook and replica in ${TREE}"
# In serving's module as go.mod pins it, with its own go.mod.
STOCK="$(go list -m -f '{{.Dir}}' knative.dev/serving)"
(cd "${STOCK}" && go build -o "${BIN}/controller-stock" ./cmd/controller)
echo "built ${BIN}/controller-stock in ${STOCK}"
