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
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"
)

// Suppression says which Service and Endpoints writes of a namespace are
// not sent.
type Suppression int

const (
	// None: every write is sent.
	None Suppression = iota
	// Existing: what exists is left as it is. A create of an object that
	// does not exist is sent; one of an object that exists (read first, or
	// refused as existing) returns the object it was given, as a suppressed
	// write does; every other write is suppressed.
	Existing
	// All: every write is suppressed.
	All
)

// Client is a kubernetes.Interface whose Service and Endpoints writes are
// suppressed in the namespaces, and as far as, Fenced says. Everything else
// passes through.
type Client struct {
	kubernetes.Interface
	// Fenced is asked before every write, with the namespace written to;
	// it follows the configuration at run time.
	Fenced func(namespace string) Suppression
}

var _ kubernetes.Interface = (*Client)(nil)

// New wraps kc.
func New(kc kubernetes.Interface, fenced func(namespace string) Suppression) *Client {
	return &Client{Interface: kc, Fenced: fenced}
}

// CoreV1 implements kubernetes.Interface.
func (c *Client) CoreV1() corev1client.CoreV1Interface {
	return &coreV1{CoreV1Interface: c.Interface.CoreV1(), fenced: c.Fenced}
}

type coreV1 struct {
	corev1client.CoreV1Interface
	fenced func(namespace string) Suppression
}

func (c *coreV1) Services(ns string) corev1client.ServiceInterface {
	return &services{ServiceInterface: c.CoreV1Interface.Services(ns), ns: ns, fenced: c.fenced}
}

func (c *coreV1) Endpoints(ns string) corev1client.EndpointsInterface {
	return &endpoints{EndpointsInterface: c.CoreV1Interface.Endpoints(ns), ns: ns, fenced: c.fenced}
}

func (c *coreV1) Events(ns string) corev1client.EventInterface {
	return &events{EventInterface: c.CoreV1Interface.Events(ns), fenced: c.fenced}
}

// services suppresses every Service write. A suppressed write returns the
// object it was given (Create, Update), or one carrying only the name
// (Patch, Apply), and no error.
type services struct {
	corev1client.ServiceInterface
	ns     string
	fenced func(namespace string) Suppression
}

func (s *services) Create(ctx context.Context, o *corev1.Service, opts metav1.CreateOptions) (*corev1.Service, error) {
	switch s.fenced(s.ns) {
	case All:
		return o.DeepCopy(), nil
	case Existing:
		if _, err := s.ServiceInterface.Get(ctx, o.Name, metav1.GetOptions{}); err == nil {
			return o.DeepCopy(), nil
		}
		created, err := s.ServiceInterface.Create(ctx, o, opts)
		if apierrs.IsAlreadyExists(err) {
			return o.DeepCopy(), nil
		}
		return created, err
	}
	return s.ServiceInterface.Create(ctx, o, opts)
}

func (s *services) Update(ctx context.Context, o *corev1.Service, opts metav1.UpdateOptions) (*corev1.Service, error) {
	if s.fenced(s.ns) != None {
		return o.DeepCopy(), nil
	}
	return s.ServiceInterface.Update(ctx, o, opts)
}

func (s *services) UpdateStatus(ctx context.Context, o *corev1.Service, opts metav1.UpdateOptions) (*corev1.Service, error) {
	if s.fenced(s.ns) != None {
		return o.DeepCopy(), nil
	}
	return s.ServiceInterface.UpdateStatus(ctx, o, opts)
}

func (s *services) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if s.fenced(s.ns) != None {
		return nil
	}
	return s.ServiceInterface.Delete(ctx, name, opts)
}

func (s *services) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.Service, error) {
	if s.fenced(s.ns) != None {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name}}, nil
	}
	return s.ServiceInterface.Patch(ctx, name, pt, data, opts, sub...)
}

func (s *services) Apply(ctx context.Context, o *corev1apply.ServiceApplyConfiguration, opts metav1.ApplyOptions) (*corev1.Service, error) {
	if s.fenced(s.ns) != None {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: ptr.Deref(o.Name, "")}}, nil
	}
	return s.ServiceInterface.Apply(ctx, o, opts)
}

func (s *services) ApplyStatus(ctx context.Context, o *corev1apply.ServiceApplyConfiguration, opts metav1.ApplyOptions) (*corev1.Service, error) {
	if s.fenced(s.ns) != None {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: ptr.Deref(o.Name, "")}}, nil
	}
	return s.ServiceInterface.ApplyStatus(ctx, o, opts)
}

// endpoints suppresses every Endpoints write, as services does.
type endpoints struct {
	corev1client.EndpointsInterface
	ns     string
	fenced func(namespace string) Suppression
}

func (e *endpoints) Create(ctx context.Context, o *corev1.Endpoints, opts metav1.CreateOptions) (*corev1.Endpoints, error) {
	switch e.fenced(e.ns) {
	case All:
		return o.DeepCopy(), nil
	case Existing:
		if _, err := e.EndpointsInterface.Get(ctx, o.Name, metav1.GetOptions{}); err == nil {
			return o.DeepCopy(), nil
		}
		created, err := e.EndpointsInterface.Create(ctx, o, opts)
		if apierrs.IsAlreadyExists(err) {
			return o.DeepCopy(), nil
		}
		return created, err
	}
	return e.EndpointsInterface.Create(ctx, o, opts)
}

func (e *endpoints) Update(ctx context.Context, o *corev1.Endpoints, opts metav1.UpdateOptions) (*corev1.Endpoints, error) {
	if e.fenced(e.ns) != None {
		return o.DeepCopy(), nil
	}
	return e.EndpointsInterface.Update(ctx, o, opts)
}

func (e *endpoints) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if e.fenced(e.ns) != None {
		return nil
	}
	return e.EndpointsInterface.Delete(ctx, name, opts)
}

func (e *endpoints) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	if e.fenced(e.ns) != None {
		return nil
	}
	return e.EndpointsInterface.DeleteCollection(ctx, opts, listOpts)
}

func (e *endpoints) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.Endpoints, error) {
	if e.fenced(e.ns) != None {
		return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name}}, nil
	}
	return e.EndpointsInterface.Patch(ctx, name, pt, data, opts, sub...)
}

func (e *endpoints) Apply(ctx context.Context, o *corev1apply.EndpointsApplyConfiguration, opts metav1.ApplyOptions) (*corev1.Endpoints, error) {
	if e.fenced(e.ns) != None {
		return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: ptr.Deref(o.Name, "")}}, nil
	}
	return e.EndpointsInterface.Apply(ctx, o, opts)
}

// SuppressedEventPrefix starts the message of the one event the upstream
// route reconciler records about a Service write ("Created placeholder
// service %q"). While fenced that write was never sent, so the event is
// dropped; the routeaddress reconciler records its own for what it writes.
const SuppressedEventPrefix = "Created placeholder service"

// events drops upstream's event about a suppressed Service write. Event
// recorders write through CreateWithEventNamespace.
type events struct {
	corev1client.EventInterface
	fenced func(namespace string) Suppression
}

func (e *events) suppressed(ev *corev1.Event) bool {
	return ev.Type == corev1.EventTypeNormal && ev.Reason == "Created" &&
		strings.HasPrefix(ev.Message, SuppressedEventPrefix) && e.fenced(ev.InvolvedObject.Namespace) == All
}

func (e *events) Create(ctx context.Context, ev *corev1.Event, opts metav1.CreateOptions) (*corev1.Event, error) {
	if e.suppressed(ev) {
		return ev.DeepCopy(), nil
	}
	return e.EventInterface.Create(ctx, ev, opts)
}

func (e *events) CreateWithEventNamespace(ev *corev1.Event) (*corev1.Event, error) {
	if e.suppressed(ev) {
		return ev.DeepCopy(), nil
	}
	return e.EventInterface.CreateWithEventNamespace(ev)
}

func (e *events) CreateWithEventNamespaceWithContext(ctx context.Context, ev *corev1.Event) (*corev1.Event, error) {
	if e.suppressed(ev) {
		return ev.DeepCopy(), nil
	}
	return e.EventInterface.CreateWithEventNamespaceWithContext(ctx, ev)
}

func (e *events) PatchWithEventNamespace(ev *corev1.Event, data []byte) (*corev1.Event, error) {
	if e.suppressed(ev) {
		return ev.DeepCopy(), nil
	}
	return e.EventInterface.PatchWithEventNamespace(ev, data)
}

func (e *events) PatchWithEventNamespaceWithContext(ctx context.Context, ev *corev1.Event, data []byte) (*corev1.Event, error) {
	if e.suppressed(ev) {
		return ev.DeepCopy(), nil
	}
	return e.EventInterface.PatchWithEventNamespaceWithContext(ctx, ev, data)
}
