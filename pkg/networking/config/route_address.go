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
	"slices"
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

	// RouteAddressModeAnnotationKey is the annotation of a Namespace that
	// gives the Routes in it another route-address-mode than
	// config-network's: a switch staged by namespace.
	RouteAddressModeAnnotationKey = "networking.knative.dev/route-address-mode"
)

// RouteAddressMode is a value of RouteAddressModeKey.
type RouteAddressMode string

const (
	// RouteAddressModeExternalName leaves a Route's Services to the route
	// reconciler (type ExternalName unless the KIngress reports an IP).
	RouteAddressModeExternalName RouteAddressMode = "externalname"
	// RouteAddressModeEndpoints makes headless Services with core/v1
	// Endpoints.
	RouteAddressModeEndpoints RouteAddressMode = "endpoints"
	// RouteAddressModeEndpointSlices makes headless Services with
	// discovery/v1 EndpointSlices.
	RouteAddressModeEndpointSlices RouteAddressMode = "endpointslices"
	// RouteAddressModeEndpointsAndSlices makes headless Services with both:
	// Endpoints labelled to skip mirroring, and EndpointSlices.
	RouteAddressModeEndpointsAndSlices RouteAddressMode = "endpointsandslices"
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

// RouteAddressModeFor returns the mode of the Routes in a Namespace with
// these annotations: the value of RouteAddressModeAnnotationKey when it is
// one of RouteAddressModes (without regard to case), and RouteAddressMode
// when it is absent or empty. A value that is not allowed is an error naming the
// annotation, the value and the allowed values, with RouteAddressMode.
func (c *Config) RouteAddressModeFor(annotations map[string]string) (RouteAddressMode, error) {
	raw := annotations[RouteAddressModeAnnotationKey]
	if strings.TrimSpace(raw) == "" {
		return c.RouteAddressMode, nil
	}
	mode := RouteAddressMode(strings.ToLower(strings.TrimSpace(raw)))
	if slices.Contains(RouteAddressModes, mode) {
		return mode, nil
	}
	names := make([]string, len(RouteAddressModes))
	for i, m := range RouteAddressModes {
		names[i] = string(m)
	}
	return c.RouteAddressMode, fmt.Errorf("annotation %s with value: %q is not supported, allowed values are %s",
		RouteAddressModeAnnotationKey, raw, strings.Join(names, ", "))
}

// RouteAddressFallback is a value of RouteAddressExternalNameFallbackKey.
type RouteAddressFallback string

const (
	// RouteAddressFallbackEnabled gives an unresolvable load balancer the
	// route reconciler's ExternalName Service.
	RouteAddressFallbackEnabled RouteAddressFallback = "enabled"
	// RouteAddressFallbackDisabled gives an unresolvable load balancer a
	// headless Service with no endpoints: never an ExternalName Service.
	RouteAddressFallbackDisabled RouteAddressFallback = "disabled"
)

// RouteAddressFallbacks lists the values RouteAddressExternalNameFallbackKey
// accepts, the default first.
var RouteAddressFallbacks = []RouteAddressFallback{RouteAddressFallbackEnabled, RouteAddressFallbackDisabled}

// asRouteAddressMode parses the value at key into target, without regard to
// case, as http-protocol and system-internal-tls are parsed: an absent or
// empty value leaves target unchanged, and a value that is not allowed is an
// error.
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
		raw, ok := data[key]
		if !ok || strings.TrimSpace(raw) == "" {
			return nil
		}
		v := T(strings.ToLower(strings.TrimSpace(raw)))
		names := make([]string, len(allowed))
		for i, a := range allowed {
			if v == a {
				*target = v
				return nil
			}
			names[i] = string(a)
		}
		return fmt.Errorf("%s with value: %q in config-network ConfigMap is not supported, allowed values are %s",
			key, raw, strings.Join(names, ", "))
	}
}
