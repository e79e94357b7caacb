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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	clientgotesting "k8s.io/client-go/testing"
	"knative.dev/pkg/controller"

	. "knative.dev/pkg/reconciler/testing"
)

// TableTest compares each verb's actions on its own; these helpers check
// what a row claims across verbs, from the fake client's full sequence.

const actionsKey = "actions"

// recording is f with the row's ActionRecorderList kept for its
// PostConditions, and every row checked by checkEndpointPorts.
func recording(f Factory) Factory {
	return func(t *testing.T, r *TableRow) (controller.Reconciler, ActionRecorderList, EventList) {
		c, actions, events := f(t, r)
		if r.OtherTestData == nil {
			r.OtherTestData = map[string]interface{}{}
		}
		r.OtherTestData[actionsKey] = actions
		r.PostConditions = append(r.PostConditions, checkEndpointPorts)
		return c, actions, events
	}
}

// writes renders the row's writes in the order they were sent, as
// "verb resource name" (a dry run is marked).
func writes(r *TableRow) []string {
	var out []string
	for _, rec := range r.OtherTestData[actionsKey].(ActionRecorderList) {
		for _, a := range rec.Actions() {
			switch a := a.(type) {
			case clientgotesting.CreateActionImpl:
				name := a.GetObject().(interface{ GetName() string }).GetName()
				verb := "create"
				if len(a.CreateOptions.DryRun) > 0 {
					verb = "create (dry run)"
				}
				out = append(out, fmt.Sprintf("%s %s %s", verb, a.GetResource().Resource, name))
			case clientgotesting.UpdateActionImpl:
				out = append(out, fmt.Sprintf("update %s %s", a.GetResource().Resource, a.GetObject().(interface{ GetName() string }).GetName()))
			case clientgotesting.DeleteActionImpl:
				out = append(out, fmt.Sprintf("delete %s %s", a.GetResource().Resource, a.Name))
			}
		}
	}
	return out
}

// inOrder is a PostCondition: the row's writes are exactly these, in this
// order.
func inOrder(want ...string) func(*testing.T, *TableRow) {
	return func(t *testing.T, r *TableRow) {
		t.Helper()
		if diff := cmp.Diff(want, writes(r)); diff != "" {
			t.Error("writes in order (-want +got):", diff)
		}
	}
}

// checkEndpointPorts: every Endpoints and EndpointSlice written serves
// port 80 named http2 with appProtocol kubernetes.io/h2c, the gateway's
// port in every fixture (written out, not computed).
func checkEndpointPorts(t *testing.T, r *TableRow) {
	t.Helper()
	for _, rec := range r.OtherTestData[actionsKey].(ActionRecorderList) {
		for _, a := range rec.Actions() {
			var obj interface{}
			switch a := a.(type) {
			case clientgotesting.CreateActionImpl:
				obj = a.GetObject()
			case clientgotesting.UpdateActionImpl:
				obj = a.GetObject()
			}
			switch o := obj.(type) {
			case *corev1.Endpoints:
				for _, ss := range o.Subsets {
					if len(ss.Ports) != 1 || ss.Ports[0].Port != 80 || ss.Ports[0].Name != "http2" || ss.Ports[0].AppProtocol == nil || *ss.Ports[0].AppProtocol != "kubernetes.io/h2c" {
						t.Errorf("Endpoints %s ports = %+v, want one port 80 named http2 (kubernetes.io/h2c)", o.Name, ss.Ports)
					}
				}
			case *discoveryv1.EndpointSlice:
				if len(o.Ports) != 1 || o.Ports[0].Port == nil || *o.Ports[0].Port != 80 || o.Ports[0].Name == nil || *o.Ports[0].Name != "http2" ||
					o.Ports[0].AppProtocol == nil || *o.Ports[0].AppProtocol != "kubernetes.io/h2c" {
					t.Errorf("EndpointSlice %s ports = %+v, want one port 80 named http2 (kubernetes.io/h2c)", o.Name, o.Ports)
				}
			}
		}
	}
}
