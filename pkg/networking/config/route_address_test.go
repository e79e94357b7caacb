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
	"fmt"
	"testing"

	cm "knative.dev/pkg/configmap"
)

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
		name:         "empty: the defaults",
		data:         map[string]string{RouteAddressModeKey: " ", RouteAddressExternalNameFallbackKey: ""},
		wantMode:     RouteAddressModeExternalName,
		wantFallback: RouteAddressFallbackEnabled,
	}, {
		name:         "every value",
		data:         map[string]string{RouteAddressModeKey: "endpointsandslices", RouteAddressExternalNameFallbackKey: "disabled"},
		wantMode:     RouteAddressModeEndpointsAndSlices,
		wantFallback: RouteAddressFallbackDisabled,
	}, {
		name:         "case and space do not matter",
		data:         map[string]string{RouteAddressModeKey: " EndpointSlices ", RouteAddressExternalNameFallbackKey: "DISABLED"},
		wantMode:     RouteAddressModeEndpointSlices,
		wantFallback: RouteAddressFallbackDisabled,
	}, {
		name:    "a mode that is not allowed",
		data:    map[string]string{RouteAddressModeKey: "EndpointSlice", RouteAddressExternalNameFallbackKey: "disabled"},
		wantErr: `route-address-mode with value: "EndpointSlice" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`,
	}, {
		name:    "a fallback that is not allowed",
		data:    map[string]string{RouteAddressModeKey: "endpoints", RouteAddressExternalNameFallbackKey: "maybe"},
		wantErr: `route-address-externalname-fallback with value: "maybe" in config-network ConfigMap is not supported, allowed values are enabled, disabled`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			mode, fallback := RouteAddressModeExternalName, RouteAddressFallbackEnabled
			err := cm.Parse(tc.data,
				asRouteAddressMode(RouteAddressModeKey, &mode),
				asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &fallback),
			)
			if got := errString(err); got != tc.wantErr {
				t.Fatalf("Parse() = %q, want %q", got, tc.wantErr)
			}
			if err == nil && (mode != tc.wantMode || fallback != tc.wantFallback) {
				t.Errorf("parsed %s, %s; want %s, %s", mode, fallback, tc.wantMode, tc.wantFallback)
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

func TestRouteAddressModeFor(t *testing.T) {
	c := &Config{RouteAddressMode: RouteAddressModeEndpointSlices}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        RouteAddressMode
		wantErr     string
	}{{
		name: "no annotations: the cluster's mode",
		want: RouteAddressModeEndpointSlices,
	}, {
		name:        "empty: the cluster's mode",
		annotations: map[string]string{RouteAddressModeAnnotationKey: " "},
		want:        RouteAddressModeEndpointSlices,
	}, {
		name:        "a mode, without regard to case",
		annotations: map[string]string{RouteAddressModeAnnotationKey: " EndpointsAndSlices"},
		want:        RouteAddressModeEndpointsAndSlices,
	}, {
		name:        "externalname: the namespace stays behind",
		annotations: map[string]string{RouteAddressModeAnnotationKey: "externalname"},
		want:        RouteAddressModeExternalName,
	}, {
		name:        "not a mode: the cluster's mode, and an error",
		annotations: map[string]string{RouteAddressModeAnnotationKey: "endpointslcies"},
		want:        RouteAddressModeEndpointSlices,
		wantErr: `annotation networking.knative.dev/route-address-mode with value: "endpointslcies" is not supported, ` +
			"allowed values are externalname, endpoints, endpointslices, endpointsandslices",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.RouteAddressModeFor(tc.annotations)
			if got != tc.want {
				t.Errorf("RouteAddressModeFor() = %q, want %q", got, tc.want)
			}
			if gotErr := fmt.Sprint(err); (err != nil || tc.wantErr != "") && gotErr != tc.wantErr {
				t.Errorf("RouteAddressModeFor() error = %s, want %s", gotErr, tc.wantErr)
			}
		})
	}
}
