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

package preview

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netinformers "knative.dev/networking/pkg/client/informers/externalversions"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servinginformers "knative.dev/serving/pkg/client/informers/externalversions"

	"knative.dev/route-address/pkg/reconciler/routeaddress"
)

// Watch holds the objects in scope that Progress plans in informers: each
// kind is listed once and then watched, where reading them again for every
// Progress would list them all each time. The ConfigMaps and the gateway
// Services outside scope are still read by each Progress: a few GETs.
type Watch struct {
	c Clients
	s Scope
	// warn is told of a list or watch that failed for a passing reason;
	// the informer tries again with a growing back-off.
	warn func(error)

	routes, ingresses, services, endpoints, slices cache.SharedIndexInformer

	mu sync.Mutex
	// refused is the first list or watch the apiserver refused (no
	// permission, no such resource): trying again would not help.
	refused error
}

// Watch starts informers on the objects in s and returns once each has
// listed them, or with the error that keeps one from listing them. warn is
// told of failures that pass by themselves, while and after it waits. The
// informers stop with ctx.
func (c Clients) Watch(ctx context.Context, s Scope, warn func(error)) (*Watch, error) {
	ns := s.ns()
	kube := informers.NewSharedInformerFactoryWithOptions(c.Kube, 0, informers.WithNamespace(ns))
	// Ours and those mirrored from Endpoints, as the reconciler reads.
	ourSlices := informers.NewSharedInformerFactoryWithOptions(c.Kube, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = routeaddress.SliceSelector }))
	w := &Watch{
		c: c, s: s, warn: warn,
		routes:    servinginformers.NewSharedInformerFactoryWithOptions(c.Serving, 0, servinginformers.WithNamespace(ns)).Serving().V1().Routes().Informer(),
		ingresses: netinformers.NewSharedInformerFactoryWithOptions(c.Net, 0, netinformers.WithNamespace(ns)).Networking().V1alpha1().Ingresses().Informer(),
		services:  kube.Core().V1().Services().Informer(),
		endpoints: kube.Core().V1().Endpoints().Informer(),
		slices:    ourSlices.Discovery().V1().EndpointSlices().Informer(),
	}
	for _, inf := range w.informers() {
		errs := []error{inf.informer.SetTransform(dropManagedFields), inf.informer.SetWatchErrorHandlerWithContext(w.failed(inf.what))}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		go inf.informer.RunWithContext(ctx)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := w.err(); err != nil {
			return nil, err
		}
		synced := true
		for _, inf := range w.informers() {
			synced = synced && inf.informer.HasSynced()
		}
		if synced {
			return w, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

type namedInformer struct {
	what     string
	informer cache.SharedIndexInformer
}

func (w *Watch) informers() []namedInformer {
	return []namedInformer{
		{"list Routes", w.routes},
		{"list Ingresses", w.ingresses},
		{"list Services", w.services},
		{"list Endpoints", w.endpoints},
		{"list EndpointSlices", w.slices},
	}
}

// failed is an informer's watch error handler: a refusal is kept for
// Progress to return; a failure that passes by itself is passed to warn
// (the informer tries again); the end of a watch is the informer's business.
func (w *Watch) failed(what string) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), apierrs.IsResourceExpired(err), apierrs.IsGone(err):
			// A watch that ended, or a resource version too old: the
			// informer lists and watches again.
		case apierrs.IsForbidden(err), apierrs.IsUnauthorized(err), apierrs.IsNotFound(err):
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.refused == nil {
				w.refused = w.c.explain(err, what)
			}
		default:
			if w.warn != nil {
				w.warn(w.c.explain(err, what))
			}
		}
	}
}

func (w *Watch) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refused
}

// Progress is Clients.Progress from the informers' caches.
func (w *Watch) Progress(ctx context.Context) (*Progress, error) {
	if err := w.err(); err != nil {
		return nil, err
	}
	cl, err := w.c.assemble(ctx, w.s, &objects{
		routes:    cached[v1.Route](w.routes),
		ingresses: cached[netv1alpha1.Ingress](w.ingresses),
		services:  cached[corev1.Service](w.services),
		endpoints: cached[corev1.Endpoints](w.endpoints),
		slices:    cached[discoveryv1.EndpointSlice](w.slices),
	})
	if err != nil {
		return nil, err
	}
	return w.c.progress(ctx, w.s, cl)
}

// cached is what inf holds, as Ts.
func cached[T any](inf cache.SharedIndexInformer) []*T {
	objs := inf.GetStore().List()
	out := make([]*T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(*T); ok {
			out = append(out, t)
		}
	}
	return out
}

// dropManagedFields is a cache.TransformFunc that clears an object's
// managedFields, which nothing here reads: often the largest part of an
// object.
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
