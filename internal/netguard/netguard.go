// Package netguard says which IP addresses the bot may dial when it fetches what a pull
// request names (remote kustomize resources, Helm charts): public unicast only, checked after
// DNS so that neither a name resolving to an internal address nor a rebinding answer
// reaches one.
package netguard

import "net/netip"

// special are ranges netip's predicates do not name that reach no public host (IANA
// IPv4/IPv6 Special-Purpose Address Registries): "this network", shared address space
// (CGNAT, where some clouds serve metadata, e.g. 100.100.100.200), IETF protocol
// assignments, benchmarking, reserved, and NAT64, which can embed a private IPv4.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// Internal names the kind of a non-public address ("loopback", "private", "link-local",
// "multicast", "unspecified", "special-purpose", "invalid"), "" for a public one. Metadata
// services sit in link-local 169.254.169.254 and private fd00:ec2::254 (fc00::/7). An
// IPv4-mapped IPv6 address is judged as its IPv4 address.
func Internal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range special {
		if p.Contains(a) {
			return "special-purpose"
		}
	}
	return ""
}
