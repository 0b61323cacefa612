"""The SDK a CMake app or a firmware Makefile links, outside Bazel (docs/sdk.md).

    sdk_component(
        name = "vad",                        # pteforge::vad, lib/libpteforge_vad.a
        deps = ["//cc/vad"],                 # what it offers (headers and code)
        requires = [":runtime"],             # components it builds on
    )

    pteforge_sdk(
        name = "sdk_aarch64",                # bazel-bin/deploy/sdk_aarch64.tar
        target = "aarch64",                  # built for it through a transition
        components = ["//deploy/sdk:runtime", "//deploy/sdk:vad", ...],
        programs = ["//models:stateful_pte"],  # copied in, with their reports
    )

An sdk_component is a static archive merged from the libraries of its deps (their
CcInfo's linker inputs) minus those of the components it requires, so that every
object of the SDK is in exactly one archive; libraries linked whole in Bazel
(alwayslink: kernel registrations, the platform layer) go to a second archive,
lib/libpteforge_<name>_whole.a, that the CMake package and pkg-config link with
--whole-archive. Shared libraries (the executorch wheel's) are copied as they are.
Headers keep the paths they are included by (`cc/runtime/session.h`,
`executorch/runtime/...`). Bazel 4.2.3 has no cc_static_library (Bazel 7 has one, which
would replace the merging here); archives are merged with the toolchain's `ar -M`.

pteforge_sdk packs the components, the programs, the CMake package, the pkg-config
files and sdk.json (version, the ExecuTorch runtime and commit, the build flags, the
kernels kept) into one .tar (deploy/sdk/make_sdk.py).
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("//bazel:on_target_test.bzl", "target_transition_attrs", "to_named_target")
load("@android_ndk//:defs.bzl", "ANDROID_NDK", "MISSING_ANDROID_NDK")

# Must equal python/pyproject.toml's version (//tests/sdk checks it).
PTEFORGE_VERSION = "0.1.0"

SdkComponentInfo = provider(
    doc = "One component of the SDK (pteforge::<name>), built for the SDK's target.",
    fields = {
        "name": "the component's name",
        "requires": "the names of the components it builds on (directly)",
        "archive": "File: its merged static archive, or None",
        "whole_archive": "File: its archive of always-linked objects, or None",
        "shared_libraries": "list of File, copied into lib/ as they are",
        "link_flags": "list of flags its code needs at link time (-lpthread, --wrap=...)",
        "defines": "list of preprocessor definitions consumers compile with",
        "headers": "list of (File, path under include/)",
        "include_dirs": "list of folders under include/ consumers search (\"\" is include/ itself)",
        "libraries": "depset of the paths of every library in it and in what it requires",
        "own_libraries": "list of the paths of the libraries in its own archives",
        "flags": "struct(compiler, compile, link): the toolchain's compiler and flags",
        "link_options": "flags for the link's start (e.g. -Wl,--no-as-needed)",
    },
)

def _include_root(path, dirs):
    """The shortest of `dirs` (exec paths) that `path` lies under, or None."""
    best = None
    for folder in dirs:
        if folder == ".":
            # The workspace root: only the workspace's own source files.
            if path.startswith("external/") or path.startswith("bazel-out/"):
                continue
            candidate = ""
        elif path.startswith(folder + "/"):
            candidate = folder
        else:
            continue
        if best == None or len(candidate) < len(best):
            best = candidate
    return best

def _relative(path, root):
    return path if root == "" else path[len(root) + 1:]

def _virtual_repository(path):
    """"R" for a header Bazel links into external/R/_virtual_includes (include_prefix)."""
    if "/_virtual_includes/" not in path or "/external/" not in path:
        return None
    return path.split("/external/", 1)[1].split("/", 1)[0]

def _headers(compilation_context):
    """(headers as (File, path under include/), folders under include/ to search)."""
    # -I and -isystem folders first: an external repository's root is also an -iquote
    # folder, under which its headers would keep a prefix they are not included by.
    search = compilation_context.includes.to_list() + compilation_context.system_includes.to_list()
    quote = compilation_context.quote_includes.to_list()
    all_headers = compilation_context.headers.to_list()

    # A library with include_prefix has its headers twice: where they are, and linked
    # under _virtual_includes, the place they are included from. Only the links count.
    virtual = {}
    for header in all_headers:
        repository = _virtual_repository(header.path)
        if repository:
            virtual[repository] = True
    headers = []
    for header in all_headers:
        if header.path.startswith("external/") and header.path.split("/")[1] in virtual:
            continue
        root = _include_root(header.path, search)
        if root == None:
            root = _include_root(header.path, quote)
        if root == None:
            fail("cannot tell how %s is included (no include folder holds it)" % header.path)
        headers.append((header, _relative(header.path, root)))

    # Every search folder's place under include/: its headers went under the outermost
    # search folder holding them, so a folder nested in another (ExecuTorch's c10 inside
    # its include root) is searched at its place inside the outer one's.
    folders = [""]
    for folder in search:
        root = _include_root(folder + "/x", search)
        relative = _relative(folder, root) if root != folder else ""
        if relative not in folders:
            folders.append(relative)
    return headers, folders

def _toolchain_flags(ctx, cc_toolchain):
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compile_variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts,
    )
    link_variables = cc_common.create_link_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_link_flags = ctx.fragments.cpp.linkopts,
    )
    return struct(
        compiler = cc_toolchain.compiler_executable,
        compile = cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = ACTION_NAMES.cpp_compile,
            variables = compile_variables,
        ),
        link = cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = ACTION_NAMES.cpp_link_executable,
            variables = link_variables,
        ),
    )

def _merge(ctx, cc_toolchain, name, archives):
    """One archive of `archives`' members (ar -M: an MRI script)."""
    if not archives:
        return None
    out = ctx.actions.declare_file("%s/lib/%s.a" % (ctx.label.name, name))
    script = ctx.actions.declare_file("%s/%s.mri" % (ctx.label.name, name))
    ctx.actions.write(script, "\n".join(
        ["CREATE " + out.path] + ["ADDLIB " + archive.path for archive in archives] + ["SAVE", "END", ""],
    ))
    ctx.actions.run_shell(
        command = '"$1" -M < "$2"',
        arguments = [cc_toolchain.ar_executable, script.path],
        inputs = archives + [script],
        outputs = [out],
        tools = cc_toolchain.all_files,
        mnemonic = "SdkArchive",
        progress_message = "Merging the archive %s of %s" % (out.basename, ctx.label),
    )
    return out

def _sdk_component_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    required = [target[SdkComponentInfo] for target in ctx.attr.requires]
    below = {}
    for component in required:
        for path in component.libraries.to_list():
            below[path] = True
    below_flags = {}
    for component in required:
        for flag in component.link_flags:
            below_flags[flag] = True

    cc_info = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    archives, whole, shared, flags = [], [], [], []
    for linker_input in cc_info.linking_context.linker_inputs.to_list():
        for flag in linker_input.user_link_flags:
            if flag not in below_flags and flag not in flags:
                flags.append(flag)
        for library in linker_input.libraries:
            archive = library.pic_static_library or library.static_library
            if archive:
                if archive.path in below or archive in archives or archive in whole:
                    continue
                (whole if library.alwayslink else archives).append(archive)
            elif library.dynamic_library:
                real = library.resolved_symlink_dynamic_library or library.dynamic_library
                if real.path not in below and real not in shared:
                    shared.append(real)
    own = [file.path for file in archives + whole + shared]

    headers, folders = _headers(cc_info.compilation_context)
    below_headers = {}
    for component in required:
        for _, path in component.headers:
            below_headers[path] = True
    info = SdkComponentInfo(
        name = ctx.attr.component or ctx.label.name,
        requires = [component.name for component in required],
        archive = _merge(ctx, cc_toolchain, "libpteforge_" + (ctx.attr.component or ctx.label.name), archives),
        whole_archive = _merge(ctx, cc_toolchain, "libpteforge_%s_whole" % (ctx.attr.component or ctx.label.name), whole),
        shared_libraries = shared,
        link_flags = flags,
        defines = cc_info.compilation_context.defines.to_list(),
        headers = [(file, path) for file, path in headers if path not in below_headers],
        include_dirs = folders,
        libraries = depset(own, transitive = [component.libraries for component in required]),
        own_libraries = own,
        flags = _toolchain_flags(ctx, cc_toolchain),
        link_options = ctx.attr.link_options,
    )
    outputs = [file for file in [info.archive, info.whole_archive] if file]
    return [info, DefaultInfo(files = depset(outputs))]

sdk_component = rule(
    implementation = _sdk_component_impl,
    doc = "A static archive of `deps` minus what `requires` holds, with its headers and flags.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], mandatory = True),
        "requires": attr.label_list(providers = [SdkComponentInfo]),
        "component": attr.string(doc = "its name (default: the target's)"),
        "link_options": attr.string_list(doc = "flags a program linking it must pass before any library"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def _requires_closure(components):
    closure = {}
    for component in components:
        closure[component.name] = {name: True for name in component.requires}
    # Components arrive in dependency order (a component after what it requires).
    for component in components:
        for name in component.requires:
            closure[component.name].update(closure.get(name, {}))
    return closure

def _check_disjoint(components):
    """Two components that do not build on each other must not hold the same library:
    an app linking both would get its objects twice."""
    closure = _requires_closure(components)
    owner = {}
    for component in components:
        for path in component.own_libraries:
            other = owner.get(path)
            if other and other not in closure[component.name] and component.name not in closure[other]:
                fail(("%s is in both SDK components %s and %s: move it into a component both " +
                      "require (sdk_component(requires = ...))") % (path, other, component.name))
            owner[path] = component.name

def _pteforge_sdk_impl(ctx):
    components = [target[SdkComponentInfo] for target in ctx.attr.components]
    seen = {}
    for component in components:
        for name in component.requires:
            if name not in seen:
                fail("%s: list component %s before %s, which requires it" % (ctx.label, name, component.name))
        seen[component.name] = True
    _check_disjoint(components)

    out = ctx.actions.declare_file(ctx.label.name + ".tar")
    description = ctx.actions.declare_file(ctx.label.name + ".components.json")
    args = ctx.actions.args()
    placed = []  # (File, its path in the SDK)
    for component in components:
        for file in [component.archive, component.whole_archive]:
            if file:
                placed.append((file, "lib/" + file.basename))
        for file in component.shared_libraries:
            placed.append((file, "lib/" + file.basename))
        placed += [(file, "include/" + path) for file, path in component.headers]
    for program in ctx.attr.programs:
        ptes = [file for file in program[DefaultInfo].files.to_list() if file.extension == "pte"]
        if len(ptes) != 1:
            fail("%s: %s must give one .pte file" % (ctx.label, program.label))
        placed.append((ptes[0], "share/pteforge/programs/" + ptes[0].basename))
        groups = program[OutputGroupInfo] if OutputGroupInfo in program else None
        if groups and hasattr(groups, "report"):
            report = groups.report.to_list()[0]
            placed.append((report, "share/pteforge/programs/" + report.basename))
    for target, destination in ctx.attr.files.items():
        placed += [(file, destination.replace("{name}", file.basename)) for file in target.files.to_list()]
    placed += [(file, "share/pteforge/" + file.basename) for file in ctx.files.kernel_reports]
    inputs = [file for file, _ in placed]
    args.add_all(["%s=%s" % (file.path, destination) for file, destination in placed], before_each = "--file")
    for file in ctx.files.executorch_info:
        args.add("--executorch_info", file)
        inputs.append(file)
    for file in ctx.files._templates:
        args.add("--template", file)
        inputs.append(file)

    # What make_sdk.py writes the CMake package, pkg-config files and sdk.json from.
    ctx.actions.write(description, json.encode(struct(
        target = ctx.attr.target,
        triplet = ctx.attr.triplet,
        version = PTEFORGE_VERSION,
        components = [struct(
            name = component.name,
            requires = component.requires,
            archive = component.archive.basename if component.archive else None,
            whole_archive = component.whole_archive.basename if component.whole_archive else None,
            shared_libraries = [file.basename for file in component.shared_libraries],
            link_flags = component.link_flags,
            link_options = component.link_options,
            defines = component.defines,
            include_dirs = component.include_dirs,
        ) for component in components],
        compiler = components[0].flags.compiler,
        compile_flags = components[0].flags.compile,
        link_flags = components[0].flags.link,
        compilation_mode = ctx.var["COMPILATION_MODE"],
        toolchain_template = ctx.attr.toolchain_template,
        processor = ctx.attr.processor,
        emulator = ctx.attr.emulator,
        linker_script = ctx.attr.linker_script,
    )))
    args.add("--components", description)
    inputs.append(description)
    args.add("--root", ctx.attr.root)
    for path in ctx.attr.sysroot_libraries:
        args.add("--sysroot_library", path)
    args.add("--out", out)
    ctx.actions.run(
        executable = ctx.executable._make_sdk,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = "PteforgeSdk",
        progress_message = "Packing the pteforge SDK %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_SDK_ATTRS = {
    "programs": attr.label_list(
        doc = "pte_export targets the SDK is built for: copied into share/pteforge/programs",
        cfg = "host",  # one export for every configuration (docs/targets.md)
    ),
    "kernel_reports": attr.label_list(
        doc = "what the kernel selection kept (operators and dtypes)",
        allow_files = True,
    ),
    "executorch_info": attr.label_list(
        doc = "the ExecuTorch runtime's version file (the wheel's version.py or the source tree's origin)",
        allow_files = True,
    ),
    "files": attr.label_keyed_string_dict(
        doc = "more files -> their path in the SDK ({name}: the file's own name)",
        allow_files = True,
    ),
    "root": attr.string(mandatory = True, doc = "the folder the archive unpacks to"),
    "triplet": attr.string(mandatory = True, doc = "the GNU triplet of the target"),
    "toolchain_template": attr.string(
        doc = "cross targets: the template (deploy/sdk/templates) of share/pteforge/toolchain.cmake",
    ),
    "processor": attr.string(doc = "CMAKE_SYSTEM_PROCESSOR of the toolchain file"),
    "emulator": attr.string(doc = "CMAKE_CROSSCOMPILING_EMULATOR of the toolchain file (this machine's qemu)"),
    "linker_script": attr.string(doc = "bare metal: the linker script's path in the SDK (given in `files`)"),
    "sysroot_libraries": attr.string_list(
        doc = "the C and C++ runtime to carry in lib/ (the Android bundle's route: absolute paths)",
    ),
    "_make_sdk": attr.label(default = "//deploy/sdk:make_sdk", executable = True, cfg = "host"),
    "_templates": attr.label(default = "//deploy/sdk:templates"),
}

def _cross_sdk_attrs():
    attrs = dict(_SDK_ATTRS)
    attrs.update(target_transition_attrs())
    attrs["components"] = attr.label_list(providers = [SdkComponentInfo], cfg = to_named_target, mandatory = True)
    # Chosen by the target's platform and runtime (deploy/sdk:executorch_info).
    attrs["executorch_info"] = attr.label_list(allow_files = True, cfg = to_named_target)
    attrs["kernel_reports"] = attr.label_list(allow_files = True, cfg = to_named_target)
    attrs["target"] = attr.string(mandatory = True, doc = "where the SDK's code runs (on_target_test's targets)")
    return attrs

def _host_sdk_attrs():
    attrs = dict(_SDK_ATTRS)
    attrs["components"] = attr.label_list(providers = [SdkComponentInfo], mandatory = True)
    attrs["target"] = attr.string(mandatory = True)
    return attrs

# For a cross target: the components are built for it through a transition (the same
# configuration as the images', the bundle's and the on-target tests', so nothing is
# compiled twice).
pteforge_cross_sdk = rule(
    implementation = _pteforge_sdk_impl,
    doc = "The SDK of `components`, built for `target`, as one .tar.",
    attrs = _cross_sdk_attrs(),
)

# For the host: built in the configuration the host's own tools are (a transition to the
# same platform would compile everything again in another output folder).
pteforge_sdk = rule(
    implementation = _pteforge_sdk_impl,
    doc = "The SDK of `components`, built for the host, as one .tar.",
    attrs = _host_sdk_attrs(),
)

def android_ndk_sdk(name, visibility = None, **kwargs):
    """pteforge_cross_sdk for Android arm64 (bionic, the NDK's clang) when $ANDROID_NDK_HOME
    names an NDK; otherwise a target Bazel skips, whose constraint's name says what to set
    (its parts are not analysed: the NDK's toolchain would fail without one).

    Args:
      name: the SDK.
      visibility: as usual.
      **kwargs: pteforge_cross_sdk's attributes, `target` excepted.
    """
    if ANDROID_NDK:
        pteforge_cross_sdk(name = name, target = "android_arm64", visibility = visibility, **kwargs)
    else:
        # (A filegroup cannot be incompatible in Bazel 4.2.3.)
        native.cc_library(name = name, target_compatible_with = [MISSING_ANDROID_NDK], visibility = visibility)
