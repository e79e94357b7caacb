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

package routeaddress

import (
	"slices"

	discoveryv1 "k8s.io/api/discovery/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Why a name does not have its mode's shape once a reconcile's writes are
// made: the reasons of the Warning events (PendingNotOwned, ...), and these.
const (
	PendingMirroring       = "WaitingForMirroring"
	PendingRouteReconciler = "WaitingForRouteReconciler"
	PendingWriteFailed     = "WriteFailed"
	PendingNotReconciled   = "NotReconciled"
)

// Pending says why the name t.Name does not have the shape its mode asks
// for once p's operations are made on in.Actual, "" when it has it: an
// object the Route does not control holds it, its Namespace's annotation is
// not a mode (it is held as it is), kube-controller-manager has
// yet to mirror its Endpoints, its KIngress has no load balancer (it keeps
// its last addresses), its load balancer cannot be resolved (it falls back
// to ExternalName, or has no endpoints), or, in ExternalName mode, our
// EndpointSlices wait for the route reconciler to reshape the Service.
// It is exported for tools that report a Route's names as the metrics do.
func Pending(in plan.Input, p plan.Plan, t *resources.Addressing) string {
	if _, ok := BlockedBy(in.Actual, p.Blocked, t.Name); ok {
		return PendingNotOwned
	}
	switch {
	case slices.Contains(p.Held, t.Name):
		return InvalidModeAnnotation
	case slices.Contains(p.Waiting, t.Name):
		return PendingMirroring
	case slices.Contains(p.NoLoadBalancer, t.Name):
		return PendingNoLoadBalancer
	case t.Shape == resources.ShapeExternalName:
		return PendingFallback
	case t.Shape == resources.ShapeHeadlessEmpty:
		return PendingUnresolvable
	case in.ExternalNameMode && slices.ContainsFunc(in.Actual.Slices, func(s *discoveryv1.EndpointSlice) bool {
		return s.Labels[discoveryv1.LabelServiceName] == t.Name && s.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy
	}) && !slices.ContainsFunc(p.Ops, func(op plan.Op) bool { return op.Service() == t.Name }):
		return PendingRouteReconciler
	}
	return ""
}

// BlockedBy returns the object of blocked that holds the name svc: one of
// that name, or an EndpointSlice that serves it.
func BlockedBy(a plan.Actual, blocked []plan.Blocked, svc string) (plan.Blocked, bool) {
	for _, b := range blocked {
		if b.Name == svc || b.Kind == plan.KindEndpointSlice && sliceService(a, b.Name) == svc {
			return b, true
		}
	}
	return plan.Blocked{}, false
}

// sliceService is the Service the slice named name serves, "" if there is
// none of that name.
func sliceService(a plan.Actual, name string) string {
	for _, s := range a.Slices {
		if s.Name == name {
			return s.Labels[discoveryv1.LabelServiceName]
		}
	}
	return ""
}
