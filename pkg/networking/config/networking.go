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
	cm "knative.dev/pkg/configmap"
)

// The names of knative.dev/networking/pkg/config that the routeaddress
// packages use, as they are there.
const (
	ConfigMapName         = netcfg.ConfigMapName
	DomainTemplateKey     = netcfg.DomainTemplateKey
	DefaultDomainTemplate = netcfg.DefaultDomainTemplate
	DefaultTagTemplate    = netcfg.DefaultTagTemplate
)

// Config is networking's Config (without the route-address fields, which
// the pull request adds; this repository reads them with ParseRouteAddress).
type Config = netcfg.Config

// ParseRouteAddress parses the two route-address keys of config-network
// data each on its own, as networking's NewConfigFromMap parses them: an
// absent key is its default, and a value that is not allowed is an error
// (modeErr, fallbackErr) that names the key, the value and the allowed
// values, with the key's default returned for it.
func ParseRouteAddress(data map[string]string) (mode RouteAddressMode, fallback RouteAddressFallback, modeErr, fallbackErr error) {
	mode, fallback = RouteAddressModeExternalName, RouteAddressFallbackEnabled
	modeErr = cm.Parse(data, asRouteAddressMode(RouteAddressModeKey, &mode))
	fallbackErr = cm.Parse(data, asRouteAddressFallback(RouteAddressExternalNameFallbackKey, &fallback))
	return mode, fallback, modeErr, fallbackErr
}
