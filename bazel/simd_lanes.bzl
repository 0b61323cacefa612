"""Hand-vectorized C++ compiled once per lane count (cc/simd/vectors.h).

    simd_lanes_library(
        name = "attention_lanes",     # attention_lanes.h and attention_lanes.cc
        deps = [":attention_args"],
    )

declares `name`, a library whose source is compiled with 4 lanes on every target and,
on x86-64, a second time with 8 (PTEFORGE_SIMD_LANES=8, -mavx2 -mfma); the header
declares the source's functions in both namespaces (lanes4, lanes8), and a caller
picks one with simd::RunLanes() (cc/simd/lanes.h), which returns 8 only on x86-64
(where every such library links its eight-lane copy) when the CPU has AVX2 and FMA:
callers name lanes8:: under `#if defined(__x86_64__)`. -ffp-contract=fast lets the
eight-lane copy fuse a multiply and an add into one FMA (ISO C++'s default keeps them
apart). Also `<name>_lanes8_test`, which fails when the eight-lane copy defines a weak
symbol (cc/simd/no_weak_symbols.sh says why), and the two copies
`<name>_lanes4` and `<name>_lanes8` (with `<name>_lanes8_archive`, its archive).
"""

_X86_64 = "//toolchains:is_linux_x86_64"

def simd_lanes_library(name, deps = [], copts = []):
    """See the file's docstring.

    Args:
      name: the library, and its files' stem.
      deps: what the source uses besides //cc/simd:vectors.
      copts: the compiler flags of both copies.
    """
    native.cc_library(
        name = name + "_lanes4",
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        copts = copts,
        linkstatic = True,
        deps = deps + ["//cc/simd:vectors"],
    )
    native.cc_library(
        name = name + "_lanes8",
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        copts = copts + ["-DPTEFORGE_SIMD_LANES=8", "-mavx2", "-mfma", "-ffp-contract=fast"],
        linkstatic = True,
        target_compatible_with = ["@platforms//cpu:x86_64"],
        deps = deps + ["//cc/simd:vectors"],
    )
    # The archive as a file (a cc_library's own runfiles do not carry it).
    native.filegroup(
        name = name + "_lanes8_archive",
        srcs = [name + "_lanes8"],
    )
    native.sh_test(
        name = name + "_lanes8_test",
        size = "small",
        srcs = ["//cc/simd:no_weak_symbols.sh"],
        args = ["$(locations %s_lanes8_archive)" % name],
        data = [name + "_lanes8_archive"],
        target_compatible_with = ["@platforms//cpu:x86_64"],
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        linkstatic = True,
        deps = [name + "_lanes4", "//cc/simd:lanes"] + select({
            _X86_64: [name + "_lanes8"],
            "//conditions:default": [],
        }),
    )
