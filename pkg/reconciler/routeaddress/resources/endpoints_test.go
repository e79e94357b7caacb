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

package resources

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMakeEndpointsOverCapacity: an Endpoints holds at most 1 000
// addresses, the first ones, and says so beyond that.
func TestMakeEndpointsOverCapacity(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hello", Annotations: map[string]string{"team": "blue"}}}
	ips := make([]string, 1001)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.4.%d.%d", i/250, i%250+1)
	}
	for _, tc := range []struct {
		n          int
		annotation string
	}{{999, ""}, {1000, ""}, {1001, "truncated"}} {
		ep := makeEndpoints(svc, ips[:tc.n], 80, false)
		got := ep.Subsets[0].Addresses
		if want := min(tc.n, 1000); len(got) != want || got[0].IP != ips[0] || got[len(got)-1].IP != ips[want-1] {
			t.Errorf("%d addresses: the Endpoints hold %d (%s … %s), want the first %d", tc.n, len(got), got[0].IP, got[len(got)-1].IP, want)
		}
		if a := ep.Annotations[corev1.EndpointsOverCapacity]; a != tc.annotation {
			t.Errorf("%d addresses: annotated over-capacity %q, want %q", tc.n, a, tc.annotation)
		}
		if ep.Annotations["team"] != "blue" {
			t.Errorf("%d addresses: the Service's annotations are lost: %v", tc.n, ep.Annotations)
		}
	}
}
