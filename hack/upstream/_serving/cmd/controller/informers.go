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

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	kubeinformers "k8s.io/client-go/informers"
	cachinginformers "knative.dev/caching/pkg/client/informers/externalversions"
	cachingclient "knative.dev/caching/pkg/client/injection/client"
	cachingfactory "knative.dev/caching/pkg/client/injection/informers/factory"
	netinformers "knative.dev/networking/pkg/client/informers/externalversions"
	netclient "knative.dev/networking/pkg/client/injection/client"
	netfactory "knative.dev/networking/pkg/client/injection/informers/factory"
	kubeclient "knative.dev/pkg/client/injection/kube/client"
	kubefactory "knative.dev/pkg/client/injection/kube/informers/factory"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/injection"
	servinginformers "knative.dev/serving/pkg/client/informers/externalversions"
	servingclient "knative.dev/serving/pkg/client/injection/client"
	servingfactory "knative.dev/serving/pkg/client/injection/informers/factory"
)

// This init runs after those of the packages main imports, the generated
// factory packages among them, so SetupInformers, which runs the factory
// injectors in the order they were registered and before any informer is
// made, puts these factories in place of theirs.
func init() {
	injection.Default.RegisterInformerFactory(withoutManagedFields)
}

// withoutManagedFields replaces the informer factories of the controller's
// clients by the same factories whose informers drop an object's
// managedFields before caching it. No reconciler reads them, and they are
// often the largest part of a cached object: each field every writer set,
// with the writer's name and time.
func withoutManagedFields(ctx context.Context) context.Context {
	resync := controller.GetResyncPeriod(ctx)
	kube := []kubeinformers.SharedInformerOption{kubeinformers.WithTransform(dropManagedFields)}
	serving := []servinginformers.SharedInformerOption{servinginformers.WithTransform(dropManagedFields)}
	net := []netinformers.SharedInformerOption{netinformers.WithTransform(dropManagedFields)}
	caching := []cachinginformers.SharedInformerOption{cachinginformers.WithTransform(dropManagedFields)}
	if injection.HasNamespaceScope(ctx) {
		ns := injection.GetNamespaceScope(ctx)
		kube = append(kube, kubeinformers.WithNamespace(ns))
		serving = append(serving, servinginformers.WithNamespace(ns))
		net = append(net, netinformers.WithNamespace(ns))
		caching = append(caching, cachinginformers.WithNamespace(ns))
	}
	ctx = context.WithValue(ctx, kubefactory.Key{},
		kubeinformers.NewSharedInformerFactoryWithOptions(kubeclient.Get(ctx), resync, kube...))
	ctx = context.WithValue(ctx, servingfactory.Key{},
		servinginformers.NewSharedInformerFactoryWithOptions(servingclient.Get(ctx), resync, serving...))
	ctx = context.WithValue(ctx, netfactory.Key{},
		netinformers.NewSharedInformerFactoryWithOptions(netclient.Get(ctx), resync, net...))
	return context.WithValue(ctx, cachingfactory.Key{},
		cachinginformers.NewSharedInformerFactoryWithOptions(cachingclient.Get(ctx), resync, caching...))
}

// dropManagedFields is the informers' cache.TransformFunc.
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
