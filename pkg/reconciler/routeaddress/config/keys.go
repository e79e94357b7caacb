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
	netcfg "knative.dev/networking/pkg/config"
	cm "knative.dev/pkg/configmap"
)

// keys.go and store.go are this repository's stand-ins for the
// route-address fields of netcfg.Config: route_address.go (and its test) is
// the part of knative.dev/networking's pkg/config that the upstream patch
// adds there, copied verbatim by hack/upstream-patch.sh, and in serving
// these two files are replaced by hack/upstream/_serving's (aliases of
// networking's names, and the route reconciler's store). The rest of the
// package is sent as is. The strict parse below (and keys_test.go) serves
// this repository's webhook, plugin and benchmark, and is not sent.
//
// The names the routeaddress packages use for the keys and values:
const (
	// ModeKey is RouteAddressModeKey.
	ModeKey = RouteAddressModeKey
	// ExternalNameFallbackKey is RouteAddressExternalNameFallbackKey.
	ExternalNameFallbackKey = RouteAddressExternalNameFallbackKey
)

// Mode is a value of ModeKey.
type Mode = RouteAddressMode

// The values of ModeKey.
const (
	ModeExternalName       = RouteAddressModeExternalName
	ModeEndpoints          = RouteAddressModeEndpoints
	ModeEndpointSlices     = RouteAddressModeEndpointSlices
	ModeEndpointsAndSlices = RouteAddressModeEndpointsAndSlices
)

// Modes lists the values ModeKey accepts, the default first.
var Modes = RouteAddressModes

// Fallback is a value of ExternalNameFallbackKey.
type Fallback = RouteAddressFallback

// The values of ExternalNameFallbackKey.
const (
	FallbackEnabled  = RouteAddressFallbackEnabled
	FallbackDisabled = RouteAddressFallbackDisabled
)

// Fallbacks lists the values ExternalNameFallbackKey accepts, the default first.
var Fallbacks = RouteAddressFallbacks

// NewRouteAddressFromMap parses the route-address keys out of config-network
// data. Other keys are ignored. A value that is not allowed is an error that
// names the key, the value and the allowed values.
func NewRouteAddressFromMap(data map[string]string) (*RouteAddress, error) {
	if err := ValidateRouteAddress(data); err != nil {
		return nil, err
	}
	return routeAddressFromMap(data), nil
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

// routeAddressFromMap parses the route-address keys as knative.dev/networking
// does: a value that is not allowed means the key's default.
func routeAddressFromMap(data map[string]string) *RouteAddress {
	c := defaultConfig()
	// The parse functions never fail.
	_ = cm.Parse(data,
		asRouteAddressMode(RouteAddressModeKey, &c.Mode),
		asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &c.ExternalNameFallback),
	)
	return c
}

// RouteAddressOf returns the route-address configuration that an
// onAfterStore callback of Store was handed, and false for the other
// ConfigMaps' values.
func RouteAddressOf(value interface{}) (*RouteAddress, bool) {
	ra, ok := value.(*RouteAddress)
	return ra, ok
}
