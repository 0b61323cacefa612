"""Keeps torch from evaluating type annotations on every kernel registration during an
export, with the same result.

torch's OperatorBase.py_impl defines a nested function annotated
`(fn: Callable[_P, _T]) -> Callable[_P, _T]`, and Python evaluates those annotations each
time the nested function is defined: every py_impl call builds two typing generics
(collections.abc's `Callable[...]`, about 6 µs each). torch.export's
run_decompositions calls py_impl about 6,000 times (for each of the ~1,000 preservable
CompositeImplicitAutograd operators, one registration per dispatch key it overrides for
the length of the call: `_override_composite_implicit_decomp`), and an export makes a few
run_decompositions calls per method. Alone that was 4% of the corpus's small exports,
but those typing objects are also what set off the full collections that
garbage_collection.py makes rarer: the two together took 44% off (docs/benchmarks.md).

unevaluated_annotations() compiles torch's own source of py_impl again with
`from __future__ import annotations` (PEP 563): annotations stay strings nobody reads, the
code is torch's, whatever its version. The programs are byte-identical with and without
it (shortcuts_test). A py_impl whose source is unavailable or that closes over variables
is left alone.
"""

import __future__
import contextlib
import inspect
import textwrap

import torch


def with_lazy_annotations(function):
    """`function` compiled again from its source with postponed annotations, in its own
    module's globals; None when that is not possible."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_freevars:
        return None
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None
    # Blank lines in front keep torch's line numbers in tracebacks.
    padded = "\n" * (code.co_firstlineno - 1) + source
    namespace: dict = {}
    try:
        compiled = compile(padded, code.co_filename, "exec", flags=__future__.annotations.compiler_flag,
                           dont_inherit=True)
        exec(compiled, function.__globals__, namespace)  # defines the function, nothing else
    except (SyntaxError, NameError):
        return None
    rebuilt = namespace.get(function.__name__)
    if rebuilt is None:
        return None
    rebuilt.__qualname__ = function.__qualname__
    rebuilt.__doc__ = function.__doc__
    return rebuilt


@contextlib.contextmanager
def unevaluated_annotations():
    """Within the block, OperatorBase.py_impl does not evaluate its annotations."""
    owner = torch._ops.OperatorBase
    original = vars(owner).get("py_impl")
    rebuilt = None if getattr(original, "_pteforge_lazy", False) else with_lazy_annotations(original)
    if rebuilt is None:
        yield  # another torch, or already inside the block
        return
    rebuilt._pteforge_lazy = True
    owner.py_impl = rebuilt
    try:
        yield
    finally:
        owner.py_impl = original
