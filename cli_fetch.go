package main

import "github.com/spf13/pflag"

// httpFlags are the persistent flags that configure the HTTP client.
// The fetch package's owner fills this in; commands get a client from it.
type httpFlags struct{}

func (f *httpFlags) register(fs *pflag.FlagSet) {}
