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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"knative.dev/serving/pkg/apis/serving"

	"knative.dev/route-address/pkg/reconciler/routeaddress"
)

// routeIndexedServices is the shared Service informer, whose Lister's List
// with a selector requiring a Route label reads routeaddress.RouteIndex
// instead of every Service of the namespace. serving's route reconciler
// lists a Route's Services that way twice per reconcile (visibility and
// orphaned Services); handed this informer, it reads them unmodified in
// time that does not grow with the namespace.
type routeIndexedServices struct {
	corev1informers.ServiceInformer
}

func (i routeIndexedServices) Lister() corev1listers.ServiceLister {
	return routeIndexedLister{ServiceLister: i.ServiceInformer.Lister(), idx: i.Informer().GetIndexer()}
}

type routeIndexedLister struct {
	corev1listers.ServiceLister
	idx cache.Indexer
}

func (l routeIndexedLister) Services(ns string) corev1listers.ServiceNamespaceLister {
	return routeIndexedNamespaceLister{ServiceNamespaceLister: l.ServiceLister.Services(ns), idx: l.idx, ns: ns}
}

type routeIndexedNamespaceLister struct {
	corev1listers.ServiceNamespaceLister
	idx cache.Indexer
	ns  string
}

// List reads the Route index when sel requires a Route label, the
// namespace otherwise.
func (l routeIndexedNamespaceLister) List(sel labels.Selector) ([]*corev1.Service, error) {
	route, ok := sel.RequiresExactMatch(serving.RouteLabelKey)
	if !ok {
		return l.ServiceNamespaceLister.List(sel)
	}
	objs, err := l.idx.ByIndex(routeaddress.RouteIndex, l.ns+"/"+route)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Service
	for _, o := range objs {
		if s, ok := o.(*corev1.Service); ok && sel.Matches(labels.Set(s.Labels)) {
			out = append(out, s)
		}
	}
	return out, nil
}
