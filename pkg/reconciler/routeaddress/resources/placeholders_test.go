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
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
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
			if diff := cmp.Diff(want, services(got)); diff != "" {
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
	if got := len(p.entries); got != 1 {
		t.Fatalf("entries = %d after one Route, want 1", got)
	}
	p.Forget(types.NamespacedName{Namespace: r.Namespace, Name: r.Name})
	if got := len(p.entries); got != 0 {
		t.Errorf("entries = %d after Forget, want 0", got)
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
	if got[0].Service.Name != RouteName || got[1].Service.Name != TagService {
		t.Errorf("names = %q, %q; want %q, %q", got[0].Service.Name, got[1].Service.Name, RouteName, TagService)
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

func services(ps []*Placeholder) []*corev1.Service {
	out := make([]*corev1.Service, len(ps))
	for i, p := range ps {
		out[i] = p.Service
	}
	return out
}

// TestPlaceholderReusesHeadlessObjects: MakeAddressing builds a headless
// name's objects again only when the mode, the addresses or the port
// change, and what it reuses is what it would build.
func TestPlaceholderReusesHeadlessObjects(t *testing.T) {
	ctx := WithRouteConfig(context.Background())
	route := Route(true)
	ph := placeholder(t, ctx, route, Tag)
	eas := config.RouteAddress{Mode: config.ModeEndpointsAndSlices, ExternalNameFallback: config.FallbackEnabled}
	es := config.RouteAddress{Mode: config.ModeEndpointSlices, ExternalNameFallback: config.FallbackEnabled}
	build := func(ph *Placeholder, cfg config.RouteAddress, ips ...string) *Addressing {
		t.Helper()
		var entries []netv1alpha1.LoadBalancerIngressStatus
		for _, ip := range ips {
			entries = append(entries, IP(ip))
		}
		a, err := MakeAddressing(ctx, route, Tag, ph, Ingress(route, entries...), false, &cfg, NewResolver(ServiceLister()))
		if err != nil {
			t.Fatal("MakeAddressing() =", err)
		}
		return a
	}
	first := build(ph, eas, "10.0.0.1", "fd00::1")
	for _, step := range []struct {
		name   string
		cfg    config.RouteAddress
		ips    []string
		reused bool
	}{
		{"same inputs", eas, []string{"fd00::1", "10.0.0.1"}, true},
		{"another address", eas, []string{"10.0.0.2", "fd00::1"}, false},
		{"back to the first addresses", eas, []string{"10.0.0.1", "fd00::1"}, false},
		{"same again", eas, []string{"10.0.0.1", "fd00::1"}, true},
		{"another mode", es, []string{"10.0.0.1", "fd00::1"}, false},
	} {
		got := build(ph, step.cfg, step.ips...)
		fresh := build(placeholder(t, ctx, route, Tag), step.cfg, step.ips...)
		if diff := cmp.Diff(fresh, got, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
			t.Errorf("%s: objects differ from freshly built ones (-fresh +got): %s", step.name, diff)
		}
		if reused := len(got.Slices) > 0 && len(first.Slices) > 0 && got.Slices[0] == first.Slices[0]; reused != step.reused {
			t.Errorf("%s: reused = %v, want %v", step.name, reused, step.reused)
		}
		if got.Service != ph.headless {
			t.Errorf("%s: Service is not the placeholder's headless Service", step.name)
		}
		first = got
	}
}
