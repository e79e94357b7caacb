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
	"fmt"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	corev1 "k8s.io/api/core/v1"

	"knative.dev/pkg/logging"
	netcfg "knative.dev/route-address/pkg/networking/config"
)

// TestBadKeyNeverFatal: a bad route-address value never stops serving's
// controller and never switches a Route. knative's configmap store exits
// the process on a constructor error at the first load, so ours returns
// none there: a bad value at start means the key's default (for the mode:
// the route reconciler's behaviour). In an update it returns one, so the
// store keeps the last good configuration, both keys. Each bad value is
// reported once, naming the key, the value, the allowed values and the
// configuration in force.
func TestBadKeyNeverFatal(t *testing.T) {
	// Fatal panics instead of exiting, so that the test can say so.
	logger := zaptest.NewLogger(t, zaptest.WrapOptions(zap.WithFatalHook(zapcore.WriteThenPanic))).Sugar()
	ctx := logging.WithLogger(context.Background(), logger)
	var reports []string
	store := NewStore(ctx, func(cm *corev1.ConfigMap, err error) {
		reports = append(reports, fmt.Sprintf("%s/%s: %v", cm.Namespace, cm.Name, err))
	})
	load := func(data map[string]string) (fatal any) {
		defer func() { fatal = recover() }()
		store.OnConfigChanged(configMap(netcfg.ConfigMapName, data))
		return nil
	}

	if f := load(map[string]string{netcfg.RouteAddressModeKey: "endpointslice"}); f != nil {
		t.Fatalf("a bad value at the first load was fatal: %v", f)
	}
	if got, _ := store.ModeFor(nil); got != netcfg.RouteAddressModeExternalName {
		t.Errorf("Mode() after a bad first value = %s, want %s", got, netcfg.RouteAddressModeExternalName)
	}
	if got := store.Load().Network; got == nil || *got != defaults {
		t.Errorf("Config after a bad first value = %+v, want the defaults", got)
	}
	// The same bad value again (a resync of the ConfigMap): no new report.
	load(map[string]string{netcfg.RouteAddressModeKey: "endpointslice"})

	load(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices", netcfg.RouteAddressExternalNameFallbackKey: "Disabled"})
	switched := netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackDisabled}
	// A bad update keeps the last good configuration whole: the good key of
	// the same update is not taken either.
	if f := load(map[string]string{netcfg.RouteAddressModeKey: "Endpoints", netcfg.RouteAddressExternalNameFallbackKey: "maybe"}); f != nil {
		t.Fatalf("a bad update was fatal: %v", f)
	}
	if got := store.Load().Network; *got != switched {
		t.Errorf("Config after a bad update = %+v, want the last good %+v", got, switched)
	}
	load(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlice"})
	if got, _ := store.ModeFor(nil); got != netcfg.RouteAddressModeEndpointSlices {
		t.Errorf("Mode() after a bad mode in an update = %s, want %s", got, netcfg.RouteAddressModeEndpointSlices)
	}

	want := []string{
		`knative-serving/config-network: invalid ConfigMap knative-serving/config-network: route-address-mode with value: "endpointslice" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices; using route-address-mode=externalname, route-address-externalname-fallback=enabled`,
		`knative-serving/config-network: invalid ConfigMap knative-serving/config-network: route-address-externalname-fallback with value: "maybe" in config-network ConfigMap is not supported, allowed values are enabled, disabled; keeping the last good configuration route-address-mode=endpointslices, route-address-externalname-fallback=disabled`,
		`knative-serving/config-network: invalid ConfigMap knative-serving/config-network: route-address-mode with value: "EndpointSlice" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices; keeping the last good configuration route-address-mode=endpointslices, route-address-externalname-fallback=disabled`,
	}
	if fmt.Sprint(reports) != fmt.Sprint(want) {
		t.Errorf("reports =\n%q\nwant\n%q", reports, want)
	}
}
