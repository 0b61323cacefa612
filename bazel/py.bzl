"""A Python script run by the build or by hand (a generator, a checker, a test helper).

    py_script(                           # fit_check.py, as //cc/embedded:fit_check
        name = "fit_check",
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
