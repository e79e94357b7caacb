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

package cluster

import (
	"fmt"
	"testing"
)

func write(verb, name string, code int) AuditEvent {
	var e AuditEvent
	e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name = verb, "endpointslices", "ns", name
	e.ResponseStatus.Code = code
	return e
}

func TestTook(t *testing.T) {
	for _, tc := range []struct {
		name      string
		writes    []AuditEvent
		took, not int
	}{{
		name:   "answered",
		writes: []AuditEvent{write("create", "a", 201), write("update", "a", 200)},
		took:   2,
	}, {
		name:   "refused",
		writes: []AuditEvent{write("create", "a", 409), write("update", "a", 422)},
		not:    2,
	}, {
		name:   "client died, no other create of the name: etcd stored it",
		writes: []AuditEvent{write("create", "a", 504), write("create", "a", 409)},
		took:   1, not: 1,
	}, {
		name:   "client died, another create of the name took effect",
		writes: []AuditEvent{write("create", "a", 504), write("create", "a", 201)},
		took:   1, not: 1,
	}, {
		name:   "client died, another name's create took effect",
		writes: []AuditEvent{write("create", "a", 504), write("create", "b", 201)},
		took:   2,
	}, {
		name:   "client died before its create's body was read: no name, nothing stored",
		writes: []AuditEvent{write("create", "", 500), write("create", "b", 201)},
		took:   1, not: 1,
	}, {
		name:   "client died, an update of the name took effect",
		writes: []AuditEvent{write("create", "a", 504), write("update", "a", 200)},
		took:   2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			took, not := Took(tc.writes)
			if len(took) != tc.took || len(not) != tc.not {
				t.Errorf("Took = %s, %s; want %d taken, %d not", codes(took), codes(not), tc.took, tc.not)
			}
		})
	}
}

func codes(ws []AuditEvent) string {
	s := "["
	for _, w := range ws {
		s += fmt.Sprintf(" %s %s %d", w.Verb, w.ObjectRef.Name, w.ResponseStatus.Code)
	}
	return s + " ]"
}
