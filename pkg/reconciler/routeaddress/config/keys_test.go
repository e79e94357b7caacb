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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/networking/pkg/config"
)

func TestNewRouteAddressFromMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    map[string]string
		want    *RouteAddress
		wantErr string
	}{{
		name: "defaults",
		data: map[string]string{},
		want: &RouteAddress{Mode: ModeExternalName, ExternalNameFallback: FallbackEnabled},
	}, {
		name: "other keys are ignored",
		data: map[string]string{"ingress-class": "kourier.ingress.networking.knative.dev"},
		want: &RouteAddress{Mode: ModeExternalName, ExternalNameFallback: FallbackEnabled},
	}, {
		name: "empty values keep the defaults",
		data: map[string]string{ModeKey: " ", ExternalNameFallbackKey: ""},
		want: &RouteAddress{Mode: ModeExternalName, ExternalNameFallback: FallbackEnabled},
	}, {
		name: "each mode",
		data: map[string]string{ModeKey: "EndpointsAndSlices", ExternalNameFallbackKey: "Disabled"},
		want: &RouteAddress{Mode: ModeEndpointsAndSlices, ExternalNameFallback: FallbackDisabled},
	}, {
		name: "case and spaces do not matter",
		data: map[string]string{ModeKey: " endpointslices\n", ExternalNameFallbackKey: "ENABLED"},
		want: &RouteAddress{Mode: ModeEndpointSlices, ExternalNameFallback: FallbackEnabled},
	}, {
		name: "endpoints",
		data: map[string]string{ModeKey: "Endpoints"},
		want: &RouteAddress{Mode: ModeEndpoints, ExternalNameFallback: FallbackEnabled},
	}, {
		name:    "unknown mode",
		data:    map[string]string{ModeKey: "Headless"},
		wantErr: `route-address-mode with value: "Headless" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`,
	}, {
		name:    "unknown fallback",
		data:    map[string]string{ExternalNameFallbackKey: "true"},
		wantErr: `route-address-externalname-fallback with value: "true" in config-network ConfigMap is not supported, allowed values are enabled, disabled`,
	}, {
		name:    "both unknown: both named",
		data:    map[string]string{ModeKey: "Headless", ExternalNameFallbackKey: "true"},
		wantErr: `route-address-mode with value: "Headless" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices; route-address-externalname-fallback with value: "true" in config-network ConfigMap is not supported, allowed values are enabled, disabled`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewRouteAddressFromMap(tc.data)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal("NewRouteAddressFromMap() =", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error("config (-want +got):", diff)
			}
		})
	}
}

func TestNewRouteAddressFromConfigMapNamesTheConfigMap(t *testing.T) {
	_, err := NewRouteAddressFromConfigMap(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: netcfg.ConfigMapName},
		Data:       map[string]string{ModeKey: "Slices"},
	})
	if err == nil || !strings.Contains(err.Error(), "knative-serving/config-network") || !strings.Contains(err.Error(), `"Slices"`) {
		t.Fatalf("error = %v, want one naming knative-serving/config-network and the value", err)
	}
}
