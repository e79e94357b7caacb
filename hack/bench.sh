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
# (defaults 1000, 10000, and the client limits sharedmain gives serving's
# binary: 5 and 10 per controller; -qps 200 -burst 400 gives the old runs)

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
BIN="$(mktemp -d)"
trap 'rm -rf "${BIN}"' EXIT

./hack/build-third-party.sh >&2
go build -o "${BIN}/controller" ./test/cmd/controller
go build -o "${BIN}/bench" ./test/cmd/bench
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
"${BIN}/bench" -controller "${BIN}/controller" "$@"
