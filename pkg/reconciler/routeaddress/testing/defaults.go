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

package testing

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DefaultService sets the fields a kube-apiserver (1.34) defaults on a
// Service: port protocol and targetPort, sessionAffinity, and for
// non-ExternalName Services internalTrafficPolicy, clusterIPs, ipFamilies
// and ipFamilyPolicy (RequireDualStack for a selector-less headless
// Service). An allocated Service keeps old's IP on update, else gets
// allocate().
func DefaultService(old, svc *corev1.Service, allocate func() string) {
	spec := &svc.Spec
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		if spec.Ports[i].Protocol == "" {
			spec.Ports[i].Protocol = corev1.ProtocolTCP
		}
		if spec.Ports[i].TargetPort == (intstr.IntOrString{}) {
			spec.Ports[i].TargetPort = intstr.FromInt32(spec.Ports[i].Port)
		}
	}
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		return
	}
	if spec.InternalTrafficPolicy == nil {
		c := corev1.ServiceInternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &c
	}
	switch spec.ClusterIP {
	case corev1.ClusterIPNone:
		spec.ClusterIPs = []string{corev1.ClusterIPNone}
		if spec.IPFamilyPolicy == nil {
			p := corev1.IPFamilyPolicyRequireDualStack
			spec.IPFamilyPolicy = &p
			spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}
	case "":
		if old != nil && old.Spec.ClusterIP != "" && old.Spec.Type != corev1.ServiceTypeExternalName {
			spec.ClusterIP, spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
			return
		}
		spec.ClusterIP = allocate()
		spec.ClusterIPs = []string{spec.ClusterIP}
		p := corev1.IPFamilyPolicySingleStack
		spec.IPFamilyPolicy = &p
		spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
}

// DefaultEndpoints sets the port protocol, as the apiserver does.
func DefaultEndpoints(ep *corev1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if ep.Subsets[i].Ports[j].Protocol == "" {
				ep.Subsets[i].Ports[j].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// DefaultSlice sets the port protocol, as the apiserver does.
func DefaultSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		if s.Ports[i].Protocol == nil {
			p := corev1.ProtocolTCP
			s.Ports[i].Protocol = &p
		}
	}
}
