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

// The stock Knative Serving v0.50.0 controller, as a rollback puts it
// back: serving's own route-facing controllers from its module (route,
// unfenced, domainmapping and the labeler), with nothing of route-address.
// The e2e suite swaps it for test/cmd/controller to test rollbacks.
package main

import (
	"knative.dev/pkg/injection"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/signals"
	"knative.dev/serving/pkg/reconciler/domainmapping"
	"knative.dev/serving/pkg/reconciler/labeler"
	"knative.dev/serving/pkg/reconciler/route"
)

func main() {
	ctx := sharedmain.WithHADisabled(sharedmain.WithHealthProbesDisabled(signals.NewContext()))
	cfg := injection.ParseAndGetRESTConfigOrDie()
	sharedmain.MainWithConfig(ctx, "controller", cfg, labeler.NewController, route.NewController, domainmapping.NewController)
}
