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

# The one-command demo: builds what is missing, starts a local control plane
# (etcd, kube-apiserver, kube-controller-manager, CoreDNS), the controller
# and two Skipper ingresses on loopback (one reading v1 Endpoints, its
# default, one reading EndpointSlices), creates a Route with a tag whose
# KIngress reports a DomainInternal and an Ingress that sends
# hello.example.com through Skipper to the Route's Service, then switches
# route-address-mode from externalname to endpointslices and to
# endpointsandslices and shows the Services, Endpoints, EndpointSlices, DNS
# answers and what Skipper answers. As root, a stand-in for the internal
# gateway answers inside a network namespace, so requests get a real reply.
# Everything keeps running until Ctrl-C.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
WORK="${DEMO_DIR:-$(mktemp -d /tmp/route-address-demo.XXXXXX)}"
BIN="${WORK}/bin"
mkdir -p "${BIN}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Building the control plane programs and Skipper (cached after the first run)"
./hack/build-third-party.sh control-plane skipper
step "Building the controller (serving's, as the pull requests leave it) and tools"
./hack/build-serving.sh "${BIN}"
go build -o "${BIN}/localcluster" ./test/cmd/localcluster
go build -o "${BIN}/dnsq" ./test/cmd/dnsq
go build -o "${BIN}/gateway" ./test/cmd/gateway

step "Starting the control plane and the controller in ${WORK}/cluster"
"${BIN}/localcluster" -dir "${WORK}/cluster" -controller "${BIN}/controller" \
  -gateway "${BIN}/gateway" -gateway-ips 198.19.0.10 -skipper >"${WORK}/localcluster.log" 2>&1 &
LC_PID=$!
cleanup() {
  kill "${LC_PID}" 2>/dev/null || true
  wait "${LC_PID}" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  [[ -f "${WORK}/cluster/env" ]] && break
  kill -0 "${LC_PID}" 2>/dev/null || { cat "${WORK}/localcluster.log"; exit 1; }
  sleep 0.5
done
# shellcheck disable=SC1091
source "${WORK}/cluster/env"
export KUBECONFIG DNS
k() { kubectl "$@"; }
through_skipper() { # GET http://hello.example.com/ through both Skippers
  local name addr
  for name in ENDPOINTS ENDPOINTSLICES; do
    addr="SKIPPER_${name}"
    printf '  Skipper reading %-15s GET http://hello.example.com/ → ' "$(tr '[:upper:]' '[:lower:]' <<<"${name}"):"
    local out
    out=$(curl -s -m 3 -H 'Host: hello.example.com' -w '\n%{http_code}' "http://${!addr}/") || { echo "(no answer)"; continue; }
    echo "$(tr -d '\n' <<<"${out%$'\n'*}") (HTTP ${out##*$'\n'})"
  done
}
settle_skipper() { sleep 3; } # Skipper polls the API every 500 ms
names=(hello.demo.svc.cluster.local canary-hello.demo.svc.cluster.local)

step "Creating a gateway Service, a ready Revision and a Route with tag 'canary'"
k apply -f hack/demo/demo.yaml
k apply -f hack/demo/skipper-ingress.yaml
if [[ -z "${DATA_PATH:-}" ]]; then
  echo "(not root: no gateway stand-in, so Skipper's requests to the gateway address get no reply; run as root for the data path)"
fi
# Playing the autoscaler: serving's revision reconciler made the Revision's
# Deployment (whose Pod no kubelet runs here) and PodAutoscaler; the
# PodAutoscaler's status says the Pod serves, and the Revision turns Ready.
for _ in $(seq 1 120); do k -n demo get podautoscalers.autoscaling.internal.knative.dev hello-00001 >/dev/null 2>&1 && break; sleep 0.5; done
k -n demo patch podautoscalers.autoscaling.internal.knative.dev hello-00001 --subresource=status --type=merge -p \
  '{"status":{"serviceName":"hello-00001-private","metricsServiceName":"hello-00001-private","desiredScale":1,"actualScale":1,"conditions":[{"type":"Ready","status":"True"},{"type":"Active","status":"True"},{"type":"ScaleTargetInitialized","status":"True"},{"type":"SKSReady","status":"True"}]}}'
k -n demo wait --for=condition=Ready --timeout=60s revision/hello-00001

step "Playing the ingress: the KIngress reports DomainInternal kourier-internal.kourier-system.svc.cluster.local"
for _ in $(seq 1 60); do k -n demo get ingresses.networking.internal.knative.dev hello >/dev/null 2>&1 && break; sleep 0.5; done
gen=$(k -n demo get ingresses.networking.internal.knative.dev hello -o jsonpath='{.metadata.generation}')
k -n demo patch ingresses.networking.internal.knative.dev hello --subresource=status --type=merge -p "{\"status\":{\"observedGeneration\":${gen},
  \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"LoadBalancerReady\",\"status\":\"True\"},{\"type\":\"NetworkConfigured\",\"status\":\"True\"}],
  \"privateLoadBalancer\":{\"ingress\":[{\"domainInternal\":\"kourier-internal.kourier-system.svc.cluster.local\"}]},
  \"publicLoadBalancer\":{\"ingress\":[{\"domainInternal\":\"kourier.kourier-system.svc.cluster.local\"}]}}}"

wait_for() { # description, command...
  local what="$1"; shift
  for _ in $(seq 1 120); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "timed out waiting for ${what}" >&2; return 1
}
svc_type() { k -n demo get svc "$1" -o jsonpath='{.spec.type}/{.spec.clusterIP}'; }

wait_for "ExternalName Services" bash -c '[[ "$(kubectl -n demo get svc canary-hello -o jsonpath={.spec.externalName})" == kourier-internal.* ]]'
step "Mode externalname (serving's behaviour)"
k -n demo get svc,endpoints,endpointslices -l serving.knative.dev/route=hello 2>&1 | grep -v "^Warning: v1 Endpoints is deprecated"
echo; "${BIN}/dnsq" -server "${DNS}" "${names[@]}"
settle_skipper
echo; through_skipper

step "kubectl patch configmap/config-network: route-address-mode=endpointslices"
k -n knative-serving patch configmap/config-network --type merge -p '{"data":{"route-address-mode":"endpointslices"}}'
wait_for "headless Services" bash -c '[[ "$(kubectl -n demo get svc canary-hello -o jsonpath={.spec.clusterIP})" == None && "$(kubectl -n demo get svc hello -o jsonpath={.spec.clusterIP})" == None ]]'
wait_for "EndpointSlices" bash -c '[[ $(kubectl -n demo get endpointslices -l serving.knative.dev/route=hello -o name | wc -l) -eq 2 ]]'
sleep 6 # CoreDNS's cache TTL is 5 s
step "Mode endpointslices"
k -n demo get svc,endpoints,endpointslices -l serving.knative.dev/route=hello 2>&1 | grep -v "^Warning: v1 Endpoints is deprecated"
echo; "${BIN}/dnsq" -server "${DNS}" "${names[@]}"
settle_skipper
echo; through_skipper
echo; k -n demo get events --field-selector involvedObject.name=hello --sort-by=.lastTimestamp -o custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message | tail -8

step "kubectl patch configmap/config-network: route-address-mode=endpointsandslices (Skipper's default reads v1 Endpoints)"
k -n knative-serving patch configmap/config-network --type merge -p '{"data":{"route-address-mode":"endpointsandslices"}}'
wait_for "Endpoints" bash -c 'kubectl -n demo get endpoints hello -o jsonpath={.subsets[0].addresses[0].ip} 2>/dev/null | grep -q .'
settle_skipper
through_skipper

step "Still running"
cat <<MSG
  export KUBECONFIG=${KUBECONFIG}
  kubectl -n demo get svc,endpoints,endpointslices
  ${BIN}/dnsq -server ${DNS} hello.demo.svc.cluster.local
  curl -H 'Host: hello.example.com' http://${SKIPPER_ENDPOINTSLICES}/
  logs: ${WORK}/cluster/*.log
Press Ctrl-C to stop everything (or: kill ${LC_PID}).
MSG
if [[ "${DEMO_EXIT:-}" == 1 ]]; then exit 0; fi
wait "${LC_PID}"
