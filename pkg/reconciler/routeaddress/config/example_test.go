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
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// TestConfigExample keeps config/config-network-patch.yaml true: its keys are
// ours, its values parse, and they are the defaults.
func TestConfigExample(t *testing.T) {
	b, err := os.ReadFile("../../../../config/config-network-patch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var patch struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(b, &patch); err != nil {
		t.Fatal(err)
	}
	if len(patch.Data) != 2 || patch.Data[netcfg.RouteAddressModeKey] == "" || patch.Data[netcfg.RouteAddressExternalNameFallbackKey] == "" {
		t.Fatalf("data = %v, want exactly %s and %s", patch.Data, netcfg.RouteAddressModeKey, netcfg.RouteAddressExternalNameFallbackKey)
	}
	got, err := netcfg.NewConfigFromMap(patch.Data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&defaults, got); diff != "" {
		t.Error("example is not the defaults (-want +got):", diff)
	}
	for _, m := range netcfg.RouteAddressModes {
		if !strings.Contains(string(b), string(m)) {
			t.Errorf("example does not document mode %s", m)
		}
	}
}
