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

// dnsq asks a DNS server what a name resolves to, the way a client in the
// cluster would see it: the CNAME it follows, if any, and the addresses.
//
//	dnsq -server 127.0.0.1:PORT NAME...
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"knative.dev/route-address/test/dns"
)

func main() {
	server := flag.String("server", "", "DNS server address (host:port)")
	flag.Parse()
	if *server == "" || flag.NArg() == 0 {
		log.Fatal("usage: dnsq -server HOST:PORT NAME...")
	}
	r := dns.New(*server)
	failed := false
	for _, name := range flag.Args() {
		a, err := r.Lookup(name)
		if err != nil {
			fmt.Printf("%-45s %v\n", name, err)
			failed = true
			continue
		}
		fmt.Printf("%-45s %s\n", name, a)
	}
	if failed {
		os.Exit(1)
	}
}
