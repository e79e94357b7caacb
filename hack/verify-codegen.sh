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

# Fails when generated files differ from what hack/update-codegen.sh makes.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

# Snapshot what update-codegen.sh may rewrite, regenerate, compare, restore.
cp -a pkg config go.mod go.sum "${tmp}/"
"${REPO_ROOT_DIR}/hack/update-codegen.sh" >/dev/null

ret=0
for p in pkg config go.mod go.sum; do
  diff -Nur "${tmp}/${p}" "${p}" || ret=1
done

rm -rf pkg config go.mod go.sum
cp -a "${tmp}/pkg" "${tmp}/config" "${tmp}/go.mod" "${tmp}/go.sum" .

if [[ ${ret} -eq 0 ]]; then
  echo "Generated code is up to date."
else
  echo "ERROR: generated code is out of date; run ./hack/update-codegen.sh" >&2
  exit 1
fi
