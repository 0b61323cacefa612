"""pteforge.llm: transformers causal language models as prefill / decode_step programs
sharing one KV cache (docs/llm.md).

Public API:
  export_causal_lm    a causal LM to a verified .pte (export.py)
  causal_lm_exporter  the MultiMethodExporter behind it, to extend before exporting
  load_causal_lm      a causal-LM .pte in the Python runtime, greedy generation (generation.py)
  CacheFullError      a prefill or decode_step past max_seq_len
  CausalLmWithCache   the exported module: the model over transformers' StaticCache (static_cache.py)

Names load their modules on first use (as in pteforge/__init__.py): importing the
package does not import transformers.
"""

from pteforge.support.lazy_names import lazy_names

__all__, __getattr__ = lazy_names(__name__, {
    "CacheFullError": "pteforge.llm.generation",
    "CausalLmWithCache": "pteforge.llm.static_cache",
    "causal_lm_exporter": "pteforge.llm.export",
    "export_causal_lm": "pteforge.llm.export",
    "load_causal_lm": "pteforge.llm.generation",
})

