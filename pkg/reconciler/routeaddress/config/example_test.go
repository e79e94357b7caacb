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

package config

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// TestConfigExample keeps config/300-config-network.yaml true: it sets no
// live key (applying it changes no configuration), and its _example
// documents our keys with values that parse to the defaults and names
// every mode.
func TestConfigExample(t *testing.T) {
	b, err := os.ReadFile("../../../../config/300-config-network.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	example, ok := cm.Data["_example"]
	if len(cm.Data) != 1 || !ok {
		t.Fatalf("data keys = %v, want _example alone", slices.Sorted(maps.Keys(cm.Data)))
	}
	// The example's uncommented lines are "key: value" of the defaults.
	documented := map[string]string{}
	for _, line := range strings.Split(example, "\n") {
		for _, key := range []string{netcfg.RouteAddressModeKey, netcfg.RouteAddressExternalNameFallbackKey} {
			if v, ok := strings.CutPrefix(line, key+": "); ok {
				documented[key] = strings.Trim(v, `"`)
			}
		}
	}
	if len(documented) != 2 {
		t.Fatalf("_example gives %v, want %s and %s", documented, netcfg.RouteAddressModeKey, netcfg.RouteAddressExternalNameFallbackKey)
	}
	got, err := netcfg.NewConfigFromMap(documented)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&defaults, got); diff != "" {
		t.Error("_example is not the defaults (-want +got):", diff)
	}
	for _, m := range netcfg.RouteAddressModes {
		if !strings.Contains(example, `"`+string(m)+`"`) {
			t.Errorf("_example does not document mode %s", m)
		}
	}
}
