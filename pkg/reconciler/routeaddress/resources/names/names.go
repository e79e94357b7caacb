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

package names

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ManagedBy is the endpointslice.kubernetes.io/managed-by value of the
// EndpointSlices routeaddress writes. It is unique to us so that neither the
// EndpointSlice controller nor the mirroring controller touches them.
const ManagedBy = "routeaddress-controller.knative.dev"

// MirroredBy is the endpointslice.kubernetes.io/managed-by value of the
// EndpointSlices kube-controller-manager mirrors from Endpoints that lack
// the skip-mirror label (its endpointslicemirroring controller).
const MirroredBy = "endpointslicemirroring-controller.k8s.io"

// MarkLabel marks the Endpoints routeaddress writes, so that they are told
// from the route reconciler's (which carry no mark) when the mode goes back to
// ExternalName. Its value is ManagedBy.
const MarkLabel = "serving.knative.dev/route-address"

// EndpointSlice returns the name of the EndpointSlice that holds the
// addresses of one family for the named Service: "{service}-ipv4" or
// "{service}-ipv6". Service names are unique in a namespace, so these are too,
// and they never take the shape of a mirrored slice ("{endpoints}-" plus five
// random characters).
func EndpointSlice(service string, addressType discoveryv1.AddressType) string {
	switch addressType {
	case discoveryv1.AddressTypeIPv4:
		return service + "-ipv4"
	case discoveryv1.AddressTypeIPv6:
		return service + "-ipv6"
	default:
		return service + "-fqdn"
	}
}

// ServiceOwner is the controller reference of one of our EndpointSlices to
// the Service it serves, its UID not yet bound: our slices are controlled
// by their Service, as Kubernetes' own controllers' are, so that garbage
// collection deletes them with it.
func ServiceOwner(service string) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         "v1",
		Kind:               "Service",
		Name:               service,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}
