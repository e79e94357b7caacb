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

	logtesting "knative.dev/pkg/logging/testing"
	netcfg "knative.dev/route-address/pkg/networking/config"
	cfgmap "knative.dev/serving/pkg/apis/config"
	"knative.dev/serving/pkg/gc"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
)

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: name}, Data: data}
}

func TestStore(t *testing.T) {
	ctx := logtesting.TestContextWithLogger(t)
	var modes []netcfg.RouteAddressMode
	store := NewStore(ctx, func(name string, value interface{}) {
		if nc, ok := value.(*netcfg.Config); ok && name == netcfg.ConfigMapName {
			modes = append(modes, nc.RouteAddressMode)
		}
	})

	if got, _ := store.ModeFor(nil); got != netcfg.RouteAddressModeExternalName {
		t.Errorf("Mode() before load = %s, want %s", got, netcfg.RouteAddressModeExternalName)
	}

	store.OnConfigChanged(configMap(netcfg.ConfigMapName, map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices"}))
	store.OnConfigChanged(configMap(routecfg.DomainConfigName, map[string]string{"example.com": ""}))
	store.OnConfigChanged(configMap(gc.ConfigName, nil))
	store.OnConfigChanged(configMap(cfgmap.FeaturesConfigName, nil))

	got := FromContext(store.ToContext(context.Background()))
	want := &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled}
	if diff := cmp.Diff(want, got.Network); diff != "" {
		t.Error("Network (-want +got):", diff)
	}
	rc := routecfg.FromContext(store.ToContext(context.Background()))
	if rc.Network == nil || rc.Domain == nil {
		t.Fatalf("route config = %+v, want network and domain loaded", rc)
	}

	// A bad value in an update keeps the last good configuration, and
	// stores nothing.
	store.OnConfigChanged(configMap(netcfg.ConfigMapName, map[string]string{netcfg.RouteAddressModeKey: "nonsense"}))
	if got, _ := store.ModeFor(nil); got != netcfg.RouteAddressModeEndpointSlices {
		t.Errorf("Mode() after bad update = %s, want %s", got, netcfg.RouteAddressModeEndpointSlices)
	}
	// A Namespace's annotation: a mode is its Routes' mode; a value that
	// is not one holds them, with the configured mode.
	for _, tc := range []struct {
		value string
		mode  netcfg.RouteAddressMode
		held  bool
	}{{"EndpointsAndSlices", netcfg.RouteAddressModeEndpointsAndSlices, false}, {"endpointslice", netcfg.RouteAddressModeEndpointSlices, true}} {
		if mode, held := store.ModeFor(map[string]string{netcfg.RouteAddressModeAnnotationKey: tc.value}); mode != tc.mode || held != tc.held {
			t.Errorf("ModeFor(%q) = %s, %v; want %s, %v", tc.value, mode, held, tc.mode, tc.held)
		}
	}
	store.OnConfigChanged(configMap(netcfg.ConfigMapName, map[string]string{netcfg.RouteAddressModeKey: "Endpoints"}))

	// onAfterStore callbacks see each route-address configuration stored.
	if want := []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints}; !slices.Equal(modes, want) {
		t.Errorf("onAfterStore saw modes %v, want %v", modes, want)
	}
}

func TestFromContextOrDefaults(t *testing.T) {
	stored := netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackDisabled}
	tests := []struct {
		name string
		ctx  context.Context
		want netcfg.Config
	}{
		{"no Config", context.Background(), defaults},
		{"a Config without Network", ToContext(context.Background(), &Config{}), defaults},
		{"a stored Config", ToContext(context.Background(), &Config{Network: &stored}), stored},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FromContextOrDefaults(tc.ctx).Network; got == nil || *got != tc.want {
				t.Errorf("Network = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// defaults is the configuration of a config-network without the
// route-address keys.
var defaults = netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeExternalName, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled}
