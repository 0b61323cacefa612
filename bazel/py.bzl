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
    # A test file without `testing.main(__file__)` under `if __name__ == "__main__":`
    # would run nothing and pass: the build stops instead.
    native.genrule(
        name = name + "_runs_its_tests",
        srcs = [name + ".py"],
        outs = [name + ".runs_its_tests"],
        cmd = ("grep -q 'testing.main(__file__)' $< && touch $@ || " +
               "{ echo \"$<: no testing.main(__file__) under if __name__ == '__main__': " +
               "as a py_test it would run no test and pass\" >&2; exit 1; }"),
        testonly = True,
        tags = kwargs.get("tags", []),
        visibility = ["//visibility:private"],
    )
    native.py_test(
        name = name,
        size = size,
        srcs = [name + ".py"],
        data = kwargs.pop("data", []) + [":" + name + "_runs_its_tests"],
        deps = deps + ["//python/pteforge:testing"],
        **kwargs
    )
