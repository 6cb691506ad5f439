"""A repository rule that turns Debian's pkg-config modules into cc_library targets."""

def _words(text):
    # Bazel 4's Starlark split() needs an explicit separator.
    return [w for w in text.replace("\n", " ").split(" ") if w]

def _system_libs_impl(rctx):
    pkg_config = rctx.which("pkg-config")
    if not pkg_config:
        fail("pkg-config is not installed: run tools/install_deps.sh")
    lines = ['package(default_visibility = ["//visibility:public"])']
    for name, entries in rctx.attr.libs.items():
        # Entries starting with "-" are extra linker flags, for libraries Debian ships without a
        # .pc file (e.g. "-lgrpc++_reflection").
        modules = [e for e in entries if not e.startswith("-")]
        extra = [e for e in entries if e.startswith("-")]
        cflags = rctx.execute([pkg_config, "--cflags"] + modules)
        libs = rctx.execute([pkg_config, "--libs"] + modules)
        if cflags.return_code or libs.return_code:
            fail("pkg-config failed for %s (%s): %s%s -- run tools/install_deps.sh" %
                 (name, modules, cflags.stderr, libs.stderr))
        defines = [f[2:] for f in _words(cflags.stdout) if f.startswith("-D")]
        lines.append("cc_library(name = %r, defines = %r, linkopts = %r)" %
                     (name, defines, extra + _words(libs.stdout)))
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD.bazel", "\n".join(lines) + "\n")

system_libs = repository_rule(
    implementation = _system_libs_impl,
    attrs = {"libs": attr.string_list_dict()},
    environ = ["PKG_CONFIG_PATH"],
    configure = True,
    local = True,
)
