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
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
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
// The Services handed out are shared and must not be modified. A nil
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
	services        []*corev1.Service
}

// NewPlaceholders returns an empty cache.
func NewPlaceholders() *Placeholders {
	return &Placeholders{entries: make(map[types.NamespacedName]placeholderEntry)}
}

// Get returns upstream's MakeK8sPlaceholderService for each of tags, in
// order. ctx must carry the route reconciler's configuration, and ours for
// its generation.
func (p *Placeholders) Get(ctx context.Context, r *v1.Route, tags []string) ([]*corev1.Service, error) {
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
			return e.services, nil
		}
	}

	out := make([]*corev1.Service, len(tags))
	for i, tag := range tags {
		s, err := routeresources.MakeK8sPlaceholderService(ctx, r, tag)
		if err != nil {
			return nil, fmt.Errorf("failed to construct placeholder Service for tag %q of Route %s: %w", tag, key, err)
		}
		out[i] = s
	}
	if cacheable {
		p.mu.Lock()
		p.entries[key] = placeholderEntry{
			uid: r.UID, resourceVersion: r.ResourceVersion, generation: generation,
			tags: slices.Clone(tags), services: out,
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

// Len is the number of Routes remembered.
func (p *Placeholders) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries)
}
