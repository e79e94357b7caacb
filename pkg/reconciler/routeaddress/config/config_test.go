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
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/networking/pkg/config"
	logtesting "knative.dev/pkg/logging/testing"
	cfgmap "knative.dev/serving/pkg/apis/config"
	"knative.dev/serving/pkg/gc"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
)

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: name}, Data: data}
}

func TestStore(t *testing.T) {
	ctx := logtesting.TestContextWithLogger(t)
	var modes []Mode
	store := NewStore(ctx, nil, func(name string, value interface{}) {
		if ra, ok := RouteAddressOf(value); ok && name == netcfg.ConfigMapName {
			modes = append(modes, ra.Mode)
		}
	})

	if got := store.Mode(); got != ModeExternalName {
		t.Errorf("Mode() before load = %s, want %s", got, ModeExternalName)
	}

	store.OnConfigChanged(configMap(netcfg.ConfigMapName, map[string]string{ModeKey: "EndpointSlices"}))
	store.OnConfigChanged(configMap(routecfg.DomainConfigName, map[string]string{"example.com": ""}))
	store.OnConfigChanged(configMap(gc.ConfigName, nil))
	store.OnConfigChanged(configMap(cfgmap.FeaturesConfigName, nil))

	got := FromContext(store.ToContext(context.Background()))
	want := &RouteAddress{Mode: ModeEndpointSlices, ExternalNameFallback: FallbackEnabled}
	if diff := cmp.Diff(want, got.RouteAddress); diff != "" {
		t.Error("RouteAddress (-want +got):", diff)
	}
	rc := routecfg.FromContext(store.ToContext(context.Background()))
	if rc.Network == nil || rc.Domain == nil {
		t.Fatalf("route config = %+v, want network and domain loaded", rc)
	}

	// A bad value means the key's default, as knative.dev/networking parses it.
	store.OnConfigChanged(configMap(netcfg.ConfigMapName, map[string]string{ModeKey: "nonsense"}))
	if got := store.Mode(); got != ModeExternalName {
		t.Errorf("Mode() after bad update = %s, want %s", got, ModeExternalName)
	}

	// onAfterStore callbacks see each route-address configuration stored.
	if want := []Mode{ModeEndpointSlices, ModeExternalName}; !slices.Equal(modes, want) {
		t.Errorf("onAfterStore saw modes %v, want %v", modes, want)
	}
}

func TestFromContextOrDefaults(t *testing.T) {
	defaults := RouteAddress{Mode: ModeExternalName, ExternalNameFallback: FallbackEnabled}
	stored := RouteAddress{Mode: ModeEndpointSlices, ExternalNameFallback: FallbackDisabled}
	tests := []struct {
		name string
		ctx  context.Context
		want RouteAddress
	}{
		{"no Config", context.Background(), defaults},
		{"a Config without RouteAddress", ToContext(context.Background(), &Config{}), defaults},
		{"a stored Config", ToContext(context.Background(), &Config{RouteAddress: &stored}), stored},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FromContextOrDefaults(tc.ctx).RouteAddress; got == nil || *got != tc.want {
				t.Errorf("RouteAddress = %+v, want %+v", got, tc.want)
			}
		})
	}
}
