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

	corev1 "k8s.io/api/core/v1"
	netcfg "knative.dev/networking/pkg/config"
)

const (
	// ModeKey is the config-network key that selects how a Route's
	// cluster-local Services are addressed.
	ModeKey = "route-address-mode"

	// ExternalNameFallbackKey is the config-network key that decides what a
	// Route's Service becomes when its load balancer cannot be turned into
	// IP addresses.
	ExternalNameFallbackKey = "route-address-externalname-fallback"
)

// Mode is a value of ModeKey.
type Mode string

const (
	// ModeExternalName leaves the Services to the upstream route reconciler
	// (type ExternalName unless the KIngress reports an IP). The routeaddress
	// reconciler only removes what it created in the other modes.
	ModeExternalName Mode = "ExternalName"
	// ModeEndpoints makes headless Services with core/v1 Endpoints.
	ModeEndpoints Mode = "Endpoints"
	// ModeEndpointSlices makes headless Services with discovery/v1 EndpointSlices.
	ModeEndpointSlices Mode = "EndpointSlices"
	// ModeEndpointsAndSlices makes headless Services with both: Endpoints
	// labelled to skip mirroring, and EndpointSlices of our own.
	ModeEndpointsAndSlices Mode = "EndpointsAndSlices"
)

// Modes lists the values ModeKey accepts, the default first.
var Modes = []Mode{ModeExternalName, ModeEndpoints, ModeEndpointSlices, ModeEndpointsAndSlices}

// WritesEndpoints reports whether the mode makes core/v1 Endpoints.
func (m Mode) WritesEndpoints() bool {
	return m == ModeEndpoints || m == ModeEndpointsAndSlices
}

// WritesEndpointSlices reports whether the mode makes EndpointSlices.
func (m Mode) WritesEndpointSlices() bool {
	return m == ModeEndpointSlices || m == ModeEndpointsAndSlices
}

// Managed reports whether the routeaddress reconciler owns the Route's
// Services in this mode (and so the upstream route reconciler's writes to
// them are fenced).
func (m Mode) Managed() bool {
	return m != ModeExternalName && m != ""
}

// Fallback is a value of ExternalNameFallbackKey.
type Fallback string

const (
	// FallbackEnabled gives an unresolvable load balancer upstream's
	// ExternalName Service.
	FallbackEnabled Fallback = "Enabled"
	// FallbackDisabled gives an unresolvable load balancer a headless Service
	// with no endpoints: never an ExternalName Service.
	FallbackDisabled Fallback = "Disabled"
)

// Fallbacks lists the values ExternalNameFallbackKey accepts, the default first.
var Fallbacks = []Fallback{FallbackEnabled, FallbackDisabled}

// RouteAddress is the route-address part of config-network.
type RouteAddress struct {
	// Mode selects the shape of a Route's cluster-local Services.
	Mode Mode
	// ExternalNameFallback decides the shape when the load balancer cannot
	// be resolved to IP addresses.
	ExternalNameFallback Fallback
}

func defaultConfig() *RouteAddress {
	return &RouteAddress{
		Mode:                 ModeExternalName,
		ExternalNameFallback: FallbackEnabled,
	}
}

// NewRouteAddressFromMap parses the route-address keys out of config-network
// data. Other keys are ignored. A value that is not allowed is an error that
// names the key, the value and the allowed values.
func NewRouteAddressFromMap(data map[string]string) (*RouteAddress, error) {
	c := defaultConfig()
	if err := asEnum(data, ModeKey, Modes, &c.Mode); err != nil {
		return nil, err
	}
	if err := asEnum(data, ExternalNameFallbackKey, Fallbacks, &c.ExternalNameFallback); err != nil {
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

// asEnum sets target to the allowed value that matches data[key] without
// regard to case, leaves it unchanged when the key is absent or empty, and
// fails when the value is not allowed.
func asEnum[T ~string](data map[string]string, key string, allowed []T, target *T) error {
	raw, ok := data[key]
	if !ok {
		return nil
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil
	}
	for _, v := range allowed {
		if strings.EqualFold(raw, string(v)) {
			*target = v
			return nil
		}
	}
	names := make([]string, len(allowed))
	for i, v := range allowed {
		names[i] = string(v)
	}
	return fmt.Errorf("%s: unknown value %q, allowed values are %s", key, raw, strings.Join(names, ", "))
}
