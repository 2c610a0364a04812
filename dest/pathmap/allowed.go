package pathmap

// Allowed reports whether uri may be copied under these options, as Map
// decides it: an http or https URI whose authority is the Source's, or any
// host's with AllowOtherHosts, or one that a map rule matches. A sync holds
// the redirects of a resource's fetch to it, so that a listed resource
// cannot bring in another host's answer.
func (m *Mapper) Allowed(uri string) bool {
	p, err := parse(uri)
	if err != nil {
		return false
	}
	if m.allowOther || m.auth[p.authority] {
		return true
	}
	nu := p.normalized()
	for _, r := range m.rules {
		if _, ok := matchPrefix(nu, r.Prefix); ok {
			return true
		}
	}
	return false
}

// SameAuthority reports whether two URIs have the same normalised
// authority (host and port, the scheme's default port dropped).
func SameAuthority(a, b string) bool {
	pa, err := parse(a)
	if err != nil {
		return false
	}
	pb, err := parse(b)
	return err == nil && pa.authority == pb.authority
}
