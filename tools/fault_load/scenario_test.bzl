"""fault_load_scenario_test: one sh_test per fault-and-load scenario, all through scenario_test.sh."""

def fault_load_scenario_test(name, ending, server_flags, load_flags, size = "medium"):
    """A CPU server on a free loopback port, fault_load against it, then the server's ending.

    Args:
      name: the test's name.
      ending: sigterm_after_load, sigterm_during_load or left_running (see scenario_test.sh).
      server_flags: ssimd_server flags beyond --backend=cpu --workers=2.
      load_flags: fault_load flags beyond the target, the server's pid and the report's path.
      size: the test's size.
    """
    native.sh_test(
        name = name,
        size = size,
        srcs = ["scenario_test.sh"],
        args = [
            "$(location //server:ssimd_server)",
            "$(location :fault_load)",
            ending,
        ] + server_flags + ["--"] + load_flags,
        data = [
            "server_harness.sh",
            ":fault_load",
            "//server:ssimd_server",
        ],
        tags = ["cpu:2"],
    )
