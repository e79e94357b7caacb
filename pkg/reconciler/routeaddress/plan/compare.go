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

package plan

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"knative.dev/pkg/kmap"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// This file compares only the fields routeaddress writes. Fields the
// apiserver defaults (clusterIPs, ipFamilies, ipFamilyPolicy,
// internalTrafficPolicy, sessionAffinity when we leave it empty, a port's
// protocol and targetPort) never make two objects differ, and labels and
// annotations are merged the way the route reconciler merges them: ours are added, others
// are kept.

type change int

const (
	none change = iota
	update
	recreate
)

type serviceClass int

const (
	classExternalName serviceClass = iota
	classHeadless
	classAllocated
)

var classNames = [...]string{"ExternalName", "headless", "ClusterIP"}

// classOf is s's row and column in transitionReasons.
func classOf(s *corev1.Service) serviceClass {
	switch resources.ShapeOf(s) {
	case resources.ServiceExternalName:
		return classExternalName
	case resources.ServiceHeadless:
		return classHeadless
	}
	return classAllocated
}

// transitionReasons names each change of class; a change away from
// ExternalName is an update, any other needs the Service recreated because
// spec.clusterIP is immutable and ClusterIP → ExternalName is refused
// (kubernetes/kubernetes#104329).
var transitionReasons = [3][3]string{
	classExternalName: {classHeadless: "ExternalName → headless", classAllocated: "ExternalName → ClusterIP"},
	classHeadless:     {classExternalName: "headless → ExternalName needs a recreate", classAllocated: "headless → ClusterIP needs a recreate (clusterIP is immutable)"},
	classAllocated:    {classExternalName: "ClusterIP → ExternalName needs a recreate", classHeadless: "ClusterIP → headless needs a recreate (clusterIP is immutable)"},
}

// Holds reports whether live, found under the name that the Create op was
// refused for (AlreadyExists), already is what op would create: the fields
// the planner compares are equal and, for an EndpointSlice, it has the same
// controller as op's (bound) one.
func Holds(op Op, live metav1.Object) bool {
	switch want := op.Object.(type) {
	case *corev1.Service:
		have, ok := live.(*corev1.Service)
		if !ok {
			return false
		}
		c, _ := diffService(want, have)
		return c == none
	case *corev1.Endpoints:
		have, ok := live.(*corev1.Endpoints)
		return ok && endpointsEqual(want, have)
	case *discoveryv1.EndpointSlice:
		have, ok := live.(*discoveryv1.EndpointSlice)
		if !ok || !sliceEqual(want, have) {
			return false
		}
		w, h := metav1.GetControllerOfNoCopy(want), metav1.GetControllerOfNoCopy(have)
		return w != nil && h != nil && w.UID == h.UID
	}
	return false
}

// diffService says whether have must be updated or recreated to become want.
func diffService(want, have *corev1.Service) (change, string) {
	wc, hc := classOf(want), classOf(have)
	if wc != hc {
		if hc == classExternalName {
			return update, transitionReasons[hc][wc]
		}
		return recreate, transitionReasons[hc][wc]
	}
	if !serviceSpecEqual(&want.Spec, &have.Spec) {
		return update, classNames[wc] + " spec differs"
	}
	if !metaContains(want.Labels, have.Labels, nil) || !metaContains(want.Annotations, have.Annotations, nil) {
		return update, "labels or annotations differ"
	}
	return none, ""
}

func serviceSpecEqual(want, have *corev1.ServiceSpec) bool {
	if want.Type != have.Type && (want.Type != "" || have.Type != corev1.ServiceTypeClusterIP) {
		return false
	}
	if want.ExternalName != have.ExternalName {
		return false
	}
	if want.SessionAffinity != "" && want.SessionAffinity != have.SessionAffinity {
		return false
	}
	if !equality.Semantic.DeepEqual(want.Selector, have.Selector) {
		return false
	}
	if len(want.Ports) != len(have.Ports) {
		return false
	}
	for i := range want.Ports {
		if !servicePortEqual(&want.Ports[i], &have.Ports[i]) {
			return false
		}
	}
	return true
}

func servicePortEqual(want, have *corev1.ServicePort) bool {
	wantTarget := want.TargetPort
	if wantTarget == (intstr.IntOrString{}) {
		// The apiserver defaults targetPort to port.
		wantTarget = intstr.FromInt32(want.Port)
	}
	return want.Name == have.Name &&
		want.Port == have.Port &&
		wantTarget == have.TargetPort &&
		protocolEqual(want.Protocol, have.Protocol) &&
		ptr.Equal(want.AppProtocol, have.AppProtocol)
}

// updatedService is have with the fields we own taken from want.
func updatedService(want, have *corev1.Service) *corev1.Service {
	out := have.DeepCopy()
	if classOf(have) != classOf(want) {
		// Leaving ExternalName: the apiserver allocates (or, for "None",
		// records) the cluster IPs.
		out.Spec.ClusterIP = want.Spec.ClusterIP
		out.Spec.ClusterIPs = nil
	}
	out.Spec.Type = want.Spec.Type
	out.Spec.ExternalName = want.Spec.ExternalName
	out.Spec.Selector = want.Spec.Selector
	out.Spec.Ports = want.Spec.Ports
	if want.Spec.SessionAffinity != "" {
		out.Spec.SessionAffinity = want.Spec.SessionAffinity
	}
	out.Labels = merged(have.Labels, want.Labels, nil)
	out.Annotations = merged(have.Annotations, want.Annotations, nil)
	return out
}

// ownedEndpointsLabels are labels whose absence from the desired Endpoints
// means they must be absent from the live one too.
var ownedEndpointsLabels = []string{discoveryv1.LabelSkipMirror, names.MarkLabel}

// ownedEndpointsAnnotations are the annotations we set on an Endpoints
// that holds only part of the load balancer's addresses: gone from the
// desired Endpoints, they go from the live one.
var ownedEndpointsAnnotations = []string{corev1.EndpointsOverCapacity}

func endpointsEqual(want, have *corev1.Endpoints) bool {
	if !metaContains(want.Labels, have.Labels, ownedEndpointsLabels) || !metaContains(want.Annotations, have.Annotations, ownedEndpointsAnnotations) {
		return false
	}
	if len(want.Subsets) != len(have.Subsets) {
		return false
	}
	for i := range want.Subsets {
		w, h := &want.Subsets[i], &have.Subsets[i]
		if !addressesEqual(w.Addresses, h.Addresses) || !addressesEqual(w.NotReadyAddresses, h.NotReadyAddresses) || len(w.Ports) != len(h.Ports) {
			return false
		}
		for j := range w.Ports {
			wp, hp := &w.Ports[j], &h.Ports[j]
			if wp.Name != hp.Name || wp.Port != hp.Port || !protocolEqual(wp.Protocol, hp.Protocol) || !ptr.Equal(wp.AppProtocol, hp.AppProtocol) {
				return false
			}
		}
	}
	return true
}

// addressesEqual compares the fields of endpoint addresses we write.
func addressesEqual(want, have []corev1.EndpointAddress) bool {
	return slices.EqualFunc(want, have, func(w, h corev1.EndpointAddress) bool {
		return w.IP == h.IP && w.Hostname == h.Hostname
	})
}

func updatedEndpoints(want, have *corev1.Endpoints) *corev1.Endpoints {
	out := have.DeepCopy()
	out.Subsets = want.Subsets
	out.Labels = merged(have.Labels, want.Labels, ownedEndpointsLabels)
	out.Annotations = merged(have.Annotations, want.Annotations, ownedEndpointsAnnotations)
	return out
}

// withoutMarks is have without the labels that say it is ours, for
// the route reconciler to take over.
func withoutMarks(have *corev1.Endpoints) *corev1.Endpoints {
	out := have.DeepCopy()
	delete(out.Labels, discoveryv1.LabelSkipMirror)
	delete(out.Labels, names.MarkLabel)
	delete(out.Annotations, corev1.EndpointsOverCapacity)
	return out
}

func sliceEqual(want, have *discoveryv1.EndpointSlice) bool {
	if !metaContains(want.Labels, have.Labels, nil) || !metaContains(want.Annotations, have.Annotations, nil) {
		return false
	}
	if len(want.Endpoints) != len(have.Endpoints) || len(want.Ports) != len(have.Ports) {
		return false
	}
	for i := range want.Endpoints {
		w, h := &want.Endpoints[i], &have.Endpoints[i]
		if len(w.Addresses) != len(h.Addresses) {
			return false
		}
		for j := range w.Addresses {
			if w.Addresses[j] != h.Addresses[j] {
				return false
			}
		}
		// A nil ready condition means ready.
		if ptr.Deref(w.Conditions.Ready, true) != ptr.Deref(h.Conditions.Ready, true) {
			return false
		}
	}
	for i := range want.Ports {
		w, h := &want.Ports[i], &have.Ports[i]
		if !ptr.Equal(w.Name, h.Name) || !ptr.Equal(w.Port, h.Port) || !protocolEqual(ptr.Deref(w.Protocol, ""), ptr.Deref(h.Protocol, "")) || !ptr.Equal(w.AppProtocol, h.AppProtocol) {
			return false
		}
	}
	return true
}

func updatedSlice(want, have *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	out := have.DeepCopy()
	out.Endpoints = want.Endpoints
	out.Ports = want.Ports
	out.Labels = merged(have.Labels, want.Labels, nil)
	out.Annotations = merged(have.Annotations, want.Annotations, nil)
	// The controller reference is want's (the Service); others stay.
	out.OwnerReferences = slices.DeleteFunc(out.OwnerReferences, func(r metav1.OwnerReference) bool {
		return ptr.Deref(r.Controller, false)
	})
	out.OwnerReferences = append(out.OwnerReferences, want.OwnerReferences...)
	return out
}

// metaContains reports whether have holds every entry of want, and none of
// the owned keys that want lacks.
func metaContains(want, have map[string]string, owned []string) bool {
	return equality.Semantic.DeepEqual(merged(have, want, owned), have)
}

// merged is have with want's entries added, and the owned keys want lacks
// removed.
func merged(have, want map[string]string, owned []string) map[string]string {
	return kmap.Union(kmap.ExcludeKeyList(have, owned), want)
}

// protocolEqual treats an empty protocol as the default, TCP.
func protocolEqual(a, b corev1.Protocol) bool {
	if a == "" {
		a = corev1.ProtocolTCP
	}
	if b == "" {
		b = corev1.ProtocolTCP
	}
	return a == b
}
