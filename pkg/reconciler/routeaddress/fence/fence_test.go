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

package fence

import (
	"context"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clientgotesting "k8s.io/client-go/testing"
)

const ns = "default"

func svc(name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func ep(name string) *corev1.Endpoints {
	return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// verbs lists every write the fence covers, by the action the fake
// clientset would record for it.
var verbs = []struct {
	name     string
	verb     string
	resource string
	call     func(*Client) error
}{
	{"Service create", "create", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).Create(context.Background(), svc("new"), metav1.CreateOptions{})
		return err
	}},
	{"Service update", "update", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).Update(context.Background(), svc("s"), metav1.UpdateOptions{})
		return err
	}},
	{"Service update status", "update", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).UpdateStatus(context.Background(), svc("s"), metav1.UpdateOptions{})
		return err
	}},
	{"Service patch", "patch", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).Patch(context.Background(), "s", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
		return err
	}},
	{"Service apply", "patch", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).Apply(context.Background(), corev1apply.Service("s", ns), metav1.ApplyOptions{FieldManager: "t"})
		return err
	}},
	{"Service apply status", "patch", "services", func(c *Client) error {
		_, err := c.CoreV1().Services(ns).ApplyStatus(context.Background(), corev1apply.Service("s", ns), metav1.ApplyOptions{FieldManager: "t"})
		return err
	}},
	{"Service delete", "delete", "services", func(c *Client) error {
		return c.CoreV1().Services(ns).Delete(context.Background(), "s", metav1.DeleteOptions{})
	}},
	{"Endpoints create", "create", "endpoints", func(c *Client) error {
		_, err := c.CoreV1().Endpoints(ns).Create(context.Background(), ep("new"), metav1.CreateOptions{})
		return err
	}},
	{"Endpoints update", "update", "endpoints", func(c *Client) error {
		_, err := c.CoreV1().Endpoints(ns).Update(context.Background(), ep("e"), metav1.UpdateOptions{})
		return err
	}},
	{"Endpoints patch", "patch", "endpoints", func(c *Client) error {
		_, err := c.CoreV1().Endpoints(ns).Patch(context.Background(), "e", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
		return err
	}},
	{"Endpoints apply", "patch", "endpoints", func(c *Client) error {
		_, err := c.CoreV1().Endpoints(ns).Apply(context.Background(), corev1apply.Endpoints("e", ns), metav1.ApplyOptions{FieldManager: "t"})
		return err
	}},
	{"Endpoints delete", "delete", "endpoints", func(c *Client) error {
		return c.CoreV1().Endpoints(ns).Delete(context.Background(), "e", metav1.DeleteOptions{})
	}},
	{"Endpoints delete collection", "delete-collection", "endpoints", func(c *Client) error {
		return c.CoreV1().Endpoints(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	}},
}

func writes(kc *fake.Clientset) []clientgotesting.Action {
	var out []clientgotesting.Action
	for _, a := range kc.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

func TestFencePerVerb(t *testing.T) {
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			kc := fake.NewClientset(svc("s"), ep("e"))
			var fenced atomic.Bool
			// Only the namespace of the objects is fenced.
			inNamespace := func(n string) Suppression {
				if n == ns && fenced.Load() {
					return All
				}
				return None
			}
			c := New(kc, inNamespace)

			// Open: the write is sent.
			kc.ClearActions()
			_ = v.call(c)
			if w := writes(kc); len(w) != 1 || w[0].GetVerb() != v.verb || w[0].GetResource().Resource != v.resource {
				t.Fatalf("open fence: writes = %v, want one %s %s", w, v.verb, v.resource)
			}

			// Closed: nothing is sent, and the caller sees success.
			kc = fake.NewClientset(svc("s"), ep("e"))
			c = New(kc, inNamespace)
			fenced.Store(true)
			if err := v.call(c); err != nil {
				t.Fatalf("closed fence returned %v, want success", err)
			}
			if w := writes(kc); len(w) != 0 {
				t.Fatalf("closed fence sent %v", w)
			}
		})
	}
}

// TestFenceExisting: with Suppression Existing only creates are sent; a
// create of an object that exists is suppressed.
func TestFenceExisting(t *testing.T) {
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			kc := fake.NewClientset(svc("s"), ep("e"))
			c := New(kc, func(string) Suppression { return Existing })
			if err := v.call(c); err != nil {
				t.Fatalf("returned %v, want success", err)
			}
			w := writes(kc)
			if v.verb == "create" {
				if len(w) != 1 || w[0].GetVerb() != "create" {
					t.Fatalf("writes = %v, want the create", w)
				}
				return
			}
			if len(w) != 0 {
				t.Fatalf("sent %v, want nothing", w)
			}
		})
	}
	kc := fake.NewClientset(svc("s"), ep("e"))
	c := New(kc, func(string) Suppression { return Existing })
	if got, err := c.CoreV1().Services(ns).Create(context.Background(), svc("s"), metav1.CreateOptions{}); err != nil || got.Name != "s" {
		t.Errorf("Create of an existing Service = %v, %v; want the object back and no error", got, err)
	}
	if got, err := c.CoreV1().Endpoints(ns).Create(context.Background(), ep("e"), metav1.CreateOptions{}); err != nil || got.Name != "e" {
		t.Errorf("Create of existing Endpoints = %v, %v; want the object back and no error", got, err)
	}
	if w := writes(kc); len(w) != 0 {
		t.Errorf("creates of existing objects sent %v, want nothing", w)
	}
	// One the informers have not shown yet, refused as existing.
	kc.PrependReactor("get", "services", func(clientgotesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrs.NewNotFound(corev1.Resource("services"), "s")
	})
	if got, err := c.CoreV1().Services(ns).Create(context.Background(), svc("s"), metav1.CreateOptions{}); err != nil || got.Name != "s" {
		t.Errorf("Create of a Service that exists but is not read = %v, %v; want the object back and no error", got, err)
	}
	kc.PrependReactor("get", "endpoints", func(clientgotesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrs.NewNotFound(corev1.Resource("endpoints"), "e")
	})
	if got, err := c.CoreV1().Endpoints(ns).Create(context.Background(), ep("e"), metav1.CreateOptions{}); err != nil || got.Name != "e" {
		t.Errorf("Create of Endpoints that exist but are not read = %v, %v; want the object back and no error", got, err)
	}
	bad := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "x"}}
	kc.PrependReactor("create", "services", func(clientgotesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrs.NewForbidden(corev1.Resource("services"), "x", nil)
	})
	if _, err := c.CoreV1().Services(ns).Create(context.Background(), bad, metav1.CreateOptions{}); !apierrs.IsForbidden(err) {
		t.Errorf("Create refused for another reason returned %v, want it", err)
	}
}

func TestFenceReturnsTheObject(t *testing.T) {
	c := New(fake.NewClientset(), func(string) Suppression { return All })
	got, err := c.CoreV1().Services(ns).Create(context.Background(), svc("placeholder"), metav1.CreateOptions{})
	if err != nil || got.Name != "placeholder" || got.Namespace != ns {
		t.Fatalf("Create = %v, %v; want the object back", got, err)
	}
	p, err := c.CoreV1().Endpoints(ns).Patch(context.Background(), "e", types.MergePatchType, nil, metav1.PatchOptions{})
	if err != nil || p.Name != "e" {
		t.Fatalf("Patch = %v, %v; want an object named e", p, err)
	}
}

func TestFencePassesEverythingElse(t *testing.T) {
	kc := fake.NewClientset(svc("s"), ep("e"))
	c := New(kc, func(string) Suppression { return All })
	ctx := context.Background()
	if _, err := c.CoreV1().Services(ns).Get(ctx, "s", metav1.GetOptions{}); err != nil {
		t.Error("Get Service:", err)
	}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		t.Error("Create ConfigMap:", err)
	}
	if _, err := c.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Error("Create EndpointSlice:", err)
	}
	if _, err := c.CoreV1().Events(ns).Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "ev"}, Type: corev1.EventTypeNormal, Reason: "Created", Message: "Created Ingress \"x\""}, metav1.CreateOptions{}); err != nil {
		t.Error("Create Event:", err)
	}
	var got []string
	for _, a := range writes(kc) {
		got = append(got, a.GetVerb()+" "+a.GetResource().Resource)
	}
	want := []string{"create configmaps", "create endpointslices", "create events"}
	if len(got) != len(want) {
		t.Fatalf("writes = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("write %d = %s, want %s", i, got[i], want[i])
		}
	}
}

func TestFenceDropsThePlaceholderEvent(t *testing.T) {
	ev := func() *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: "hello.1"},
			InvolvedObject: corev1.ObjectReference{Kind: "Route", Namespace: ns, Name: "hello"},
			Type:           corev1.EventTypeNormal, Reason: "Created",
			Message: `Created placeholder service "hello"`,
		}
	}
	for _, fenced := range []bool{true, false} {
		kc := fake.NewClientset()
		c := New(kc, func(n string) Suppression {
			if fenced && n == ns {
				return All
			}
			return None
		})
		if _, err := c.CoreV1().Events("").CreateWithEventNamespace(ev()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CoreV1().Events(ns).Create(context.Background(), ev(), metav1.CreateOptions{}); err != nil && fenced {
			t.Fatal(err)
		}
		sent := len(writes(kc)) > 0
		if sent == fenced {
			t.Errorf("fenced=%v: event sent = %v", fenced, sent)
		}
	}
}
