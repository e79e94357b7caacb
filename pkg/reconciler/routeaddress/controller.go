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
	"reflect"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	//series:metrics
	"k8s.io/apimachinery/pkg/labels"
	//series:end
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	ingressinformer "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/ingress"
	kubeclient "knative.dev/pkg/client/injection/kube/client"
	endpointsinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/endpoints"
	//series:namespace
	namespaceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/namespace"
	//series:end
	serviceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/service"
	sliceinformer "knative.dev/pkg/client/injection/kube/informers/discovery/v1/endpointslice/filtered"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/kmeta"
	"knative.dev/pkg/logging"
	pkgreconciler "knative.dev/pkg/reconciler"
	"knative.dev/serving/pkg/apis/serving"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeinformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/route"
	routereconciler "knative.dev/serving/pkg/client/injection/reconciler/serving/v1/route"

	//series:metrics
	netcfg "knative.dev/route-address/pkg/networking/config"
	//series:end
)

// NewController creates the routeaddress controller.
func NewController(ctx context.Context, cmw configmap.Watcher) *controller.Impl {
	logger := logging.FromContext(ctx)
	routeInformer := routeinformer.Get(ctx)
	ingressInformer := ingressinformer.Get(ctx)
	serviceInformer := serviceinformer.Get(ctx)
	endpointsInformer := endpointsinformer.Get(ctx)
	sliceInformer := sliceinformer.Get(ctx, SliceSelector)

	if err := IndexSlices(sliceInformer.Informer().GetIndexer()); err != nil {
		// Only if another controller registered the same index on this
		// informer, which is ours alone.
		logger.Errorw("Failed to add the EndpointSlice index", "error", err)
	}
	//series:foreign
	foreignInformer := sliceinformer.Get(ctx, ForeignSliceSelector)
	if err := IndexSlices(foreignInformer.Informer().GetIndexer()); err != nil {
		logger.Errorw("Failed to add the EndpointSlice index", "error", err)
	}
	// In place of the factory's transform: this informer is ours alone.
	if err := foreignInformer.Informer().SetTransform(StripForeign); err != nil {
		// Only once the informers have started, which they have not
		// while controllers are constructed.
		logger.Errorw("Failed to set the transform of the foreign EndpointSlices' informer", "error", err)
	}
	//series:end
	for _, inf := range []cache.SharedIndexInformer{serviceInformer.Informer(), endpointsInformer.Informer()} {
		if err := IndexByRoute(inf.GetIndexer()); err != nil {
			// Only once the informers have started, which they have not
			// while controllers are constructed.
			logger.Errorw("Failed to add the Route index", "error", err)
		}
	}
	c := &Reconciler{
		kinds: kinds{
			kubeclient:      kubeclient.Get(ctx),
			serviceLister:   serviceInformer.Lister(),
			endpointsLister: endpointsInformer.Lister(),
			sliceLister:     sliceInformer.Lister(),
		},
		stores: Stores{
			Services:  serviceInformer.Informer().GetIndexer(),
			Endpoints: endpointsInformer.Informer().GetIndexer(),
			Slices:    sliceInformer.Informer().GetIndexer(),
			Ingresses: ingressInformer.Lister(),
		},
		expect: newExpectations(),
	}
	//series:namespace
	namespaceInformer := namespaceinformer.Get(ctx)
	c.namespaces = namespaceInformer.Lister()
	//series:end
	//series:foreign
	c.stores.Foreign = foreignInformer.Informer().GetIndexer()
	//series:end
	//series:metrics
	c.metrics = newMetrics(nil)
	//series:end
	//series:warned
	c.warned = newWarned()
	//series:end
	//series:terminating
	c.terminating = newTerminating()
	//series:end
	//series:retry
	c.retries = newRetries()
	//series:end
	impl := routereconciler.NewImpl(ctx, c, func(impl *controller.Impl) controller.Options {
		resync := configResync(func() { impl.GlobalResync(routeInformer.Informer()) })
		//series:metrics
		configured := func(_ string, value interface{}) {
			if network, ok := value.(*netcfg.Config); ok {
				c.metrics.configured(network.RouteAddressMode)
			}
		}
		configStore := newConfigStore(logging.WithLogger(ctx, logger.Named("config-store")), resync, configured)
		//series:else
		// configStore := newConfigStore(logging.WithLogger(ctx, logger.Named("config-store")), resync)
		//series:end
		configStore.WatchConfigs(cmw)
		return controller.Options{
			ConfigStore:       configStore,
			AgentName:         AgentName,
			SkipStatusUpdates: true,
			//series:metrics
			PromoteFunc:       c.metrics.promoted,
			PromoteFilterFunc: c.metrics.promoting,
			DemoteFunc:        c.metrics.demoted,
			//series:end
		}
	})
	c.tracker = impl.Tracker
	//series:metrics
	c.metrics.invalid = func() (int, error) { return invalidModeNamespaces(namespaceInformer.Lister()) }
	//series:end

	routeInformer.Informer().AddEventHandler(controller.HandleAll(impl.Enqueue))
	routeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj interface{}) {
			impl.Tracker.OnDeletedObserver(obj)
			// A tombstone when the informer missed the delete.
			if r, err := kmeta.DeletionHandlingAccessor(obj); err == nil {
				key := types.NamespacedName{Namespace: r.GetNamespace(), Name: r.GetName()}
				c.expect.forget(key)
				//series:warned
				c.warned.forget(key)
				//series:end
				//series:metrics
				c.metrics.forget(key)
				//series:end
				//series:retry
				c.retries.Forget(key)
				//series:end
			}
		},
	})

	//series:namespace
	// A Namespace's route-address-mode annotation gives its Routes their
	// mode.
	namespaceInformer.Informer().AddEventHandler(OnNamespaceMode(routeInformer.Lister(), impl.Enqueue))
	//series:end

	handleControllerOf := cache.FilteringResourceEventHandler{
		FilterFunc: controller.FilterController(&v1.Route{}),
		Handler:    controller.HandleAll(impl.EnqueueControllerOf),
	}
	ingressInformer.Informer().AddEventHandler(handleControllerOf)
	serviceInformer.Informer().AddEventHandler(handleControllerOf)
	endpointsInformer.Informer().AddEventHandler(handleControllerOf)
	// Our slices are controlled by their Service and carry the Route's
	// label, and so do the slices mirrored from the Route's Endpoints,
	// which copy their labels.
	sliceInformer.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: pkgreconciler.LabelExistsFilterFunc(serving.RouteLabelKey),
		Handler:    controller.HandleAll(impl.EnqueueLabelOfNamespaceScopedResource("", serving.RouteLabelKey)),
	})
	// Objects under one of a Route's names that the Route does not
	// control (somebody's Endpoints; a slice that carries our managed-by
	// value without the Route's label, or another manager's) reconcile the Route when they
	// appear, change or go, through the Service they serve.
	byService := controller.HandleAll(routeOfService(serviceInformer.Lister(), impl.EnqueueKey))
	endpointsInformer.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: pkgreconciler.Not(controller.FilterController(&v1.Route{})),
		Handler:    byService,
	})
	sliceInformer.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: pkgreconciler.Not(pkgreconciler.LabelExistsFilterFunc(serving.RouteLabelKey)),
		Handler:    byService,
	})
	//series:foreign
	// And so do the slices other controllers manage: those of a Route's
	// Service are reported. An update reconciles the Route of the slice's
	// old Service too: one that its Service now controls is kept without
	// labels (StripForeign), and must stop being reported.
	ofService := routeOfService(serviceInformer.Lister(), impl.EnqueueKey)
	foreignInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ofService,
		UpdateFunc: func(old, cur interface{}) { ofService(old); ofService(cur) },
		DeleteFunc: ofService,
	})
	//series:end

	// The Services a DomainInternal resolves to: a change of their
	// ClusterIPs, or their deletion, reconciles every Route that points at
	// them.
	serviceInformer.Informer().AddEventHandler(controller.HandleAll(
		controller.EnsureTypeMeta(impl.Tracker.OnChanged, corev1.SchemeGroupVersion.WithKind("Service")),
	))

	return impl
}

// routeOfService returns a handler that enqueues the Route controlling the
// Service that an Endpoints (of the same name) or an EndpointSlice (by its
// service-name label) serves.
func routeOfService(services corev1listers.ServiceLister, enqueue func(types.NamespacedName)) func(obj interface{}) {
	isRoute := controller.FilterController(&v1.Route{})
	return func(obj interface{}) {
		o, err := kmeta.DeletionHandlingAccessor(obj)
		if err != nil {
			return
		}
		name := o.GetName()
		if _, ok := o.(*discoveryv1.EndpointSlice); ok {
			name = o.GetLabels()[discoveryv1.LabelServiceName]
		}
		if name == "" {
			return
		}
		svc, err := services.Services(o.GetNamespace()).Get(name)
		if err != nil || !isRoute(svc) {
			return
		}
		enqueue(types.NamespacedName{Namespace: svc.Namespace, Name: metav1.GetControllerOfNoCopy(svc).Name})
	}
}

// configResync returns an onAfterStore callback that calls resync, as the
// route reconciler does, when the network or domain configuration or the
// route-address settings are stored, but only when they differ from those
// stored last: they name the Services, fill their metadata and choose
// their shape, and every Route is reconciled again for them. An update that
// changes none of them (a key nothing parses, the same values saved again)
// reconciles nothing.
func configResync(resync func()) func(string, interface{}) {
	var (
		mu   sync.Mutex
		last = map[reflect.Type]interface{}{}
	)
	return func(_ string, value interface{}) {
		if !shapesServices(value) {
			return
		}
		mu.Lock()
		prev, seen := last[reflect.TypeOf(value)]
		last[reflect.TypeOf(value)] = value
		mu.Unlock()
		if !seen || !equality.Semantic.DeepEqual(prev, value) {
			resync()
		}
	}
}

//series:metrics

// invalidModeNamespaces counts the Namespaces whose route-address-mode
// annotation is not a mode.
func invalidModeNamespaces(namespaces corev1listers.NamespaceLister) (int, error) {
	ns, err := namespaces.List(labels.Everything())
	if err != nil {
		return 0, err
	}
	network := &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeExternalName}
	n := 0
	for _, namespace := range ns {
		if _, err := network.RouteAddressModeFor(namespace.Annotations); err != nil {
			n++
		}
	}
	return n, nil
}

//series:end
