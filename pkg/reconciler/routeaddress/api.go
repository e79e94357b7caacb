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
	"fmt"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

// AgentName is the name this reconciler records events and field
// ownership under: its writes name it as their field manager, so that an
// object's managedFields, and the apiserver's audit log, tell them from the
// route reconciler's.
const AgentName = "routeaddress-controller"

// kindAPI reads and writes one kind of object in one namespace: through
// the apiserver, and from the informer's cache.
type kindAPI struct {
	create func(context.Context, plan.Object, metav1.CreateOptions) (metav1.Object, error)
	update func(context.Context, plan.Object) (metav1.Object, error)
	delete func(context.Context, string, metav1.DeleteOptions) error
	get    func(context.Context, string) (metav1.Object, error)
	cached func(string) (metav1.Object, error)
}

// kinds are the client and the listers of the three kinds of object the
// reconciler writes.
type kinds struct {
	kubeclient      kubernetes.Interface
	serviceLister   corev1listers.ServiceLister
	endpointsLister corev1listers.EndpointsLister
	sliceLister     discoveryv1listers.EndpointSliceLister
}

// api is the one place a kind meets its client and lister.
func (c kinds) api(kind plan.Kind, ns string) kindAPI {
	switch kind {
	case plan.KindService:
		return typed(c.kubeclient.CoreV1().Services(ns), c.serviceLister.Services(ns).Get)
	case plan.KindEndpoints:
		return typed(c.kubeclient.CoreV1().Endpoints(ns), c.endpointsLister.Endpoints(ns).Get)
	default:
		return typed(c.kubeclient.DiscoveryV1().EndpointSlices(ns), c.sliceLister.EndpointSlices(ns).Get)
	}
}

// typedClient is the part of a typed client-go client the reconciler uses.
type typedClient[T plan.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
	Get(context.Context, string, metav1.GetOptions) (T, error)
}

// typed is the kindAPI of the objects of type T that cl writes and cached
// reads from an informer's lister.
func typed[T plan.Object](cl typedClient[T], cached func(string) (T, error)) kindAPI {
	return kindAPI{
		create: func(ctx context.Context, o plan.Object, opts metav1.CreateOptions) (metav1.Object, error) {
			t, err := as[T](o)
			if err != nil {
				return nil, err
			}
			return cl.Create(ctx, t, opts)
		},
		update: func(ctx context.Context, o plan.Object) (metav1.Object, error) {
			t, err := as[T](o)
			if err != nil {
				return nil, err
			}
			return cl.Update(ctx, t, metav1.UpdateOptions{FieldManager: AgentName})
		},
		delete: cl.Delete,
		get: func(ctx context.Context, name string) (metav1.Object, error) {
			return cl.Get(ctx, name, metav1.GetOptions{})
		},
		cached: func(name string) (metav1.Object, error) { return cached(name) },
	}
}

// as is o as a T, or an error naming both.
func as[T plan.Object](o plan.Object) (T, error) {
	t, ok := o.(T)
	if !ok {
		return t, fmt.Errorf("%T %q is not a %T", o, o.GetName(), t)
	}
	return t, nil
}

// cachedVersion looks objects up in the listers.
func (c kinds) cachedVersion(ns string) cached {
	return func(kind plan.Kind, name string) (string, types.UID, bool) {
		o, err := c.api(kind, ns).cached(name)
		if err != nil {
			// A lister's Get fails only when the object is not cached.
			return "", "", false
		}
		return o.GetResourceVersion(), o.GetUID(), true
	}
}

// get reads the object op writes from the apiserver.
func (c kinds) get(ctx context.Context, op plan.Op) (metav1.Object, error) {
	return c.api(op.Kind, op.Object.GetNamespace()).get(ctx, op.Name())
}

// do sends op (a Create only as a server-side dry run when dryRun is set)
// and returns the object the apiserver answered with (nil for a Delete).
func (c kinds) do(ctx context.Context, op plan.Op, dryRun bool) (metav1.Object, error) {
	api := c.api(op.Kind, op.Object.GetNamespace())
	switch op.Verb {
	case plan.Create:
		opts := metav1.CreateOptions{FieldManager: AgentName}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		return api.create(ctx, op.Object, opts)
	case plan.Update:
		return api.update(ctx, op.Object)
	default:
		err := api.delete(ctx, op.Name(), metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(op.Object.GetUID()))})
		if apierrs.IsNotFound(err) {
			// Already gone (garbage collection, or a previous attempt).
			return nil, nil
		}
		return nil, err
	}
}
