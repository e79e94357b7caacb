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
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/networking/pkg/config"
	filteredfactory "knative.dev/pkg/client/injection/kube/informers/factory/filtered"
	"knative.dev/pkg/configmap"
	logtesting "knative.dev/pkg/logging/testing"
	. "knative.dev/pkg/reconciler/testing"
	"knative.dev/pkg/system"
	cfgmap "knative.dev/serving/pkg/apis/config"
	"knative.dev/serving/pkg/gc"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	_ "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/ingress/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/core/v1/endpoints/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/core/v1/service/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/discovery/v1/endpointslice/filtered/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/factory/filtered/fake"
	_ "knative.dev/serving/pkg/client/injection/informers/serving/v1/route/fake"

	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

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

func TestNewController(t *testing.T) {
	ctx, _ := SetupFakeContext(t, func(ctx context.Context) context.Context {
		return filteredfactory.WithSelectors(ctx, SliceSelector)
	})
	impl := NewController(ctx, configmap.NewStaticWatcher(configMaps(map[string]string{config.ModeKey: "EndpointSlices"})...))
	if impl == nil {
		t.Fatal("NewController() = nil")
	}
}

// TestConfigResync: every Route is reconciled again when the network or
// domain configuration is stored (so when the route-address keys change),
// not for the other ConfigMaps the store follows.
func TestConfigResync(t *testing.T) {
	calls := 0
	store := config.NewStore(logtesting.TestContextWithLogger(t), nil, configResync(func() { calls++ }))
	load := func(cms ...*corev1.ConfigMap) int {
		before := calls
		for _, cm := range cms {
			store.OnConfigChanged(cm)
		}
		return calls - before
	}
	cms := configMaps(map[string]string{config.ModeKey: "EndpointSlices"})
	load(cms...)
	network, domain, gcConfig := cms[0], cms[1], cms[2]
	steps := []struct {
		name string
		cm   *corev1.ConfigMap
		want bool
	}{
		{"config-gc", gcConfig, false},
		{"config-domain", domain, true},
		{"config-network, unchanged", network, true},
		{"route-address-mode changed", configMaps(map[string]string{config.ModeKey: "Endpoints"})[0], true},
		{"route-address-externalname-fallback changed", configMaps(map[string]string{
			config.ModeKey: "Endpoints", config.ExternalNameFallbackKey: "Disabled"})[0], true},
	}
	for _, s := range steps {
		if got := load(s.cm) > 0; got != s.want {
			t.Errorf("%s: resynced = %v, want %v", s.name, got, s.want)
		}
	}
}
