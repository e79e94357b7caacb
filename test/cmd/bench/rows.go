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

package main

import (
	"fmt"
	"slices"
	"strings"
)

// The rows bench measures, each a phase of a column's run; -rows picks
// some. Their order is the order they run in.
const (
	// rowCreate: N Routes created until every name has its shape, with the
	// floor of that many writes; the controller's RSS before any Route.
	rowCreate = "create"
	// rowSteady: the writes of one forced resync of every reconciler.
	rowSteady = "steady"
	// rowResync: a global resync (a config-network change) with its CPU,
	// duration and allocations, a new Route during it and its control, a
	// change of a key nothing parses, and the -alt binaries'.
	rowResync = "resync"
	// rowSwitch: the mode switched to ExternalName and back.
	rowSwitch = "switch"
	// rowFollow: every Route follows a new gateway ClusterIP, idle and
	// right after a global resync began.
	rowFollow = "follow"
	// rowMemory: the controller's peak RSS after a restart, without and
	// with unrelated EndpointSlices.
	rowMemory = "memory"
	// rowWatch: what each -plugins binary's status --watch -A costs the
	// apiserver over a minute (its own table).
	rowWatch = "watch"
	// rowHA: in a managed mode, the switch from ExternalName with one
	// replica and with three under leader election with four buckets, and
	// a failover mid-switch (its own table).
	rowHA = "ha"
)

var allRows = []string{rowCreate, rowSteady, rowResync, rowSwitch, rowFollow, rowMemory, rowWatch, rowHA}

// rowSet is the rows to measure.
type rowSet map[string]bool

// parseRows parses -rows: names from allRows, comma-separated.
func parseRows(list string) (rowSet, error) {
	rows := rowSet{}
	for _, r := range strings.Split(list, ",") {
		r = strings.TrimSpace(r)
		if !slices.Contains(allRows, r) {
			return nil, fmt.Errorf("-rows: %q is not a row; the rows are %s", r, strings.Join(allRows, ","))
		}
		rows[r] = true
	}
	return rows, nil
}
