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

// Package dns resolves names against one DNS server (the local cluster's
// CoreDNS) and reports what a client observes: the CNAME, if any, and the
// A/AAAA addresses.
package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"
)

// Resolver asks one server.
type Resolver struct {
	r *net.Resolver
}

// New returns a Resolver that sends every query to server (host:port).
func New(server string) *Resolver {
	return &Resolver{r: &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			d := net.Dialer{Timeout: time.Second}
			return d.DialContext(ctx, network, server)
		},
	}}
}

// Answer is what a name resolved to.
type Answer struct {
	// CNAME is the canonical name when it differs from the name asked.
	CNAME string
	// Addresses are the A and AAAA answers (after the CNAME), sorted.
	Addresses []string
}

func (a Answer) String() string {
	s := ""
	if a.CNAME != "" {
		s = "CNAME " + a.CNAME + " "
	}
	if len(a.Addresses) == 0 {
		return s + "(no addresses)"
	}
	return s + "A/AAAA " + strings.Join(a.Addresses, ",")
}

// ErrNotFound is returned for NXDOMAIN (and for a name with no records).
var ErrNotFound = errors.New("NXDOMAIN")

// Lookup resolves name (a trailing dot is added).
func (r *Resolver) Lookup(name string) (Answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	fqdn := strings.TrimSuffix(name, ".") + "."
	var a Answer
	cname, err := r.r.LookupCNAME(ctx, fqdn)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return a, ErrNotFound
		}
		return a, fmt.Errorf("lookup %s: %w", name, err)
	}
	if cname != fqdn {
		a.CNAME = strings.TrimSuffix(cname, ".")
	}
	addrs, err := r.r.LookupHost(ctx, fqdn)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound && a.CNAME != "" {
			return a, nil
		}
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return a, ErrNotFound
		}
		return a, fmt.Errorf("lookup %s: %w", name, err)
	}
	sort.Strings(addrs)
	a.Addresses = addrs
	return a, nil
}
