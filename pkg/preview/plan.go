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
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Shapes a name can have now.
const (
	ShapeAbsent            = "Absent"
	ShapeExternalName      = "ExternalName"
	ShapeHeadlessEndpoints = "Headless+Endpoints"
	ShapeHeadlessSlices    = "Headless+EndpointSlices"
	ShapeHeadlessBoth      = "Headless+Endpoints+EndpointSlices"
	ShapeHeadlessEmpty     = string(resources.ShapeHeadlessEmpty)
	ShapeMeshClusterIP     = "ClusterIP"
	ShapeNotOwned          = "NotOwned"
)

// currentShape classifies what exists for one name.
func currentShape(r *v1.Route, name string, a plan.Actual) string {
	var svc *corev1.Service
	for _, s := range a.Services {
		if s.Name == name {
			svc = s
		}
	}
	if svc != nil && !metav1.IsControlledBy(svc, r) {
		return ShapeNotOwned
	}
	switch resources.ShapeOf(svc) {
	case resources.ServiceAbsent:
		return ShapeAbsent
	case resources.ServiceExternalName:
		return ShapeExternalName
	case resources.ServiceClusterIP:
		return ShapeMeshClusterIP
	}
	eps, slices := false, false
	for _, e := range a.Endpoints {
		eps = eps || e.Name == name
	}
	for _, s := range a.Slices {
		slices = slices || (s.Labels[discoveryv1.LabelServiceName] == name && s.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy)
	}
	switch {
	case eps && slices:
		return ShapeHeadlessBoth
	case eps:
		return ShapeHeadlessEndpoints
	case slices:
		return ShapeHeadlessSlices
	}
	return ShapeHeadlessEmpty
}

// nextShape names what MakeAddressing decided, in the same words.
func nextShape(a *resources.Addressing, mode netcfg.RouteAddressMode) string {
	switch a.Shape {
	case resources.ShapeHeadless:
		switch mode {
		case netcfg.RouteAddressModeEndpoints:
			return ShapeHeadlessEndpoints
		case netcfg.RouteAddressModeEndpointSlices:
			return ShapeHeadlessSlices
		default:
			return ShapeHeadlessBoth
		}
	case resources.ShapeHeadlessEmpty:
		return ShapeHeadlessEmpty
	case resources.ShapeExternalName:
		return ShapeExternalName
	case resources.ShapeMesh:
		return ShapeMeshClusterIP
	case resources.ShapeKept:
		return "unchanged (no load balancer)"
	}
	// ExternalName mode: upstream's route reconciler decides.
	switch {
	case a.RouteReconciler.Refusal != "":
		return "unchanged (upstream refuses the load balancer: " + a.RouteReconciler.Refusal + ")"
	case !a.RouteReconciler.Ready:
		return "unchanged (upstream: no load balancer)"
	case a.RouteReconciler.Endpoints:
		return ShapeHeadlessEndpoints + " (upstream)"
	}
	return "ExternalName or ClusterIP (upstream)"
}

// Operation is one planned API request.
type Operation struct {
	Verb   string `json:"verb"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// Mirrored is true for an operation the controller makes only once
	// kube-controller-manager has mirrored the Endpoints it wrote before
	// into an EndpointSlice (plan.Plan's Waiting).
	Mirrored bool `json:"afterMirroring,omitempty"`
}

// Name is one of a Route's cluster-local names in a plan.
type Name struct {
	Service  string   `json:"service"`
	Tag      string   `json:"tag,omitempty"`
	Current  string   `json:"current"`
	Next     string   `json:"next"`
	Warnings []string `json:"warnings,omitempty"`
	// Left says what the controller has left to do before the name has
	// the mode's shape; empty when it has it.
	Left string `json:"left,omitempty"`
}

// RoutePlan is what switching the mode does to one Route.
type RoutePlan struct {
	Namespace string `json:"namespace"`
	Route     string `json:"route"`
	// Mode is the Route's mode: its Namespace's annotation's, or the
	// Report's.
	Mode       netcfg.RouteAddressMode `json:"mode"`
	Names      []Name                  `json:"names"`
	Operations []Operation             `json:"operations"`
	Blocked    []string                `json:"blocked,omitempty"`
	Recreates  []string                `json:"recreates,omitempty"`
	// Waiting are the names whose Endpoints kube-controller-manager has
	// yet to mirror into EndpointSlices before the controller goes on
	// (plan.Plan's Waiting).
	Waiting []string `json:"waitingForMirroring,omitempty"`
	// Held are the names the controller leaves as they are because the
	// Namespace's annotation is not a mode (plan.Plan's Held).
	Held []string `json:"held,omitempty"`
}

// Summary counts a plan.
type Summary struct {
	Routes     int `json:"routes"`
	Operations int `json:"operations"`
	Recreates  int `json:"recreates"`
	Fallbacks  int `json:"externalNameFallbacks"`
	Warnings   int `json:"warnings"`
	// Blocked counts the names held by objects their Routes do not control
	// (NotOwned): the controller leaves them alone.
	Blocked int `json:"blocked"`
}

// Report is the whole plan.
type Report struct {
	Mode                 netcfg.RouteAddressMode     `json:"mode"`
	ExternalNameFallback netcfg.RouteAddressFallback `json:"externalNameFallback"`
	Routes               []RoutePlan                 `json:"routes"`
	// Controller is serving's controller as it runs now; a switch while
	// its Problem is set is blocked.
	Controller ControllerState `json:"controller"`
	// SwitchBlocked says why switching the mode now is not safe.
	SwitchBlocked string `json:"switchBlocked,omitempty"`
	// InvalidNamespaces are the Namespaces in scope whose annotation is
	// not a mode.
	InvalidNamespaces []InvalidNamespace `json:"invalidNamespaces"`
	Summary           Summary            `json:"summary"`
}

// Plan computes what the controller would do if route-address-mode were
// cfg.RouteAddressMode (and the fallback cfg.RouteAddressExternalNameFallback).
func (c Clients) Plan(ctx context.Context, s Scope, cfg *netcfg.Config) (*Report, error) {
	cl, err := c.read(ctx, s)
	if err != nil {
		return nil, err
	}
	rep := &Report{Mode: cfg.RouteAddressMode, ExternalNameFallback: cfg.RouteAddressExternalNameFallback, Routes: []RoutePlan{}}
	if rep.Controller, err = c.controllerState(ctx, s.SystemNamespace, c.now()); err != nil {
		return nil, err
	}
	current, err := netcfg.NewConfigFromMap(cl.netData)
	switching := err != nil || current.RouteAddressMode != cfg.RouteAddressMode
	if switching && rep.Controller.Problem != "" {
		rep.SwitchBlocked = rep.Controller.Problem
	}
	if err := cl.plan(ctx, cfg, rep); err != nil {
		return nil, err
	}
	rep.InvalidNamespaces = cl.invalidNamespaces()
	return rep, nil
}

// plan adds to rep what the controller would do for each Route in cfg's mode.
func (cl *cluster) plan(ctx context.Context, cfg *netcfg.Config, rep *Report) error {
	for _, r := range cl.routes {
		rcfg, held := cl.namespaceConfig(cfg, r.Namespace)
		in, err := cl.routeInput(ctx, r, rcfg)
		if err != nil {
			return err
		}
		in.HoldExisting = held
		p := plan.Make(in)
		rp := RoutePlan{Namespace: r.Namespace, Route: r.Name, Mode: rcfg.RouteAddressMode, Operations: []Operation{}}
		for i := range in.Targets {
			a := &in.Targets[i]
			n := Name{Service: a.Name, Tag: a.Tag, Current: currentShape(r, a.Name, in.Actual), Next: nextShape(a, rcfg.RouteAddressMode)}
			for _, pr := range a.Resolution.Problems {
				n.Warnings = append(n.Warnings, pr.String())
			}
			if a.Shape == resources.ShapeExternalName {
				n.Warnings = append(n.Warnings, "falls back to ExternalName "+a.Service.Spec.ExternalName)
				rep.Summary.Fallbacks++
			}
			n.Warnings = append(n.Warnings, foreign(r.Name, a.Name, in.Actual)...)
			rep.Summary.Warnings += len(n.Warnings)
			rp.Names = append(rp.Names, n)
		}
		rp.Waiting, rp.Held = p.Waiting, p.Held
		before, first := in, p
		opsLeft := map[string]int{}
		for round := 0; ; round++ {
			for i, op := range p.Ops {
				opsLeft[op.Service()]++
				rp.Operations = append(rp.Operations, Operation{Verb: string(op.Verb), Kind: string(op.Kind), Name: op.Name(), Reason: op.Reason, Mirrored: round > 0})
				if op.Kind == plan.KindService && op.Verb == plan.Delete && i+1 < len(p.Ops) &&
					p.Ops[i+1].Verb == plan.Create && p.Ops[i+1].Kind == plan.KindService && p.Ops[i+1].Name() == op.Name() {
					rp.Recreates = append(rp.Recreates, op.Name())
				}
			}
			if len(p.Waiting) == 0 || round == 1 {
				break
			}
			// What follows once kube-controller-manager has mirrored the
			// Endpoints just written.
			after, err := applied(in.Actual, p.Ops)
			if err != nil {
				return fmt.Errorf("Route %s/%s: %w", r.Namespace, r.Name, err)
			}
			in.Actual = mirrored(after)
			p = plan.Make(in)
		}
		for _, b := range p.Blocked {
			rp.Blocked = append(rp.Blocked, fmt.Sprintf("%s %s is not controlled by the Route", b.Kind, b.Name))
		}
		for i := range in.Targets {
			rp.Names[i].Left = left(before, first, &in.Targets[i], opsLeft[in.Targets[i].Name])
		}
		rep.Summary.Routes++
		rep.Summary.Operations += len(rp.Operations)
		rep.Summary.Recreates += len(rp.Recreates)
		rep.Summary.Blocked += len(rp.Blocked)
		rep.Routes = append(rep.Routes, rp)
	}
	return nil
}

// WriteTable prints the report for people.
func (rep *Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Plan for route-address-mode=%s, route-address-externalname-fallback=%s\n", rep.Mode, rep.ExternalNameFallback)
	var own []string
	for _, r := range rep.Routes {
		if ns := r.Namespace + "=" + string(r.Mode); r.Mode != rep.Mode && !slices.Contains(own, ns) {
			own = append(own, ns)
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(tw, "Namespaces with a mode of their own (annotation %s): %s\n", netcfg.RouteAddressModeAnnotationKey, strings.Join(own, ", "))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "NAMESPACE\tROUTE\tSERVICE\tNOW\tTHEN\tWARNINGS")
	for _, r := range rep.Routes {
		for _, n := range r.Names {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Namespace, r.Route, n.Service, n.Current, n.Next, strings.Join(n.Warnings, "; "))
		}
	}
	tw.Flush()
	for _, r := range rep.Routes {
		if len(r.Operations) == 0 && len(r.Blocked) == 0 && len(r.Waiting) == 0 && len(r.Held) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s/%s:\n", r.Namespace, r.Route)
		for i, op := range r.Operations {
			if op.Mirrored && (i == 0 || !r.Operations[i-1].Mirrored) {
				fmt.Fprintln(w, "  once kube-controller-manager has mirrored the Endpoints into EndpointSlices:")
			}
			fmt.Fprintf(w, "  %2d. %-6s %-13s %-30s %s\n", i+1, op.Verb, op.Kind, op.Name, op.Reason)
		}
		if len(r.Waiting) > 0 && !slices.ContainsFunc(r.Operations, func(op Operation) bool { return op.Mirrored }) {
			fmt.Fprintf(w, "  then waits for kube-controller-manager to mirror the Endpoints %s into EndpointSlices\n", strings.Join(r.Waiting, ", "))
		}
		for _, b := range r.Blocked {
			fmt.Fprintf(w, "  NOT OWNED: %s (left alone)\n", b)
		}
		for _, h := range r.Held {
			fmt.Fprintf(w, "  HELD: %s is left as it is: the Namespace's annotation is not a mode\n", h)
		}
		for _, s := range r.Recreates {
			fmt.Fprintf(w, "  note: Service %s is recreated: its name does not resolve for a moment\n", s)
		}
	}
	if !rep.Mode.Managed() {
		fmt.Fprintln(w, "\nIn ExternalName mode upstream's route reconciler reshapes the Services; the operations listed are")
		fmt.Fprintln(w, "route-address's own, and its EndpointSlices are removed only once upstream has taken a Service over.")
	}
	if rep.Controller.Checked {
		fmt.Fprintf(w, "\n%s\n", rep.Controller.describe())
	}
	if rep.SwitchBlocked != "" {
		fmt.Fprintf(w, "\nBLOCKED: switching route-address-mode now is not safe: %s\n", rep.SwitchBlocked)
	}
	if len(rep.InvalidNamespaces) > 0 {
		fmt.Fprintln(w)
		writeInvalid(w, rep.InvalidNamespaces)
	}
	s := rep.Summary
	fmt.Fprintf(w, "\n%d routes, %d operations, %d Service recreates, %d ExternalName fallbacks, %d warnings, %d names held by objects their Routes do not control\n",
		s.Routes, s.Operations, s.Recreates, s.Fallbacks, s.Warnings, s.Blocked)
}

// WriteJSON prints the report for programs.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// Status is the configured mode and each Route's current shape.
type Status struct {
	Mode                 string        `json:"mode"`
	ExternalNameFallback string        `json:"externalNameFallback"`
	ConfigError          string        `json:"configError,omitempty"`
	Routes               []RouteStatus `json:"routes"`
	ExternalNameServices int           `json:"externalNameServicesInCluster"`
	// Controller is serving's controller as it runs now.
	Controller ControllerState `json:"controller"`
	// LeftBehind are the objects of route-address in scope that a rollback
	// to the stock controller would leave behind.
	LeftBehind []string `json:"leftBehindByRollback"`
	// InvalidNamespaces are the Namespaces in scope whose annotation is
	// not a mode.
	InvalidNamespaces []InvalidNamespace `json:"invalidNamespaces"`
}

// RouteStatus is one Route's names and shapes.
type RouteStatus struct {
	Namespace string `json:"namespace"`
	Route     string `json:"route"`
	// Mode is the Route's mode: its Namespace's annotation's, or the
	// configured one (also when the annotation is not a mode).
	Mode   string            `json:"mode"`
	Shapes map[string]string `json:"shapes"`
	// Foreign says what each EndpointSlice another controller manages
	// under the Route's names adds to them.
	Foreign []string `json:"foreignEndpointSlices,omitempty"`
}

// Status reads the configured mode and what each Route looks like now.
func (c Clients) Status(ctx context.Context, s Scope) (*Status, error) {
	cl, err := c.read(ctx, s)
	if err != nil {
		return nil, err
	}
	st := &Status{Routes: []RouteStatus{}, LeftBehind: cl.leftBehind(), InvalidNamespaces: cl.invalidNamespaces()}
	if st.Controller, err = c.controllerState(ctx, s.SystemNamespace, c.now()); err != nil {
		return nil, err
	}
	if st.LeftBehind == nil {
		st.LeftBehind = []string{}
	}
	ra, err := netcfg.NewConfigFromMap(cl.netData)
	if err != nil {
		st.ConfigError = err.Error()
	} else {
		st.Mode, st.ExternalNameFallback = string(ra.RouteAddressMode), string(ra.RouteAddressExternalNameFallback)
	}
	for _, svc := range cl.services {
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			st.ExternalNameServices++
		}
	}
	defaults := &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeExternalName, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled}
	for _, r := range cl.routes {
		in, err := cl.routeInput(ctx, r, defaults)
		if err != nil {
			return nil, err
		}
		rs := RouteStatus{Namespace: r.Namespace, Route: r.Name, Shapes: map[string]string{}}
		if st.ConfigError == "" {
			rcfg, _ := cl.namespaceConfig(ra, r.Namespace)
			rs.Mode = string(rcfg.RouteAddressMode)
		}
		for _, a := range in.Targets {
			rs.Shapes[a.Name] = currentShape(r, a.Name, in.Actual)
			rs.Foreign = append(rs.Foreign, foreign(r.Name, a.Name, in.Actual)...)
		}
		st.Routes = append(st.Routes, rs)
	}
	return st, nil
}

// WriteTable prints the status for people.
func (st *Status) WriteTable(w io.Writer) {
	if st.ConfigError != "" {
		fmt.Fprintf(w, "route-address configuration is invalid: %s\n\n", st.ConfigError)
	} else {
		fmt.Fprintf(w, "route-address-mode=%s route-address-externalname-fallback=%s\n\n", st.Mode, st.ExternalNameFallback)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tROUTE\tMODE\tSERVICE\tSHAPE")
	for _, r := range st.Routes {
		for _, svc := range slices.Sorted(maps.Keys(r.Shapes)) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Namespace, r.Route, r.Mode, svc, r.Shapes[svc])
		}
	}
	tw.Flush()
	for _, r := range st.Routes {
		for _, f := range r.Foreign {
			fmt.Fprintf(w, "FOREIGN: %s/%s: %s\n", r.Namespace, r.Route, f)
		}
	}
	if len(st.InvalidNamespaces) > 0 {
		fmt.Fprintln(w)
		writeInvalid(w, st.InvalidNamespaces)
	}
	fmt.Fprintf(w, "\n%d ExternalName Services in the cluster\n", st.ExternalNameServices)
	fmt.Fprintf(w, "%s\n", st.Controller.describe())
	if st.Controller.Problem != "" {
		fmt.Fprintf(w, "switching route-address-mode now is not safe: %s\n", st.Controller.Problem)
	}
	if len(st.LeftBehind) == 0 {
		fmt.Fprintln(w, "a rollback to the stock controller would leave nothing of route-address's behind")
	} else {
		fmt.Fprintf(w, "a rollback to the stock controller would leave %d objects of route-address's behind (switch to ExternalName and wait until this list is empty first):\n", len(st.LeftBehind))
		for _, o := range st.LeftBehind {
			fmt.Fprintf(w, "  %s\n", o)
		}
		if st.Controller.Checked && st.Controller.RouteAddressLeader == "" {
			fmt.Fprintln(w, "route-address does not run: `kubectl route-address cleanup` removes them")
		}
	}
}

// WriteJSON prints the status for programs.
func (st *Status) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// applied is a after ops, as the apiserver would store them (a Service
// created gets a UID its slices are bound to).
func applied(a plan.Actual, ops []plan.Op) (plan.Actual, error) {
	created := map[string]types.UID{}
	out := plan.Actual{Services: slices.Clone(a.Services), Endpoints: slices.Clone(a.Endpoints), Slices: slices.Clone(a.Slices)}
	for _, op := range ops {
		op, err := plan.BindOwner(op, created)
		if err != nil {
			return out, fmt.Errorf("applying the plan: %w", err)
		}
		switch o := op.Object.(type) {
		case *corev1.Service:
			if op.Verb == plan.Create {
				o = o.DeepCopy()
				o.UID = types.UID("planned-" + o.Name)
				created[o.Name] = o.UID
			}
			out.Services = put(out.Services, o, op.Verb)
		case *corev1.Endpoints:
			out.Endpoints = put(out.Endpoints, o, op.Verb)
		case *discoveryv1.EndpointSlice:
			out.Slices = put(out.Slices, o, op.Verb)
		}
	}
	return out, nil
}

// put replaces, adds or (for Delete) removes o, matched by name.
func put[T metav1.Object](list []T, o T, verb plan.Verb) []T {
	list = slices.DeleteFunc(list, func(x T) bool { return x.GetName() == o.GetName() })
	if verb != plan.Delete {
		list = append(list, o)
	}
	return list
}

// mirrored is a with the slices kube-controller-manager mirrors from its
// Endpoints in place of those it mirrored before.
func mirrored(a plan.Actual) plan.Actual {
	a.Slices = slices.DeleteFunc(a.Slices, func(s *discoveryv1.EndpointSlice) bool {
		return s.Labels[discoveryv1.LabelManagedBy] == names.MirroredBy
	})
	a.Slices = append(a.Slices, plan.Mirrored(a)...)
	return a
}

// left says what keeps the name t from its mode's shape: an object the
// Route does not control, the operations the controller has left for it
// (ops), the mirroring of its Endpoints, or, in ExternalName mode, the
// route reconciler's reshaping of the Service before our slices go; the
// controller's metrics read the same routeaddress.Pending. in and p are
// what exists before those operations and their plan.
func left(in plan.Input, p plan.Plan, t *resources.Addressing, ops int) string {
	if b, ok := routeaddress.BlockedBy(in.Actual, p.Blocked, t.Name); ok {
		return fmt.Sprintf("%s%s %s is not controlled by the Route", blockedPrefix, b.Kind, b.Name)
	}
	if ops > 0 {
		return fmt.Sprintf("%d operations", ops)
	}
	switch routeaddress.Pending(in, p, t) {
	case routeaddress.InvalidModeAnnotation:
		return "held as it is: the Namespace's annotation is not a mode"
	case routeaddress.PendingMirroring:
		return "waits for kube-controller-manager to mirror its Endpoints"
	case routeaddress.PendingRouteReconciler:
		return "waits for the route reconciler to reshape the Service before its EndpointSlices go"
	}
	return ""
}

// foreign says what each slice of a.Foreign under the Service name svc
// adds to it, as the controller's Warning does.
func foreign(route, svc string, a plan.Actual) []string {
	var out []string
	for _, s := range a.Foreign {
		if s.Labels[discoveryv1.LabelServiceName] == svc {
			out = append(out, routeaddress.Foreign(route, s))
		}
	}
	return out
}

// blockedPrefix starts Name.Left for a name an object the Route does not
// control holds.
const blockedPrefix = "blocked: "
