"""Python rules: a script run by the build or by hand (py_script), a test module run by
pteforge.support.testing (py_unit_test).

    py_script(                           # fit_check.py, as //cc/embedded:fit_check
        name = "fit_check",
    )

    py_unit_test(                        # fold_test.py, with //python/pteforge:testing
        name = "fold_test",
        size = "small",
        deps = [":lower"],
    )
"""

def py_script(name, deps = [], **kwargs):
    """A py_binary of one file, <name>.py, on the project's Python 3.

    Args:
      name: the binary, and its file's stem.
      deps: the Python libraries it imports.
      **kwargs: passed to the py_binary (data, visibility, testonly, ...).
    """
    native.py_binary(
        name = name,
        srcs = [name + ".py"],
        python_version = "PY3",
        deps = deps,
        **kwargs
    )

def py_unit_test(name, size, deps = [], **kwargs):
    """A pytest module, <name>.py, whose main is pteforge.support.testing's (tests/ and the
    exporter's own tests all run that way: quiet, with the project's pytest options).

    Args:
      name: the test, and its file's stem.
      size: as py_test's; size with room for a loaded machine (importing torch alone can
        take 20 s).
      deps: the libraries it tests; //python/pteforge:testing is added.
      **kwargs: passed to the py_test (data, args, shard_count, tags, ...).
    """
    native.py_test(
        name = name,
        size = size,
        srcs = [name + ".py"],
        deps = deps + ["//python/pteforge:testing"],
        **kwargs
    )
