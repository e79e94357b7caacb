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

	corev1 "k8s.io/api/core/v1"

	"knative.dev/pkg/configmap"
	"knative.dev/pkg/logging"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// Store watches config-network for the route-address keys, and the
// ConfigMaps of the route reconciler (domain, network, gc, features) whose
// configuration its resource constructors read from the context.
//
// It stands in for the route-address fields of knative.dev/networking's
// netcfg.Config, which the networking pull request adds there, and parses
// the two keys with networking's parse, behaving as knative's configmap
// store does with networking's Config: a value that is not allowed is an
// error, which an update logs and ignores (the last good configuration
// stays) and a first load makes fatal.
//
// +k8s:deepcopy-gen=false
type Store struct {
	*configmap.UntypedStore
	route *routecfg.Store
}

// NewStore creates a Store. onAfterStore callbacks run after a ConfigMap of
// either part has been parsed and stored; the name tells which ConfigMap.
func NewStore(ctx context.Context, onAfterStore ...func(name string, value interface{})) *Store {
	s := &Store{}
	s.UntypedStore = configmap.NewUntypedStore(
		"routeaddress",
		logging.FromContext(ctx),
		configmap.Constructors{
			netcfg.ConfigMapName: func(cm *corev1.ConfigMap) (*netcfg.Config, error) {
				return netcfg.NewConfigFromMapOrDefaults(cm.Data)
			},
		},
		onAfterStore...,
	)
	s.route = routecfg.NewStore(ctx, onAfterStore...)
	return s
}

func (s *Store) WatchConfigs(w configmap.Watcher) {
	s.UntypedStore.WatchConfigs(w)
	s.route.WatchConfigs(w)
}

// OnConfigChanged hands a ConfigMap to the parts that watch it; tests use it
// where no watcher runs.
func (s *Store) OnConfigChanged(cm *corev1.ConfigMap) {
	if cm.Name == netcfg.ConfigMapName {
		s.UntypedStore.OnConfigChanged(cm)
	}
	s.route.OnConfigChanged(cm)
}

// ToContext stores both the route reconciler's configuration and ours in
// the passed context.
func (s *Store) ToContext(ctx context.Context) context.Context {
	return ToContext(s.route.ToContext(ctx), s.Load())
}

// Load returns the current Config.
func (s *Store) Load() *Config {
	c := &Config{}
	if nc, ok := s.UntypedLoad(netcfg.ConfigMapName).(*netcfg.Config); ok {
		copied := *nc
		c.Network = &copied
	}
	return c
}

// ModeFor returns the mode of the Routes in a Namespace with these
// annotations (nil: the configured mode), as netcfg.Config.RouteAddressModeFor
// reads them, and ModeExternalName while config-network has not been loaded
// yet. held is true when the annotation is not a mode: the Routes' names
// that exist are left as they are.
func (s *Store) ModeFor(annotations map[string]string) (mode netcfg.RouteAddressMode, held bool) {
	nc, ok := s.UntypedLoad(netcfg.ConfigMapName).(*netcfg.Config)
	if !ok {
		return netcfg.RouteAddressModeExternalName, false
	}
	mode, err := nc.RouteAddressModeFor(annotations)
	return mode, err != nil
}
