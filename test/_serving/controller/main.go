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

// The controller the e2e suite, the demo and the benchmarks run, built in
// serving's tree as the pull requests leave it (hack/build-serving.sh copies
// this file there): serving's cmd/controller restricted to the controllers
// that act on Routes' addresses (route, routeaddress, domainmapping and the
// labeler), because a control plane without a kubelet cannot run those that
// need pods. Leader election is off (one replica) unless
// ROUTE_ADDRESS_E2E_HA=1, which runs it as serving ships it, configured by
// config-leader-election. The health probes (always :8080) are off so that
// replicas can share a host.
package main

import (
	"os"

	filteredfactory "knative.dev/pkg/client/injection/kube/informers/factory/filtered"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/signals"
	"knative.dev/serving/pkg/reconciler/domainmapping"
	"knative.dev/serving/pkg/reconciler/labeler"
	"knative.dev/serving/pkg/reconciler/route"
	"knative.dev/serving/pkg/reconciler/routeaddress"
)

func main() {
	ctx := sharedmain.WithHealthProbesDisabled(signals.NewContext())
	if os.Getenv("ROUTE_ADDRESS_E2E_HA") != "1" {
		ctx = sharedmain.WithHADisabled(ctx)
	}
	// As serving's cmd/controller: routeaddress watches only the
	// EndpointSlices it manages.
	ctx = filteredfactory.WithSelectors(ctx, routeaddress.SliceSelector)
	cfg := injection.ParseAndGetRESTConfigOrDie()
	sharedmain.MainWithConfig(ctx, "controller", cfg,
		labeler.NewController, route.NewController, domainmapping.NewController, routeaddress.NewController)
}
