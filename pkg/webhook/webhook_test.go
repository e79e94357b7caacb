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

package webhook

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"knative.dev/pkg/injection"
)

// source is a parsed Go file whose package selectors can be rendered with
// their import paths, so that two files that alias imports differently
// compare equal.
type source struct {
	file    *ast.File
	imports map[string]string
}

func parse(t *testing.T, path string) *source {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := &source{file: f, imports: map[string]string{}}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		s.imports[name] = p
	}
	return s
}

// render prints e with every package name replaced by its import path.
func (s *source) render(e ast.Expr) string {
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if p, ok := s.imports[id.Name]; ok {
					id.Name = p
				}
			}
		}
		return true
	})
	var b bytes.Buffer
	_ = printer.Fprint(&b, token.NewFileSet(), e)
	return b.String()
}

// entries renders the key/value pairs of the first composite literal of
// type typ ("map[...]..." or "configmap.Constructors") under the
// declaration named decl, sorted.
func (s *source) entries(t *testing.T, decl, typ string) []string {
	t.Helper()
	var out []string
	var inDecl func(n ast.Node) bool
	found := false
	inDecl = func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || found {
			return !found
		}
		var b bytes.Buffer
		_ = printer.Fprint(&b, token.NewFileSet(), cl.Type)
		if !strings.HasSuffix(b.String(), typ) {
			return true
		}
		found = true
		for _, e := range cl.Elts {
			kv := e.(*ast.KeyValueExpr)
			out = append(out, s.render(kv.Key)+": "+s.render(kv.Value))
		}
		return false
	}
	for _, d := range s.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == decl {
				ast.Inspect(d, inDecl)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && vs.Names[0].Name == decl {
					ast.Inspect(vs, inDecl)
				}
			}
		}
	}
	if !found {
		t.Fatalf("no %s literal in %s", typ, decl)
	}
	slices.Sort(out)
	return out
}

func servingWebhookMain(t *testing.T) *source {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "knative.dev/serving").Output()
	if err != nil {
		t.Fatal("go list knative.dev/serving:", err)
	}
	return parse(t, filepath.Join(strings.TrimSpace(string(out)), "cmd", "webhook", "main.go"))
}

// TestParityWithServing: what this package wires is serving v0.50.0's
// cmd/webhook, read from the module cache, but for config-network's
// validation.
func TestParityWithServing(t *testing.T) {
	serving, ours := servingWebhookMain(t), parse(t, "webhook.go")

	if diff := cmp.Diff(serving.entries(t, "types", "GenericCRD"), ours.entries(t, "Types", "GenericCRD")); diff != "" {
		t.Error("Types differ from serving's types (-serving +ours):", diff)
	}

	want := serving.entries(t, "newConfigValidationController", "Constructors")
	for i, e := range want {
		if strings.HasPrefix(e, "knative.dev/networking/pkg/config.ConfigMapName: ") {
			want[i] = "knative.dev/networking/pkg/config.ConfigMapName: NewNetworkConfigFromConfigMap"
		}
	}
	if diff := cmp.Diff(want, ours.entries(t, "ConfigConstructors", "Constructors")); diff != "" {
		t.Error("ConfigConstructors differ from serving's (-serving +ours):", diff)
	}

	// serving's callbacks name package-level vars (serviceValidation, ...):
	// the kinds must match, and ours call serving's Validate{Kind}.
	var keys []string
	for _, e := range serving.entries(t, "callbacks", "validation.Callback") {
		k, _, _ := strings.Cut(e, ": ")
		keys = append(keys, k)
	}
	var ourKeys []string
	for _, e := range ours.entries(t, "Callbacks", "validation.Callback") {
		k, v, _ := strings.Cut(e, ": ")
		ourKeys = append(ourKeys, k)
		kind := k[strings.Index(k, `"`)+1 : strings.LastIndex(k, `"`)]
		if !strings.Contains(v, "knative.dev/serving/pkg/webhook.Validate"+kind) {
			t.Errorf("callback for %s is %s, want serving's Validate%s", kind, v, kind)
		}
	}
	if diff := cmp.Diff(keys, ourKeys); diff != "" {
		t.Error("Callbacks' kinds differ from serving's (-serving +ours):", diff)
	}
}

// TestConstructorsAreServings: the webhook runs serving's controllers in
// serving's order.
func TestConstructorsAreServings(t *testing.T) {
	serving := servingWebhookMain(t)
	var want []string
	ast.Inspect(serving.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "WebhookMainWithContext" {
			return true
		}
		for _, a := range call.Args[2:] {
			name := serving.render(a)
			// serving's own constructors are ours, exported.
			if !strings.Contains(name, ".") {
				name = "knative.dev/route-address/pkg/webhook.N" + strings.TrimPrefix(name, "n")
			}
			want = append(want, name)
		}
		return false
	})
	var got []string
	for _, c := range Constructors() {
		got = append(got, funcName(c))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error("Constructors() (-serving +ours):", diff)
	}
}

func funcName(c injection.ControllerConstructor) string {
	return runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name()
}
