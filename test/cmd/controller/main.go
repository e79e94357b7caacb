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

// The controller the e2e harness runs: the same wiring as cmd/controller,
// restricted to the controllers that act on Routes' addresses (the fenced
// route controller, routeaddress, domainmapping and the labeler), because
// a control plane without a kubelet cannot run the ones that need pods.
// Leader election is off: one replica.
package main

import (
	"knative.dev/pkg/injection"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/signals"

	"knative.dev/route-address/pkg/controllers"
)

func main() {
	ctx := controllers.WithInformerSelectors(sharedmain.WithHADisabled(signals.NewContext()))
	cfg := injection.ParseAndGetRESTConfigOrDie()
	sharedmain.MainWithConfig(ctx, "controller", cfg, controllers.RouteFacing()...)
}
