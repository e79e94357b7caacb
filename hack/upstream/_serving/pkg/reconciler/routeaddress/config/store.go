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
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	netcfg "knative.dev/networking/pkg/config"
	"knative.dev/pkg/configmap"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
)

// Store is the route reconciler's configuration store (config-domain,
// config-network, config-gc, config-features): the route-address keys are
// config-network's, parsed by knative.dev/networking, where a value that is
// not allowed means the key's default and never stops the controller. The
// Store reports each such value once.
//
// +k8s:deepcopy-gen=false
type Store struct {
	*routecfg.Store

	report Report
	// reported is the last error reported.
	reported atomic.Pointer[string]
}

// NewStore creates a Store that hands bad values to report (nil: they are
// not reported). onAfterStore callbacks run after a ConfigMap has been
// parsed and stored; the name tells which ConfigMap.
func NewStore(ctx context.Context, report Report, onAfterStore ...func(name string, value interface{})) *Store {
	return &Store{Store: routecfg.NewStore(ctx, onAfterStore...), report: report}
}

// WatchConfigs registers the store with the watcher, and the check of the
// route-address keys after it.
func (s *Store) WatchConfigs(w configmap.Watcher) {
	s.Store.WatchConfigs(w)
	w.Watch(netcfg.ConfigMapName, s.check)
}

// OnConfigChanged hands a ConfigMap to the store and, for config-network, to
// the check; tests use it where no watcher runs.
func (s *Store) OnConfigChanged(cm *corev1.ConfigMap) {
	s.Store.OnConfigChanged(cm)
	if cm.Name == netcfg.ConfigMapName {
		s.check(cm)
	}
}

// check reports a route-address value that is not allowed, once.
func (s *Store) check(cm *corev1.ConfigMap) {
	err := netcfg.ValidateRouteAddress(cm.Data)
	if err == nil {
		s.reported.Store(nil)
		return
	}
	ra := s.routeAddress()
	err = fmt.Errorf("invalid ConfigMap %s/%s: %w; using %s=%s, %s=%s", cm.Namespace, cm.Name, err,
		ModeKey, ra.Mode, ExternalNameFallbackKey, ra.ExternalNameFallback)
	msg := err.Error()
	if last := s.reported.Swap(&msg); s.report != nil && (last == nil || *last != msg) {
		s.report(cm, err)
	}
}

// ToContext stores both the route reconciler's configuration and ours in
// the passed context.
func (s *Store) ToContext(ctx context.Context) context.Context {
	return ToContext(s.Store.ToContext(ctx), s.Load())
}

// Load returns the current Config.
func (s *Store) Load() *Config {
	return &Config{RouteAddress: s.routeAddress()}
}

// Mode returns the configured mode, and ModeExternalName while config-network
// has not been loaded yet.
func (s *Store) Mode() Mode {
	return s.routeAddress().Mode
}

func (s *Store) routeAddress() *RouteAddress {
	if n, ok := s.UntypedLoad(netcfg.ConfigMapName).(*netcfg.Config); ok {
		return fromNetwork(n)
	}
	return defaultConfig()
}
