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
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

// Placeholders remembers upstream's placeholder Service (name, labels,
// annotations, owner reference, ports) of each of a Route's names between
// reconciles. Building it runs upstream's tag and domain templates and
// validates the domain name, which is most of the CPU a reconcile of an
// unchanged Route would otherwise spend. An entry is used only for the
// same Route object (UID and resourceVersion) under the same configuration
// (config.Config's Generation); anything else builds it afresh.
//
// The Placeholders handed out are shared and must not be modified. A nil
// *Placeholders builds every time.
type Placeholders struct {
	mu      sync.Mutex
	entries map[types.NamespacedName]placeholderEntry
}

type placeholderEntry struct {
	uid             types.UID
	resourceVersion string
	generation      uint64
	tags            []string
	placeholders    []*Placeholder
}

// NewPlaceholders returns an empty cache.
func NewPlaceholders() *Placeholders {
	return &Placeholders{entries: make(map[types.NamespacedName]placeholderEntry)}
}

// Get returns upstream's MakeK8sPlaceholderService for each of tags, in
// order. ctx must carry the route reconciler's configuration, and ours for
// its generation.
func (p *Placeholders) Get(ctx context.Context, r *v1.Route, tags []string) ([]*Placeholder, error) {
	// A Route without a resourceVersion was not read from the API, so it
	// says nothing about whether it changed.
	cacheable := p != nil && r.ResourceVersion != ""
	key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
	var generation uint64
	if c := config.FromContext(ctx); c != nil {
		generation = c.Generation
	}
	if cacheable {
		p.mu.Lock()
		e, ok := p.entries[key]
		p.mu.Unlock()
		if ok && e.uid == r.UID && e.resourceVersion == r.ResourceVersion && e.generation == generation && slices.Equal(e.tags, tags) {
			return e.placeholders, nil
		}
	}

	out := make([]*Placeholder, len(tags))
	for i, tag := range tags {
		s, err := routeresources.MakeK8sPlaceholderService(ctx, r, tag)
		if err != nil {
			return nil, fmt.Errorf("failed to construct placeholder Service for tag %q of Route %s: %w", tag, key, err)
		}
		out[i] = NewPlaceholder(s)
	}
	if cacheable {
		p.mu.Lock()
		p.entries[key] = placeholderEntry{
			uid: r.UID, resourceVersion: r.ResourceVersion, generation: generation,
			tags: slices.Clone(tags), placeholders: out,
		}
		p.mu.Unlock()
	}
	return out, nil
}

// Forget drops what is remembered of the Route key (it was deleted).
func (p *Placeholders) Forget(key types.NamespacedName) {
	p.mu.Lock()
	delete(p.entries, key)
	p.mu.Unlock()
}

// Placeholder is upstream's placeholder Service of one of a Route's names,
// and what MakeAddressing last built from it for a headless Service with
// endpoints. Those objects are a function of the placeholder, the mode and
// the load balancer's addresses and port alone, so they are reused while
// all of these stay the same: a resync of an unchanged Route builds
// nothing. Everything it hands out is shared and must not be modified.
type Placeholder struct {
	// Service is upstream's MakeK8sPlaceholderService.
	Service *corev1.Service
	// headless is the selector-less headless Service with the placeholder's
	// metadata and ports.
	headless *corev1.Service
	last     atomic.Pointer[headlessObjects]
}

// NewPlaceholder wraps upstream's placeholder Service svc.
func NewPlaceholder(svc *corev1.Service) *Placeholder {
	return &Placeholder{Service: svc, headless: headless(svc)}
}

// headlessObjects are the objects of a headless Service with endpoints, and
// the inputs they were built from.
type headlessObjects struct {
	mode  config.Mode
	addrs []netip.Addr
	port  int32

	endpoints *corev1.Endpoints
	slices    []*discoveryv1.EndpointSlice
}

// endpoints returns the Endpoints and EndpointSlices of mode for addrs and
// port: the last ones built when they were built from the same.
func (p *Placeholder) endpoints(mode config.Mode, addrs []netip.Addr, port int32) *headlessObjects {
	if h := p.last.Load(); h != nil && h.mode == mode && h.port == port && slices.Equal(h.addrs, addrs) {
		return h
	}
	h := &headlessObjects{mode: mode, addrs: slices.Clone(addrs), port: port}
	ips := make([]string, len(addrs))
	for i, addr := range addrs {
		ips[i] = addr.String()
	}
	if mode.WritesEndpoints() {
		h.endpoints = makeEndpoints(p.headless, ips, port, mode.WritesEndpointSlices())
	}
	if mode.WritesEndpointSlices() {
		h.slices = makeSlices(p.headless, h.addrs, ips, port)
	}
	p.last.Store(h)
	return h
}
