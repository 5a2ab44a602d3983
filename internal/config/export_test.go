package config

// HostPattern exposes the remote.allow expression to the schema test.
var HostPattern = hostPattern
