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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	servingtesting "knative.dev/serving/pkg/testing"
)

// The objects the routeaddress reconciler is expected to write for the test
// Route, written out as literals (as serving's route TableTest writes its
// simpleK8sService), for TableTest expectations that do not come from the
// code under test.

// ServiceOption changes a Service these builders return: serving's
// K8sServiceOption, so that serving's options apply to them too.
type ServiceOption = servingtesting.K8sServiceOption

// EndpointsOption changes an Endpoints these builders return: serving's.
type EndpointsOption = servingtesting.EndpointsOption

// HeadlessService is the test Route's Service name (RouteName or TagService)
// made headless: ClusterIP None, the h2c port, the Route's labels and
// annotations, controlled by the Route without blocking its deletion.
func HeadlessService(name string, opts ...ServiceOption) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: routeMeta(name, nil),
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{
				Name:        "http2",
				AppProtocol: ptr.To("kubernetes.io/h2c"),
				Port:        80,
				TargetPort:  intstr.FromInt(80),
			}},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// WithExternalName makes the Service the route reconciler's ExternalName
// Service of host: serving's WithExternalName (the name and the h2c port)
// with the type and the cluster IP that go with it, and its controller
// reference blocking the Route's deletion.
func WithExternalName(host string) ServiceOption {
	return func(s *corev1.Service) {
		servingtesting.WithExternalName(host)(s)
		s.Spec.Type = corev1.ServiceTypeExternalName
		s.Spec.ClusterIP = ""
		blocking(s)
	}
}

// WithMeshClusterIP makes the Service the route reconciler's for a MeshOnly load
// balancer: a ClusterIP Service with the plain http port, its controller
// reference blocking the Route's deletion.
func WithMeshClusterIP(s *corev1.Service) {
	s.Spec.ClusterIP = ""
	s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80}}
	blocking(s)
}

// blocking makes the Service's controller reference block the Route's
// deletion, as the route reconciler's references do (kmeta.NewControllerRef).
func blocking(s *corev1.Service) {
	for i := range s.OwnerReferences {
		s.OwnerReferences[i].BlockOwnerDeletion = ptr.To(true)
	}
}

// Endpoints is the core/v1 Endpoints of the Service name, marked as ours,
// holding ips on the h2c port, controlled by the Route without blocking its
// deletion.
func Endpoints(name string, ips []string, opts ...EndpointsOption) *corev1.Endpoints {
	addrs := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		addrs[i] = corev1.EndpointAddress{IP: ip}
	}
	e := &corev1.Endpoints{
		ObjectMeta: routeMeta(name, map[string]string{"serving.knative.dev/route-address": "routeaddress-controller.knative.dev"}),
		Subsets: []corev1.EndpointSubset{{
			Addresses: addrs,
			Ports:     []corev1.EndpointPort{{Name: "http2", AppProtocol: ptr.To("kubernetes.io/h2c"), Port: 80}},
		}},
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// WithSkipMirror labels Endpoints so that Kubernetes does not mirror them
// into EndpointSlices (EndpointsAndSlices).
func WithSkipMirror(e *corev1.Endpoints) {
	e.Labels[discoveryv1.LabelSkipMirror] = "true"
}

// Slice is the EndpointSlice of one address family of the Service name,
// holding one ready endpoint per IP on the h2c port, managed by us and
// controlled by the Service (its UID not bound).
func Slice(name string, family discoveryv1.AddressType, ips ...string) *discoveryv1.EndpointSlice {
	suffix := map[discoveryv1.AddressType]string{discoveryv1.AddressTypeIPv4: "-ipv4", discoveryv1.AddressTypeIPv6: "-ipv6"}[family]
	eps := make([]discoveryv1.Endpoint, len(ips))
	for i, ip := range ips {
		eps[i] = discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: Namespace,
			Name:      name + suffix,
			Labels: map[string]string{
				"app":                        "hello",
				"serving.knative.dev/route":  RouteName,
				discoveryv1.LabelServiceName: name,
				discoveryv1.LabelManagedBy:   "routeaddress-controller.knative.dev",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         "v1",
				Kind:               "Service",
				Name:               name,
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		AddressType: family,
		Endpoints:   eps,
		Ports: []discoveryv1.EndpointPort{{
			Name:        ptr.To("http2"),
			AppProtocol: ptr.To("kubernetes.io/h2c"),
			Port:        ptr.To[int32](80),
			Protocol:    ptr.To(corev1.ProtocolTCP),
		}},
	}
}

// routeMeta is the metadata of an object the test Route controls, with the
// Route's labels (and extra) and annotations; the reference does not block
// the Route's deletion.
func routeMeta(name string, extra map[string]string) metav1.ObjectMeta {
	labels := map[string]string{"app": "hello", "serving.knative.dev/route": RouteName}
	for k, v := range extra {
		labels[k] = v
	}
	return metav1.ObjectMeta{
		Namespace:   Namespace,
		Name:        name,
		Labels:      labels,
		Annotations: map[string]string{"team": "blue"},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "serving.knative.dev/v1",
			Kind:       "Route",
			Name:       RouteName,
			UID:        RouteUID,
			Controller: ptr.To(true),
		}},
	}
}
