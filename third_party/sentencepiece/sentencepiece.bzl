"""Repository rule: SentencePiece's C++ library from its PyPI source distribution.

./bazelw downloads the pinned sdist (third_party/downloads.txt); this rule unpacks it
and adds config.h (which CMake would generate) and the BUILD overlay, so the library
compiles with whichever C++ toolchain the target needs (x86_64, aarch64).
"""

load("//third_party:downloads.bzl", "DOWNLOADS_ENV", "pinned_download")

_SDIST = "sentencepiece-0.2.0.tar.gz"

_CONFIG_H = """#ifndef CONFIG_H_
#define CONFIG_H_
#define VERSION "0.2.0"
#define PACKAGE "sentencepiece"
#define PACKAGE_STRING "sentencepiece"
#endif  // CONFIG_H_
"""

def _sentencepiece_impl(rctx):
    sdist = pinned_download(rctx, rctx.attr._pins, _SDIST)
    rctx.extract(sdist, stripPrefix = "sentencepiece-0.2.0/sentencepiece")
    rctx.file("src/config.h", _CONFIG_H)
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.template("BUILD.bazel", rctx.attr._overlay)

sentencepiece = repository_rule(
    implementation = _sentencepiece_impl,
    attrs = {
        "_overlay": attr.label(default = "//third_party/sentencepiece:sentencepiece.BUILD"),
        "_pins": attr.label(default = "//third_party:downloads.txt"),
    },
    environ = [DOWNLOADS_ENV],
)
