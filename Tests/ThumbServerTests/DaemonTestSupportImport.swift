// Every suite here drives the in-process daemon (`TestDaemon`, `Reply`, `Images`) or a `thumbd serve`
// child (`ServeProcess`): the support library is visible in all of this target's files from this one
// import, rather than from a line at the top of each.
@_exported import DaemonTestSupport
