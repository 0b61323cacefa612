"""Marian architectures pteforge builds, and the limits a .pte is exported with."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class MarianSize:
    """The architecture of a random-weights checkpoint (a real checkpoint brings its own).

    Attributes:
      name: model name, shown by the translator.
      d_model, encoder_layers, decoder_layers, heads, ffn_dim, max_positions: as in
        transformers' MarianConfig.
      vocab_size: model vocabulary; None means the size of the generated vocab.json.
      spm_vocab: pieces per SentencePiece model trained on the repository's corpus.
      init_std: weight initialization scale. Larger than MarianConfig's 0.02 so that
        random logits are spread out and greedy/beam choices are not near-ties.
      eos_bias: added to the end-of-sentence logit, so random translations end at varied
        lengths and the search's handling of finished sentences is exercised.
    """

    name: str
    d_model: int
    encoder_layers: int
    decoder_layers: int
    heads: int
    ffn_dim: int
    max_positions: int
    vocab_size: int | None
    spm_vocab: int
    init_std: float = 0.1
    eos_bias: float = 3.0


# Helsinki-NLP/opus-mt-en-fr's architecture.
FULL = MarianSize(
    name="opus-mt-en-fr",
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    heads=8,
    ffn_dim=2048,
    max_positions=512,
    vocab_size=59514,
    spm_vocab=400,
    # With random weights this architecture either ends at once or never: 3.0 keeps
    # every output going (to max_length), so no output is empty.
    init_std=0.05,
    eos_bias=3.0,
)

# A small configuration for tests: the same code paths in seconds.
TINY = MarianSize(
    name="opus-mt-tiny",
    d_model=32,
    encoder_layers=2,
    decoder_layers=2,
    heads=4,
    ffn_dim=64,
    max_positions=64,
    vocab_size=None,
    spm_vocab=150,
    # Chosen so random outputs end at varied lengths (some at once, some midway, many
    # at max_length), which exercises every branch of beam search.
    init_std=0.3,
    eos_bias=4.5,
)

SIZES = {"full": FULL, "tiny": TINY}
