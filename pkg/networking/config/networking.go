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
	"errors"

	networkingcfg "knative.dev/networking/pkg/config"
	cm "knative.dev/pkg/configmap"
)

// The names of knative.dev/networking/pkg/config that the routeaddress
// packages use, as they are there.
const (
	ConfigMapName     = networkingcfg.ConfigMapName
	DomainTemplateKey = networkingcfg.DomainTemplateKey
)

// Config is the part of networking's Config that the route-address keys
// fill: the fields the networking pull request adds to it, under the same
// names.
type Config struct {
	// RouteAddressMode selects how a Route's cluster-local Services are
	// addressed.
	RouteAddressMode RouteAddressMode

	// RouteAddressExternalNameFallback decides, when RouteAddressMode is not
	// ExternalName, what a load balancer that cannot be resolved to IP
	// addresses gives.
	RouteAddressExternalNameFallback RouteAddressFallback
}

func defaultConfig() *Config {
	return &Config{
		RouteAddressMode:                 RouteAddressModeExternalName,
		RouteAddressExternalNameFallback: RouteAddressFallbackEnabled,
	}
}

// NewConfigFromMap parses the route-address keys of config-network data as
// networking's NewConfigFromMap does: an absent key is its default, and a
// value that is not allowed is an error that names the key, the value and
// the allowed values.
func NewConfigFromMap(data map[string]string) (*Config, error) {
	nc := defaultConfig()
	if err := cm.Parse(data,
		asRouteAddressMode(RouteAddressModeKey, &nc.RouteAddressMode),
		asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &nc.RouteAddressExternalNameFallback),
	); err != nil {
		return nil, err
	}
	return nc, nil
}

// NewConfigFromMapOrDefaults is NewConfigFromMap for a reader that must not
// fail: each key is parsed on its own, a key whose value is not allowed
// keeps its default, and the error joins one error per such key.
func NewConfigFromMapOrDefaults(data map[string]string) (*Config, error) {
	nc := defaultConfig()
	err := errors.Join(
		cm.Parse(data, asRouteAddressMode(RouteAddressModeKey, &nc.RouteAddressMode)),
		cm.Parse(data, asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &nc.RouteAddressExternalNameFallback)),
	)
	return nc, err
}
