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
	"testing"

	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// splitSlice is an IPv4 slice named name holding addrs, one endpoint each.
func splitSlice(name string, addrs ...string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, AddressType: discoveryv1.AddressTypeIPv4}
	for _, a := range addrs {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}})
	}
	return s
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// contents renders slices as name → addresses.
func contents(ss []*discoveryv1.EndpointSlice) map[string][]string {
	out := map[string][]string{}
	for _, s := range ss {
		for _, e := range s.Endpoints {
			out[s.Name] = append(out[s.Name], e.Addresses...)
		}
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		want []string
		live []*discoveryv1.EndpointSlice
		out  map[string][]string
	}{{
		name: "a hundred addresses or fewer: one slice",
		want: ips(0, 100),
		out:  map[string][]string{"r-ipv4": ips(0, 100)},
	}, {
		name: "250 addresses: three slices in address order",
		want: ips(0, 250),
		out:  map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(100, 200), "r-ipv4-2": ips(200, 250)},
	}, {
		name: "an address added: the slice with room takes it",
		want: append(ips(0, 251), "10.0.0.1"),
		live: []*discoveryv1.EndpointSlice{
			splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-1", ips(100, 200)...), splitSlice("r-ipv4-2", ips(200, 250)...),
		},
		out: map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(100, 200), "r-ipv4-2": append(ips(200, 251), "10.0.0.1")},
	}, {
		name: "addresses removed: only their slice changes",
		want: join(ips(0, 120), ips(130, 250)),
		live: []*discoveryv1.EndpointSlice{
			splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-1", ips(100, 200)...), splitSlice("r-ipv4-2", ips(200, 250)...),
		},
		out: map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": join(ips(100, 120), ips(130, 200)), "r-ipv4-2": ips(200, 250)},
	}, {
		name: "live slices keep their addresses in whatever order they hold them",
		want: ips(0, 150),
		live: []*discoveryv1.EndpointSlice{splitSlice("r-ipv4", ips(50, 150)...), splitSlice("r-ipv4-1", ips(0, 50)...)},
		out:  map[string][]string{"r-ipv4": ips(50, 150), "r-ipv4-1": ips(0, 50)},
	}, {
		name: "every slice full: a new one under the lowest free name",
		want: ips(0, 201),
		live: []*discoveryv1.EndpointSlice{splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-2", ips(100, 200)...)},
		out:  map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(200, 201), "r-ipv4-2": ips(100, 200)},
	}, {
		name: "a live slice over the size: the excess moves to a slice with room",
		want: ips(0, 150),
		live: []*discoveryv1.EndpointSlice{splitSlice("r-ipv4", ips(0, 150)...)},
		out:  map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(100, 150)},
	}, {
		name: "more slices than needed: the emptiest moves into the others",
		want: join(ips(0, 95), ips(100, 190), ips(200, 210)),
		live: []*discoveryv1.EndpointSlice{
			splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-1", ips(100, 200)...), splitSlice("r-ipv4-2", ips(200, 250)...),
		},
		out: map[string][]string{"r-ipv4": join(ips(0, 95), ips(200, 205)), "r-ipv4-1": join(ips(100, 190), ips(205, 210))},
	}, {
		name: "shrunk to one slice's worth: the fuller slice stays under its name",
		want: ips(100, 160),
		live: []*discoveryv1.EndpointSlice{splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-1", ips(100, 200)...)},
		out:  map[string][]string{"r-ipv4-1": ips(100, 160)},
	}, {
		name: "an empty live slice takes new addresses",
		want: join(ips(0, 100), ips(300, 310)),
		live: []*discoveryv1.EndpointSlice{splitSlice("r-ipv4", ips(0, 100)...), splitSlice("r-ipv4-1", ips(100, 200)...)},
		out:  map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(300, 310)},
	}, {
		name: "slices of other names are not ours to fill",
		want: ips(0, 150),
		live: []*discoveryv1.EndpointSlice{
			splitSlice("r-ipv4-01", ips(0, 100)...), splitSlice("r-ipv4-x", ips(0, 100)...), splitSlice("r-ipv4-0", ips(0, 100)...),
			splitSlice("r-ipv6-1", ips(0, 100)...), splitSlice("r-ipv4--1", ips(0, 100)...),
		},
		out: map[string][]string{"r-ipv4": ips(0, 100), "r-ipv4-1": ips(100, 150)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := split([]*discoveryv1.EndpointSlice{splitSlice("r-ipv4", tc.want...)}, tc.live)
			if diff := cmp.Diff(tc.out, contents(got)); diff != "" {
				t.Errorf("split (-want +got):\n%s", diff)
			}
			for _, s := range got {
				if n := len(s.Endpoints); n > MaxEndpointsPerSlice {
					t.Errorf("%s holds %d endpoints, more than %d", s.Name, n, MaxEndpointsPerSlice)
				}
			}
		})
	}
}

// TestSplitKeepsTheDesiredSlice checks that a family that fits one slice is
// the desired slice itself, every field kept, and that each split slice
// keeps the desired slice's fields but its name and endpoints.
func TestSplitKeepsTheDesiredSlice(t *testing.T) {
	want := splitSlice("r-ipv4", ips(0, 150)...)
	want.Namespace, want.Labels = "ns", map[string]string{"a": "b"}
	full := splitSlice("r-ipv4", ips(0, MaxEndpointsPerSlice)...)
	for _, live := range [][]*discoveryv1.EndpointSlice{nil, {splitSlice("r-ipv4", ips(0, 3)...)}} {
		if got := split([]*discoveryv1.EndpointSlice{full}, live); len(got) != 1 || got[0] != full {
			t.Errorf("split of %d addresses with live slices %v = %v, want the desired slice itself", MaxEndpointsPerSlice, contents(live), contents(got))
		}
	}
	got := split([]*discoveryv1.EndpointSlice{want}, nil)
	if len(got) != 2 {
		t.Fatalf("split of 150 addresses: %d slices, want 2", len(got))
	}
	for _, s := range got {
		cp := *s
		cp.Name, cp.Endpoints = want.Name, want.Endpoints
		if diff := cmp.Diff(want, &cp); diff != "" {
			t.Errorf("%s differs from the desired slice beyond name and endpoints (-want +got):\n%s", s.Name, diff)
		}
	}
}
