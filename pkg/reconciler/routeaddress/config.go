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

// This file is where the reconciler meets its configuration, and the one
// file of this package that serving's differs in
// (hack/upstream/_serving/pkg/reconciler/routeaddress/config.go): there the
// route-address settings are fields of networking's Config, read from the
// route reconciler's store. Here the pinned networking has no such fields,
// so routeaddress/config's Store parses the two keys.

import (
	"context"

	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	networkingcfg "knative.dev/networking/pkg/config"
	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

// newConfigStore returns the store of what a reconcile reads: the route
// reconciler's configuration (its resource constructors read it from the
// context) and the route-address settings. onAfterStore callbacks run
// after a ConfigMap has been parsed and stored.
func newConfigStore(ctx context.Context, onAfterStore ...func(name string, value interface{})) *config.Store {
	return config.NewStore(ctx, onAfterStore...)
}

// networkFromContext returns the network configuration in ctx (its
// route-address settings), and the defaults when it has none.
func networkFromContext(ctx context.Context) *netcfg.Config {
	return config.FromContextOrDefaults(ctx).Network
}

// shapesServices reports whether a stored configuration value is one that
// names a Route's Services, fills their metadata or chooses their shape:
// the network and domain configuration and the route-address settings
// (networking's Config, and this repository's netcfg.Config of the two keys).
func shapesServices(value interface{}) bool {
	switch value.(type) {
	case *networkingcfg.Config, *routecfg.Domain, *netcfg.Config:
		return true
	}
	return false
}
