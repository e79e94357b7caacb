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

package routeaddress

import (
	"context"

	netcfg "knative.dev/networking/pkg/config"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
)

// newConfigStore returns the route reconciler's configuration store: its
// resource constructors read the domain and network configuration from the
// context, and the route-address settings are fields of the network
// configuration. onAfterStore callbacks run after a ConfigMap has been
// parsed and stored.
func newConfigStore(ctx context.Context, onAfterStore ...func(name string, value interface{})) *routecfg.Store {
	return routecfg.NewStore(ctx, onAfterStore...)
}

// networkFromContext returns the network configuration in ctx (its
// route-address settings among it).
func networkFromContext(ctx context.Context) *netcfg.Config {
	return routecfg.FromContext(ctx).Network
}

// shapesServices reports whether a stored configuration value is one that
// names a Route's Services, fills their metadata or chooses their shape:
// the network configuration (the route-address settings among it) and the
// domain configuration.
func shapesServices(value interface{}) bool {
	switch value.(type) {
	case *netcfg.Config, *routecfg.Domain:
		return true
	}
	return false
}
