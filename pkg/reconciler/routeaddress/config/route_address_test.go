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

package config

import (
	"testing"

	cm "knative.dev/pkg/configmap"
)

// This test goes to knative.dev/networking with route_address.go.

func TestRouteAddressKeys(t *testing.T) {
	for _, tc := range []struct {
		name         string
		data         map[string]string
		wantMode     RouteAddressMode
		wantFallback RouteAddressFallback
		wantErr      string
	}{{
		name:         "absent: the defaults",
		data:         map[string]string{},
		wantMode:     RouteAddressModeExternalName,
		wantFallback: RouteAddressFallbackEnabled,
	}, {
		name:         "case and space do not matter",
		data:         map[string]string{RouteAddressModeKey: " endpointslices ", RouteAddressExternalNameFallbackKey: "DISABLED"},
		wantMode:     RouteAddressModeEndpointSlices,
		wantFallback: RouteAddressFallbackDisabled,
	}, {
		name:         "a bad mode: its default, refused by validation",
		data:         map[string]string{RouteAddressModeKey: "EndpointSlice", RouteAddressExternalNameFallbackKey: "Disabled"},
		wantMode:     RouteAddressModeExternalName,
		wantFallback: RouteAddressFallbackDisabled,
		wantErr:      `route-address-mode: unknown value "EndpointSlice", allowed values are ExternalName, Endpoints, EndpointSlices, EndpointsAndSlices`,
	}, {
		name:         "a bad fallback: its default, refused by validation",
		data:         map[string]string{RouteAddressModeKey: "Endpoints", RouteAddressExternalNameFallbackKey: "maybe"},
		wantMode:     RouteAddressModeEndpoints,
		wantFallback: RouteAddressFallbackEnabled,
		wantErr:      `route-address-externalname-fallback: unknown value "maybe", allowed values are Enabled, Disabled`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			mode, fallback := RouteAddressModeExternalName, RouteAddressFallbackEnabled
			if err := cm.Parse(tc.data,
				asRouteAddressMode(RouteAddressModeKey, &mode),
				asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &fallback),
			); err != nil {
				t.Fatal("Parse() =", err)
			}
			if mode != tc.wantMode || fallback != tc.wantFallback {
				t.Errorf("parsed %s, %s; want %s, %s", mode, fallback, tc.wantMode, tc.wantFallback)
			}
			err := ValidateRouteAddress(tc.data)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("ValidateRouteAddress() = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestRouteAddressModePredicates(t *testing.T) {
	for _, tc := range []struct {
		mode                       RouteAddressMode
		endpoints, slices, managed bool
	}{
		{RouteAddressModeExternalName, false, false, false},
		{RouteAddressModeEndpoints, true, false, true},
		{RouteAddressModeEndpointSlices, false, true, true},
		{RouteAddressModeEndpointsAndSlices, true, true, true},
		{"", false, false, false},
		{"Bogus", false, false, false},
	} {
		if got := [3]bool{tc.mode.WritesEndpoints(), tc.mode.WritesEndpointSlices(), tc.mode.Managed()}; got != [3]bool{tc.endpoints, tc.slices, tc.managed} {
			t.Errorf("%q: WritesEndpoints, WritesEndpointSlices, Managed = %v", tc.mode, got)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
