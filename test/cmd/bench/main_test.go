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
	"slices"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in          []int
		mid, lo, hi int
	}{
		{[]int{7}, 7, 7, 7},
		{[]int{3, 1, 2}, 2, 1, 3},
		// An even number: the lower of the two middle ones.
		{[]int{40, 10, 30, 20}, 20, 10, 40},
		{[]int{5, 5, 1, 9, 5}, 5, 1, 9},
	} {
		in := append([]int(nil), tc.in...)
		mid, lo, hi := median(tc.in)
		if mid != tc.mid || lo != tc.lo || hi != tc.hi {
			t.Errorf("median(%v) = %d, %d, %d, want %d, %d, %d", in, mid, lo, hi, tc.mid, tc.lo, tc.hi)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("median reordered its input: %v, was %v", tc.in, in)
		}
	}
}

func TestCells(t *testing.T) {
	ms := time.Millisecond
	one := altResult{name: "x", samples: []resyncSample{{lateIdle: 100 * ms, lateResync: 250 * ms, lateBusy: 200 * ms, dur: 3200 * ms}}}
	if got, want := lateCell(one), "100 ms → 250 ms (2.50×, 0 writes)"; got != want {
		t.Errorf("lateCell(one sample) = %q, want %q", got, want)
	}
	if got, want := busyCell(one), "200 ms (2.00× idle)"; got != want {
		t.Errorf("busyCell(one sample) = %q, want %q", got, want)
	}
	three := altResult{name: "x", samples: []resyncSample{
		{lateIdle: 120 * ms, lateResync: 300 * ms, alloc: 3 << 20, gcs: 2, memOK: true},
		{lateIdle: 100 * ms, lateResync: 900 * ms, alloc: 1 << 20, gcs: 1, memOK: true},
		{lateIdle: 110 * ms, lateResync: 500 * ms, alloc: 2 << 20, gcs: 3, memOK: true},
	}}
	if got, want := lateCell(three), "110 ms → 500 ms (4.55×, 0 writes); medians of 3: idle 100–120 ms, during 300–900 ms"; got != want {
		t.Errorf("lateCell(three samples) = %q, want %q", got, want)
	}
	if got, want := allocCell(three, 1024), "2.0 KiB (1.0–3.0); 1–3 GCs"; got != want {
		t.Errorf("allocCell = %q, want %q", got, want)
	}
	three.samples[1].memOK = false
	if got, want := allocCell(three, 1024), "n/a (no profiling server)"; got != want {
		t.Errorf("allocCell without totals = %q, want %q", got, want)
	}
}

func TestParseRows(t *testing.T) {
	rows, err := parseRows("steady, memory")
	if err != nil {
		t.Fatal(err)
	}
	if !rows[rowSteady] || !rows[rowMemory] || len(rows) != 2 {
		t.Errorf("parseRows(steady, memory) = %v", rows)
	}
	if _, err := parseRows("steady,memroy"); err == nil {
		t.Error(`parseRows("steady,memroy") = nil error, want one naming the rows`)
	}
}
