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
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"time"
)

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests read: the
// apiserver logs each write once (but to Events and Leases). Dry runs are
// left out: they write nothing.
type AuditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// Took reports whether the apiserver answered the write with a 2xx. A
// refused write (a conflict, an invalid object) did not take effect. A 5xx
// leaves the outcome unknown: when the client dies with a create in flight
// the apiserver logs 504 for it, yet etcd may already have stored the
// object (see Took).
func (e *AuditEvent) Took() bool {
	return e.ResponseStatus.Code >= 200 && e.ResponseStatus.Code < 300
}

// unknown reports whether the apiserver gave up on the write without
// knowing its outcome.
func (e *AuditEvent) unknown() bool { return e.ResponseStatus.Code >= 500 }

// Agent is the program that sent the write: its user agent's first word
// without the version ("controller" of "controller/v0.0.0 (linux/amd64)
// kubernetes/$Format").
func (e *AuditEvent) Agent() string {
	agent, _, _ := strings.Cut(e.UserAgent, " ")
	agent, _, _ = strings.Cut(agent, "/")
	return agent
}

// Took splits writes into those that took effect and those that did not. A
// write whose outcome is unknown (a 5xx) counts as taken when no other
// write of the same verb to the same object took effect: the object as the
// test finds it afterwards shows that one of them did, and only this one
// can have. One the log names no object for (a create cut off, its client
// killed, before the apiserver read its body, which is where the log
// takes a create's name from) stored nothing and does not count.
func Took(writes []AuditEvent) (took, not []AuditEvent) {
	type write struct{ verb, resource, sub, ns, name string }
	key := func(e *AuditEvent) write {
		return write{e.Verb, e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Namespace, e.ObjectRef.Name}
	}
	answered := make(map[write]bool, len(writes))
	for i := range writes {
		if writes[i].Took() {
			answered[key(&writes[i])] = true
		}
	}
	for i, w := range writes {
		if w.Took() || w.unknown() && w.ObjectRef.Name != "" && !answered[key(&writes[i])] {
			took = append(took, w)
		} else {
			not = append(not, w)
		}
	}
	return took, not
}

// AuditWrites returns the logged writes to Services, Endpoints and
// EndpointSlices in the namespaces nss since since, in one pass over the log.
func (c *Cluster) AuditWrites(since time.Time, nss ...string) ([]AuditEvent, error) {
	return c.auditWrites(since, nss, func(e *AuditEvent) bool { return addressResources[e.ObjectRef.Resource] })
}

// AuditAllWrites returns every logged write in the namespaces nss since
// since: to any resource or subresource but Events.
func (c *Cluster) AuditAllWrites(since time.Time, nss ...string) ([]AuditEvent, error) {
	return c.auditWrites(since, nss, func(*AuditEvent) bool { return true })
}

var addressResources = map[string]bool{"services": true, "endpoints": true, "endpointslices": true}

// auditWrites reads the whole log once, however many namespaces it is
// asked about: at 10 000 Routes a pass parses a few hundred MB of JSON.
func (c *Cluster) auditWrites(since time.Time, nss []string, keep func(*AuditEvent) bool) ([]AuditEvent, error) {
	in := make(map[string]bool, len(nss))
	for _, ns := range nss {
		in[ns] = true
	}
	f, err := os.Open(c.AuditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e AuditEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.StageTimestamp.Before(since) || !in[e.ObjectRef.Namespace] || !keep(&e) {
			continue
		}
		if strings.Contains(e.RequestURI, "dryRun=All") {
			// A dry run writes nothing.
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
