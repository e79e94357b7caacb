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

	"github.com/google/go-cmp/cmp"
)

func TestNewConfigFromMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    map[string]string
		want    *Config
		wantErr string
	}{{
		name: "defaults",
		data: map[string]string{},
		want: &Config{RouteAddressMode: RouteAddressModeExternalName, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
	}, {
		name: "other keys are ignored",
		data: map[string]string{"ingress-class": "kourier.ingress.networking.knative.dev"},
		want: &Config{RouteAddressMode: RouteAddressModeExternalName, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
	}, {
		name: "empty values keep the defaults",
		data: map[string]string{RouteAddressModeKey: " ", RouteAddressExternalNameFallbackKey: ""},
		want: &Config{RouteAddressMode: RouteAddressModeExternalName, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
	}, {
		name: "each mode",
		data: map[string]string{RouteAddressModeKey: "EndpointsAndSlices", RouteAddressExternalNameFallbackKey: "Disabled"},
		want: &Config{RouteAddressMode: RouteAddressModeEndpointsAndSlices, RouteAddressExternalNameFallback: RouteAddressFallbackDisabled},
	}, {
		name: "case and spaces do not matter",
		data: map[string]string{RouteAddressModeKey: " endpointslices\n", RouteAddressExternalNameFallbackKey: "ENABLED"},
		want: &Config{RouteAddressMode: RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
	}, {
		name: "endpoints",
		data: map[string]string{RouteAddressModeKey: "Endpoints"},
		want: &Config{RouteAddressMode: RouteAddressModeEndpoints, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
	}, {
		name:    "unknown mode",
		data:    map[string]string{RouteAddressModeKey: "Headless"},
		wantErr: `route-address-mode with value: "Headless" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`,
	}, {
		name:    "unknown fallback",
		data:    map[string]string{RouteAddressExternalNameFallbackKey: "true"},
		wantErr: `route-address-externalname-fallback with value: "true" in config-network ConfigMap is not supported, allowed values are enabled, disabled`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewConfigFromMap(tc.data)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal("NewConfigFromMap() =", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error("config (-want +got):", diff)
			}
		})
	}
}

func TestNewConfigFromMapOrDefaults(t *testing.T) {
	modeErr := `route-address-mode with value: "Headless" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`
	fallbackErr := `route-address-externalname-fallback with value: "true" in config-network ConfigMap is not supported, allowed values are enabled, disabled`
	for _, tc := range []struct {
		name    string
		data    map[string]string
		want    *Config
		wantErr string
	}{{
		name: "good values",
		data: map[string]string{RouteAddressModeKey: "Endpoints", RouteAddressExternalNameFallbackKey: "disabled"},
		want: &Config{RouteAddressMode: RouteAddressModeEndpoints, RouteAddressExternalNameFallback: RouteAddressFallbackDisabled},
	}, {
		name:    "a bad mode: its default, the fallback kept",
		data:    map[string]string{RouteAddressModeKey: "Headless", RouteAddressExternalNameFallbackKey: "disabled"},
		want:    &Config{RouteAddressMode: RouteAddressModeExternalName, RouteAddressExternalNameFallback: RouteAddressFallbackDisabled},
		wantErr: modeErr,
	}, {
		name:    "a bad fallback: its default, the mode kept",
		data:    map[string]string{RouteAddressModeKey: "endpointslices", RouteAddressExternalNameFallbackKey: "true"},
		want:    &Config{RouteAddressMode: RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
		wantErr: fallbackErr,
	}, {
		name:    "both bad: both named, both defaults",
		data:    map[string]string{RouteAddressModeKey: "Headless", RouteAddressExternalNameFallbackKey: "true"},
		want:    &Config{RouteAddressMode: RouteAddressModeExternalName, RouteAddressExternalNameFallback: RouteAddressFallbackEnabled},
		wantErr: modeErr + "\n" + fallbackErr,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewConfigFromMapOrDefaults(tc.data)
			if gotErr := fmt.Sprint(err); (err != nil || tc.wantErr != "") && gotErr != tc.wantErr {
				t.Errorf("error = %v, want %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error("config (-want +got):", diff)
			}
		})
	}
}
