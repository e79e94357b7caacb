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
	netcfg "knative.dev/networking/pkg/config"
)

// The route-address keys are config-network's (netcfg.Config). The names the
// routeaddress packages use for their keys and values:
const (
	// ModeKey is netcfg.RouteAddressModeKey.
	ModeKey = netcfg.RouteAddressModeKey
	// ExternalNameFallbackKey is netcfg.RouteAddressExternalNameFallbackKey.
	ExternalNameFallbackKey = netcfg.RouteAddressExternalNameFallbackKey
)

// Mode is a value of ModeKey.
type Mode = netcfg.RouteAddressMode

// The values of ModeKey.
const (
	ModeExternalName       = netcfg.RouteAddressModeExternalName
	ModeEndpoints          = netcfg.RouteAddressModeEndpoints
	ModeEndpointSlices     = netcfg.RouteAddressModeEndpointSlices
	ModeEndpointsAndSlices = netcfg.RouteAddressModeEndpointsAndSlices
)

// Modes lists the values ModeKey accepts, the default first.
var Modes = netcfg.RouteAddressModes

// Fallback is a value of ExternalNameFallbackKey.
type Fallback = netcfg.RouteAddressFallback

// The values of ExternalNameFallbackKey.
const (
	FallbackEnabled  = netcfg.RouteAddressFallbackEnabled
	FallbackDisabled = netcfg.RouteAddressFallbackDisabled
)

// Fallbacks lists the values ExternalNameFallbackKey accepts, the default first.
var Fallbacks = netcfg.RouteAddressFallbacks

// fromNetwork returns the route-address part of a network configuration.
func fromNetwork(n *netcfg.Config) *RouteAddress {
	return &RouteAddress{Mode: n.RouteAddressMode, ExternalNameFallback: n.RouteAddressExternalNameFallback}
}

// RouteAddressOf returns the route-address configuration that an
// onAfterStore callback of Store was handed with config-network, and false
// for the other ConfigMaps' values.
func RouteAddressOf(value interface{}) (*RouteAddress, bool) {
	n, ok := value.(*netcfg.Config)
	if !ok {
		return nil, false
	}
	return fromNetwork(n), true
}
