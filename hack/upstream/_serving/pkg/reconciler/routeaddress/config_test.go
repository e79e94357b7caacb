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

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	logtesting "knative.dev/pkg/logging/testing"
	"knative.dev/pkg/system"
	_ "knative.dev/pkg/system/testing"
	cfgmap "knative.dev/serving/pkg/apis/config"
	"knative.dev/serving/pkg/gc"

	netcfg "knative.dev/networking/pkg/config"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
)

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
	ctx := logtesting.TestContextWithLogger(t)
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
		{&netcfg.Config{}, true},
		{&routecfg.Domain{}, true},
		{&gc.Config{}, false},
		{&cfgmap.Features{}, false},
	} {
		if got := shapesServices(tc.value); got != tc.want {
			t.Errorf("shapesServices(%T) = %v, want %v", tc.value, got, tc.want)
		}
	}
}
