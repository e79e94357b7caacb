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
	"k8s.io/apimachinery/pkg/types"

	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// withGeneration returns a context with the test route configuration
// (tag template tmpl, if set) and our configuration of generation gen.
func withGeneration(gen uint64, tmpl string) context.Context {
	rc := RouteConfig()
	if tmpl != "" {
		rc.Network.TagTemplate = tmpl
	}
	ctx := routecfg.ToContext(context.Background(), rc)
	return config.ToContext(ctx, &config.Config{RouteAddress: &config.RouteAddress{}, Generation: gen})
}

func TestPlaceholders(t *testing.T) {
	stored := func() *v1.Route {
		r := Route(true)
		r.ResourceVersion = "7"
		return r
	}
	tags := []string{"", Tag}
	for _, tc := range []struct {
		name string
		// second is the Route, tags and context of the second call; the
		// first call is always stored(), tags, generation 1.
		route  func() *v1.Route
		tags   []string
		ctx    context.Context
		reused bool
	}{{
		name:   "unchanged Route, same generation",
		route:  stored,
		tags:   tags,
		ctx:    withGeneration(1, ""),
		reused: true,
	}, {
		name: "new resourceVersion",
		route: func() *v1.Route {
			r := stored()
			r.ResourceVersion = "8"
			r.Labels["app"] = "bye"
			return r
		},
		tags: tags,
		ctx:  withGeneration(1, ""),
	}, {
		name: "recreated Route",
		route: func() *v1.Route {
			r := stored()
			r.UID = "another"
			return r
		},
		tags: tags,
		ctx:  withGeneration(1, ""),
	}, {
		name:  "configuration changed",
		route: stored,
		tags:  tags,
		ctx:   withGeneration(2, "{{.Tag}}-x-{{.Name}}"),
	}, {
		name:  "other tags",
		route: stored,
		tags:  []string{""},
		ctx:   withGeneration(1, ""),
	}, {
		name: "not read from the API",
		route: func() *v1.Route {
			r := stored()
			r.ResourceVersion = ""
			return r
		},
		tags: tags,
		ctx:  withGeneration(1, ""),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPlaceholders()
			first, err := p.Get(withGeneration(1, ""), stored(), tags)
			if err != nil {
				t.Fatal("Get() =", err)
			}
			r := tc.route()
			got, err := p.Get(tc.ctx, r, tc.tags)
			if err != nil {
				t.Fatal("Get() =", err)
			}
			// Whatever came from where, it is what upstream builds now.
			want := make([]*corev1.Service, len(tc.tags))
			for i, tag := range tc.tags {
				if want[i], err = routeresources.MakeK8sPlaceholderService(tc.ctx, r, tag); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Error("Get() differs from upstream's placeholders (-want +got):", diff)
			}
			if reused := len(got) > 0 && got[0] == first[0]; reused != tc.reused {
				t.Errorf("reused = %v, want %v", reused, tc.reused)
			}
		})
	}
}

func TestPlaceholdersForget(t *testing.T) {
	p := NewPlaceholders()
	r := Route(false)
	r.ResourceVersion = "1"
	if _, err := p.Get(withGeneration(1, ""), r, []string{""}); err != nil {
		t.Fatal("Get() =", err)
	}
	if got := p.Len(); got != 1 {
		t.Fatalf("Len() = %d after one Route, want 1", got)
	}
	p.Forget(types.NamespacedName{Namespace: r.Namespace, Name: r.Name})
	if got := p.Len(); got != 0 {
		t.Errorf("Len() = %d after Forget, want 0", got)
	}
}

func TestPlaceholdersNil(t *testing.T) {
	var p *Placeholders
	r := Route(true)
	r.ResourceVersion = "1"
	ctx := withGeneration(1, "")
	got, err := p.Get(ctx, r, []string{"", Tag})
	if err != nil {
		t.Fatal("Get() =", err)
	}
	if got[0].Name != RouteName || got[1].Name != TagService {
		t.Errorf("names = %q, %q; want %q, %q", got[0].Name, got[1].Name, RouteName, TagService)
	}
}

func TestPlaceholdersError(t *testing.T) {
	rc := RouteConfig()
	rc.Network.DomainTemplate = "{{.Name}}.{{.Namespace}}.{{.Domain}}.-bad-"
	ctx := routecfg.ToContext(context.Background(), rc)
	_, err := NewPlaceholders().Get(ctx, Route(false), []string{""})
	if err == nil {
		t.Fatal("Get() with an invalid domain template = nil error")
	}
	t.Log(err)
}
