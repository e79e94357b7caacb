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

package cluster

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Image builds the Go main package pkg, statically linked, into an image
// holding only that program (as /app, its entrypoint, the way ko builds on
// an empty base), pushes it to the node's registry as image and returns the
// reference pods use, by digest. dir, when set, is the module to build in
// (serving's tree); the working directory's otherwise.
func (n *Node) Image(ctx context.Context, image, pkg string, dir ...string) (string, error) {
	bin := filepath.Join(n.dir, "images", image)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, pkg)
	if len(dir) > 0 {
		cmd.Dir = dir[0]
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w: %s", pkg, err, out)
	}
	return n.ImageOf(ctx, image, bin)
}

// ImageOf is Image for a program already built, statically linked: bin.
func (n *Node) ImageOf(ctx context.Context, image, bin string) (string, error) {
	prog, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	if err := tw.WriteHeader(&tar.Header{Name: "app", Mode: 0o755, Size: int64(len(prog)), Typeflag: tar.TypeReg}); err != nil {
		return "", err
	}
	if _, err := tw.Write(prog); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layer.Bytes())), nil })
	if err != nil {
		return "", err
	}
	return n.push(ctx, image, v1.Config{Entrypoint: []string{"/app"}}, l)
}

// Base pushes the base image ko builds serving's images on, as image: no
// files, and the user 65532 (serving's Deployments run as non-root, as
// its own base's user is).
func (n *Node) Base(ctx context.Context, image string) (string, error) {
	return n.push(ctx, image, v1.Config{User: "65532"})
}

// push writes an image of config and layers for linux/amd64 to the
// registry as image and returns its reference by digest.
func (n *Node) push(ctx context.Context, image string, config v1.Config, layers ...v1.Layer) (string, error) {
	base, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{Architecture: "amd64", OS: "linux", Config: config})
	if err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(base, layers...)
	if err != nil {
		return "", err
	}
	ref, err := name.ParseReference(n.Registry+"/"+image, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s/%s@%s", n.Registry, image, d), nil
}
