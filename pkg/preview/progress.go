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

package preview

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// Progress is how far the Routes in scope are from the shape of the
// configured route-address-mode: a name is done when the controller has
// nothing left to do for it (Name.Left is empty).
type Progress struct {
	Time time.Time               `json:"time"`
	Mode netcfg.RouteAddressMode `json:"mode"`
	// Names counts the Routes' cluster-local names, Done those done.
	Names int `json:"names"`
	Done  int `json:"done"`
	// OperationsLeft counts the writes the controller has left to make.
	OperationsLeft int `json:"operationsLeft"`
	// Blocked counts the names an object the Route does not control
	// holds (NotOwned): the controller leaves them alone, so they are
	// counted apart, not as left to do.
	Blocked int `json:"blocked"`
	// Namespaces is Names and Done per namespace.
	Namespaces []NamespaceProgress `json:"namespaces,omitempty"`
	// Left are the names not done, with what they wait for.
	Left []NameLeft `json:"left,omitempty"`
}

// NamespaceProgress is Progress's count in one namespace.
type NamespaceProgress struct {
	Namespace string `json:"namespace"`
	// Mode is the namespace's: its annotation's, or config-network's.
	Mode  netcfg.RouteAddressMode `json:"mode"`
	Names int                     `json:"names"`
	Done  int                     `json:"done"`
}

// NameLeft is a name that is not done.
type NameLeft struct {
	Namespace string `json:"namespace"`
	Route     string `json:"route"`
	Service   string `json:"service"`
	Left      string `json:"left"`
}

// Progress reads the configured mode and plans it for every Route in scope.
// A value that is not allowed is an error: the controller keeps its last
// good configuration then, which is not written anywhere the plugin can read.
func (c Clients) Progress(ctx context.Context, s Scope) (*Progress, error) {
	cl, err := c.read(ctx, s)
	if err != nil {
		return nil, err
	}
	return c.progress(ctx, s, cl)
}

func (c Clients) progress(ctx context.Context, s Scope, cl *cluster) (*Progress, error) {
	cfg, err := netcfg.NewConfigFromMap(cl.netData)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w (the controller keeps its last good configuration; correct the value)", s.SystemNamespace, netcfg.ConfigMapName, err)
	}
	rep := &Report{Mode: cfg.RouteAddressMode, ExternalNameFallback: cfg.RouteAddressExternalNameFallback, Routes: []RoutePlan{}}
	if err := cl.plan(ctx, cfg, rep); err != nil {
		return nil, err
	}
	p := &Progress{Time: c.now(), Mode: cfg.RouteAddressMode, Namespaces: []NamespaceProgress{}}
	byNS := map[string]*NamespaceProgress{}
	for _, r := range rep.Routes {
		ns := byNS[r.Namespace]
		if ns == nil {
			ns = &NamespaceProgress{Namespace: r.Namespace, Mode: r.Mode}
			byNS[r.Namespace] = ns
		}
		p.OperationsLeft += len(r.Operations)
		for _, n := range r.Names {
			p.Names++
			ns.Names++
			if n.Left == "" {
				p.Done++
				ns.Done++
				continue
			}
			p.Left = append(p.Left, NameLeft{Namespace: r.Namespace, Route: r.Route, Service: n.Service, Left: n.Left})
			if strings.HasPrefix(n.Left, blockedPrefix) {
				p.Blocked++
			}
		}
	}
	for _, ns := range byNS {
		p.Namespaces = append(p.Namespaces, *ns)
	}
	sort.Slice(p.Namespaces, func(i, j int) bool { return p.Namespaces[i].Namespace < p.Namespaces[j].Namespace })
	return p, nil
}

// Converged reports whether the controller has nothing left to do: every
// name is done but those an object the Route does not control holds.
func (p *Progress) Converged() bool { return p.Done+p.Blocked == p.Names }
