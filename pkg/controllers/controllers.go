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

package controllers

import (
	"context"
	"sync/atomic"

	kubeclient "knative.dev/pkg/client/injection/kube/client"
	namespaceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/namespace"
	serviceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/service"
	filteredfactory "knative.dev/pkg/client/injection/kube/informers/factory/filtered"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/logging"
	routeinformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/route"
	"knative.dev/serving/pkg/reconciler/configuration"
	"knative.dev/serving/pkg/reconciler/domainmapping"
	"knative.dev/serving/pkg/reconciler/gc"
	"knative.dev/serving/pkg/reconciler/labeler"
	"knative.dev/serving/pkg/reconciler/nscert"
	"knative.dev/serving/pkg/reconciler/revision"
	"knative.dev/serving/pkg/reconciler/route"
	"knative.dev/serving/pkg/reconciler/serverlessservice"
	"knative.dev/serving/pkg/reconciler/service"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/fence"
)

// Constructors returns the controllers of knative.dev/serving v0.50.0's
// cmd/controller, in its order, with route.NewController replaced by
// NewFencedRouteController, followed by routeaddress.NewController.
func Constructors() []injection.ControllerConstructor {
	return []injection.ControllerConstructor{
		configuration.NewController,
		labeler.NewController,
		revision.NewController,
		NewFencedRouteController,
		serverlessservice.NewController,
		service.NewController,
		gc.NewController,
		nscert.NewController,
		domainmapping.NewController,
		routeaddress.NewController,
	}
}

// RouteFacing returns the controllers that act on Routes' addresses and
// need no pods: the fenced route controller, routeaddress, domainmapping and
// the labeler. The e2e harness runs these on a control plane without a
// kubelet.
func RouteFacing() []injection.ControllerConstructor {
	return []injection.ControllerConstructor{
		labeler.NewController,
		NewFencedRouteController,
		domainmapping.NewController,
		routeaddress.NewController,
	}
}

// WithInformerSelectors registers the label selector of the filtered
// EndpointSlice informer routeaddress uses. Call it on the context given to
// sharedmain before informers are set up.
func WithInformerSelectors(ctx context.Context) context.Context {
	return filteredfactory.WithSelectors(ctx, routeaddress.SliceSelector)
}

// NewFencedRouteController is serving's route controller, unmodified, built
// with a kube client whose Service and Endpoints writes are suppressed in a
// namespace while its route-address-mode (config-network's, or its
// Namespace's annotation) is not ExternalName, and with a Service lister
// that reads a Route's Services through the Route index
// (routeIndexedServices). When the mode changes, every Route is resynced (a
// Namespace's annotation: its Routes) so that upstream writes its shapes
// again (or stops). Building it also makes the binary's per-Route
// informers trim what they cache (trimFrom).
func NewFencedRouteController(ctx context.Context, cmw configmap.Watcher) *controller.Impl {
	logger := logging.FromContext(ctx).Named("route-fence")
	// Here because every binary of this repository builds this controller
	// (and controllers are built before informers start).
	trimFrom(ctx)
	var impl atomic.Pointer[controller.Impl]
	var lastManaged atomic.Int32 // 0 unknown, 1 ExternalName, 2 managed
	// The routeaddress controller's store reports bad values; this one
	// only follows the mode.
	store := config.NewStore(logging.WithLogger(ctx, logger), nil, func(_ string, value interface{}) {
		nc, ok := value.(*netcfg.Config)
		if !ok {
			return
		}
		now := int32(1)
		if nc.RouteAddressMode.Managed() {
			now = 2
		}
		if prev := lastManaged.Swap(now); prev != 0 && prev != now {
			logger.Infof("route-address-mode is now %s: upstream Service and Endpoints writes are %s",
				nc.RouteAddressMode, map[bool]string{true: "fenced", false: "sent"}[nc.RouteAddressMode.Managed()])
			if i := impl.Load(); i != nil {
				i.GlobalResync(routeinformer.Get(ctx).Informer())
			}
		}
	})
	store.WatchConfigs(cmw)

	// A Namespace's annotation gives its Routes their own mode, as
	// routeaddress reads it: an annotation that is not a mode, or none,
	// leaves config-network's.
	namespaces := namespaceinformer.Get(ctx)
	fenced := fence.New(kubeclient.Get(ctx), func(ns string) fence.Suppression {
		var annotations map[string]string
		if n, err := namespaces.Lister().Get(ns); err == nil {
			annotations = n.Annotations
		}
		mode, held := store.ModeFor(annotations)
		switch {
		case mode.Managed():
			return fence.All
		case held:
			return fence.Existing
		}
		return fence.None
	})
	ctx = context.WithValue(ctx, kubeclient.Key{}, fenced)
	// The route reconciler lists a Route's Services by label: through the
	// Route index rather than the whole namespace.
	services := serviceinformer.Get(ctx)
	if err := routeaddress.IndexByRoute(services.Informer().GetIndexer()); err != nil {
		logger.Errorw("Failed to add the Route index to the Service informer", "error", err)
	}
	ctx = context.WithValue(ctx, serviceinformer.Key{}, routeIndexedServices{services})
	i := route.NewController(ctx, cmw)
	impl.Store(i)
	namespaces.Informer().AddEventHandler(routeaddress.OnNamespaceMode(routeinformer.Get(ctx).Lister(), i.Enqueue))
	return i
}
