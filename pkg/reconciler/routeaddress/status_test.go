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
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgotesting "k8s.io/client-go/testing"

	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestReconcileStatus: ConditionClusterLocalAddressReady on the Route.
// The rows that set it are those with a Warning that leaves a name
// without addresses (NotOwned, LoadBalancerUnresolvable,
// ExternalNameFallback, a failed write); these are the others.
func TestReconcileStatus(t *testing.T) {
	untagged := rt.Route(false)
	es, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeExternalName
	on := netcfg.RouteAddressFallbackEnabled
	h := rt.RouteName
	notOwned := Eventf(corev1.EventTypeWarning, "NotOwned",
		"Service %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", h, h)
	gone := Eventf(corev1.EventTypeWarning, "LoadBalancerUnresolvable",
		"Service %q has no endpoints because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=disabled): "+
			"ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster", h)

	table := TableTest{{
		Name:    "every name has its addresses again: the condition is removed",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(markedRoute(untagged, notOwned), lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantStatusUpdates: []clientgotesting.UpdateActionImpl{{
			Object: untagged,
		}},
	}, {
		Name:              "another reason now: the condition says it",
		Key:               key,
		Ctx:               withMode(es, netcfg.RouteAddressFallbackDisabled),
		Objects:           base(markedRoute(untagged, notOwned), lbDomain, live(rt.HeadlessService(h))...),
		WantEvents:        []string{gone},
		WantStatusUpdates: addressStatus(untagged, gone),
	}, {
		Name:    "the same reason: no write",
		Key:     key,
		Ctx:     withWarned(withMode(es, netcfg.RouteAddressFallbackDisabled), gone),
		Objects: base(markedRoute(untagged, gone), lbDomain, live(rt.HeadlessService(h))...),
	}, {
		Name:    "ExternalName mode: the route reconciler's names; the condition is removed",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(markedRoute(untagged, notOwned), lbIP, live(routeReconcilerObjects(untagged, lbIP)...)...),
		WantStatusUpdates: []clientgotesting.UpdateActionImpl{{
			Object: untagged,
		}},
	}, {
		Name:         "the status update fails: an error",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(markedRoute(untagged, notOwned), lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{InduceFailure("update", "routes")},
		WantErr:      true,
		WantStatusUpdates: []clientgotesting.UpdateActionImpl{{
			Object: untagged,
		}},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to update the status of Route %q: inducing failure for update routes", h),
		},
	}, {
		Name:         "the status update conflicts: read again and written",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(markedRoute(untagged, notOwned), lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{conflictOnce("update", "routes")},
		WantStatusUpdates: []clientgotesting.UpdateActionImpl{{
			Object: untagged,
		}, {
			Object: untagged,
		}},
	}, {
		Name:    "the status update conflicts and the Route read again already says it: no second write",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(markedRoute(untagged, notOwned), lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{
			conflictOnce("update", "routes"),
			serve("routes", untagged),
		},
		WantStatusUpdates: []clientgotesting.UpdateActionImpl{{
			Object: untagged,
		}},
	}}
	table.Test(t, recording(factory()))
}

// conflictOnce answers the first verb on resource with a conflict.
func conflictOnce(verb, resource string) clientgotesting.ReactionFunc {
	done := false
	return func(a clientgotesting.Action) (bool, runtime.Object, error) {
		if done || a.GetVerb() != verb || a.GetResource().Resource != resource {
			return false, nil, nil
		}
		done = true
		return true, nil, apierrs.NewConflict(schema.GroupResource{Group: "serving.knative.dev", Resource: resource}, rt.RouteName, errors.New("stale"))
	}
}
