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

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	certificateinformer "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/certificate"
	ingressinformer "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/ingress"
	sksinformer "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/serverlessservice"
	deploymentinformer "knative.dev/pkg/client/injection/kube/informers/apps/v1/deployment"
	endpointsinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/endpoints"
	serviceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/service"
	sliceinformer "knative.dev/pkg/client/injection/kube/informers/discovery/v1/endpointslice/filtered"
	"knative.dev/pkg/logging"
	painformer "knative.dev/serving/pkg/client/injection/informers/autoscaling/v1alpha1/podautoscaler"
	configurationinformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/configuration"
	revisioninformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/revision"
	routeinformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/route"
	kserviceinformer "knative.dev/serving/pkg/client/injection/informers/serving/v1/service"
	domainmappinginformer "knative.dev/serving/pkg/client/injection/informers/serving/v1beta1/domainmapping"

	"knative.dev/route-address/pkg/reconciler/routeaddress"
)

// perRouteInformers are the informers of the binary that cache an object
// or more per Route, Revision or Service: what grows with the cluster.
func perRouteInformers(ctx context.Context) []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{
		routeinformer.Get(ctx).Informer(),
		configurationinformer.Get(ctx).Informer(),
		revisioninformer.Get(ctx).Informer(),
		kserviceinformer.Get(ctx).Informer(),
		domainmappinginformer.Get(ctx).Informer(),
		ingressinformer.Get(ctx).Informer(),
		certificateinformer.Get(ctx).Informer(),
		sksinformer.Get(ctx).Informer(),
		painformer.Get(ctx).Informer(),
		serviceinformer.Get(ctx).Informer(),
		endpointsinformer.Get(ctx).Informer(),
		deploymentinformer.Get(ctx).Informer(),
		sliceinformer.Get(ctx, routeaddress.SliceSelector).Informer(),
	}
}

// dropManagedFieldsFrom makes the informers of perRouteInformers drop each
// object's managedFields as it is cached. No reconciler reads them, they are
// often the largest part of an object, and an update sent from a cached
// copy without them leaves the stored ones as they are (the apiserver keeps
// an object's managedFields when a write omits them). It must run before
// the informers start: while controllers are built.
func dropManagedFieldsFrom(ctx context.Context) {
	for _, inf := range perRouteInformers(ctx) {
		if err := inf.SetTransform(dropManagedFields); err != nil {
			logging.FromContext(ctx).Errorw("Failed to make an informer drop managedFields", "error", err)
		}
	}
}

// dropManagedFields is a cache.TransformFunc that clears an object's
// managedFields; a tombstone or anything without metadata passes as it is.
func dropManagedFields(obj interface{}) (interface{}, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
