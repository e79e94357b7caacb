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
# and test/cmd/bench's other flags. The controller is serving's
# cmd/controller as the pull requests leave it (hack/build-serving.sh); these
# flags add controller binaries whose resync rows are measured too (-alt):
#   -queue-fix   the same, built against knative.dev/pkg with the two-lane
#                queue patch (hack/upstream/pkg-twolane.patch, the pkg pull
#                request)
#   -stock       serving v0.50.0's cmd/controller as released, in the
#                ExternalName column: serving without the series
#   -route-fix   the same, built against knative.dev/serving with the route
#                reconciler's fix alone (hack/upstream/serving-route-writes.patch,
#                the series' first serving pull request), in serving's module
#   -fixes       serving's cmd/controller with the series' two standalone pull
#                requests alone (serving 1 and 2: the route reconciler's fix,
#                the informers without managedFields), in the ExternalName
#                column
#   -at REV      the controller as hack/build-serving.sh of git revision REV
#                builds it
#   -alt NAME[@MODE]=BIN,…  binaries built elsewhere
# -queue-fix@MODE and -at@MODE REV measure theirs in MODE's column only.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
BIN="$(mktemp -d)"
trap 'rm -rf "${BIN}"' EXIT

./hack/build-third-party.sh control-plane >&2
./hack/build-serving.sh "${BIN}" >&2
go build -o "${BIN}/bench" ./test/cmd/bench

# patched NAME MODULE PATCH: a copy of MODULE with hack/upstream/PATCH
# applied, in BIN/NAME/module (printed).
patched() {
  local dir="${BIN}/$1/module"
  mkdir -p "${BIN}/$1"
  cp -r "$(go list -m -f '{{.Dir}}' "$2")" "${dir}"
  chmod -R u+w "${dir}"
  (cd "${dir}" && git apply "${REPO_ROOT_DIR}/hack/upstream/$3")
  echo "${dir}"
}

ARGS=()
ALTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -queue-fix | -queue-fix@*)
      BUILD_SERVING_REPLACE="knative.dev/pkg=$(patched queue-fix knative.dev/pkg pkg-twolane.patch)" \
        ./hack/build-serving.sh "${BIN}/queue-fix" >&2
      mv "${BIN}/queue-fix/controller" "${BIN}/controller-queue-fix"
      ALTS+=("queue-fix${1#-queue-fix}=${BIN}/controller-queue-fix")
      ;;
    -stock)
      ALTS+=("stock@ExternalName=${BIN}/controller-stock")
      ;;
    -route-fix)
      # serving's own cmd/controller, in serving's module with the patch.
      (cd "$(patched route-fix knative.dev/serving serving-route-writes.patch)" &&
        go build -o "${BIN}/controller-route-fix" ./cmd/controller)
      ALTS+=("route-fix@ExternalName=${BIN}/controller-route-fix")
      ;;
    -fixes)
      # The tree hack/build-serving.sh generated, at its second serving
      # commit; each commit carries its vendor/.
      git clone -q "${REPO_ROOT_DIR}/.cache/upstream/generated/serving" "${BIN}/fixes"
      git -C "${BIN}/fixes" checkout -q "$(git -C "${BIN}/fixes" rev-list --reverse base..HEAD | sed -n 2p)"
      (cd "${BIN}/fixes" && go build -mod=vendor -o "${BIN}/controller-fixes" ./cmd/controller)
      ALTS+=("fixes@ExternalName=${BIN}/controller-fixes")
      ;;
    -at | -at@*)
      git worktree add --detach "${BIN}/at-$2" "$2" >&2
      (cd "${BIN}/at-$2" && ./hack/build-serving.sh "${BIN}/at" >&2)
      mv "${BIN}/at/controller" "${BIN}/controller-at-$2"
      git worktree remove --force "${BIN}/at-$2"
      ALTS+=("at-$2${1#-at}=${BIN}/controller-at-$2")
      shift
      ;;
    -alt)
      # More binaries, NAME[@MODE]=BIN,…, measured with those above.
      ALTS+=("$2")
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
