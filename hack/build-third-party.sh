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

# Builds the third-party programs the local control plane runs, each from its
# own Go module under third_party/, into a cache outside the repository keyed
# by version (see test/cluster.BinDir). A program already in the cache is not
# rebuilt, so a second run takes seconds. Nothing is downloaded but Go modules
# and Debian's prometheus package.
#
# Usage: hack/build-third-party.sh [control-plane] [ingresses] [skipper]
#   control-plane  etcd, kube-apiserver, kube-controller-manager, CoreDNS,
#                  promtool: what every e2e test needs
#   ingresses      Skipper, Contour and Envoy Gateway: TestSkipper, TestContour
#                  and TestEnvoyGateway
#   skipper        Skipper alone: the demo
# With no argument, control-plane and ingresses.
#
# ROUTE_ADDRESS_KUBERNETES_VERSION=vX.Y.Z builds that kube-apiserver and
# kube-controller-manager instead of third_party/kubernetes's (test/cluster
# reads the same variable): from a scratch copy of that module with each
# k8s.io/kubernetes and staging version replaced, tidied (hack/e2e-kubernetes.sh).

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"

BIN_DIR="${ROUTE_ADDRESS_BIN_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/route-address/bin}"
# Keep in step with test/cluster/cluster.go.
K8S_DEFAULT_VERSION=v1.34.2
K8S_VERSION="${ROUTE_ADDRESS_KUBERNETES_VERSION:-${K8S_DEFAULT_VERSION}}"
ETCD_VERSION=v3.6.16
COREDNS_VERSION=v1.14.7
SKIPPER_VERSION=v0.27.54
CONTOUR_VERSION=v1.33.6
ENVOY_GATEWAY_VERSION=v1.9.1
PROMTOOL_DIR=promtool-debian
# The programs build with cgo where the platform has it, as they always have
# here (kubelet's own build needs it), whatever CGO_ENABLED the caller set
# for its own builds (hack/test.sh); Skipper is static (below).
unset CGO_ENABLED

# build MODULE-DIR OUT-DIR LDFLAGS NAME=PACKAGE...: builds each package
# without a symbol table or DWARF (-s -w: a shorter link; a panic still
# prints its stack).
build() {
  local mod="$1" out="$2" ldflags="$3"
  shift 3
  local pair name pkg
  for pair in "$@"; do
    name="${pair%%=*}"
    pkg="${pair#*=}"
    if [[ -x "${out}/${name}" ]]; then
      echo "cached: ${out}/${name}"
      continue
    fi
    echo "building ${name} (${pkg}) into ${out} (first run on this machine: several minutes)"
    mkdir -p "${out}"
    local start=${SECONDS}
    (cd "${MOD_DIRS[${mod}]:-${REPO_ROOT_DIR}/third_party/${mod}}" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go build -ldflags "-s -w ${ldflags}" -o "${out}/${name}" "${pkg}")
    echo "built ${name} in $((SECONDS - start))s"
  done
}

k8s_minor="${K8S_VERSION#v1.}"
k8s_minor="${k8s_minor%%.*}"
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=${K8S_VERSION}"
k8s_ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${k8s_minor}"

# Module directories that are not third_party/NAME.
declare -A MOD_DIRS=()

# kubernetes_module: for a version other than third_party/kubernetes's, a
# scratch module in BIN_DIR that requires k8s.io/kubernetes at that version
# and replaces each staging module its go.mod names (./staging/src/k8s.io/X)
# with X at the matching v0.Y.Z, tidied: its go.sum is the module proxy's and
# the checksum database's.
kubernetes_module() {
  [[ "${K8S_VERSION}" != "${K8S_DEFAULT_VERSION}" ]] || return 0
  local dir="${BIN_DIR}/kubernetes-${K8S_VERSION}/module"
  MOD_DIRS[kubernetes]="${dir}"
  [[ ! -f "${dir}/go.sum" ]] || return 0
  echo "resolving k8s.io/kubernetes ${K8S_VERSION} in ${dir}"
  mkdir -p "${dir}"
  local upstream
  upstream="$(cd "${dir}" && go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  {
    echo "module knative.dev/route-address/third_party/kubernetes-${K8S_VERSION}"
    echo
    echo "go 1.26"
    echo
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    echo
    echo "replace ("
    sed -n "s|^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*|\t\1 => \1 v0.${K8S_VERSION#v1.}|p" "${upstream}"
    echo ")"
  } >"${dir}/go.mod"
  cat >"${dir}/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  (cd "${dir}" && go mod tidy)
}

control_plane() {
  kubernetes_module
  build etcd "${BIN_DIR}/etcd-${ETCD_VERSION}" "" etcd=go.etcd.io/etcd/server/v3
  # CoreDNS with the plugins the Corefile uses only (third_party/coredns/main.go).
  build coredns "${BIN_DIR}/coredns-${COREDNS_VERSION}-kubernetes" "" coredns=.
  build kubernetes "${BIN_DIR}/kubernetes-${K8S_VERSION}" "${k8s_ldflags}" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
  # promtool: Debian's, from the prometheus package, unpacked (not installed:
  # no service starts); building it from its module took 10 minutes on 2 cores.
  if [[ -x "${BIN_DIR}/${PROMTOOL_DIR}/promtool" ]]; then
    echo "cached: ${BIN_DIR}/${PROMTOOL_DIR}/promtool"
  else
    echo "unpacking promtool from Debian's prometheus package into ${BIN_DIR}/${PROMTOOL_DIR}"
    deb="$(mktemp -d)"
    (cd "${deb}" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus; }; } &&
      dpkg-deb -x prometheus_*.deb root)
    mkdir -p "${BIN_DIR}/${PROMTOOL_DIR}"
    cp "${deb}/root/usr/bin/promtool" "${BIN_DIR}/${PROMTOOL_DIR}/promtool"
    rm -rf "${deb}"
    echo "built promtool: $("${BIN_DIR}/${PROMTOOL_DIR}/promtool" --version 2>&1 | head -1)"
  fi
}

# Skipper: the ingress the e2e suite and the demo route requests through
# (about 9 minutes cold on 2 cores; 215 MB). Static, so that the node runs
# the same binary in an image with nothing else.
skipper() {
  CGO_ENABLED=0 build skipper "${BIN_DIR}/skipper-${SKIPPER_VERSION}-static" "" skipper=github.com/zalando/skipper/cmd/skipper
}

ingresses() {
  skipper
  # Contour: a Gateway API implementation whose control plane the e2e suite
  # runs (no Envoy), with the CRD files of its module (its own and the Gateway
  # API's) copied next to it (about 7 minutes cold on 2 cores; 87 MB).
  CONTOUR_DIR="${BIN_DIR}/contour-${CONTOUR_VERSION}"
  build contour "${CONTOUR_DIR}" "" contour=github.com/projectcontour/contour/cmd/contour
  if [[ ! -f "${CONTOUR_DIR}/gateway-api-crds.yaml" ]]; then
    mod_dir="$(cd "${REPO_ROOT_DIR}/third_party/contour" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go list -m -f '{{.Dir}}' github.com/projectcontour/contour)"
    cp "${mod_dir}/examples/contour/01-crds.yaml" "${CONTOUR_DIR}/contour-crds.yaml"
    cp "${mod_dir}/examples/gateway/00-crds.yaml" "${CONTOUR_DIR}/gateway-api-crds.yaml"
    chmod 0644 "${CONTOUR_DIR}"/*.yaml
  fi
  # Envoy Gateway: a Gateway API implementation whose control plane the e2e
  # suite runs (no Envoy), with xdsdump (third_party/envoy-gateway/xdsdump),
  # which reads what its xDS server serves, and the CRD files of its module
  # (the Gateway API's standard channel and its own) copied next to them
  # without their Helm conditionals.
  EG_DIR="${BIN_DIR}/envoy-gateway-${ENVOY_GATEWAY_VERSION}"
  build envoy-gateway "${EG_DIR}" "" envoy-gateway=github.com/envoyproxy/gateway/cmd/envoy-gateway \
    xdsdump=knative.dev/route-address/third_party/envoy-gateway/xdsdump
  if [[ ! -f "${EG_DIR}/envoy-gateway-crds.yaml" ]]; then
    mod_dir="$(cd "${REPO_ROOT_DIR}/third_party/envoy-gateway" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go list -m -f '{{.Dir}}' github.com/envoyproxy/gateway)"
    crds="${mod_dir}/charts/gateway-crds-helm/templates"
    sed '/^{{/d' "${crds}/standard-gatewayapi-crds.yaml" >"${EG_DIR}/gateway-api-crds.yaml"
    sed '/^{{/d' "${crds}"/generated/*.yaml >"${EG_DIR}/envoy-gateway-crds.yaml.tmp"
    mv "${EG_DIR}/envoy-gateway-crds.yaml.tmp" "${EG_DIR}/envoy-gateway-crds.yaml"
  fi
}

# The node (test/cluster/node.go): Skipper (its gateway pod), kubelet,
# kube-proxy and kube-scheduler from the control plane's Kubernetes module, and the Debian packages that
# run pods (containerd, runc, the CNI plugins, iptables, conntrack),
# installed when missing.
node() {
  skipper
  build kubernetes "${BIN_DIR}/kubernetes-${K8S_VERSION}" "${k8s_ldflags}" \
    kubelet=k8s.io/kubernetes/cmd/kubelet \
    kube-proxy=k8s.io/kubernetes/cmd/kube-proxy \
    kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler
  local pkgs=(containerd runc containernetworking-plugins iptables conntrack) missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep -q "install ok installed" || missing+=("${p}")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

groups=("$@")
[[ $# -gt 0 ]] || groups=(control-plane ingresses)
for group in "${groups[@]}"; do
  case "${group}" in
    control-plane) control_plane ;;
    ingresses) ingresses ;;
    skipper) skipper ;;
    node) node ;;
    *)
      echo "unknown group ${group}: want control-plane, ingresses, skipper or node" >&2
      exit 2
      ;;
  esac
done
