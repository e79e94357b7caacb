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

package plan_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// apiserver is a small simulation of what the real one does to the three
// kinds: it defaults the fields the real one defaults, refuses the changes
// the real one refuses (immutable clusterIP and addressType, ClusterIP →
// ExternalName), and refuses to create what exists or to touch what does not.
type apiserver struct {
	services  map[string]*corev1.Service
	endpoints map[string]*corev1.Endpoints
	slices    map[string]*discoveryv1.EndpointSlice
	nextIP    int
	nextUID   int
	writes    int
}

func newAPIServer(a plan.Actual) *apiserver {
	s := &apiserver{
		services:  map[string]*corev1.Service{},
		endpoints: map[string]*corev1.Endpoints{},
		slices:    map[string]*discoveryv1.EndpointSlice{},
	}
	for _, o := range a.Services {
		s.services[o.Name] = o.DeepCopy()
	}
	for _, o := range a.Endpoints {
		s.endpoints[o.Name] = o.DeepCopy()
	}
	for _, o := range a.Slices {
		s.slices[o.Name] = o.DeepCopy()
	}
	return s
}

func (s *apiserver) actual() plan.Actual {
	var a plan.Actual
	for _, k := range slices.Sorted(maps.Keys(s.services)) {
		a.Services = append(a.Services, s.services[k].DeepCopy())
	}
	for _, k := range slices.Sorted(maps.Keys(s.endpoints)) {
		a.Endpoints = append(a.Endpoints, s.endpoints[k].DeepCopy())
	}
	for _, k := range slices.Sorted(maps.Keys(s.slices)) {
		a.Slices = append(a.Slices, s.slices[k].DeepCopy())
	}
	return a
}

// apply sends ops as the reconciler does (binding the UIDs of Services
// created on the way into their slices' owner references), then collects
// the garbage.
func (s *apiserver) apply(ops []plan.Op) error {
	created := map[string]types.UID{}
	defer func() {
		s.collectGarbage()
		s.mirror(true)
	}()
	for _, op := range ops {
		op, err := plan.BindOwner(op, created)
		if err == nil {
			err = s.do(op)
		}
		if err != nil {
			return fmt.Errorf("%s %s %s: %w", op.Verb, op.Kind, op.Name(), err)
		}
		if op.Kind == plan.KindService && op.Verb == plan.Create {
			created[op.Name()] = s.services[op.Name()].UID
		}
	}
	return nil
}

// collectGarbage deletes the slices whose controller is a Service that no
// longer exists, as kube-controller-manager's garbage collector does.
func (s *apiserver) collectGarbage() {
	for name, sl := range s.slices {
		ref := metav1.GetControllerOfNoCopy(sl)
		if ref == nil || ref.Kind != "Service" {
			continue
		}
		if svc := s.services[ref.Name]; svc == nil || svc.UID != ref.UID {
			delete(s.slices, name)
		}
	}
}

// mirror plays kube-controller-manager's endpointslicemirroring
// controller (plan.Mirrored): the slices it mirrored from Endpoints that
// are no longer mirrored go; with create, those that are mirrored are
// written as it would write them.
func (s *apiserver) mirror(create bool) {
	want := map[string]*discoveryv1.EndpointSlice{}
	mirrored := map[string]bool{}
	for _, sl := range plan.Mirrored(s.actual()) {
		want[sl.Name] = sl
		mirrored[sl.Labels[discoveryv1.LabelServiceName]] = true
	}
	for n, sl := range s.slices {
		if sl.Labels[discoveryv1.LabelManagedBy] != names.MirroredBy {
			continue
		}
		if create && want[n] == nil || !mirrored[sl.Labels[discoveryv1.LabelServiceName]] {
			delete(s.slices, n)
		}
	}
	if !create {
		return
	}
	for n, sl := range want {
		sl.UID = types.UID("uid-" + n)
		s.slices[n] = sl
	}
}

func (s *apiserver) do(op plan.Op) error {
	s.writes++
	switch o := op.Object.(type) {
	case *corev1.Service:
		return doKind(s, op.Verb, kindStore[corev1.Service, *corev1.Service]{s.services, s.defaultService, validateService}, o)
	case *corev1.Endpoints:
		return doKind(s, op.Verb, kindStore[corev1.Endpoints, *corev1.Endpoints]{s.endpoints, defaultEndpoints, nil}, o)
	case *discoveryv1.EndpointSlice:
		return doKind(s, op.Verb, kindStore[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice]{s.slices, defaultSlice, validateSlice}, o)
	}
	return fmt.Errorf("unknown object %T", op.Object)
}

type object[T any] interface {
	*T
	GetName() string
	GetUID() types.UID
	SetUID(types.UID)
	SetResourceVersion(string)
	DeepCopy() *T
}

// kindStore is what the simulated apiserver keeps of one kind: the objects,
// how it defaults them and how it validates them (nil: not at all).
type kindStore[T any, P object[T]] struct {
	objects  map[string]P
	def      func(old, obj P)
	validate func(old, obj P) error
}

func doKind[T any, P object[T]](s *apiserver, verb plan.Verb, k kindStore[T, P], o P) error {
	store, def, validate := k.objects, k.def, k.validate
	old, exists := store[o.GetName()]
	switch verb {
	case plan.Create:
		if validate != nil {
			if err := validate(nil, o); err != nil {
				return err
			}
		}
		if exists {
			return errors.New("already exists")
		}
		obj := P(o.DeepCopy())
		s.nextUID++
		obj.SetUID(types.UID(fmt.Sprintf("uid-%d", s.nextUID)))
		obj.SetResourceVersion("1")
		def(nil, obj)
		store[o.GetName()] = obj
	case plan.Update:
		if !exists {
			return errors.New("not found")
		}
		if old.GetUID() != o.GetUID() {
			return errors.New("uid mismatch")
		}
		obj := P(o.DeepCopy())
		def(old, obj)
		if validate != nil {
			if err := validate(old, obj); err != nil {
				return err
			}
		}
		store[o.GetName()] = obj
	case plan.Delete:
		if !exists {
			return errors.New("not found")
		}
		if old.GetUID() != o.GetUID() {
			return errors.New("uid precondition failed")
		}
		delete(store, o.GetName())
	}
	return nil
}

func (s *apiserver) defaultService(old, svc *corev1.Service) {
	DefaultService(old, svc, func() string {
		s.nextIP++
		return fmt.Sprintf("10.96.0.%d", s.nextIP)
	})
}

// validateService refuses what the real apiserver refuses of a Service we
// might write; old is nil on create.
func validateService(old, svc *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		if errs := validation.IsDNS1123Subdomain(strings.TrimSuffix(svc.Spec.ExternalName, ".")); len(errs) > 0 {
			return fmt.Errorf("spec.externalName: Invalid value %q: %s", svc.Spec.ExternalName, strings.Join(errs, "; "))
		}
	}
	if old == nil {
		return nil
	}
	if old.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.Type == corev1.ServiceTypeExternalName {
		return errors.New("spec.type: ClusterIP → ExternalName is refused (kubernetes#104329)")
	}
	if old.Spec.Type != corev1.ServiceTypeExternalName && old.Spec.ClusterIP != svc.Spec.ClusterIP {
		return fmt.Errorf("spec.clusterIP: field is immutable (%q → %q)", old.Spec.ClusterIP, svc.Spec.ClusterIP)
	}
	return nil
}

func defaultEndpoints(_, ep *corev1.Endpoints) { DefaultEndpoints(ep) }

func defaultSlice(_, s *discoveryv1.EndpointSlice) { DefaultSlice(s) }

func validateSlice(old, s *discoveryv1.EndpointSlice) error {
	for _, r := range s.OwnerReferences {
		if r.UID == "" {
			return errors.New("metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty")
		}
	}
	if len(s.Endpoints) > 1000 {
		return fmt.Errorf("endpoints: Too many: %d: must have at most 1000 items", len(s.Endpoints))
	}
	if old == nil {
		return nil
	}
	if old.AddressType != s.AddressType {
		return errors.New("addressType: field is immutable")
	}
	return nil
}

// describe renders a plan compactly, one operation a line.
func describe(p plan.Plan) string { return describeFrom(p, plan.Actual{}) }

// describeFrom renders a plan one operation a line, with what a user
// would check: the Service's shape, the addresses and ports of endpoints,
// and for an update the labels it adds or removes compared with before.
func describeFrom(p plan.Plan, before plan.Actual) string {
	var b strings.Builder
	for _, op := range p.Ops {
		fmt.Fprintf(&b, "    %s %s %s (%s)", op.Verb, op.Kind, op.Name(), op.Reason)
		if op.Verb != plan.Delete {
			fmt.Fprintf(&b, " %s", what(op.Object))
			if op.Verb == plan.Update {
				if old := find(before, op.Kind, op.Name()); old != nil {
					if d := labelDiff(old.GetLabels(), op.Object.GetLabels()); d != "" {
						fmt.Fprintf(&b, " labels %s", d)
					}
				}
			}
		}
		b.WriteString("\n")
	}
	for _, bl := range p.Blocked {
		fmt.Fprintf(&b, "    Blocked by %s %s\n", bl.Kind, bl.Name)
	}
	if b.Len() == 0 {
		return "    (nothing)\n"
	}
	return b.String()
}

// what summarises an object as a user sees it.
func what(o plan.Object) string {
	switch o := o.(type) {
	case *corev1.Service:
		switch {
		case o.Spec.Type == corev1.ServiceTypeExternalName:
			return "[ExternalName " + o.Spec.ExternalName + "]"
		case o.Spec.ClusterIP == corev1.ClusterIPNone:
			return "[headless]"
		}
		return "[ClusterIP]"
	case *corev1.Endpoints:
		var out []string
		for _, ss := range o.Subsets {
			for _, a := range ss.Addresses {
				for _, p := range ss.Ports {
					out = append(out, fmt.Sprintf("%s:%d/%s", a.IP, p.Port, p.Name))
				}
			}
		}
		return "[" + strings.Join(out, " ") + "]"
	case *discoveryv1.EndpointSlice:
		var out []string
		for _, e := range o.Endpoints {
			for _, a := range e.Addresses {
				for _, p := range o.Ports {
					out = append(out, fmt.Sprintf("%s:%d/%s", a, *p.Port, *p.Name))
				}
			}
		}
		return "[" + string(o.AddressType) + " " + strings.Join(out, " ") + "]"
	}
	return ""
}

func find(a plan.Actual, k plan.Kind, name string) plan.Object {
	switch k {
	case plan.KindService:
		for _, o := range a.Services {
			if o.Name == name {
				return o
			}
		}
	case plan.KindEndpoints:
		for _, o := range a.Endpoints {
			if o.Name == name {
				return o
			}
		}
	case plan.KindEndpointSlice:
		for _, o := range a.Slices {
			if o.Name == name {
				return o
			}
		}
	}
	return nil
}

// labelDiff lists the labels added (+k=v), changed and removed (-k).
func labelDiff(old, new map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(new)) {
		if ov, ok := old[k]; !ok || ov != new[k] {
			out = append(out, "+"+k+"="+new[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, ok := new[k]; !ok {
			out = append(out, "-"+k)
		}
	}
	return strings.Join(out, " ")
}
