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
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestPlaceholders: the route reconciler's placeholder Service for each tag, in order,
// under the configured tag template.
func TestPlaceholders(t *testing.T) {
	for _, tmpl := range []string{"", "{{.Tag}}-x-{{.Name}}"} {
		rc := RouteConfig()
		if tmpl != "" {
			rc.Network.TagTemplate = tmpl
		}
		ctx := routecfg.ToContext(context.Background(), rc)
		r := Route(true)
		tags := []string{"", Tag}
		got, err := Placeholders(ctx, r, tags)
		if err != nil {
			t.Fatal("Placeholders() =", err)
		}
		want := make([]*corev1.Service, len(tags))
		for i, tag := range tags {
			if want[i], err = routeresources.MakeK8sPlaceholderService(ctx, r, tag); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(want, services(got)); diff != "" {
			t.Errorf("tag template %q: Placeholders() differs from the route reconciler's (-want +got): %s", tmpl, diff)
		}
	}
}

func TestPlaceholdersError(t *testing.T) {
	rc := RouteConfig()
	rc.Network.DomainTemplate = "{{.Name}}.{{.Namespace}}.{{.Domain}}.-bad-"
	ctx := routecfg.ToContext(context.Background(), rc)
	_, err := Placeholders(ctx, Route(false), []string{""})
	if err == nil {
		t.Fatal("Placeholders() with an invalid domain template = nil error")
	}
	t.Log(err)
}

func services(ps []*Placeholder) []*corev1.Service {
	out := make([]*corev1.Service, len(ps))
	for i, p := range ps {
		out[i] = p.Service
	}
	return out
}
