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
	clientgotesting "k8s.io/client-go/testing"

	. "knative.dev/pkg/reconciler/testing"
)

// TableTest compares each verb's actions on its own; these helpers check
// what a row claims across verbs, from the fake client's full sequence.

// writes renders the row's writes of objects in the order they were sent,
// as "verb resource name" (a dry run is marked).
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
