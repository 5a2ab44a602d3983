package config

// HostPattern exposes the remote.allow expression to the schema test.
var HostPattern = hostPattern

// Severities exposes the values of rules.<id>.severity to the schema test.
var Severities = severities
