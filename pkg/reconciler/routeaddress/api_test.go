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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"
	clientgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

// TestCachedVersion looks each kind up in its lister.
func TestCachedVersion(t *testing.T) {
	meta := func(rv string, uid types.UID) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: "hello", ResourceVersion: rv, UID: uid}
	}
	indexer := func(o metav1.Object) cache.Indexer {
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	c := kinds{
		kubeclient:      kubefake.NewSimpleClientset(),
		serviceLister:   corev1listers.NewServiceLister(indexer(&corev1.Service{ObjectMeta: meta("1", "svc-uid")})),
		endpointsLister: corev1listers.NewEndpointsLister(indexer(&corev1.Endpoints{ObjectMeta: meta("2", "ep-uid")})),
		sliceLister:     discoveryv1listers.NewEndpointSliceLister(indexer(&discoveryv1.EndpointSlice{ObjectMeta: meta("3", "slice-uid")})),
	}
	type found struct {
		RV    string
		UID   types.UID
		Found bool
	}
	lookup := c.cachedVersion("ns")
	for _, tc := range []struct {
		kind plan.Kind
		name string
		want found
	}{
		{plan.KindService, "hello", found{"1", "svc-uid", true}},
		{plan.KindEndpoints, "hello", found{"2", "ep-uid", true}},
		{plan.KindEndpointSlice, "hello", found{"3", "slice-uid", true}},
		{plan.KindService, "missing", found{}},
		{plan.KindEndpointSlice, "missing", found{}},
	} {
		var got found
		got.RV, got.UID, got.Found = lookup(tc.kind, tc.name)
		if got != tc.want {
			t.Errorf("%s %s = %+v, want %+v", tc.kind, tc.name, got, tc.want)
		}
	}
}

// TestDo sends each verb of each kind through its client: a Create as a
// server-side dry run when asked (the fake clientset creates it all the
// same), a Delete preconditioned on the UID and done when the object is
// already gone; get reads it back.
func TestDo(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewSimpleClientset()
	empty := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	c := kinds{
		kubeclient:      kube,
		serviceLister:   corev1listers.NewServiceLister(empty()),
		endpointsLister: corev1listers.NewEndpointsLister(empty()),
		sliceLister:     discoveryv1listers.NewEndpointSliceLister(empty()),
	}
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "hello", UID: "uid-1"}
	for _, o := range []plan.Object{&corev1.Service{ObjectMeta: meta}, &corev1.Endpoints{ObjectMeta: meta}, &discoveryv1.EndpointSlice{ObjectMeta: meta}} {
		kind := plan.Kind(strings.TrimPrefix(fmt.Sprintf("%T", o), "*v1."))
		t.Run(string(kind), func(t *testing.T) {
			kube.ClearActions()
			op := plan.Op{Kind: kind, Object: o}
			for _, step := range []struct {
				verb   plan.Verb
				dryRun bool
			}{{plan.Create, true}, {plan.Update, false}, {plan.Delete, false}, {plan.Delete, false}} {
				op.Verb = step.verb
				if _, err := c.do(ctx, op, step.dryRun); err != nil {
					t.Fatalf("%s (dry run %v): %v", step.verb, step.dryRun, err)
				}
			}
			var verbs []string
			for _, a := range kube.Actions() {
				v := a.GetVerb()
				switch a := a.(type) {
				case clientgotesting.CreateActionImpl:
					if len(a.CreateOptions.DryRun) > 0 {
						v += " (dry run)"
					}
					v += " by " + a.CreateOptions.FieldManager
				case clientgotesting.UpdateActionImpl:
					v += " by " + a.UpdateOptions.FieldManager
				case clientgotesting.DeleteActionImpl:
					if p := a.DeleteOptions.Preconditions; p == nil || p.UID == nil || *p.UID != "uid-1" {
						t.Errorf("delete without the UID precondition: %+v", a.DeleteOptions)
					}
				}
				verbs = append(verbs, v)
			}
			if want := []string{"create (dry run) by " + AgentName, "update by " + AgentName, "delete", "delete"}; !slices.Equal(verbs, want) {
				t.Errorf("requests = %v, want %v", verbs, want)
			}
			if _, err := c.get(ctx, op); !apierrs.IsNotFound(err) {
				t.Errorf("get after delete = %v, want NotFound", err)
			}
		})
	}
}
