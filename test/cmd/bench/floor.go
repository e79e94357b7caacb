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
	"cmp"
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// floor times k Service creates from one client with the controller's
// limits, one after another. It runs right after the
// phase it is the floor of, so that both see the same machine: the time
// per write on these shared machines drifts by half within one run.
func (b *bench) floor(k int) (time.Duration, error) {
	k = max(k, 1)
	if floorCap > 0 && k > floorCap {
		d, err := b.floor(floorCap)
		return d * time.Duration(k) / time.Duration(floorCap), err
	}
	cfg := rest.CopyConfig(b.c.Config)
	cfg.QPS, cfg.Burst = float32(b.qps), b.burst
	kc := kubernetes.NewForConfigOrDie(cfg)
	b.floors++
	start := time.Now()
	for i := range k {
		if err := b.floorService(kc, i); err != nil {
			return 0, err
		}
	}
	d := time.Since(start)
	log.Printf("floor for %d writes: %v", k, d)
	// Leave nothing behind for the controller's caches and the memory row.
	return d, parallel(k, func(i int) error {
		return b.kube.CoreV1().Services("floor").Delete(context.Background(), fmt.Sprintf("f%d-%d", b.floors, i), metav1.DeleteOptions{})
	})
}

// floorService creates the i-th headless Service of the current floor.
func (b *bench) floorService(kc kubernetes.Interface, i int) error {
	_, err := kc.CoreV1().Services("floor").Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("f%d-%d", b.floors, i)},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Ports:     []corev1.ServicePort{{Name: "http2", Port: 80}},
		},
	}, metav1.CreateOptions{})
	return err
}

// floorUnthrottled times k Service creates from 8 parallel clients without
// a client rate limit and returns the time per write: how fast this
// apiserver and etcd take writes on this machine.
func (b *bench) floorUnthrottled(k int) (time.Duration, error) {
	cfg := rest.CopyConfig(b.c.Config)
	cfg.QPS, cfg.Burst = -1, 0
	b.floors++
	clients := make([]kubernetes.Interface, 8)
	for i := range clients {
		clients[i] = kubernetes.NewForConfigOrDie(cfg)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < k; i += len(clients) {
				if err := b.floorService(clients[w], i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	if first != nil {
		return 0, first
	}
	log.Printf("unthrottled floor for %d writes: %v", k, d)
	return d / time.Duration(k), parallel(k, func(i int) error {
		return b.kube.CoreV1().Services("floor").Delete(context.Background(), fmt.Sprintf("f%d-%d", b.floors, i), metav1.DeleteOptions{})
	})
}

func (b *bench) unrelatedSlices(u int) error {
	return parallel(u, func(i int) error {
		_, err := b.kube.DiscoveryV1().EndpointSlices("noise").Create(context.Background(), &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("noise-%d", i), Labels: map[string]string{
				discoveryv1.LabelServiceName: fmt.Sprintf("svc-%d", i%500),
				discoveryv1.LabelManagedBy:   "some-other-controller.example.com",
			}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{fmt.Sprintf("198.18.%d.%d", 10+i/250, 1+i%250)}}},
		}, metav1.CreateOptions{})
		if apierrs.IsAlreadyExists(err) {
			// Made by an earlier run on this -dir.
			return nil
		}
		return err
	})
}

// peakRSSAfterRestart restarts the controller, lets it resync, and reads
// its peak resident set (VmHWM) in KiB.
func (b *bench) peakRSSAfterRestart(n int) (int, error) {
	if err := b.restart(); err != nil {
		return 0, err
	}
	time.Sleep(resyncWait(n))
	if err := b.quiet(); err != nil {
		return 0, err
	}
	return b.peakRSS()
}

// peakRSS reads the controller's peak resident set (VmHWM) in KiB.
func (b *bench) peakRSS() (int, error) {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.ctrl.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(s), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM")
}
