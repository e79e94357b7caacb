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
	"fmt"

	corev1 "k8s.io/api/core/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// This package is this repository's configuration of the routeaddress
// reconciler and is not sent to serving: there the reconciler reads the
// route-address fields of networking's Config from the route reconciler's
// store (hack/upstream/_serving/pkg/reconciler/routeaddress/config.go). Here
// the pinned networking has no such fields, so Store parses the two keys
// itself, with networking's parse (netcfg.ParseRouteAddress), but a value
// that is not allowed means the key's default and is reported instead of
// stopping the controller.
//
// The names this repository's packages use for the keys and values:
const (
	// ModeKey is RouteAddressModeKey.
	ModeKey = netcfg.RouteAddressModeKey
	// ExternalNameFallbackKey is RouteAddressExternalNameFallbackKey.
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

// NewRouteAddressFromMap parses the route-address keys out of config-network
// data. Other keys are ignored. A value that is not allowed is an error that
// names the key, the value and the allowed values.
func NewRouteAddressFromMap(data map[string]string) (*RouteAddress, error) {
	c, err := routeAddressFromMap(data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// NewRouteAddressFromConfigMap parses the route-address keys of the
// config-network ConfigMap.
func NewRouteAddressFromConfigMap(cm *corev1.ConfigMap) (*RouteAddress, error) {
	c, err := NewRouteAddressFromMap(cm.Data)
	if err != nil {
		return nil, fmt.Errorf("invalid ConfigMap %s/%s: %w", cm.Namespace, netcfg.ConfigMapName, err)
	}
	return c, nil
}

// routeAddressFromMap parses the route-address keys. A key whose value is
// not allowed gets its default in the configuration returned, and the error
// names each such key.
func routeAddressFromMap(data map[string]string) (*RouteAddress, error) {
	mode, fallback, modeErr, fallbackErr := netcfg.ParseRouteAddress(data)
	ra := &RouteAddress{Mode: mode, ExternalNameFallback: fallback}
	switch {
	case modeErr != nil && fallbackErr != nil:
		return ra, fmt.Errorf("%w; %w", modeErr, fallbackErr)
	case modeErr != nil:
		return ra, modeErr
	default:
		return ra, fallbackErr
	}
}

// RouteAddressOf returns the route-address configuration that an
// onAfterStore callback of Store was handed, and false for the other
// ConfigMaps' values.
func RouteAddressOf(value interface{}) (*RouteAddress, bool) {
	ra, ok := value.(*RouteAddress)
	return ra, ok
}
