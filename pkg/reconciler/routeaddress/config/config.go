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

	netcfg "knative.dev/route-address/pkg/networking/config"
)

type cfgKey struct{}

// Config is the configuration of the routeaddress reconciler.
// +k8s:deepcopy-gen=false
type Config struct {
	// Network holds the route-address keys of config-network.
	Network *netcfg.Config
}

// FromContext obtains the Config injected into the passed context.
func FromContext(ctx context.Context) *Config {
	c, _ := ctx.Value(cfgKey{}).(*Config)
	return c
}

// FromContextOrDefaults is like FromContext, but returns the defaults when no
// Config is attached.
func FromContextOrDefaults(ctx context.Context) *Config {
	if c := FromContext(ctx); c != nil && c.Network != nil {
		return c
	}
	nc, _ := netcfg.NewConfigFromMap(nil)
	return &Config{Network: nc}
}

// ToContext stores the Config in the passed context.
func ToContext(ctx context.Context, c *Config) context.Context {
	return context.WithValue(ctx, cfgKey{}, c)
}
