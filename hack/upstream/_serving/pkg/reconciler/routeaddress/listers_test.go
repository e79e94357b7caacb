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

	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"

	netcfg "knative.dev/networking/pkg/config"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	rt "knative.dev/serving/pkg/reconciler/routeaddress/testing"
	. "knative.dev/serving/pkg/reconciler/testing/v1"
)

func endpointSliceLister(l *Listers) discoveryv1listers.EndpointSliceLister {
	return l.GetEndpointSliceLister()
}

// testStore hands each reconcile of a TableTest row the route reconciler's
// test configuration with the row's route-address settings.
type testStore struct{ network *netcfg.Config }

func (s testStore) ToContext(ctx context.Context) context.Context {
	c := rt.RouteConfig()
	c.Network.RouteAddressMode = s.network.RouteAddressMode
	c.Network.RouteAddressExternalNameFallback = s.network.RouteAddressExternalNameFallback
	return routecfg.ToContext(ctx, c)
}
