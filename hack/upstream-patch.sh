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

# Generates the upstream pull requests as numbered patches: one series each
# against knative.dev/pkg, knative.dev/networking and knative.dev/serving, at the
# versions go.mod pins, from this repository's packages (import paths
# rewritten) and the hand-written hunks under hack/upstream/. docs/upstream.md
# describes the series.
#
# Usage: hack/upstream-patch.sh [--if-changed] [OUT]   (default .cache/upstream, ignored)
# Leaves OUT/patches/{pkg,networking,serving}/NNNN-*.patch, and in
# OUT/{pkg,networking,serving} git trees with one commit per patch on top of the
# pristine module ("base" tag). With --if-changed, does nothing when OUT holds
# the series of the files it reads as they are now (OUT/inputs.sha256).

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "${REPO_ROOT_DIR}"
IF_CHANGED=0
if [[ "${1:-}" == --if-changed ]]; then
  IF_CHANGED=1
  shift
fi
OUT="$(mkdir -p "${1:-.cache/upstream}" && cd "${1:-.cache/upstream}" && pwd)"
# The trees under OUT are git repositories of their own: a git command run in
# one whose .git has gone must fail, not find this repository's and commit to it.
export GIT_CEILING_DIRECTORIES="${OUT}"
HUNKS="${REPO_ROOT_DIR}/hack/upstream"
RA=pkg/reconciler/routeaddress

# The files the series is made of, as they are in the working tree.
inputs="$(git ls-files -co --exclude-standard -- go.mod go.sum hack/upstream-patch.sh hack/upstream "${RA}" pkg/networking/config config/220-route-address-mode-policy.yaml |
  sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [[ "${IF_CHANGED}" == 1 && -f "${OUT}/inputs.sha256" && "$(cat "${OUT}/inputs.sha256")" == "${inputs}" ]]; then
  echo "the series in ${OUT} is that of the files as they are"
  exit 0
fi
rm -f "${OUT}/inputs.sha256"

go mod download knative.dev/serving knative.dev/networking knative.dev/pkg
SERVING_DIR="$(go list -m -f '{{.Dir}}' knative.dev/serving)"
NETWORKING_DIR="$(go list -m -f '{{.Dir}}' knative.dev/networking)"
PKG_DIR="$(go list -m -f '{{.Dir}}' knative.dev/pkg)"

git_() { git -c user.name="route-address" -c user.email="route-address@knative.dev" \
  -c commit.gpgsign=false -c core.autocrlf=false "$@"; }

# fresh DIR SRC: DIR becomes a git tree of the read-only module SRC.
fresh() {
  rm -rf "$1"
  cp -r "$2" "$1"
  chmod -R u+w "$1"
  git_ -C "$1" init -q
  git_ -C "$1" add -A
  git_ -C "$1" commit -q -m "$(basename "$2")"
  git_ -C "$1" tag base
}

# commit DIR SUBJECT BODY: one reviewable step.
commit() {
  git_ -C "$1" add -A
  git_ -C "$1" commit -q -m "$2" -m "$3"
}

# send SRC DST: copies one file of this repository into serving, with the
# import paths rewritten: pkg/networking/config, this repository's stand-in
# for networking's config package, becomes networking's. Here the pinned
# networking config package is imported as networkingcfg, to tell it from
# the stand-in (netcfg); in serving they are one package, under one alias.
#
# A file is sent as it is at that point of the series: the lines between
# `//series:NAME` and `//series:end` belong to the capability NAME and are
# sent only from the pull request that turns it on (capability, below);
# before it, the lines between an optional `//series:else` and the end
# are sent in their place, uncommented. The marker lines are never sent.
send() {
  mkdir -p "$(dirname "$2")"
  if grep -q 'networkingcfg ' "$1" && grep -q 'knative\.dev/route-address/pkg/networking/config' "$1"; then
    echo "send: $1 imports both networking config packages, which are one in serving" >&2
    return 1
  fi
  regions "$1" | sed -e 's#knative\.dev/route-address/pkg/networking/config#knative.dev/networking/pkg/config#g' \
    -e 's#knative\.dev/route-address/pkg/#knative.dev/serving/pkg/#g' \
    -e 's#\bnetworkingcfg\b#netcfg#g' > "$2"
  if [[ "$2" == *.go ]] && grep -q '^[[:space:]]*//series:' "$1"; then
    # A region left out can leave a block's alignment to gofmt.
    gofmt -w "$2"
  fi
  SENT_FILES["$2"]="$1"
}

# CAPS: the capabilities turned on so far; SENT_FILES[DST]: the file DST
# was sent from.
CAPS=" "
declare -A SENT_FILES=()

# regions FILE: FILE with the regions of the capabilities not in CAPS left
# out (their else part instead) and the marker lines dropped.
regions() {
  awk -v caps="${CAPS}" '
    function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; failed = 1; exit 1 }
    /^[ \t]*\/\/series:end$/  { if (!name) fail("//series:end outside a region"); name = ""; next }
    /^[ \t]*\/\/series:else$/ { if (!name || other) fail("//series:else outside a region"); other = 1; next }
    /^[ \t]*\/\/series:[a-z]+$/ {
      if (name) fail("a region inside the region of " name)
      name = $1; sub(/^\/\/series:/, "", name); other = 0; on = index(caps, " " name " ") > 0
      next
    }
    /\/\/series:/ { fail("a //series: marker not alone on its line") }
    name && !other { if (on) print; next }
    name && other  { if (!on) { if (!sub(/\/\/ ?/, "")) fail("an else line that is not a comment"); print }; next }
    { print }
    END { if (!failed && name) { printf "%s: the region of %s has no //series:end\n", FILENAME, name > "/dev/stderr"; exit 1 } }
  ' "$1"
}

# capability NAME: from the next commit on, the regions of NAME are sent;
# every file sent so far that has one is sent again.
capability() {
  local dst
  CAPS+="$1 "
  for dst in "${!SENT_FILES[@]}"; do
    if grep -q "^[[:space:]]*//series:$1\$" "${SENT_FILES[${dst}]}"; then
      send "${SENT_FILES[${dst}]}" "${dst}"
    fi
  done
}

NETWORKING="${OUT}/networking"
SERVING="${OUT}/serving"
PKG="${OUT}/pkg"
fresh "${PKG}" "${PKG_DIR}"
fresh "${NETWORKING}" "${NETWORKING_DIR}"
# Module zips leave out symlinks: put back the one networking's config test
# reads, in the base commit.
mkdir -p "${NETWORKING}/pkg/config/testdata"
ln -s ../../../config/config-network.yaml "${NETWORKING}/pkg/config/testdata/config-network.yaml"
git_ -C "${NETWORKING}" add -A
git_ -C "${NETWORKING}" commit -q --amend --no-edit
git_ -C "${NETWORKING}" tag -f base >/dev/null
fresh "${SERVING}" "${SERVING_DIR}"
# And the ones serving's route config tests read (config-network.yaml is
# networking's, vendored upstream: here the networking tree next to it).
ln -s ../../../../networking/config/config-network.yaml "${SERVING}/config/core/configmaps/network.yaml"
mkdir -p "${SERVING}/pkg/reconciler/route/config/testdata"
for c in domain gc features network; do
  ln -s "../../../../../config/core/configmaps/${c}.yaml" "${SERVING}/pkg/reconciler/route/config/testdata/config-${c}.yaml"
done
# serving commits vendor/ (hack/update-deps.sh) and its CI builds with it;
# module zips carry none. The base gets the vendor/ serving would commit at
# this version, and each serving commit below the vendor/ changes that
# update-deps.sh would make for it (new packages it imports): generated
# code, in the patches but not in their reviewed size.
# go mod vendor writes into a scratch directory in memory (/dev/shm when
# there is one), and vendor/ is replaced only when that differs: rewriting
# vendor/'s 7 750 files in place took 4.6 s a commit, mostly system CPU.
VENDOR_SCRATCH="$(mktemp -d -p "$([[ -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")" vendor.XXXXXX)"
trap 'rm -rf "${VENDOR_SCRATCH}"' EXIT
vendor_serving() {
  rm -rf "${VENDOR_SCRATCH}/vendor"
  (cd "${SERVING}" && GOFLAGS="-mod=mod ${GOFLAGS:-}" go mod vendor -o "${VENDOR_SCRATCH}/vendor")
  if ! diff -rq "${VENDOR_SCRATCH}/vendor" "${SERVING}/vendor" >/dev/null 2>&1; then
    rm -rf "${SERVING}/vendor"
    cp -r "${VENDOR_SCRATCH}/vendor" "${SERVING}/vendor"
  fi
}
vendor_serving
git_ -C "${SERVING}" add -A
git_ -C "${SERVING}" commit -q --amend --no-edit
git_ -C "${SERVING}" tag -f base >/dev/null

# --- pkg --------------------------------------------------------------------
git_ -C "${PKG}" apply "${HUNKS}/pkg-twolane.patch"
commit "${PKG}" "controller: an item added to the fast lane is not queued behind the slow lane" \
"The two-lane queue moved every slow-lane item into its consumer queue as
soon as the fast lane was empty, so an item enqueued (fast) right after a
global resync (slow) was handed out after every item of the resync: with
5 000 Routes, a new Route waited for all of them. Slow-lane items now move
into the consumer queue one at a time, only when it is empty (Get signals
it), so a fast item waits behind at most the one slow item already handed
over. TestFastNotBehindSlow: the fast item came out 101st of 101 before,
at most 2nd now."

git_ -C "${PKG}" apply "${HUNKS}/pkg-leaderelection.patch"
commit "${PKG}" "sharedmain: leader election has a client of its own" \
"Leases were taken and renewed through the reconcilers' client, so they
spent its rate limiter's requests: every replica sends about one request
per lease per retry period, held or not (ten reconcilers in four buckets:
4 a second at serving's 10 s retry period, 16 at 2.5 s), which the
reconcilers' writes then wait behind. The elector now gets a client of its
own with the same limits, as client-go's resourcelock.NewFromKubeconfig
gives kube-controller-manager's. Measured with serving's controller at
QPS 50, four buckets and a 2.5 s retry period: changing the cluster-local
Services of 500 Routes (1 000 names, two writes each) took 84 s before and
58 s after, with one replica as with three. TestLeaderElectionClient: its own rate
limiter, the config's limits, the config left alone."

# --- networking -------------------------------------------------------------
cp pkg/networking/config/route_address.go pkg/networking/config/route_address_test.go "${NETWORKING}/pkg/config/"
git_ -C "${NETWORKING}" apply "${HUNKS}/networking-config.patch"
commit "${NETWORKING}" "config: route-address-mode and route-address-externalname-fallback" \
"Two config-network keys for knative/serving#11821: how a Route's cluster-local
Services are addressed (externalname, the default and today's behaviour;
endpoints; endpointslices; endpointsandslices), and whether a load balancer
that cannot be resolved to IP addresses falls back to an ExternalName Service
(enabled, the default; disabled). Parsed as http-protocol and
system-internal-tls are: without regard to case, and a value that is not
allowed is an error naming the key, the value and the allowed values, which
the config webhooks refuse. Config.RouteAddressModeFor reads the mode of a
Namespace's networking.knative.dev/route-address-mode annotation, which
gives the Routes in it another mode than the key's (a switch staged by
namespace); a value that is not a mode leaves the key's, with an error."

# --- serving ----------------------------------------------------------------
# One pull request per commit, each building and passing its packages' tests
# on its own (verify-upstream.sh), at most 1 250 changed lines outside
# vendor/. Each is whole files of this repository (imports rewritten by
# send), the few of serving's own that differ (hack/upstream/_serving), and
# patches to serving's existing files.
# ra FILE...: sends pkg/reconciler/routeaddress/FILE (serving's version in
# hack/upstream/_serving when there is one).
ra() {
  local f src
  for f in "$@"; do
    src="${RA}/${f}"
    [[ -f "${HUNKS}/_serving/${RA}/${f}" ]] && src="${HUNKS}/_serving/${RA}/${f}"
    send "${src}" "${SERVING}/${RA}/${f}"
  done
}
# step SUBJECT BODY: vendor/ as update-deps would leave it, then the commit.
step() {
  vendor_serving
  commit "${SERVING}" "$1" "$2"
}

# Stands alone: a fix of the route reconciler that any release can take.
git_ -C "${SERVING}" apply "${HUNKS}/serving-route-writes.patch"
step "route: no update of an unchanged placeholder Service or Endpoints" \
"Why: the route reconciler updated every placeholder Service (and the
Endpoints of an IP load balancer) on every reconcile, although nothing had
changed: it compared the desired spec with the one the apiserver returns,
which carries the apiserver's defaults (cluster IPs, IP families, internal
traffic policy, a port's protocol and target port). Measured on a local
control plane (kube-apiserver, etcd) with 1 000 Routes of one tag each
and a DomainInternal load balancer, a global resync (a config-network
change): 2 000 Service updates before, none after; the resync was over
44.9 s after the change before, and at the measurement's 3 s floor after
(3.4 s; controller CPU 5.57 s and 0.69 s), and a Route
created right after the resync began got its placeholder Service after
38.3 s before, 1.1 s after, because it no longer waits behind 2 000
writes at the client's rate limit.

A Service is updated when the existing spec lacks something the desired
one sets (equality.Semantic.DeepDerivative, a port count that differs, an
empty target port read as the port, as the apiserver defaults it, a
cluster IP left on an ExternalName Service), and
Endpoints when their subsets differ once a port without a protocol is read
as TCP. TestReconcile_ServiceLifecycle: the Service and Endpoints as the
apiserver returns them are not updated when unchanged (headless, external
name, cluster IP), and still are when the IP or the external name changes."

# Stands alone too: every informer of the controller caches less.
send "${HUNKS}/_serving/cmd/controller/informers.go" "${SERVING}/cmd/controller/informers.go"
send "${HUNKS}/_serving/cmd/controller/informers_test.go" "${SERVING}/cmd/controller/informers_test.go"
step "controller: informers cache objects without their managedFields" \
"Why: the controller caches every Route, Configuration, Revision, Service,
Endpoints, Deployment, KIngress, PodAutoscaler and Image of the cluster
with its managedFields (each field every writer set, with the writer's
name and time), which no reconciler reads. Measured on a local control
plane with 10 000 Routes, each with its Revision, in 100 namespaces: the
controller's peak RSS over a restart and the resync that follows was
1 150 MiB as released and 900 to 910 MiB with this change (and the
previous one, which changes no cache), above the Deployment's 1000Mi limit
before, under it after.

The controller's informer factories (Kubernetes', serving's,
networking's and caching's clients) are replaced by the same factories
built with a transform that drops an object's managedFields before it is
cached, registered after the generated ones so that every informer is
made by them. TestWithoutManagedFields: a Service, Route, KIngress and
Image listed with managedFields are cached without them, labels kept."


# Then the alpha: the smallest thing a user can turn on, route-address-mode
# in every mode for IP and DomainInternal load balancers, switched on and
# back. A reconciler that writes a Route's names in even one mode needs the
# load balancer's resolution, the desired objects, the planner and the
# reconciler's reads and writes (over 3 000 lines of code before a test),
# so it takes six pull requests, each a part with its tests and the reason
# it is needed; the last one runs it in the controller. After it, each
# pull request turns on one capability (Warnings reported once, switching
# by namespace, other managers' slices reported, the metrics, writes into
# terminating namespaces dropped, the reconciler's own retries), then come
# the tests of the planner against a simulated apiserver and of faults and
# switches, and slices of at most 100 addresses.
ra resources/doc.go resources/loadbalancer.go resources/loadbalancer_test.go \
  testing/doc.go testing/fixtures.go testing/objects.go
step "routeaddress: resolve an Ingress's load balancer to IP addresses" \
"Why: a Route's names can only get real endpoints if what the KIngress
reports can be turned into IP addresses; net-istio, net-kourier and
net-gateway-api report a DomainInternal, not an IP. Part 1 of 6 of
route-address-mode's alpha, which the controller runs from part 6 on
(knative/serving#11821).

A KIngress's load balancer status, as the route reconciler chooses it,
resolved to IP addresses and a port: IP entries as they are, a
DomainInternal naming a Service of this cluster to that Service's
ClusterIPs and its h2c/http port, with each entry that gives no address
reported (external Domain, MeshOnly, a Service missing or without a cluster
IP, an address the apiserver refuses in endpoints), and the entry an
ExternalName Service would point at. Also the test fixtures (a Route,
its KIngress, the gateway's Service) and the Services, Endpoints and
EndpointSlices the planner's and the reconciler's tests are written with
(testing/objects.go)."

ra resources/names/doc.go resources/names/names.go resources/names/names_test.go \
  resources/addressing.go resources/addressing_test.go resources/endpoints_test.go \
  resources/placeholders.go resources/placeholders_test.go plan/doc.go plan/types.go
step "routeaddress: the headless Service, Endpoints and EndpointSlices of a Route's names" \
"Why: what each mode makes of a name is decided in one pure function, so
that the planner and its tests compare against one definition. Part 2 of 6
of route-address-mode's alpha.

What each of a Route's cluster-local names becomes under each
route-address-mode: the route reconciler's placeholder made a
selector-less headless Service (its metadata and ports), with an
EndpointSlice per address family holding the resolved addresses,
controlled by that Service (endpointslices), a core/v1 Endpoints holding
them that kube-controller-manager mirrors (endpoints), or both, the
Endpoints labelled so that they are not mirrored (endpointsandslices). An
Endpoints holds the first 1 000 addresses, annotated
endpoints.kubernetes.io/over-capacity=truncated beyond that, as
kube-controller-manager's endpoints controller does. The route
reconciler's own ClusterIP Service for a MeshOnly load balancer; its
ExternalName Service where nothing resolves and
route-address-externalname-fallback is enabled, else a headless Service
with no endpoints; with no load balancer yet, what exists is kept. Under
externalname (the default), what the route reconciler will make of the
name. And the names and labels of the objects routeaddress writes
(resources/names), and the planner's input, operations and result
(plan/types.go), with which the next PR turns the desired objects into
writes."

ra plan/compare.go plan/plan.go plan/plan_test.go
step "routeaddress: the planner" \
"Why: a Route's names must never stop answering while they change shape.
Turning an ExternalName Service into a headless one, recreating a Service
whose clusterIP is immutable, or handing a name back to the route
reconciler each has an order in which no lookup fails; the planner is the
one place that order is decided, as a pure function that tests can drive.
Part 3 of 6 of route-address-mode's alpha.

Diffs a Route's desired objects against those in the cluster into
ordered operations: slices before a Service turns headless, a Service
whose immutable fields change recreated with its slices after it, objects
the Route does not control never written and their name left alone, names
without a load balancer keeping their last addresses, orphans deleted, and
in externalname mode our objects removed only once the route reconciler
has reshaped the Service. An EndpointSlice that carries routeaddress's
managed-by value for a Service the Route controls is routeaddress's,
whoever made it, as the EndpointSlice controller treats slices with its
value: taken over in place under a name the Route wants, deleted under
another. It compares only the fields routeaddress writes. TestMake: one
name's plans."

ra doc.go api.go api_test.go expectations.go expectations_test.go \
  input.go index_test.go slices_test.go config.go config_test.go
step "routeaddress: a Route's objects, read through the informers' indexes, and written" \
"Why: the reconciler (next) reads a Route's objects on every reconcile and
writes three kinds; a read's cost must not grow with the number of objects
in the Route's namespace (listing a namespace's Services per Route does,
at thousands of Routes), and a reconcile must not plan again on a cache
that has not seen its own writes. Part 4 of 6 of route-address-mode's
alpha.

Stores.Input: a Route's planner input (its KIngress, the desired objects
and the Services, Endpoints and our EndpointSlices under its names) from
the informers' stores, through an index by the serving.knative.dev/route
label and an index of EndpointSlices by Route and by Service. The
reconciler's client and listers of the three kinds it writes, behind one
dispatch (a cached read, a read from the apiserver, create, update and a
delete preconditioned on the UID), and the writes its informers have not
shown yet (a reconcile that starts before they do requeues instead of
planning again on a stale cache). And the configuration a reconcile
reads: the route reconciler's store, whose networking Config carries the
route-address settings, and which of its values name or shape a Route's
Services (a change of those resyncs every Route). The package's doc.go
defines the terms the code and its events use."

ra listers_test.go routeaddress.go routeaddress_test.go testing/defaults.go
git_ -C "${SERVING}" apply "${HUNKS}/serving-listers.patch"
step "routeaddress: the reconciler" \
"Why: this joins the parts into a Route reconciler; the next PR runs it,
so that it can be read and tested on its own. Part 5 of 6 of
route-address-mode's alpha.

ReconcileKind gathers a Route's objects (Stores.Input), plans and executes
them, with a Warning event for what it cannot do (an object the Route does
not control under one of its names, a load balancer that cannot be
resolved, no load balancer yet). It writes no Route status: the route
reconciler owns it. Before it deletes an object to recreate it, the
replacement is created in a server-side dry run, and the live object stays
if the apiserver would refuse it. In the endpoints modes, a switch away
from a mode with EndpointSlices keeps ours, and one from externalname
keeps the ExternalName Service, until kube-controller-manager's mirrored
slice holds the addresses. It reads the route-address settings from the
route reconciler's configuration store. TestReconcile: create, update, a new tag, the gateway
moving, every write checked for its port. The TableTests' Listers get an
EndpointSlice lister."

# The controller runs the reconciler and the route reconciler leaves it the
# placeholders in one step: either alone would leave the names fought over,
# or unmade, under endpointslices.
ra controller.go controller_test.go
git_ -C "${SERVING}" apply "${HUNKS}/serving-controller.patch"
git_ -C "${SERVING}" apply "${HUNKS}/serving-route.patch"
step "routeaddress: run by the controller, which leaves it the placeholder Services" \
"Why: from this PR on, route-address-mode changes what a cluster does: a
user who sets it gets a Route's names as headless Services with
EndpointSlices, Endpoints or both for DomainInternal and IP load
balancers, and back to ExternalName Services when it is unset. Part 6 of
6 of route-address-mode's alpha. It is one PR because either half alone
would leave a Route's names fought over by two reconcilers, or made by
none, in a mode other than externalname.

The controller binary runs the routeaddress reconciler, which watches the
EndpointSlices it writes and those kube-controller-manager mirrors from
its Endpoints (a filtered informer, whose factory drops managedFields as
the others do), its Routes' KIngresses, Services and Endpoints through an
index by Route, and resyncs on a change of the settings it reads; an
Endpoints the Route does not control, or an EndpointSlice without the
Route's label, reconciles the Route of the Service it serves, so that a
name held by another owner is addressed as soon as it is freed. The
controller's role may update services/finalizers (the slices are
controlled by their Service).

With a route-address-mode other than externalname the route reconciler no longer
creates, updates or deletes a Route's placeholder Services and Endpoints:
routeaddress owns them. It still reports a Service or Endpoints under one
of the Route's names that the Route does not control, with the same
condition and reason as before (IngressReady=False, NotOwned). With
externalname (the default) nothing changes."

capability warned
ra warned.go warned_test.go
step "routeaddress: a Warning is reported once, not on every reconcile" \
"Why: a Route whose name is held by another object, or whose load
balancer cannot be resolved, is reconciled again on every resync and
every change of its objects; a Warning event each time fills the
Route's events and spends the client's rate limit, which the writes share.

The Warnings last recorded for each Route are kept, and a Warning is
recorded again only once it has stopped applying or an hour has passed;
a deleted Route's are forgotten."

capability namespace
ra namespace.go
git_ -C "${SERVING}" apply "${HUNKS}/serving-route-namespace.patch"
send config/220-route-address-mode-policy.yaml "${SERVING}/config/core/webhooks/route-address-mode.yaml"
step "routeaddress: a Namespace's route-address-mode annotation switches its Routes before the cluster" \
"Why: an operator switching a live cluster of thousands of Routes wants to
switch one namespace, watch it, and go on, rather than every Route at
once.

Both reconcilers read a Namespace's networking.knative.dev/route-address-mode
annotation the same way, over config-network's key (networking's
Config.RouteAddressModeFor), and reconcile the namespace's Routes when it
changes. A value that is not a mode is refused by the apiserver
(config/core/webhooks/route-address-mode.yaml, a
ValidatingAdmissionPolicy: no webhook sees Namespaces); one written before
it switches nothing: both reconcilers leave the Services, Endpoints and
EndpointSlices that exist in that namespace as they are and give names
without a Service the key's mode, and routeaddress says so in a Warning on
the Namespace, once for all its Routes. TestReconcileRouteAddressManaged: the route reconciler's
rows for an annotated Namespace."

capability foreign
ra foreign_test.go
git_ -C "${SERVING}" apply "${HUNKS}/serving-controller-foreign.patch"
step "routeaddress: an EndpointSlice another controller manages under a Route's name is reported" \
"Why: a slice labelled with a Route's Service name adds its addresses to
the name wherever the Service is headless, whoever wrote it; the
reconciler must neither take it over nor stay silent about it.

Those slices are watched in an informer of their own, which keeps of
each only what the Warning names (name, Service, manager, addresses;
of a slice its Service controls, as kube-controller-manager makes for
every Service with a selector, only its key), and each under one of a
Route's names gets a ForeignEndpointSlice Warning; it is left alone.
A change of one reconciles the Route of the Service it serves."

capability metrics
ra pending.go pending_test.go metrics.go metrics_test.go
step "routeaddress: the reconciler's metrics" \
"Why: an operator switching route-address-mode on a live cluster needs to
see when every name has its new shape, and which ones do not and why,
without reading events Route by Route.

Why a name lacks its mode's shape (Pending: one reason each, also the
Warnings' reasons), and the metrics, registered as the KPA's are: the
Routes' names by the shape of their Service and the configured mode, the
names without the mode's shape by why, the Routes of the buckets a
replica leads that it has not reconciled since it took them (so that
nothing in progress is not read as done before every Route has been
seen), the EndpointSlices another controller manages under the Routes'
names, the writes by kind, verb and result, and how long a switch of
route-address-mode takes; no attribute names a Route. A replica forgets
the Routes of a bucket it loses, so that the gauges summed over the
replicas count each name once."

capability terminating
ra terminating.go terminating_test.go
step "routeaddress: writes into a namespace being deleted are dropped" \
"Why: while a namespace is deleted the apiserver refuses every create in
it; retrying them would fill the work queue and the log for nothing.

The namespaces whose writes the reconciler drops, each logged once, as
Kubernetes' EndpointSlice controller drops such work instead of retrying
it; a later successful write in the namespace forgets it."

capability retry
ra retry.go retry_test.go
step "routeaddress: a Route whose writes failed for a passing reason is retried on its own delay" \
"Why: after a restart of the apiserver, or while it sheds load, every
Route's writes fail at once; through the work queue's rate limiter, which
every failing key shares, the Routes would then wait minutes behind each
other once the apiserver is back.

Writes that all failed for a passing reason (429, 5xx, the apiserver
unreachable, an admission plugin that does not know the Route's kind yet
after a restart) retry the Route after its own delay, 250 ms doubling to
2 s for up to 40 failures in a row (about 80 s); any other failure goes
through the work queue's limiter as before."

# plan/mirror.go is a model of kube-controller-manager's mirroring that
# this repository's plugin also runs; in serving only the planner's tests
# use it.
ra plan/apiserver_test.go plan/compare_test.go plan/mirror_test.go
send "${RA}/plan/mirror.go" "${SERVING}/${RA}/plan/mirrored_test.go"
step "routeaddress: the planner's tests against a simulated apiserver" \
"Why: whether a plan is safe depends on what the apiserver does with it:
defaulted fields, immutable clusterIP and addressType, garbage collection
of a deleted Service's slices, the mirrored slice; and the planner writes
only the fields it owns, which is where a reconciler fights another
writer.

Tests only: an apiserver that applies a plan's operations with those
rules, a model of kube-controller-manager's endpointslicemirroring (which
Endpoints it mirrors, the labels and annotations it copies, one slice per
subset and family of at most 1 000 addresses; TestMirrored), and which
fields the planner owns (defaulted ones and those somebody else set are
kept) against objects as the apiserver returns them."

ra plan/owners_test.go
step "routeaddress: the planner's tests of which objects are the Route's" \
"Why: the planner writes only objects the Route controls, and must tell
an EndpointSlice of ours from one that only carries our managed-by value.

Tests only: which EndpointSlices are the Route's (slices that claim
routeaddress's managed-by value among them), taking back a slice whose
labels were changed, objects the Route does not control, and waiting for
kube-controller-manager's mirrored slice before a name relies on it."

ra rows_test.go order_test.go steady_test.go switch_test.go
step "routeaddress: tests of steady state and mode switches" \
"Why: an operator switches a live cluster, and back; no name may stop
answering on the way, and a converged Route must cost no writes.

Tests only, rows of literal objects: every mode and load balancer shape,
converged, writes nothing; switching between externalname and
endpointslices both ways (slices before a Service turns headless, ours
removed only once the route reconciler has reshaped it), slices moving
between controllers, a load balancer changing shape; the order of the
writes against the API."

ra faults_test.go namespace_test.go reconcile_metrics_test.go
step "routeaddress: tests of faults and namespaces" \
"Why: the promise of the key is that no name stops answering where the
route reconciler's would; these rows are that promise, fault by fault.

Tests only: a load balancer that goes away, a replacement the apiserver
refuses, one blocked name never stopping the others, objects the Route
does not control, each write failing, loopback and IPv4-mapped addresses,
conflicts, slices that claim routeaddress's managed-by value, a namespace
being deleted; a Namespace's mode over the key's and the Routes it
reconciles when it changes; what a reconcile records in the metrics (a
switch, a name held by a foreign Service, a failed write, a fallback)."

capability large
ra plan/split.go plan/split_test.go large_test.go
step "routeaddress: EndpointSlices of at most 100 addresses" \
"Why: until now a family's addresses go into one EndpointSlice, which the
apiserver refuses beyond 1 000 and every consumer rereads whole when one
address changes; the EndpointSlice controller's default is 100 endpoints
a slice.

A family's addresses are split over slices {name}, {name}-1, ... of at
most 100: slices that exist keep the addresses they hold, new addresses
fill the free room, and a slice emptied by removals is folded into the
others (TestSplit). Tests of a load balancer of 250 and 1 200 addresses
in every mode: an address added, one removed, a hundred removed with a
slice folded into the others, an Endpoints holding the first 1 000 with
the over-capacity annotation and its Warning, and an Endpoints the
apiserver refuses as too large."

send "${HUNKS}/_serving/test/e2e/routeaddress/route_address_test.go" "${SERVING}/test/e2e/routeaddress/route_address_test.go"
git_ -C "${SERVING}" apply "${HUNKS}/serving-e2e-tests.patch"
step "test/e2e: a Route's cluster-local Service with a managed route-address-mode" \
"Why: what the TableTests assert must hold on a cluster with an ingress,
and serving's CI must run it.

With config-network's route-address-mode other than externalname: a
Route's Service is headless, its Endpoints or EndpointSlices hold the
Ingress's addresses, and the Route answers on its cluster-local address.
test/e2e-tests.sh runs it in a leg of its own with the key set to
endpointsandslices (toggle_feature, as cluster-local-domain-tls's test),
then sets it back; run with the key unset, it skips."

# Every region is sent by the end: the last commit holds the files as they
# are here.
for src in "${SENT_FILES[@]}"; do
  for name in $(sed -n 's#^[[:space:]]*//series:\([a-z]*\)$#\1#p' "${src}" | sort -u); do
    if [[ "${name}" != end && "${name}" != else && "${CAPS}" != *" ${name} "* ]]; then
      echo "${src}: the capability ${name} is never turned on" >&2
      exit 1
    fi
  done
done

rm -rf "${OUT}/patches"
mkdir -p "${OUT}/patches"
git_ -C "${PKG}" format-patch -q --no-signature -o "${OUT}/patches/pkg" base
git_ -C "${NETWORKING}" format-patch -q --no-signature -o "${OUT}/patches/networking" base
git_ -C "${SERVING}" format-patch -q --no-signature -o "${OUT}/patches/serving" base
echo "patches in ${OUT}/patches:"
(cd "${OUT}/patches" && ls */*.patch)
echo "diff stat: pkg"
git_ -C "${PKG}" diff --shortstat base
echo "diff stat: networking"
git_ -C "${NETWORKING}" diff --shortstat base
echo "diff stat: serving"
git_ -C "${SERVING}" diff --shortstat base
echo "${inputs}" > "${OUT}/inputs.sha256"
