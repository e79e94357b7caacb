/*
Copyright 2026 The Knative Authors

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package routeaddress is the reconciler that gives a Route's cluster-local
// Services real endpoints: while config-network's route-address-mode is
// Endpoints, EndpointSlices or EndpointsAndSlices it is the only writer of
// the Route's Services, Endpoints and EndpointSlices (the route reconciler
// leaves them alone in those modes); in ExternalName mode it only removes
// what it created, once the route reconciler has taken the Services back.
//
// Terms, as the code and its events use them:
//
//   - name: one Service name a Route answers at, {route} or {tag}-{route};
//     resources.Addressing holds what one name should be in the mode.
//   - managed mode: Endpoints, EndpointSlices or EndpointsAndSlices, in
//     which routeaddress writes the names' Services.
//   - released: a name in ExternalName mode, handed back to the route
//     reconciler; its operations give that as their reason.
//   - blocked: a name with an object the Route does not control (the
//     NotOwned Warning); nothing is written under it.
//   - no load balancer: the KIngress has no load balancer status; the name
//     keeps its last addresses (the LoadBalancerNotReady Warning).
//   - pending: a name without its mode's shape once a reconcile's writes
//     are made, for one reason (the Pending* constants).
//   - claimed: an EndpointSlice that carries routeaddress's managed-by
//     value but is not controlled by the Route's Service; taken over under
//     a name the Route wants, deleted under any other.
//   - taken back: a slice of the Route's whose labels were changed so that
//     the informer no longer sees it; rewritten with its labels.
//   - mirrored: the EndpointSlice kube-controller-manager mirrors from an
//     Endpoints, through which Endpoints mode answers.
package routeaddress
