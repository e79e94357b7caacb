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

package routeaddress

// The tests of config.go, the file serving's version replaces (with this
// one: hack/upstream/_serving/pkg/reconciler/routeaddress/config_test.go).

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkingcfg "knative.dev/networking/pkg/config"
	"knative.dev/pkg/system"
	cfgmap "knative.dev/serving/pkg/apis/config"
	"knative.dev/serving/pkg/gc"

	filteredfactory "knative.dev/pkg/client/injection/kube/informers/factory/filtered"
	. "knative.dev/pkg/reconciler/testing"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// testStore hands each reconcile of a TableTest row the route reconciler's
// test configuration and the row's route-address settings.
type testStore struct{ network *netcfg.Config }

func (s testStore) ToContext(ctx context.Context) context.Context {
	return config.ToContext(routecfg.ToContext(ctx, rt.RouteConfig()),
		&config.Config{Network: s.network})
}

// configMaps are the ConfigMaps the config store watches, config-network
// with data.
func configMaps(data map[string]string) []*corev1.ConfigMap {
	cm := func(name string, d map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: system.Namespace(), Name: name}, Data: d}
	}
	return []*corev1.ConfigMap{
		cm(netcfg.ConfigMapName, data),
		cm(routecfg.DomainConfigName, map[string]string{"example.com": ""}),
		cm(gc.ConfigName, nil),
		cm(cfgmap.FeaturesConfigName, nil),
	}
}

// TestConfigStore: what the store loads is what a reconcile reads.
func TestConfigStore(t *testing.T) {
	ctx, _ := SetupFakeContext(t, func(ctx context.Context) context.Context {
		//series:foreign
		return filteredfactory.WithSelectors(ctx, SliceSelector, ForeignSliceSelector)
		//series:else
		// return filteredfactory.WithSelectors(ctx, SliceSelector)
		//series:end
	})
	s := newConfigStore(ctx)
	for _, cm := range configMaps(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices"}) {
		s.OnConfigChanged(cm)
	}
	if got := networkFromContext(s.ToContext(ctx)).RouteAddressMode; got != netcfg.RouteAddressModeEndpointSlices {
		t.Errorf("RouteAddressMode = %s, want %s", got, netcfg.RouteAddressModeEndpointSlices)
	}
}

// TestShapesServices: the network and domain configuration name and shape
// a Route's Services; the others do not.
func TestShapesServices(t *testing.T) {
	for _, tc := range []struct {
		value interface{}
		want  bool
	}{
		{&networkingcfg.Config{}, true},
		{&routecfg.Domain{}, true},
		{&gc.Config{}, false},
		{&cfgmap.Features{}, false},
	} {
		if got := shapesServices(tc.value); got != tc.want {
			t.Errorf("shapesServices(%T) = %v, want %v", tc.value, got, tc.want)
		}
	}
}
