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
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

func TestEndpointSlice(t *testing.T) {
	for _, tc := range []struct {
		service string
		family  discoveryv1.AddressType
		want    string
	}{
		{"route", discoveryv1.AddressTypeIPv4, "route-ipv4"},
		{"tag-route", discoveryv1.AddressTypeIPv6, "tag-route-ipv6"},
		{"route", discoveryv1.AddressTypeFQDN, "route-fqdn"},
	} {
		if got := EndpointSlice(tc.service, tc.family); got != tc.want {
			t.Errorf("EndpointSlice(%q, %s) = %q, want %q", tc.service, tc.family, got, tc.want)
		}
	}
}
