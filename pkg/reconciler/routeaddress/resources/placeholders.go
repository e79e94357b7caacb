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
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// Placeholders returns the route reconciler's MakeK8sPlaceholderService for
// each of tags, in order. ctx must carry the route reconciler's
// configuration. Like the route reconciler's own, they are built fresh on
// every reconcile (some tens of microseconds per Route): nothing is cached.
func Placeholders(ctx context.Context, r *v1.Route, tags []string) ([]*Placeholder, error) {
	out := make([]*Placeholder, len(tags))
	for i, tag := range tags {
		s, err := routeresources.MakeK8sPlaceholderService(ctx, r, tag)
		if err != nil {
			return nil, fmt.Errorf("failed to construct placeholder Service for tag %q of Route %s/%s: %w", tag, r.Namespace, r.Name, err)
		}
		out[i] = NewPlaceholder(tag, s)
	}
	return out, nil
}

// Placeholder is the route reconciler's placeholder Service of one of a Route's names,
// with the headless Service MakeAddressing derives from it.
type Placeholder struct {
	// Tag is the traffic tag, "" for the Route's own name.
	Tag string
	// Service is the route reconciler's MakeK8sPlaceholderService.
	Service *corev1.Service
	// headless is the selector-less headless Service with the placeholder's
	// metadata and ports.
	headless *corev1.Service
}

// NewPlaceholder wraps the route reconciler's placeholder Service svc of
// the traffic tag tag.
func NewPlaceholder(tag string, svc *corev1.Service) *Placeholder {
	return &Placeholder{Tag: tag, Service: svc, headless: headless(svc)}
}

// headlessObjects are the endpoints of a headless Service.
type headlessObjects struct {
	endpoints *corev1.Endpoints
	slices    []*discoveryv1.EndpointSlice
}

// endpoints returns the Endpoints and EndpointSlices of mode for addrs and
// port.
func (p *Placeholder) endpoints(mode netcfg.RouteAddressMode, addrs []netip.Addr, port int32) *headlessObjects {
	h := &headlessObjects{}
	ips := make([]string, len(addrs))
	for i, addr := range addrs {
		ips[i] = addr.String()
	}
	if mode.WritesEndpoints() {
		h.endpoints = makeEndpoints(p.headless, ips, port, mode.WritesEndpointSlices())
	}
	if mode.WritesEndpointSlices() {
		h.slices = makeSlices(p.headless, addrs, ips, port)
	}
	return h
}
