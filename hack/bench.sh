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

# Side-by-side performance of route-address against upstream on the local
# control plane. Prints one markdown table (docs/benchmarks.md has the
# results). Usage: hack/bench.sh [-n N] [-unrelated U] [-qps Q -burst B]
# [-rows ROW,…] [-dir DIR] (-dir keeps each column's control plane: a later
# run with the same -dir and -n measures the chosen rows on its Routes)
# (defaults 1000, 10000, and the client limits sharedmain gives serving's
# binary: 5 and 10 per controller; -qps 200 -burst 400 gives the old runs)
# and test/cmd/bench's other flags, plus four that add controller binaries
# whose resync rows are measured too (-alt):
#   -queue-fix   test/cmd/controller built against knative.dev/pkg with the
#                two-lane queue patch (hack/upstream/pkg-twolane.patch, the
#                pkg pull request) in a scratch go.mod
#   -stock       serving's stock controller (test/cmd/stockcontroller), in the
#                ExternalName column: serving without route-address
#   -route-fix   the same, built against knative.dev/serving with the route
#                reconciler's fix alone (hack/upstream/serving-route-writes.patch,
#                the series' first serving pull request) in a scratch go.mod
#   -at REV      test/cmd/controller as of git revision REV
# -queue-fix@MODE and -at@MODE REV measure theirs in MODE's column only.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
BIN="$(mktemp -d)"
trap 'rm -rf "${BIN}"' EXIT

./hack/build-third-party.sh control-plane >&2
go build -o "${BIN}/controller" ./test/cmd/controller
go build -o "${BIN}/bench" ./test/cmd/bench

# build_patched NAME MODULE PATCH CMD: builds CMD into BIN/controller-NAME
# against a copy of MODULE with hack/upstream/PATCH applied, replaced in a
# scratch go.mod.
build_patched() {
  local dir="${BIN}/$1"
  mkdir -p "${dir}"
  cp -r "$(go list -m -f '{{.Dir}}' "$2")" "${dir}/module"
  chmod -R u+w "${dir}/module"
  (cd "${dir}/module" && git apply "${REPO_ROOT_DIR}/hack/upstream/$3")
  cp go.mod go.sum "${dir}/"
  go mod edit -modfile="${dir}/go.mod" -replace "$2=${dir}/module"
  go build -modfile="${dir}/go.mod" -o "${BIN}/controller-$1" "$4"
}

ARGS=()
ALTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -queue-fix | -queue-fix@*)
      build_patched queue-fix knative.dev/pkg pkg-twolane.patch ./test/cmd/controller
      ALTS+=("queue-fix${1#-queue-fix}=${BIN}/controller-queue-fix")
      ;;
    -stock)
      go build -o "${BIN}/controller-stock" ./test/cmd/stockcontroller
      ALTS+=("stock@ExternalName=${BIN}/controller-stock")
      ;;
    -route-fix)
      build_patched route-fix knative.dev/serving serving-route-writes.patch ./test/cmd/stockcontroller
      ALTS+=("route-fix@ExternalName=${BIN}/controller-route-fix")
      ;;
    -at | -at@*)
      git worktree add --detach "${BIN}/at-$2" "$2" >&2
      (cd "${BIN}/at-$2" && go build -o "${BIN}/controller-at-$2" ./test/cmd/controller)
      git worktree remove --force "${BIN}/at-$2"
      ALTS+=("at-$2${1#-at}=${BIN}/controller-at-$2")
      shift
      ;;
    *) ARGS+=("$1") ;;
  esac
  shift
done
if [[ ${#ALTS[@]} -gt 0 ]]; then
  ARGS+=(-alt "$(IFS=,; echo "${ALTS[*]}")")
fi

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)"
"${BIN}/bench" -controller "${BIN}/controller" "${ARGS[@]}"
