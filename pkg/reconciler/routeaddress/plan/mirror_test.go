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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func mirrorEndpoints(name string, opts ...func(*corev1.Endpoints)) *corev1.Endpoints {
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   "ns",
			Name:        name,
			UID:         "uid-ep",
			Labels:      map[string]string{"serving.knative.dev/route": "hello", discoveryv1.LabelManagedBy: "someone"},
			Annotations: map[string]string{"team": "blue", corev1.EndpointsLastChangeTriggerTime: "t", corev1.LastAppliedConfigAnnotation: "{}"},
		},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.7"}},
			Ports:     []corev1.EndpointPort{{Name: "http2", Port: 80, Protocol: corev1.ProtocolTCP, AppProtocol: ptr.To("kubernetes.io/h2c")}},
		}},
	}
	for _, o := range opts {
		o(ep)
	}
	return ep
}

func mirrorService(name string, selector map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.ServiceSpec{Selector: selector}}
}

// mirroredSlice is the slice kube-controller-manager makes of
// mirrorEndpoints("hello"), of family holding eps.
func mirroredSlice(name string, family discoveryv1.AddressType, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns",
			Name:      name,
			Labels: map[string]string{
				"serving.knative.dev/route":  "hello",
				discoveryv1.LabelServiceName: "hello",
				discoveryv1.LabelManagedBy:   "endpointslicemirroring-controller.k8s.io",
			},
			Annotations: map[string]string{"team": "blue"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Endpoints", Name: "hello", UID: "uid-ep",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		AddressType: family,
		Endpoints:   eps,
		Ports: []discoveryv1.EndpointPort{{
			Name: ptr.To("http2"), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP), AppProtocol: ptr.To("kubernetes.io/h2c"),
		}},
	}
}

func ready(ip string) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}
}

func TestMirrored(t *testing.T) {
	headless := mirrorService("hello", nil)
	many := make([]corev1.EndpointAddress, 1001)
	manyWant := make([]discoveryv1.Endpoint, 1000)
	for i := range many {
		many[i] = corev1.EndpointAddress{IP: ips(i, i+1)[0]}
		if i < 1000 {
			manyWant[i] = ready(many[i].IP)
		}
	}
	tests := []struct {
		name string
		in   Actual
		want []*discoveryv1.EndpointSlice
	}{{
		name: "one address: labels and annotations copied, managed-by and service-name set",
		in:   Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello")}},
		want: []*discoveryv1.EndpointSlice{mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4, ready("10.0.0.7"))},
	}, {
		name: "no Service",
		in:   Actual{Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello")}},
	}, {
		name: "a Service with a selector",
		in:   Actual{Services: []*corev1.Service{mirrorService("hello", map[string]string{"app": "x"})}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello")}},
	}, {
		name: "another name's Service",
		in:   Actual{Services: []*corev1.Service{mirrorService("other", nil)}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello")}},
	}, {
		name: "skip-mirror",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Labels[discoveryv1.LabelSkipMirror] = "true"
		})}},
	}, {
		name: "skip-mirror other than true",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Labels[discoveryv1.LabelSkipMirror] = "false"
		})}},
		want: []*discoveryv1.EndpointSlice{func() *discoveryv1.EndpointSlice {
			s := mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4, ready("10.0.0.7"))
			s.Labels[discoveryv1.LabelSkipMirror] = "false"
			return s
		}()},
	}, {
		name: "leader election",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Annotations["control-plane.alpha.kubernetes.io/leader"] = "{}"
		})}},
	}, {
		name: "no addresses",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Subsets[0].Addresses = nil
		})}},
	}, {
		name: "dual stack, not ready, hostname, node, an IPv4-mapped address, a bad one",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "10.0.0.7", Hostname: "a", NodeName: ptr.To("n")}, {IP: "fd00::7"}, {IP: "::ffff:10.0.0.9"}, {IP: "bad"}}
			ep.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}}
		})}},
		want: []*discoveryv1.EndpointSlice{
			mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4,
				discoveryv1.Endpoint{Addresses: []string{"10.0.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}, Hostname: ptr.To("a"), NodeName: ptr.To("n")},
				ready("10.0.0.9"),
				discoveryv1.Endpoint{Addresses: []string{"10.0.0.8"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}),
			mirroredSlice("hello-mirrored-ipv6", discoveryv1.AddressTypeIPv6, ready("fd00::7")),
		},
	}, {
		name: "two subsets",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Subsets = append(ep.Subsets, ep.Subsets[0])
			ep.Subsets[1].Addresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}}
		})}},
		want: []*discoveryv1.EndpointSlice{
			mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4, ready("10.0.0.7")),
			mirroredSlice("hello-mirrored-ipv4-1", discoveryv1.AddressTypeIPv4, ready("10.0.0.8")),
		},
	}, {
		name: "the first 1 000 addresses of a subset, ready ones first",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Subsets[0].Addresses = many
			ep.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}}
		})}},
		want: []*discoveryv1.EndpointSlice{mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4, manyWant...)},
	}, {
		name: "a not-ready address within the first 1 000",
		in: Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{mirrorEndpoints("hello", func(ep *corev1.Endpoints) {
			ep.Subsets[0].Addresses = many[:999]
			ep.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}, {IP: "10.0.0.9"}}
		})}},
		want: []*discoveryv1.EndpointSlice{mirroredSlice("hello-mirrored-ipv4", discoveryv1.AddressTypeIPv4, append(manyWant[:999:999],
			discoveryv1.Endpoint{Addresses: []string{"10.0.0.8"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}})...)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Mirrored(tt.in)); diff != "" {
				t.Error("Mirrored() (-want, +got):", diff)
			}
		})
	}
}

// ips returns the addresses 10.1.{i/250}.{i%250+1} for i in [from, to).
func ips(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("10.1.%d.%d", i/250, i%250+1))
	}
	return out
}
