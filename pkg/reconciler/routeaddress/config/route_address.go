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
	"strings"

	cm "knative.dev/pkg/configmap"
)

const (
	// RouteAddressModeKey is the config-network key that selects how a
	// Route's cluster-local Services are addressed.
	RouteAddressModeKey = "route-address-mode"

	// RouteAddressExternalNameFallbackKey is the config-network key that
	// decides what a Route's Service becomes when its load balancer cannot be
	// turned into IP addresses.
	RouteAddressExternalNameFallbackKey = "route-address-externalname-fallback"
)

// RouteAddressMode is a value of RouteAddressModeKey.
type RouteAddressMode string

const (
	// RouteAddressModeExternalName leaves a Route's Services to the route
	// reconciler (type ExternalName unless the KIngress reports an IP).
	RouteAddressModeExternalName RouteAddressMode = "ExternalName"
	// RouteAddressModeEndpoints makes headless Services with core/v1
	// Endpoints.
	RouteAddressModeEndpoints RouteAddressMode = "Endpoints"
	// RouteAddressModeEndpointSlices makes headless Services with
	// discovery/v1 EndpointSlices.
	RouteAddressModeEndpointSlices RouteAddressMode = "EndpointSlices"
	// RouteAddressModeEndpointsAndSlices makes headless Services with both:
	// Endpoints labelled to skip mirroring, and EndpointSlices.
	RouteAddressModeEndpointsAndSlices RouteAddressMode = "EndpointsAndSlices"
)

// RouteAddressModes lists the values RouteAddressModeKey accepts, the default
// first.
var RouteAddressModes = []RouteAddressMode{
	RouteAddressModeExternalName,
	RouteAddressModeEndpoints,
	RouteAddressModeEndpointSlices,
	RouteAddressModeEndpointsAndSlices,
}

// WritesEndpoints reports whether the mode makes core/v1 Endpoints.
func (m RouteAddressMode) WritesEndpoints() bool {
	return m == RouteAddressModeEndpoints || m == RouteAddressModeEndpointsAndSlices
}

// WritesEndpointSlices reports whether the mode makes EndpointSlices.
func (m RouteAddressMode) WritesEndpointSlices() bool {
	return m == RouteAddressModeEndpointSlices || m == RouteAddressModeEndpointsAndSlices
}

// Managed reports whether the routeaddress reconciler, not the route
// reconciler, writes a Route's Services and their endpoints in this mode.
func (m RouteAddressMode) Managed() bool {
	return m.WritesEndpoints() || m.WritesEndpointSlices()
}

// RouteAddressFallback is a value of RouteAddressExternalNameFallbackKey.
type RouteAddressFallback string

const (
	// RouteAddressFallbackEnabled gives an unresolvable load balancer the
	// route reconciler's ExternalName Service.
	RouteAddressFallbackEnabled RouteAddressFallback = "Enabled"
	// RouteAddressFallbackDisabled gives an unresolvable load balancer a
	// headless Service with no endpoints: never an ExternalName Service.
	RouteAddressFallbackDisabled RouteAddressFallback = "Disabled"
)

// RouteAddressFallbacks lists the values RouteAddressExternalNameFallbackKey
// accepts, the default first.
var RouteAddressFallbacks = []RouteAddressFallback{RouteAddressFallbackEnabled, RouteAddressFallbackDisabled}

// asRouteAddressMode parses the value at key into target, without regard to
// case. As asMode does for MeshCompatibilityModeKey, a value that is not
// allowed leaves target unchanged (the default), so that a mistyped value
// never stops a component at start; ValidateRouteAddress refuses it.
func asRouteAddressMode(key string, target *RouteAddressMode) cm.ParseFunc {
	return asRouteAddressEnum(key, RouteAddressModes, target)
}

// asRouteAddressFallback is asRouteAddressMode for
// RouteAddressExternalNameFallbackKey.
func asRouteAddressFallback(key string, target *RouteAddressFallback) cm.ParseFunc {
	return asRouteAddressEnum(key, RouteAddressFallbacks, target)
}

func asRouteAddressEnum[T ~string](key string, allowed []T, target *T) cm.ParseFunc {
	return func(data map[string]string) error {
		if v, ok := routeAddressEnum(data, key, allowed); ok {
			*target = v
		}
		return nil
	}
}

// ValidateRouteAddress returns an error that names the key, the value and
// the allowed values when a route-address key of config-network data has a
// value that is not allowed. The webhook refuses such a ConfigMap with it;
// a component that reads one anyway uses the key's default.
func ValidateRouteAddress(data map[string]string) error {
	if err := validateRouteAddressEnum(data, RouteAddressModeKey, RouteAddressModes); err != nil {
		return err
	}
	return validateRouteAddressEnum(data, RouteAddressExternalNameFallbackKey, RouteAddressFallbacks)
}

func validateRouteAddressEnum[T ~string](data map[string]string, key string, allowed []T) error {
	raw := strings.TrimSpace(data[key])
	if _, ok := routeAddressEnum(data, key, allowed); ok || raw == "" {
		return nil
	}
	names := make([]string, len(allowed))
	for i, v := range allowed {
		names[i] = string(v)
	}
	return fmt.Errorf("%s: unknown value %q, allowed values are %s", key, raw, strings.Join(names, ", "))
}

// routeAddressEnum returns the allowed value that data[key] names, without
// regard to case and surrounding space, and false when the key is absent,
// empty or not allowed.
func routeAddressEnum[T ~string](data map[string]string, key string, allowed []T) (T, bool) {
	raw := strings.TrimSpace(data[key])
	for _, v := range allowed {
		if raw != "" && strings.EqualFold(raw, string(v)) {
			return v, true
		}
	}
	var zero T
	return zero, false
}
