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
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
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

// trimFrom makes the informers of perRouteInformers trim each object as
// they cache it (trim). It must run before the informers start: while
// controllers are built.
func trimFrom(ctx context.Context) {
	t := newTrimmer(maxShared)
	for _, inf := range perRouteInformers(ctx) {
		if err := inf.SetTransform(t.trim); err != nil {
			logging.FromContext(ctx).Errorw("Failed to make an informer trim the objects it caches", "error", err)
		}
	}
}

// maxShared bounds the strings a trimmer shares: the first that informers
// see (the keys and values every object repeats among them), about 200 KiB
// at most.
const maxShared = 4096

// trimmer is a cache.TransformFunc's state: the strings it shares.
type trimmer struct {
	mu     sync.Mutex
	shared map[string]string
	max    int
}

func newTrimmer(max int) *trimmer {
	return &trimmer{shared: make(map[string]string, max), max: max}
}

// trim is a cache.TransformFunc that makes an object cost less in the
// cache without changing what any reader sees:
//   - it clears managedFields: no reconciler reads them, they are often
//     the largest part of an object, and an update sent from a cached
//     copy without them leaves the stored ones as they are (the apiserver
//     keeps an object's managedFields when a write omits them);
//   - the strings that objects repeat (namespaces, label and annotation
//     keys, label values, owners' kinds and API versions, port names and
//     protocols, a Service's type and ExternalName) point at one shared
//     copy, up to maxShared of them, instead of each decoded object's own;
//   - a label map is made again at its size.
//
// A tombstone or anything without metadata passes as it is. Strings are
// immutable, so sharing them cannot let a reader that writes to its copy
// change another object.
func (t *trimmer) trim(obj interface{}) (interface{}, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m.SetManagedFields(nil)
	m.SetNamespace(t.share(m.GetNamespace()))
	if l := m.GetLabels(); l != nil {
		m.SetLabels(t.shareMap(l, true))
	}
	if a := m.GetAnnotations(); a != nil {
		m.SetAnnotations(t.shareMap(a, false))
	}
	refs := m.GetOwnerReferences()
	for i := range refs {
		refs[i].APIVersion, refs[i].Kind = t.share(refs[i].APIVersion), t.share(refs[i].Kind)
	}
	switch o := obj.(type) {
	case *corev1.Service:
		o.Spec.Type = corev1.ServiceType(t.share(string(o.Spec.Type)))
		o.Spec.ExternalName = t.share(o.Spec.ExternalName)
		for i := range o.Spec.Ports {
			p := &o.Spec.Ports[i]
			t.sharePort(&p.Name, &p.Protocol, p.AppProtocol)
		}
	case *corev1.Endpoints:
		for i := range o.Subsets {
			for j := range o.Subsets[i].Ports {
				p := &o.Subsets[i].Ports[j]
				t.sharePort(&p.Name, &p.Protocol, p.AppProtocol)
			}
		}
	case *discoveryv1.EndpointSlice:
		o.AddressType = discoveryv1.AddressType(t.share(string(o.AddressType)))
		for i := range o.Ports {
			p := &o.Ports[i]
			t.sharePort(p.Name, p.Protocol, p.AppProtocol)
		}
	}
	return obj, nil
}

// sharePort shares a port's name, protocol and appProtocol, each where it
// is set: a Service's, an Endpoints' and an EndpointSlice's ports hold the
// same three, by value or by pointer.
func (t *trimmer) sharePort(name *string, protocol *corev1.Protocol, appProtocol *string) {
	t.sharePtr(name)
	if protocol != nil {
		*protocol = corev1.Protocol(t.share(string(*protocol)))
	}
	t.sharePtr(appProtocol)
}

// share returns the shared copy of s, making s the shared copy while
// there is room.
func (t *trimmer) share(s string) string {
	if s == "" {
		return s
	}
	if c, ok := t.shared[s]; ok {
		return c
	}
	if len(t.shared) < t.max {
		t.shared[s] = s
	}
	return s
}

// sharePtr points *p, if any, at the shared copy of its string.
func (t *trimmer) sharePtr(p *string) {
	if p != nil {
		*p = t.share(*p)
	}
}

// shareMap is m made again at its size with its keys shared, and its
// values too when values is set (annotation values are mostly unique and
// often long).
func (t *trimmer) shareMap(m map[string]string, values bool) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if values {
			v = t.share(v)
		}
		out[t.share(k)] = v
	}
	return out
}
