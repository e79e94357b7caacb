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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	cachingv1alpha1 "knative.dev/caching/pkg/apis/caching/v1alpha1"
	fakecachingclient "knative.dev/caching/pkg/client/injection/client/fake"
	cachingfactory "knative.dev/caching/pkg/client/injection/informers/factory"
	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	fakenetclient "knative.dev/networking/pkg/client/injection/client/fake"
	netfactory "knative.dev/networking/pkg/client/injection/informers/factory"
	fakekubeclient "knative.dev/pkg/client/injection/kube/client/fake"
	kubefactory "knative.dev/pkg/client/injection/kube/informers/factory"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	fakeservingclient "knative.dev/serving/pkg/client/injection/client/fake"
	servingfactory "knative.dev/serving/pkg/client/injection/informers/factory"
)

func TestWithoutManagedFields(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	meta := metav1.ObjectMeta{
		Namespace: "ns",
		Name:      "name",
		Labels:    map[string]string{"serving.knative.dev/route": "name"},
		ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager:    "controller",
			Operation:  metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1",
			FieldsType: "FieldsV1",
			FieldsV1:   &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)},
		}},
	}
	ctx, _ = fakekubeclient.With(ctx, &corev1.Service{ObjectMeta: meta})
	ctx, _ = fakeservingclient.With(ctx, &v1.Route{ObjectMeta: meta})
	ctx, _ = fakenetclient.With(ctx, &netv1alpha1.Ingress{ObjectMeta: meta})
	ctx, _ = fakecachingclient.With(ctx, &cachingv1alpha1.Image{ObjectMeta: meta})
	ctx = withoutManagedFields(ctx)

	informers := map[string]cache.SharedIndexInformer{
		"Service": kubefactory.Get(ctx).Core().V1().Services().Informer(),
		"Route":   servingfactory.Get(ctx).Serving().V1().Routes().Informer(),
		"Ingress": netfactory.Get(ctx).Networking().V1alpha1().Ingresses().Informer(),
		"Image":   cachingfactory.Get(ctx).Caching().V1alpha1().Images().Informer(),
	}
	kubefactory.Get(ctx).Start(ctx.Done())
	servingfactory.Get(ctx).Start(ctx.Done())
	netfactory.Get(ctx).Start(ctx.Done())
	cachingfactory.Get(ctx).Start(ctx.Done())
	for kind, inf := range informers {
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatalf("%s informer did not sync", kind)
		}
		obj, ok, err := inf.GetStore().GetByKey("ns/name")
		if err != nil || !ok {
			t.Fatalf("%s ns/name not cached: %v", kind, err)
		}
		m := obj.(metav1.Object)
		if got := m.GetManagedFields(); got != nil {
			t.Errorf("cached %s has managedFields %v, want none", kind, got)
		}
		if got := m.GetLabels()["serving.knative.dev/route"]; got != "name" {
			t.Errorf("cached %s lost its labels: %v", kind, m.GetLabels())
		}
	}
}
