"""The corpus: small stateful models written the way users write them.

Each entry stands for one pattern of keeping state in buffers shared between the
methods of one module. Every model is tiny (hidden sizes <= 16) so the whole corpus
exports in minutes; the build functions seed torch so weights are the same on every run.
The entries say what must happen (export succeeds on `backends`, or is refused with an
ExportError matching `refused`); corpus_test.py checks it. By theme:

  corpus_sources.py             where state comes from and what it holds
  corpus_writes.py              how state is written
  corpus_structure.py           how the module and its methods are laid out
  corpus_layers.py              state through layers (linear, conv, RNN cells, caches)
  written_arguments_models.py   methods that write their arguments; full-size slices
  corpus_other_projects.py      patterns from PyTorch's, ExecuTorch's and transformers' test suites
"""

from tests.corpus import (corpus_layers, corpus_other_projects, corpus_sources, corpus_structure, corpus_writes,
                          written_arguments_models)

CASES = (corpus_sources.CASES + corpus_writes.CASES + corpus_structure.CASES + corpus_layers.CASES
         + written_arguments_models.WRITTEN_ARGUMENT_CASES + corpus_other_projects.CASES)
