// expect: accepted
// The host's own tool wraps the client: that is how a host hands out network access.
status.fetch()
