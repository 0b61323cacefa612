"""pte_kernels: the kernels of the ExecuTorch runtime from source that programs need.

    pte_kernels(
        name = "stateful_kernels",
        programs = ["//models:stateful_pte"],   # .pte files (or all_operators = True)
    )

gives a cc_library to link into a program built on the runtime from source (Cortex-M55,
or x86_64/aarch64 with --config=source_runtime; elsewhere it is incompatible, so a
host `bazel build //...` does not compile the kernels for nothing). program_kernels
picks the runtime's own: these on the runtime from source, the wheel's otherwise.
At build time,
select_kernels.py reads the programs' operator lists and runs ExecuTorch's codegen on
the selection: the generated registration references exactly those kernels, and only
the source files that define them are compiled (copies in <name>_registration/kernels,
a tree artifact; kernel_sources.py), with the kernels' shared code
(@executorch_source//:kernel_utils). The primitive operators come with the runtime on
Linux; on the Cortex-M55 this library registers those the programs use.
A program with a delegate (XNNPACK) or an operator that has no kernel fails the build
with a message that says which and what to do. Each kernel is compiled for the dtypes
its programs use only (kernel_dtypes.py: ExecuTorch's dtype-selective build, keyed by
file). `<name>_operators` is operators.txt, the list of registered operators;
`<name>_report` is kernels.json, each operator and the dtypes its kernel keeps, and the
primitive operators.

pteforge's own operators without CMSIS-NN (//cc/kernels:attention_op: an encoder-
decoder's cached attention; //cc/kernels:stft_op: a windowed DFT's magnitude;
//cc/kernels:lstm_op: an LSTM cell) are selected the same way. With `cmsis_nn = True`
(programs exported with backend="cortex_m"), pteforge's linear operators
(//cc/kernels: CMSIS-NN on the Cortex-M55) and ExecuTorch's Cortex-M operators
(@executorch_source//:cortex_m_ops) are too; the library then needs
PTEFORGE_CMSIS_NN_SRC on the Cortex-M55 and is skipped without it.
"""

load("@cmsis_nn//:defs.bzl", "CMSIS_NN_SOURCE", "MISSING_CMSIS_NN_SOURCE")
load("@executorch_source//:defs.bzl", "EXECUTORCH_SOURCE", "MISSING_EXECUTORCH_SOURCE")
load(":sdk_targets.bzl", "INCOMPATIBLE", "SOURCE_RUNTIME_SETTINGS")

# select_kernels.py's outputs: a registration per kernel library (pteforge's own: those
# a program uses of the ones without CMSIS-NN, e.g. seq2seq's cached attention) ...
_GENERATED = [
    library + "/" + name
    for library in ["portable", "quantized"]
    for name in ["RegisterCodegenUnboxedKernelsEverything.cpp", "NativeFunctions.h"]
] + ["pteforge/register.cc"]

# ... and with cmsis_nn, ExecuTorch's Cortex-M operators (and pteforge's on CMSIS-NN).
_GENERATED_CMSIS_NN = [
    "cortex_m/RegisterCodegenUnboxedKernelsEverything.cpp",
    "cortex_m/NativeFunctions.h",
]

def _kernel_registration_impl(ctx):
    generated = _GENERATED + (_GENERATED_CMSIS_NN if ctx.attr.cmsis_nn else [])
    sources = [ctx.actions.declare_file(ctx.label.name + "/" + name) for name in generated]
    kernel_copies = ctx.actions.declare_directory(ctx.label.name + "/kernels")
    prim_ops = ctx.actions.declare_file(ctx.label.name + "/prim_ops/register_prim_ops.cpp")
    operators = ctx.actions.declare_file(ctx.label.name + "/operators.txt")
    report = ctx.actions.declare_file(ctx.label.name + "/kernels.json")
    templates = ctx.files._templates
    arguments = [
        "--functions_yaml=" + ctx.file._functions_yaml.path,
        "--quantized_yaml=" + ctx.file._quantized_yaml.path,
        "--prim_ops=" + ctx.file._prim_ops.path,
        "--templates=" + templates[0].path,
        "--out_dir=" + operators.dirname,
    ]
    if ctx.attr.all_operators:
        arguments.append("--all_operators")
    cmsis_nn_inputs = []
    if ctx.attr.cmsis_nn:
        arguments.append("--cortex_m_yaml=" + ctx.file._cortex_m_yaml.path)
        cmsis_nn_inputs.append(ctx.file._cortex_m_yaml)
    arguments += ["--program=" + program.path for program in ctx.files.programs]
    kernel_files = ctx.actions.args()
    kernel_files.add_all(ctx.files._portable_sources, format_each = "--portable_source=%s")
    kernel_files.add_all(ctx.files._quantized_sources, format_each = "--quantized_source=%s")
    ctx.actions.run(
        executable = ctx.executable._select_kernels,
        arguments = arguments + [kernel_files],
        inputs = ctx.files.programs + templates + cmsis_nn_inputs + ctx.files._portable_sources +
                 ctx.files._quantized_sources + [
            ctx.file._functions_yaml,
            ctx.file._quantized_yaml,
            ctx.file._prim_ops,
        ],
        outputs = sources + [operators, report, kernel_copies, prim_ops],
        mnemonic = "PteKernels",
        progress_message = "Selecting the ExecuTorch kernels of %s" % ctx.label,
    )
    return [
        DefaultInfo(files = depset(sources + [kernel_copies])),
        OutputGroupInfo(operators = depset([operators]), report = depset([report]), prim_ops = depset([prim_ops])),
    ]

_kernel_registration = rule(
    implementation = _kernel_registration_impl,
    attrs = {
        "programs": attr.label_list(allow_files = [".pte"], cfg = "host"),
        "all_operators": attr.bool(),
        "cmsis_nn": attr.bool(),
        "_select_kernels": attr.label(
            default = "//third_party/executorch:select_kernels",
            executable = True,
            cfg = "host",  # one build for every configuration (embedded.bzl)
        ),
        "_templates": attr.label(default = "@executorch_source//:codegen_templates"),
        "_functions_yaml": attr.label(
            default = "@executorch_source//:portable_functions_yaml",
            allow_single_file = True,
        ),
        "_quantized_yaml": attr.label(
            default = "@executorch_source//:quantized_functions_yaml",
            allow_single_file = True,
        ),
        "_prim_ops": attr.label(
            default = "@executorch_source//:prim_ops_registration_source",
            allow_single_file = True,
        ),
        "_cortex_m_yaml": attr.label(
            default = "@executorch_source//:cortex_m_functions_yaml",
            allow_single_file = True,
        ),
        "_portable_sources": attr.label(default = "@executorch_source//:portable_kernel_sources"),
        "_quantized_sources": attr.label(default = "@executorch_source//:quantized_kernel_sources"),
    },
)

def pte_kernels(name, programs = [], all_operators = False, cmsis_nn = False, **kwargs):
    """A cc_library registering the kernels of `programs` (or of every operator).

    Args:
      name: the cc_library; `<name>_registration` is the generated code and
        `<name>_operators` the list of registered operators.
      programs: .pte files (pte_export targets) whose operators to register.
      all_operators: register every portable and quantized kernel instead.
      cmsis_nn: the programs were exported with backend="cortex_m": select pteforge's
        and ExecuTorch's Cortex-M operators too (needs PTEFORGE_CMSIS_NN_SRC).
      **kwargs: passed to the cc_library (visibility, testonly, ...).
    """
    if bool(programs) == all_operators:
        fail("pte_kernels(name = %r): give programs or all_operators = True" % name)
    _kernel_registration(
        name = name + "_registration",
        programs = programs,
        all_operators = all_operators,
        cmsis_nn = cmsis_nn,
        testonly = kwargs.get("testonly", False),
        # (Its inputs are filegroups, which cannot carry the missing trees' constraints.)
        target_compatible_with = _on_source_runtime() + ([] if EXECUTORCH_SOURCE else [MISSING_EXECUTORCH_SOURCE]) +
                                 ([] if not cmsis_nn or CMSIS_NN_SOURCE else [MISSING_CMSIS_NN_SOURCE]),
    )
    native.filegroup(
        name = name + "_operators",
        srcs = [":" + name + "_registration"],
        output_group = "operators",
        testonly = kwargs.get("testonly", False),
    )
    native.filegroup(
        name = name + "_report",
        srcs = [":" + name + "_registration"],
        output_group = "report",
        testonly = kwargs.get("testonly", False),
    )
    native.filegroup(
        name = name + "_prim_ops",
        srcs = [":" + name + "_registration"],
        output_group = "prim_ops",
        testonly = kwargs.get("testonly", False),
    )
    native.cc_library(
        name = name,
        # On the Cortex-M55, whose runtime registers no primitive operator, the programs'
        # ones too (select_kernels.py).
        srcs = [":" + name + "_registration"] + select({
            "//toolchains:is_cortex_m55": [":" + name + "_prim_ops"],
            "//conditions:default": [],
        }),
        # The kernels' own flags (source.BUILD's _COPTS).
        copts = [
            "-w",
            "-Wno-psabi",
            "-O2",
            "-DNDEBUG",
        ],
        # The kernel copies' dtype predicate (selected_op_variants.h, kernel_dtypes.py).
        includes = [name + "_registration/kernels"],
        linkstatic = True,
        # The registration runs from a static initializer that nothing references.
        alwayslink = True,
        deps = [
            "//cc/kernels:attention_op",
            "//cc/kernels:boxed",
            "//cc/kernels:lstm_op",
            "//cc/kernels:stft_op",
            "@executorch_source//:kernel_utils",
            "@executorch_source//:runtime",
        ] + select({
            "//toolchains:is_cortex_m55": ["@executorch_source//:prim_ops_functions"],
            "//conditions:default": [],
        }) + ([
            "//cc/kernels:ops",
            "@executorch_source//:cortex_m_ops",
        ] if cmsis_nn else []),
        target_compatible_with = _on_source_runtime(),
        **kwargs
    )

def _on_source_runtime():
    compatible = {setting: [] for setting in SOURCE_RUNTIME_SETTINGS}
    compatible["//conditions:default"] = INCOMPATIBLE
    return select(compatible)

def program_kernels(name, programs, **kwargs):
    """The kernels `programs` need, on whichever runtime the program links.

    On the runtime from source: exactly theirs (pte_kernels, `<name>_selected`). On the
    wheel's: all of its kernels, the XNNPACK delegate and pteforge's own kernels.

    Args:
      name: the cc_library.
      programs: .pte files (pte_export targets).
      **kwargs: passed to the cc_libraries (visibility, testonly, ...).
    """
    pte_kernels(name = name + "_selected", programs = programs, **kwargs)
    choice = {setting: [":" + name + "_selected"] for setting in SOURCE_RUNTIME_SETTINGS}
    choice["//conditions:default"] = ["//cc/runtime:all_kernels"]
    native.cc_library(name = name, deps = select(choice), **kwargs)
