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
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// The load balancers, objects, events and statuses the TableTests of
// steady state, switches and faults build their rows from.

var (
	lbDual   = []netv1alpha1.LoadBalancerIngressStatus{rt.IP("10.0.0.7"), rt.IP("fd00::7")}
	lbDomain = []netv1alpha1.LoadBalancerIngressStatus{rt.Domain("lb.example.com")}
	lbMesh   = []netv1alpha1.LoadBalancerIngressStatus{rt.MeshOnly()}
)

// bound is a desired slice as the planner sends it for a Service that
// exists (live): controlled by that Service's UID.
func bound(s *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	s = s.DeepCopy()
	s.OwnerReferences = ownedByLive(s.OwnerReferences)
	return s
}

// unbound is s controlled by a Service of UID "".
func unbound(s *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	s.OwnerReferences = plan.OwnerUID(s.OwnerReferences, "")
	return s
}

// routeReconcilerObjects is what the route reconciler leaves for route.
func routeReconcilerObjects(route *v1.Route, lb []netv1alpha1.LoadBalancerIngressStatus) []runtime.Object {
	ctx := rt.WithRouteConfig(context.Background())
	var out []runtime.Object
	for _, tag := range resources.TargetTags(route) {
		pair, err := routeresources.MakeK8sService(ctx, route, tag, rt.Ingress(route, lb...), false)
		if err != nil {
			ph, _ := routeresources.MakeK8sPlaceholderService(ctx, route, tag)
			out = append(out, ph)
			continue
		}
		out = append(out, pair.Service)
		if pair.Endpoints != nil {
			out = append(out, pair.Endpoints)
		}
	}
	return out
}

func created(kind plan.Kind, name string) string { return done("Created", obj(kind, name)) }

func deleted(kind plan.Kind, name string) string { return done("Deleted", obj(kind, name)) }

// headlessFrom is the update that turns the live ExternalName Service into
// the headless one: what the planner keeps of the live object.
func headlessFrom(liveSvc, want *corev1.Service) *corev1.Service {
	out := liveSvc.DeepCopy()
	out.Spec.Type = want.Spec.Type
	out.Spec.ClusterIP = want.Spec.ClusterIP
	out.Spec.ClusterIPs = nil
	out.Spec.ExternalName = ""
	out.Spec.Ports = want.Spec.Ports
	return out
}

// withoutLabel is o without the label k.
func withoutLabel[T interface{ DeepCopyObject() runtime.Object }](o T, k string) T {
	o = o.DeepCopyObject().(T)
	m := any(o).(interface {
		GetLabels() map[string]string
		SetLabels(map[string]string)
	})
	l := map[string]string{}
	for a, b := range m.GetLabels() {
		if a != k {
			l[a] = b
		}
	}
	m.SetLabels(l)
	return o
}
