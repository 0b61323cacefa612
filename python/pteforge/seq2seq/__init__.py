"""pteforge.seq2seq: transformers encoder-decoders (T5, BART, Marian, M2M100, Whisper) as
encode / decode_step / reorder_cache programs sharing one cache (docs/seq2seq.md).

Public API:
  export_seq2seq_lm   an encoder-decoder to a verified .pte (export.py)
  seq2seq_exporter    the MultiMethodExporter behind it, to extend before exporting
  load_seq2seq        a seq2seq .pte in the Python runtime, generate()'s greedy and beam
                      search (generation.py, search.py)
  Seq2SeqWithCache    the exported module (cache.py)

Names load their modules on first use: importing the package does not import
transformers.
"""

from pteforge.support.lazy_names import lazy_names

__all__, __getattr__ = lazy_names(__name__, {
    "Seq2SeqWithCache": "pteforge.seq2seq.cache",
    "export_seq2seq_lm": "pteforge.seq2seq.export",
    "load_seq2seq": "pteforge.seq2seq.generation",
    "seq2seq_exporter": "pteforge.seq2seq.export",
})

