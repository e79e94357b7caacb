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
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"knative.dev/pkg/configmap"
	"knative.dev/pkg/logging"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// Store watches config-network for the route-address keys, and the
// ConfigMaps of the upstream route reconciler (domain, network, gc,
// features) whose configuration upstream's resource constructors read from
// the context.
//
// It stands in for the route-address fields of knative.dev/networking's
// netcfg.Config, which the networking pull request adds there, and parses
// the two keys with networking's parse. A value that is not allowed never
// stops the process: written to a running controller it leaves the last good
// configuration in force (both keys, as knative's configmap store keeps the
// last configuration when networking's parse fails on an update); at
// start-up, with nothing to keep, the bad key gets its default
// (externalname for the mode: the route reconciler's behaviour) where
// networking's store would exit. Each bad value is handed to report once.
//
// +k8s:deepcopy-gen=false
type Store struct {
	*configmap.UntypedStore
	route *routecfg.Store

	report Report
	// reported is the last bad value reported (networking's parse error).
	reported atomic.Pointer[string]
}

// NewStore creates a Store that hands bad values to report (nil: they are
// not reported; one of the stores of a process reports). onAfterStore
// callbacks run after a ConfigMap of either part has been parsed and
// stored; the name tells which ConfigMap.
func NewStore(ctx context.Context, report Report, onAfterStore ...func(name string, value interface{})) *Store {
	s := &Store{report: report}
	s.UntypedStore = configmap.NewUntypedStore(
		"routeaddress",
		logging.FromContext(ctx),
		configmap.Constructors{
			netcfg.ConfigMapName: s.load,
		},
		onAfterStore...,
	)
	s.route = routecfg.NewStore(ctx, onAfterStore...)
	return s
}

// load parses the route-address keys of config-network. A value that is not
// allowed is reported once and, once a configuration has been stored, is an
// error, so that the store keeps that configuration; the first time, the
// bad key gets its default.
func (s *Store) load(cm *corev1.ConfigMap) (*netcfg.Config, error) {
	nc, err := netcfg.NewConfigFromMapOrDefaults(cm.Data)
	if err == nil {
		s.reported.Store(nil)
		return nc, nil
	}
	last, kept := s.UntypedLoad(netcfg.ConfigMapName).(*netcfg.Config)
	using := "using"
	if kept {
		nc, using = last, "keeping the last good configuration"
	}
	bad := strings.ReplaceAll(err.Error(), "\n", "; ")
	err = fmt.Errorf("invalid ConfigMap %s/%s: %s; %s %s=%s, %s=%s", cm.Namespace, cm.Name, bad, using,
		netcfg.RouteAddressModeKey, nc.RouteAddressMode, netcfg.RouteAddressExternalNameFallbackKey, nc.RouteAddressExternalNameFallback)
	if last := s.reported.Swap(&bad); s.report != nil && (last == nil || *last != bad) {
		s.report(cm, err)
	}
	if kept {
		return nil, err
	}
	return nc, nil
}

// WatchConfigs registers both parts of the store with the watcher.
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
