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

# Regenerates the deepcopy functions of our config types.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
export GOFLAGS=-mod=mod

echo "=== deepcopy-gen"
go run k8s.io/code-generator/cmd/deepcopy-gen \
  --go-header-file hack/boilerplate/boilerplate.go.txt \
  --output-file zz_generated.deepcopy.go \
  ./pkg/reconciler/routeaddress/config
