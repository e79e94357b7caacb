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

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// The -o values, as kubectl spells them; the empty one is the table for
// people.
const (
	outputTable = ""
	outputJSON  = "json"
	outputYAML  = "yaml"
	outputName  = "name"
)

// checkOutput refuses an -o value the command cannot print, in kubectl's
// words.
func checkOutput(format string, allowed ...string) error {
	if format == outputTable || slices.Contains(allowed, format) {
		return nil
	}
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", format, strings.Join(allowed, ","))
}

// report is what a command prints: table for people, the value itself for
// -o json and -o yaml (its JSON field names), and for -o name the objects
// it is about, one "resource/name" per line, as kubectl get -o name prints
// them.
type report struct {
	value any
	table func(io.Writer)
	names func() []string
}

func (r report) print(w io.Writer, format string) error {
	switch format {
	case outputJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.value)
	case outputYAML:
		b, err := yaml.Marshal(r.value)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case outputName:
		for _, n := range r.names() {
			if _, err := fmt.Fprintln(w, n); err != nil {
				return err
			}
		}
		return nil
	}
	r.table(w)
	return nil
}

// routeName is a Route as kubectl get -o name prints it.
func routeName(name string) string { return "route.serving.knative.dev/" + name }
