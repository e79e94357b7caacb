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

package plan

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// MaxEndpointsPerSlice is the most addresses one of our EndpointSlices
// holds: the EndpointSlice controller's default (kube-controller-manager's
// --max-endpoints-per-slice), a tenth of what the apiserver accepts. A load
// balancer of n addresses of one family takes ceil(n/100) slices.
const MaxEndpointsPerSlice = 100

// split spreads the endpoints of each desired slice (one per address
// family, holding every address of that family) over slices of at most
// MaxEndpointsPerSlice endpoints, as the EndpointSlice controller does, so
// that a change of a few addresses rewrites a few slices: an address stays
// in the live slice that holds it, a new one goes to the first slice with
// room, and a slice is added only when every one is full. A family takes
// ceil(n/MaxEndpointsPerSlice) slices: when it has more, the fullest stay
// and the others' addresses move into them. A slice is named after the
// desired slice: its name, or that name with "-1", "-2", … appended (a
// new one takes the lowest free). New slices come before live ones, so
// that an address moving between slices is never in neither. live are our
// slices of the Service.
func split(want, live []*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, 0, len(want))
	for _, w := range want {
		out = append(out, splitFamily(w, live)...)
	}
	return out
}

// slot is one of the slices a family is split over: its index in the names
// ("{name}" is 0, "{name}-k" is k) and the indexes of the desired
// endpoints it holds.
type slot struct {
	index   int
	members []int
	live    bool
}

func splitFamily(want *discoveryv1.EndpointSlice, live []*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	n := len(want.Endpoints)
	var slots []*slot
	for _, s := range live {
		if k, ok := slotIndex(want.Name, s.Name); ok {
			slots = append(slots, &slot{index: k, live: true})
		}
	}
	if n <= MaxEndpointsPerSlice && !slices.ContainsFunc(slots, func(s *slot) bool { return s.index > 0 }) {
		// One slice holds them all, under the desired name.
		return []*discoveryv1.EndpointSlice{want}
	}
	slices.SortFunc(slots, func(a, b *slot) int { return cmp.Compare(a.index, b.index) })

	// Every address stays where it is, up to a slice's capacity.
	at := make(map[string]int, n)
	for i := range want.Endpoints {
		for _, a := range want.Endpoints[i].Addresses {
			at[a] = i
		}
	}
	placed := make([]bool, n)
	for _, sl := range slots {
		s := live[slices.IndexFunc(live, func(s *discoveryv1.EndpointSlice) bool { return s.Name == sliceName(want.Name, sl.index) })]
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				if i, ok := at[a]; ok && !placed[i] && len(sl.members) < MaxEndpointsPerSlice {
					placed[i] = true
					sl.members = append(sl.members, i)
				}
			}
		}
	}

	// No more slices than the addresses need: the fullest stay (the
	// first ones of equal fill), the others' addresses are placed anew.
	keep := min(len(slots), (n+MaxEndpointsPerSlice-1)/MaxEndpointsPerSlice)
	slices.SortStableFunc(slots, func(a, b *slot) int { return cmp.Compare(len(b.members), len(a.members)) })
	for _, sl := range slots[keep:] {
		for _, i := range sl.members {
			placed[i] = false
		}
	}
	slots = slots[:keep]
	slices.SortFunc(slots, func(a, b *slot) int { return cmp.Compare(a.index, b.index) })

	// The rest fill the slices with room, in order, then new ones under
	// the lowest free names.
	next := 0
	for i := range n {
		if placed[i] {
			continue
		}
		for next < len(slots) && len(slots[next].members) >= MaxEndpointsPerSlice {
			next++
		}
		if next == len(slots) {
			slots = append(slots, &slot{index: freeIndex(slots)})
		}
		slots[next].members = append(slots[next].members, i)
	}

	// New slices first: addresses that move out of a live slice are in
	// their new one before they leave the old one.
	slices.SortFunc(slots, func(a, b *slot) int {
		return cmp.Or(cmp.Compare(boolRank(a.live), boolRank(b.live)), cmp.Compare(a.index, b.index))
	})
	out := make([]*discoveryv1.EndpointSlice, 0, len(slots))
	for _, sl := range slots {
		if len(sl.members) == 0 {
			continue
		}
		slices.Sort(sl.members)
		s := *want
		s.Name = sliceName(want.Name, sl.index)
		s.Endpoints = make([]discoveryv1.Endpoint, len(sl.members))
		for j, i := range sl.members {
			s.Endpoints[j] = want.Endpoints[i]
		}
		out = append(out, &s)
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sliceName is the name of the slice of index k of a family whose first
// slice is named base.
func sliceName(base string, k int) string {
	if k == 0 {
		return base
	}
	return base + "-" + strconv.Itoa(k)
}

// slotIndex parses name as sliceName(base, k).
func slotIndex(base, name string) (int, bool) {
	if name == base {
		return 0, true
	}
	rest, ok := strings.CutPrefix(name, base+"-")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 1 || sliceName(base, k) != name {
		return 0, false
	}
	return k, true
}

// freeIndex is the lowest index no slot has.
func freeIndex(slots []*slot) int {
	for k := 0; ; k++ {
		if !slices.ContainsFunc(slots, func(s *slot) bool { return s.index == k }) {
			return k
		}
	}
}
