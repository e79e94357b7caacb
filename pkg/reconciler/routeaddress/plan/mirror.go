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
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// maxMirroredPerSubset is the most addresses of one Endpoints subset that
// kube-controller-manager mirrors (--mirroring-max-endpoints-per-subset).
const maxMirroredPerSubset = 1000

// Mirrored returns the EndpointSlices that kube-controller-manager's
// endpointslicemirroring controller keeps for the Endpoints in a: for each
// Endpoints whose Service exists without a selector and that has neither
// the skip-mirror label nor a leader-election annotation, one slice per
// subset and address family, holding the first 1 000 of the subset's
// addresses (ready) and not-ready addresses (not ready) and its ports. A
// slice carries the Endpoints' labels (its service-name and managed-by set
// to the mirroring controller's) and annotations (but the last change's
// trigger time and kubectl's last-applied configuration), and is
// controlled by the Endpoints. kube-controller-manager generates the
// slices' names; here they are "{endpoints}-mirrored-{family}".
//
// The planner does not use it: the kubectl plugin predicts with it what a
// switch to Endpoints does next, and the planner's tests simulate the
// cluster with it.
func Mirrored(a Actual) []*discoveryv1.EndpointSlice {
	selectorless := make(map[string]bool, len(a.Services))
	for _, svc := range a.Services {
		selectorless[svc.Name] = svc.Spec.Selector == nil
	}
	var out []*discoveryv1.EndpointSlice
	for _, ep := range a.Endpoints {
		if !selectorless[ep.Name] || ep.Labels[discoveryv1.LabelSkipMirror] == "true" || ep.Annotations[leaderAnnotation] != "" {
			continue
		}
		for i, sub := range ep.Subsets {
			out = append(out, mirrorSubset(ep, i, sub)...)
		}
	}
	return out
}

// leaderAnnotation marks an Endpoints used for leader election, which
// kube-controller-manager does not mirror.
const leaderAnnotation = "control-plane.alpha.kubernetes.io/leader"

// mirrorSubset returns the slices of one subset of ep, one per address family.
func mirrorSubset(ep *corev1.Endpoints, i int, sub corev1.EndpointSubset) []*discoveryv1.EndpointSlice {
	byFamily := map[discoveryv1.AddressType]*discoveryv1.EndpointSlice{}
	var out []*discoveryv1.EndpointSlice
	add := func(addr corev1.EndpointAddress, ready bool) {
		ip, err := netip.ParseAddr(addr.IP)
		if err != nil {
			return
		}
		// As net.IP.To4 reads it: an IPv4-mapped address is IPv4.
		ip = ip.Unmap()
		family := discoveryv1.AddressTypeIPv4
		if !ip.Is4() {
			family = discoveryv1.AddressTypeIPv6
		}
		sl := byFamily[family]
		if sl == nil {
			sl = newMirroredSlice(ep, i, sub.Ports, family)
			byFamily[family] = sl
			out = append(out, sl)
		}
		e := discoveryv1.Endpoint{
			Addresses:  []string{ip.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)},
			NodeName:   addr.NodeName,
			TargetRef:  addr.TargetRef,
		}
		if addr.Hostname != "" {
			e.Hostname = ptr.To(addr.Hostname)
		}
		sl.Endpoints = append(sl.Endpoints, e)
	}
	n := 0
	for _, addr := range sub.Addresses {
		if n == maxMirroredPerSubset {
			break
		}
		add(addr, true)
		n++
	}
	for _, addr := range sub.NotReadyAddresses {
		if n == maxMirroredPerSubset {
			break
		}
		add(addr, false)
		n++
	}
	return out
}

func newMirroredSlice(ep *corev1.Endpoints, subset int, ports []corev1.EndpointPort, family discoveryv1.AddressType) *discoveryv1.EndpointSlice {
	name := fmt.Sprintf("%s-mirrored-%s", ep.Name, map[discoveryv1.AddressType]string{discoveryv1.AddressTypeIPv4: "ipv4", discoveryv1.AddressTypeIPv6: "ipv6"}[family])
	if subset > 0 {
		name = fmt.Sprintf("%s-%d", name, subset)
	}
	sl := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       ep.Namespace,
			Name:            name,
			Labels:          make(map[string]string, len(ep.Labels)+2),
			Annotations:     make(map[string]string, len(ep.Annotations)),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ep, corev1.SchemeGroupVersion.WithKind("Endpoints"))},
		},
		AddressType: family,
		Ports:       make([]discoveryv1.EndpointPort, 0, len(ports)),
	}
	for k, v := range ep.Labels {
		sl.Labels[k] = v
	}
	sl.Labels[discoveryv1.LabelServiceName] = ep.Name
	sl.Labels[discoveryv1.LabelManagedBy] = names.MirroredBy
	for k, v := range ep.Annotations {
		if k != corev1.EndpointsLastChangeTriggerTime && k != corev1.LastAppliedConfigAnnotation {
			sl.Annotations[k] = v
		}
	}
	for _, p := range ports {
		sl.Ports = append(sl.Ports, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(p.Port), Protocol: ptr.To(p.Protocol), AppProtocol: p.AppProtocol})
	}
	return sl
}
