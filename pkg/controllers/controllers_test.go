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

package controllers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"knative.dev/pkg/injection"
)

func names(ctors []injection.ControllerConstructor) []string {
	out := make([]string, len(ctors))
	for i, c := range ctors {
		out[i] = runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name()
	}
	return out
}

// servingCtors reads the ctors list of knative.dev/serving's
// cmd/controller/main.go, at the version go.mod pins, as fully qualified
// function names.
func servingCtors(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "knative.dev/serving").Output()
	if err != nil {
		t.Fatal("go list knative.dev/serving:", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "cmd", "controller", "main.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	var ctors []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "ctors" {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			sel := e.(*ast.SelectorExpr)
			ctors = append(ctors, imports[sel.X.(*ast.Ident).Name]+"."+sel.Sel.Name)
		}
		return false
	})
	if len(ctors) == 0 {
		t.Fatal("no ctors found in", path)
	}
	return ctors
}

func TestConstructorsAreServingsPlusOurs(t *testing.T) {
	var want []string
	for _, c := range servingCtors(t) {
		if c == "knative.dev/serving/pkg/reconciler/route.NewController" {
			c = "knative.dev/route-address/pkg/controllers.NewFencedRouteController"
		}
		want = append(want, c)
	}
	want = append(want, "knative.dev/route-address/pkg/reconciler/routeaddress.NewController")
	if diff := cmp.Diff(want, names(Constructors())); diff != "" {
		t.Error("Constructors() (-want +got):", diff)
	}
}

func TestRouteFacingIsASubset(t *testing.T) {
	all := map[string]bool{}
	for _, n := range names(Constructors()) {
		all[n] = true
	}
	for _, n := range names(RouteFacing()) {
		if !all[n] {
			t.Errorf("RouteFacing has %s, which the binary does not run", n)
		}
	}
}

// TestMainKeepsTheCertManagerBranch: cmd/controller appends serving's
// certificate controller when net-certmanager is required, as upstream's
// main does.
func TestMainKeepsTheCertManagerBranch(t *testing.T) {
	b, err := os.ReadFile("../../cmd/controller/main.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"IsNetCertManagerControllerRequired", "certificate.NewController", "controllers.Constructors()", "controllers.WithInformerSelectors"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("cmd/controller/main.go lacks %s", s)
		}
	}
}
