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
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// enableProfiling turns on the profiling server sharedmain runs in the
// controller (config-observability runtime-profiling; PROFILING_PORT is
// set by startController).
func (b *bench) enableProfiling() error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "config-observability", Namespace: cluster.SystemNamespace},
		Data:       map[string]string{"runtime-profiling": "enabled"},
	}
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Create(context.Background(), cm, metav1.CreateOptions{})
	if apierrs.IsAlreadyExists(err) {
		_, err = b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), cm.Name,
			types.MergePatchType, []byte(`{"data":{"runtime-profiling":"enabled"}}`), metav1.PatchOptions{})
	}
	return err
}

// profile starts recording the controller's CPU profile in consecutive
// 5 s pieces, fetched back to back, until the returned func is called; it
// waits for the last piece and writes PROFILES/MODE-LABEL.txt: `go tool
// pprof -top -cum` of every piece recorded under that label so far (with
// -samples, all the samples' resyncs together). Without -profiles it does
// nothing.
func (b *bench) profile(label string) func() error {
	if b.profiles == "" {
		return func() error { return nil }
	}
	base := filepath.Join(b.profiles, fmt.Sprintf("%s-%s", b.mode, label))
	if b.pieces == nil {
		b.pieces = map[string][]string{}
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	bin := b.ctrlBin
	go func() {
		var err error
		for {
			select {
			case <-stop:
				pieces := b.pieces[base]
				if len(pieces) == 0 {
					done <- cmp.Or(err, errors.New("no profile recorded"))
					return
				}
				// The text is made once, after the last piece: running pprof
				// between pieces would leave gaps in what they cover. It
				// covers every sample's pieces so far.
				out, e := exec.Command("go", append([]string{"tool", "pprof", "-top", "-cum", "-nodecount=40", bin}, pieces...)...).CombinedOutput()
				if e != nil {
					err = cmp.Or(err, fmt.Errorf("go tool pprof: %w: %s", e, out))
				} else if e := os.WriteFile(base+".txt", out, 0o644); e != nil {
					err = cmp.Or(err, e)
				}
				done <- err
				return
			default:
			}
			piece := fmt.Sprintf("%s.%03d.pprof", base, len(b.pieces[base]))
			if e := fetch(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=5", profPort), piece); e != nil {
				err = cmp.Or(err, e)
				time.Sleep(time.Second)
				continue
			}
			b.pieces[base] = append(b.pieces[base], piece)
		}
	}()
	return func() error {
		close(stop)
		return <-done
	}
}

// fetch GETs url into file.
func fetch(url, file string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// unreadChange changes a config-network key that nothing parses.
func (b *bench) unreadChange() error {
	b.unread++
	patch := fmt.Sprintf(`{"data":{"bench-unread":"%d"}}`, b.unread)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// patience is how long a wait may last before the run fails: at QPS 50
// creating N=5000 Routes alone takes upstream's route reconciler over ten
// minutes.
func (b *bench) patience() time.Duration {
	return max(15*time.Minute, time.Duration(b.n)*300*time.Millisecond)
}

// cpuIdle waits until the controller used under 5 % of a core over 2 s.
func (b *bench) cpuIdle() error {
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		t0, err := b.cpu()
		if err != nil {
			return err
		}
		time.Sleep(2 * time.Second)
		t1, err := b.cpu()
		if err != nil {
			return err
		}
		if t1.sub(t0).ctrl < 100*time.Millisecond {
			return nil
		}
	}
	return fmt.Errorf("the controller's CPU did not go idle in %v", b.patience())
}

// cpu reads the CPU time (user + system) of the controller, kube-apiserver
// and etcd from /proc.
func (b *bench) cpu() (cpuTimes, error) {
	var t cpuTimes
	for _, p := range []struct {
		pid int
		to  *time.Duration
	}{{b.ctrl.Process.Pid, &t.ctrl}, {b.c.Pid("kube-apiserver"), &t.api}, {b.c.Pid("etcd"), &t.etcd}} {
		d, err := procCPU(p.pid)
		if err != nil {
			return t, err
		}
		*p.to = d
	}
	return t, nil
}

// procCPU returns utime + stime of pid (fields 14 and 15 of
// /proc/PID/stat, in clock ticks of 1/100 s).
func procCPU(pid int) (time.Duration, error) {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'.
	f := strings.Fields(string(s[strings.LastIndexByte(string(s), ')')+1:]))
	var utime, stime int64
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// controllerEnv is -controller-env: more of the controller's environment.
var controllerEnv []string

func (b *bench) startController() error {
	env := append(cluster.Limits(b.qps, b.burst), fmt.Sprintf("PROFILING_PORT=%d", profPort))
	cmd, err := cluster.StartController(b.c, b.ctrlBin, append(env, controllerEnv...)...)
	b.ctrl = cmd
	return err
}

func (b *bench) restart() error {
	cluster.Stop(b.ctrl)
	return b.startController()
}

// quiet waits until the Routes' namespace has seen no write for 3 s: the
// controller is idle (a restart's resync at QPS 50 outlasts a fixed wait).
func (b *bench) quiet() error {
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		if b.allWrites(time.Now().Add(-3*time.Second)) == 0 {
			return nil
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("the controller did not go quiet in %v", b.patience())
}

// globalResync flips config-network's autocreate-cluster-domain-claims, a
// key that both the route reconciler's and routeaddress's stores parse (into
// netcfg.Config) and that nothing a Route's Services depend on reads (only
// DomainMappings, which the bench has none of), which makes both resync
// every Route. A key nothing parses no longer resyncs routeaddress.
func (b *bench) globalResync() error {
	b.resyncs++
	patch := fmt.Sprintf(`{"data":{"autocreate-cluster-domain-claims":"%t"}}`, b.resyncs%2 == 1)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (b *bench) setMode(m netcfg.RouteAddressMode) error {
	patch := fmt.Sprintf(`{"data":{%q:%q}}`, netcfg.RouteAddressModeKey, m)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// moveGateway recreates the gateway Service with ClusterIP ip and returns
// the time until every Route follows and the writes made meanwhile.
func (b *bench) moveGateway(mode netcfg.RouteAddressMode, ip string) (time.Duration, int, error) {
	start := time.Now()
	if err := b.kube.CoreV1().Services(gwNS).Delete(context.Background(), "gateway", metav1.DeleteOptions{}); err != nil {
		return 0, 0, err
	}
	if err := b.gateway(ip); err != nil {
		return 0, 0, err
	}
	if err := b.waitShape(mode, ip); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	time.Sleep(time.Second)
	return d, b.allWrites(start), nil
}

// gateway creates the gateway Service with ClusterIP ip; one an earlier
// run on this -dir left with another ClusterIP (stopped between two
// moves) is made again.
func (b *bench) gateway(ip string) error {
	ctx := context.Background()
	if svc, err := b.kube.CoreV1().Services(gwNS).Get(ctx, "gateway", metav1.GetOptions{}); err == nil {
		if svc.Spec.ClusterIP == ip {
			return nil
		}
		if err := b.kube.CoreV1().Services(gwNS).Delete(ctx, "gateway", metav1.DeleteOptions{}); err != nil {
			return err
		}
	}
	_, err := b.kube.CoreV1().Services(gwNS).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "gateway"},
		Spec: corev1.ServiceSpec{
			ClusterIP: ip,
			Ports:     []corev1.ServicePort{{Name: "http2", Port: 80, TargetPort: intstr.FromInt32(8081)}},
		},
	}, metav1.CreateOptions{})
	return err
}
