"""Repository rule: a C/C++ library from Debian packages, per target platform.

./bazelw installs the host's packages (APT_PACKAGES) and unpacks the arm64 ones into
$PTEFORGE_DOWNLOADS/debian-arm64 (ARM64_PACKAGES), which `files` names as
"{downloads}/debian-arm64/...". This rule links only the files a build needs into the
repository, never a whole system folder, so a cross build cannot pick up a host header
by accident, and adds a BUILD overlay that chooses the files for the platform being
built.

Android (the NDK route, docs/android.md) has no Debian package. When `source_env` names
a source tree of the library, its files are linked under source/ (with the headers
`source_files` writes, e.g. a configured config.h) and `source_overlay` builds them as
`from_source`. Without it, `from_source` is incompatible with every platform, and the
constraint that says so names the variable to set. The rule is re-evaluated when the
variable changes.
"""

load("//third_party:downloads.bzl", "DOWNLOADS_ENV")

def _link_debian_files(rctx):
    downloads = rctx.os.environ.get(DOWNLOADS_ENV, "")
    files = {name: path.replace("{downloads}", downloads) for name, path in rctx.attr.files.items()}
    missing = [path for path in files.values() if not rctx.path(path).exists]
    if missing:
        fail(("%s: %s missing. Run Bazel through ./bazelw, which installs or unpacks Debian's %s " +
              "(docs/setup.md).") %
             (rctx.name, " and ".join(missing) + (" is" if len(missing) == 1 else " are"), rctx.attr.packages))
    for name, path in files.items():
        rctx.symlink(path, name)

def _link_source_tree(rctx, given):
    tree = rctx.path(given)
    missing = [path for path in rctx.attr.source_required if not rctx.path(str(tree) + "/" + path).exists]
    if missing:
        fail(("%s=%s is not a source tree of %s: it lacks %s. Point it at an unpacked release " +
              "(%s), or unset it.") % (rctx.attr.source_env, given, rctx.name, ", ".join(missing),
                                       rctx.attr.source_release))

    # File by file, so that source/ can also hold the headers written below.
    folder = rctx.path(str(tree) + "/" + rctx.attr.source_folder) if rctx.attr.source_folder else tree
    for entry in folder.readdir():
        if entry.basename.endswith(".c") or entry.basename.endswith(".h"):
            rctx.symlink(entry, "source/" + entry.basename)
    for name, content in rctx.attr.source_files.items():
        rctx.file("source/" + name, content)

def _debian_library_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    _link_debian_files(rctx)
    build = rctx.read(rctx.attr.overlay)
    if rctx.attr.source_env:
        given = rctx.os.environ.get(rctx.attr.source_env, "")
        if given:
            _link_source_tree(rctx, given)
            build += "\n" + rctx.read(rctx.attr.source_overlay)
        else:
            build += ("\n# %s is not set: no source tree to build for Android.\n" % rctx.attr.source_env +
                      'cc_library(name = "from_source", target_compatible_with = ["%s"])\n' %
                      rctx.attr.missing_source_constraint)
    rctx.file("BUILD.bazel", build)

_ATTRS = {
    "files": attr.string_dict(
        mandatory = True,
        doc = "path in the repository -> installed file or folder ({downloads}: $PTEFORGE_DOWNLOADS)",
    ),
    "packages": attr.string(mandatory = True, doc = "the Debian packages that install `files`"),
    "overlay": attr.label(mandatory = True, doc = "the BUILD file of the repository"),
    "source_env": attr.string(doc = "the variable naming a source tree, for Android"),
    "source_folder": attr.string(doc = "the tree's folder with the .c and .h files"),
    "source_required": attr.string_list(doc = "files that prove the tree is the library's"),
    "source_release": attr.string(doc = "the release to point source_env at, for messages"),
    "source_files": attr.string_dict(doc = "headers written beside the sources: name -> content"),
    "source_overlay": attr.label(doc = "BUILD text appended when there is a tree: `from_source`"),
    "missing_source_constraint": attr.string(doc = "the constraint of `from_source` without a tree"),
}

debian_library = repository_rule(
    implementation = _debian_library_impl,
    attrs = _ATTRS,
    # Where ./bazelw unpacked the arm64 packages, and the Android source trees.
    environ = [DOWNLOADS_ENV, "PTEFORGE_ONIGURUMA_SRC", "PTEFORGE_UTF8PROC_SRC"],
    local = True,
)
